import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { useApp } from '../state';
import { ConfirmDialog, ErrorMessage, Loading, PageHeader, useAction } from '../ui';
import { StreamStatus } from './Bell';
import { NotificationItem } from './NotificationItem';

/** NotificationsPage lists every notification of the user, live, with delete all. */
export function NotificationsPage() {
  const app = useApp();
  const store = app.notifications;
  const { items, total, unread } = store.state.value;
  const [confirming, setConfirming] = useState(false);
  const { busy, run } = useAction();
  const own = items.filter((n) => !n.is_global).length;

  const deleteAll = async () => {
    setConfirming(false);
    await run(
      () => store.removeAll(),
      (count) => t('notif.deletedAll', { count }),
    );
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('notif.title')}>
        <StreamStatus />
        <button
          type="button"
          class="button button-danger"
          disabled={busy || (items.length === total && own === 0)}
          onClick={() => setConfirming(true)}
        >
          {t('notif.deleteAll')}
        </button>
      </PageHeader>
      {store.error.value ? (
        <ErrorMessage error={store.error.value} onRetry={() => void store.load()} />
      ) : !store.loaded.value ? (
        <Loading />
      ) : (
        <>
          <p class="muted" aria-live="polite">
            {t('notif.summary', { unread, total })}
          </p>
          {items.length === 0 ? (
            <p class="empty">{t('notif.empty')}</p>
          ) : (
            <ul class="notifications notifications-page">
              {items.map((n) => (
                <NotificationItem key={n.id} n={n} />
              ))}
            </ul>
          )}
          {items.length < total && (
            <button type="button" class="button" disabled={busy} onClick={() => void run(() => store.loadMore())}>
              {t('app.loadMore')}
            </button>
          )}
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title={t('notif.deleteAllTitle')}
        confirm={t('notif.deleteAllConfirm')}
        danger
        onConfirm={() => void deleteAll()}
        onClose={() => setConfirming(false)}
      >
        <p>{t('notif.deleteAllBody')}</p>
      </ConfirmDialog>
    </section>
  );
}
