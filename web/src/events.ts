// The live event stream (GET /notifications/events). One stream per signed-in
// tab; features subscribe to the event types they show.
import { signal } from '@preact/signals';
import { queryString, type TokenSource } from './api';

/** StreamEvent is one server-sent event: its id, type and decoded data. */
export interface StreamEvent {
  id: string;
  type: string;
  data: unknown;
}

export type StreamStatus = 'off' | 'connecting' | 'live' | 'reconnecting';

type Handler = (ev: StreamEvent) => void;

const maxBackoff = 30_000;

/**
 * EventStream keeps an EventSource open while started. EventSource cannot
 * send headers, so the token goes in the access_token query parameter. The
 * browser would reconnect by itself, but with the URL it started with,
 * whose token may have expired (the server ends the stream when it does):
 * so on any error the stream is closed and reopened here with a fresh token
 * and last_event_id, the id of the last event received, and the server
 * replays exactly what was missed.
 */
export class EventStream {
  readonly status = signal<StreamStatus>('off');
  private handlers = new Map<string, Set<Handler>>();
  private openHandlers = new Set<(resumed: boolean) => void>();
  private source: EventSource | null = null;
  private lastId: string | null = null;
  private backoff = 1000;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;

  constructor(private readonly token: TokenSource) {}

  /** on calls handler for every event of type; it returns the unsubscribe function. */
  on(type: string, handler: Handler): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
      this.source?.addEventListener(type, this.dispatch);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /** onOpen calls handler each time the stream (re)opens; resumed is false when events may have been missed (first open). */
  onOpen(handler: (resumed: boolean) => void): () => void {
    this.openHandlers.add(handler);
    return () => this.openHandlers.delete(handler);
  }

  start() {
    if (this.status.value !== 'off') return;
    this.status.value = 'connecting';
    void this.open();
  }

  stop() {
    this.generation++;
    clearTimeout(this.retry);
    this.source?.close();
    this.source = null;
    this.lastId = null;
    this.backoff = 1000;
    this.status.value = 'off';
  }

  private async open() {
    const gen = this.generation;
    let token: string;
    try {
      token = await this.token();
    } catch {
      // Signed out meanwhile, or the token cannot be renewed: Auth ends the session.
      if (gen === this.generation) this.reconnectLater();
      return;
    }
    if (gen !== this.generation) return;
    const resumed = this.lastId !== null;
    const es = new EventSource(`/notifications/events?${queryString({ access_token: token, last_event_id: this.lastId })}`);
    this.source = es;
    for (const type of this.handlers.keys()) es.addEventListener(type, this.dispatch);
    es.onopen = () => {
      this.backoff = 1000;
      this.status.value = 'live';
      for (const h of this.openHandlers) h(resumed);
    };
    es.onerror = () => {
      if (this.source !== es) return;
      es.close();
      this.source = null;
      this.status.value = 'reconnecting';
      this.reconnectLater();
    };
  }

  private reconnectLater() {
    const wait = this.backoff * (0.75 + Math.random() / 2);
    this.backoff = Math.min(maxBackoff, this.backoff * 2);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.open(), wait);
  }

  private dispatch = (e: Event) => {
    const m = e as MessageEvent<string>;
    if (m.lastEventId) this.lastId = m.lastEventId;
    let data: unknown;
    try {
      data = JSON.parse(m.data);
    } catch {
      return;
    }
    const ev = { id: m.lastEventId, type: m.type, data };
    for (const h of this.handlers.get(m.type) ?? []) h(ev);
  };
}
