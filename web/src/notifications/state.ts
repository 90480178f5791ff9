// The signed-in user's notifications as the dashboard holds them: a snapshot
// of the newest ones (GET /notifications) kept current by the event stream.
// Pure functions, so the ordering rules are tested on their own.
import { listed, type Notification, type NotificationPage } from '../types';

export interface NotificationsState {
  /** items are the loaded notifications, newest first. */
  items: Notification[];
  total: number;
  unread: number;
}

export const emptyState: NotificationsState = { items: [], total: 0, unread: 0 };

export type NotificationEvent =
  | { type: 'notification.created' | 'notification.updated'; data: Notification }
  | { type: 'notification.deleted'; data: { id: string; user_id: string | null; is_global: boolean } }
  | { type: 'notification.cleared'; data: { user_id: string; deleted: number } };

export const notificationEventTypes = [
  'notification.created',
  'notification.updated',
  'notification.deleted',
  'notification.cleared',
] as const;

/**
 * Applied is a state after an event. stale means the counts could not be
 * kept exact from what is loaded (the event concerns a notification beyond
 * the loaded ones): the caller reloads the snapshot.
 */
export interface Applied {
  state: NotificationsState;
  stale: boolean;
}

const newestFirst = (a: Notification, b: Notification) =>
  a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1;

/**
 * applyEvent returns s after ev. Each event carries the whole notification
 * as it is after the change, so applying every event since a snapshot, in
 * order, on top of it gives the current state even when the snapshot
 * already included some of them.
 */
export function applyEvent(s: NotificationsState, ev: NotificationEvent): Applied {
  switch (ev.type) {
    case 'notification.created':
    case 'notification.updated': {
      const n = ev.data;
      const prev = s.items.find((x) => x.id === n.id);
      if (!prev) {
        if (ev.type === 'notification.updated') return { state: s, stale: true };
        return {
          state: {
            items: [...s.items, n].sort(newestFirst),
            total: s.total + 1,
            unread: s.unread + (n.read ? 0 : 1),
          },
          stale: false,
        };
      }
      return {
        state: {
          items: s.items.map((x) => (x.id === n.id ? n : x)),
          total: s.total,
          unread: s.unread + (prev.read ? 1 : 0) - (n.read ? 1 : 0),
        },
        stale: false,
      };
    }
    case 'notification.deleted': {
      const prev = s.items.find((x) => x.id === ev.data.id);
      if (!prev) return { state: s, stale: true };
      return {
        state: {
          items: s.items.filter((x) => x.id !== ev.data.id),
          total: s.total - 1,
          unread: s.unread - (prev.read ? 0 : 1),
        },
        stale: false,
      };
    }
    case 'notification.cleared': {
      // Only the user's own ones go; global ones stay. The unread count of
      // what remains is exact only when everything was loaded.
      const items = s.items.filter((x) => x.is_global);
      const complete = s.items.length === s.total;
      return {
        state: { items, total: complete ? items.length : s.total, unread: items.filter((x) => !x.read).length },
        stale: !complete,
      };
    }
  }
}

/** fromPage is the state a snapshot gives. */
export function fromPage(p: NotificationPage): NotificationsState {
  return { items: (p.items ?? []).filter(listed), total: p.total, unread: p.unread };
}

/** appendPage adds an older page to s, skipping what s already has. */
export function appendPage(s: NotificationsState, p: NotificationPage): NotificationsState {
  const have = new Set(s.items.map((x) => x.id));
  return { items: [...s.items, ...(p.items ?? []).filter(listed).filter((x) => !have.has(x.id))], total: p.total, unread: p.unread };
}
