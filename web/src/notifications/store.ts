// NotificationsStore: the bell's and the notifications page's data, live.
import { signal } from '@preact/signals';
import { errorMessage, type Api } from '../api';
import type { EventStream } from '../events';
import { listed, type Notification } from '../types';
import {
  appendPage,
  applyEvent,
  emptyState,
  fromPage,
  notificationEventTypes,
  type NotificationEvent,
  type NotificationsState,
} from './state';

const pageSize = 50;

export class NotificationsStore {
  readonly state = signal<NotificationsState>(emptyState);
  readonly loaded = signal(false);
  /** error is why the list could not be loaded (shown in place of it). */
  readonly error = signal<string | null>(null);

  private userId = '';
  private unsubscribe: (() => void)[] = [];
  /** queue holds events that arrive while a snapshot loads; they are applied on top of it. */
  private queue: NotificationEvent[] | null = null;
  private resyncTimer: ReturnType<typeof setTimeout> | undefined;
  /** again asks for another snapshot once the one loading now is done (the stream opened meanwhile). */
  private again = false;
  /** deleted are the ids this tab deleted: their deletion may arrive twice (answer and event). */
  private deleted = new Set<string>();

  constructor(
    private readonly api: Api,
    private readonly events: EventStream,
  ) {}

  /**
   * start follows userId's notifications: a snapshot is loaded at once (so
   * the list shows even if the stream cannot connect) and again whenever the
   * stream opens without resuming, since events may have been missed.
   */
  start(userId: string) {
    this.userId = userId;
    for (const type of notificationEventTypes) {
      this.unsubscribe.push(this.events.on(type, (ev) => this.receive(ev as unknown as NotificationEvent)));
    }
    this.unsubscribe.push(
      this.events.onOpen((resumed) => {
        if (!resumed) void this.load();
      }),
    );
    void this.load();
  }

  stop() {
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    clearTimeout(this.resyncTimer);
    this.queue = null;
    this.again = false;
    this.deleted.clear();
    this.state.value = emptyState;
    this.loaded.value = false;
    this.error.value = null;
  }

  /** load replaces the state with a fresh snapshot, then applies the events that came meanwhile. */
  async load() {
    if (this.queue) {
      // One snapshot at a time; this one may predate what the caller needs.
      this.again = true;
      return;
    }
    this.queue = [];
    try {
      const page = await this.api.get('/notifications', { params: { query: { limit: pageSize } } });
      let s = fromPage(page);
      for (const ev of this.queue) s = applyEvent(s, ev).state;
      this.state.value = s;
      this.loaded.value = true;
      this.error.value = null;
    } catch (err) {
      this.error.value = errorMessage(err);
    } finally {
      this.queue = null;
      if (this.again) {
        this.again = false;
        void this.load();
      }
    }
  }

  /** loadMore appends the next older page. */
  async loadMore() {
    const page = await this.api.get('/notifications', {
      params: {
        query: {
          limit: pageSize,
          skip: this.state.value.items.length,
        },
      },
    });
    this.state.value = appendPage(this.state.value, page);
  }

  async setRead(n: Notification, read: boolean) {
    const updated = await this.api.patch('/notifications/{id}', { params: { path: { id: n.id } }, body: { read } });
    if (listed(updated)) this.apply({ type: 'notification.updated', data: updated });
  }

  async remove(n: Notification) {
    this.deleted.add(n.id);
    await this.api.delete('/notifications/{id}', { params: { path: { id: n.id } } });
    this.apply({ type: 'notification.deleted', data: { id: n.id, user_id: n.user_id, is_global: n.is_global } });
  }

  /** removeAll deletes all of the user's own notifications and returns how many went. */
  async removeAll(): Promise<number> {
    const res = await this.api.delete('/notifications', { params: { query: { user_id: this.userId } } });
    this.apply({ type: 'notification.cleared', data: { user_id: this.userId, deleted: res.deleted } });
    return res.deleted;
  }

  private receive(ev: NotificationEvent) {
    if (this.queue) {
      this.queue.push(ev);
      return;
    }
    this.apply(ev);
  }

  // The answers of our own calls are applied at once (the stream brings the
  // same change a moment later, which changes nothing).
  private apply(ev: NotificationEvent) {
    if (ev.type === 'notification.deleted' && this.deleted.has(ev.data.id) && !this.state.value.items.some((x) => x.id === ev.data.id)) {
      return; // already gone
    }
    const { state, stale } = applyEvent(this.state.value, ev);
    this.state.value = state;
    if (stale) {
      clearTimeout(this.resyncTimer);
      this.resyncTimer = setTimeout(() => void this.load(), 200);
    }
  }
}
