import { describe, expect, it } from 'vitest';
import type { Notification } from '../types';
import { appendPage, applyEvent, fromPage, type NotificationEvent, type NotificationsState } from './state';

const note = (id: string, minute: number, extra: Partial<Notification> = {}): Notification => ({
  id,
  user_id: 'maria',
  is_global: false,
  text: `note ${id}`,
  variant: 'info',
  read: false,
  created_at: `2026-11-01T10:${String(minute).padStart(2, '0')}:00Z`,
  ...extra,
});

const state = (items: Notification[], total = items.length): NotificationsState => ({
  items,
  total,
  unread: items.filter((n) => !n.read).length + (total - items.length),
});

describe('applyEvent', () => {
  it('adds a created notification in date order and counts it', () => {
    const { state: s, stale } = applyEvent(state([note('b', 2), note('a', 1, { read: true })]), {
      type: 'notification.created',
      data: note('c', 3),
    });
    expect(stale).toBe(false);
    expect(s.items.map((n) => n.id)).toEqual(['c', 'b', 'a']);
    expect([s.total, s.unread]).toEqual([3, 2]);
  });

  it('keeps counts when a read toggles', () => {
    const start = state([note('a', 1)]);
    const read = applyEvent(start, { type: 'notification.updated', data: note('a', 1, { read: true }) }).state;
    expect([read.total, read.unread]).toEqual([1, 0]);
    const again = applyEvent(read, { type: 'notification.updated', data: note('a', 1, { read: true }) }).state;
    expect(again.unread).toBe(0);
    const unread = applyEvent(again, { type: 'notification.updated', data: note('a', 1) }).state;
    expect(unread.unread).toBe(1);
  });

  it('removes a deleted notification and its unread count', () => {
    const { state: s } = applyEvent(state([note('a', 1), note('b', 2, { read: true })]), {
      type: 'notification.deleted',
      data: { id: 'a', user_id: 'maria', is_global: false },
    });
    expect(s.items.map((n) => n.id)).toEqual(['b']);
    expect([s.total, s.unread]).toEqual([1, 0]);
  });

  it('asks for a reload when an event is about a notification that is not loaded', () => {
    const partial = state([note('a', 1)], 5);
    expect(applyEvent(partial, { type: 'notification.updated', data: note('z', 0, { read: true }) }).stale).toBe(true);
    expect(applyEvent(partial, { type: 'notification.deleted', data: { id: 'z', user_id: 'maria', is_global: false } }).stale).toBe(true);
    expect(applyEvent(partial, { type: 'notification.cleared', data: { user_id: 'maria', deleted: 4 } }).stale).toBe(true);
  });

  it('clears the own notifications and keeps the global ones', () => {
    const g = note('g', 5, { user_id: null, is_global: true });
    const { state: s, stale } = applyEvent(state([g, note('a', 1), note('b', 2, { read: true })]), {
      type: 'notification.cleared',
      data: { user_id: 'maria', deleted: 2 },
    });
    expect(stale).toBe(false);
    expect(s.items).toEqual([g]);
    expect([s.total, s.unread]).toEqual([1, 1]);
  });

  it('ends in the current state when the snapshot already had some of the events', () => {
    // Events since the stream opened: a created, read, unread, then another created and deleted.
    const events: NotificationEvent[] = [
      { type: 'notification.created', data: note('a', 1) },
      { type: 'notification.updated', data: note('a', 1, { read: true }) },
      { type: 'notification.updated', data: note('a', 1) },
      { type: 'notification.created', data: note('b', 2) },
      { type: 'notification.deleted', data: { id: 'b', user_id: 'maria', is_global: false } },
    ];
    // Whichever point the snapshot was taken at, replaying every event on it gives the same result.
    const snapshots = [
      fromPage({ items: [], total: 0, unread: 0, skip: 0, limit: 50 }),
      fromPage({ items: [note('a', 1, { read: true })], total: 1, unread: 0, skip: 0, limit: 50 }),
      fromPage({ items: [note('b', 2), note('a', 1)], total: 2, unread: 2, skip: 0, limit: 50 }),
      fromPage({ items: [note('a', 1)], total: 1, unread: 1, skip: 0, limit: 50 }),
    ];
    for (const snap of snapshots) {
      const end = events.reduce((s, ev) => applyEvent(s, ev).state, snap);
      expect(end.items.map((n) => [n.id, n.read])).toEqual([['a', false]]);
      expect([end.total, end.unread]).toEqual([1, 1]);
    }
  });
});

describe('appendPage', () => {
  it('adds older notifications once', () => {
    const s = appendPage(state([note('c', 3), note('b', 2)], 3), {
      items: [note('b', 2), note('a', 1)],
      total: 3,
      unread: 3,
      skip: 1,
      limit: 2,
    });
    expect(s.items.map((n) => n.id)).toEqual(['c', 'b', 'a']);
  });
});
