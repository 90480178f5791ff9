import { useId } from 'preact/hooks';
import { t } from '../i18n';
import { Link } from '../router';
import { usePopover } from '../shell/usePopover';
import { useApp } from '../state';
import { ErrorMessage, Loading } from '../ui';
import { NotificationItem } from './NotificationItem';

const shown = 8;

/** Bell is the unread count in the header and a panel with the newest notifications. */
export function Bell() {
  const app = useApp();
  const store = app.notifications;
  const { open, setOpen, root, button } = usePopover();
  const panel = useId();
  const { items, unread } = store.state.value;
  const label = unread > 0 ? t('notif.bellUnread', { count: unread }) : t('notif.bell');
  return (
    <div class="popover-root" ref={root}>
      <button
        ref={button}
        type="button"
        class="bell"
        aria-expanded={open}
        aria-controls={panel}
        aria-label={label}
        title={label}
        onClick={() => setOpen(!open)}
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" width="22" height="22">
          <path
            fill="currentColor"
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
          />
        </svg>
        {unread > 0 && (
          <span class="bell-count" data-testid="unread-count" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      <div id={panel} class="popover bell-panel" hidden={!open} role="region" aria-label={t('notif.title')}>
        <div class="bell-head">
          <h2>{t('notif.title')}</h2>
          <StreamStatus />
        </div>
        {store.error.value ? (
          <ErrorMessage error={store.error.value} onRetry={() => void store.load()} />
        ) : !store.loaded.value ? (
          <Loading />
        ) : items.length === 0 ? (
          <p class="empty">{t('notif.empty')}</p>
        ) : (
          <ul class="notifications">
            {items.slice(0, shown).map((n) => (
              <NotificationItem key={n.id} n={n} compact />
            ))}
          </ul>
        )}
        <p class="bell-foot">
          <Link href="/app/notifications" onClick={() => setOpen(false)}>
            {t('notif.seeAll')}
          </Link>
        </p>
      </div>
    </div>
  );
}

/** StreamStatus says whether live updates are flowing. */
export function StreamStatus() {
  const app = useApp();
  const s = app.events.status.value;
  if (s === 'off') return null;
  const text = s === 'live' ? t('notif.live') : s === 'connecting' ? t('notif.connecting') : t('notif.reconnecting');
  return (
    <span class={`stream stream-${s}`} role="status">
      <span class="dot" aria-hidden="true" />
      {text}
    </span>
  );
}
