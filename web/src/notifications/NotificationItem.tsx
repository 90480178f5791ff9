import { t, type MessageKey } from '../i18n';
import { Link } from '../router';
import { useApp } from '../state';
import { atLeast, type Notification } from '../types';
import { Ago, useAction } from '../ui';
import { notificationHref } from './link';

const icons = { success: '✓', info: 'i', warning: '!', error: '×' } as const;

/**
 * EvaluationActions are what an agent does with their validated evaluation,
 * from the notification that tells them of it: acknowledge it here, or
 * open the task to dispute it (its dispute dialog opens).
 */
function EvaluationActions({ n, task }: { n: Notification; task: string }) {
  const app = useApp();
  const { busy, run } = useAction();
  const acknowledge = async () => {
    await app.api.post('/tasks/{uuid}/acknowledgement', { params: { path: { uuid: task } } });
    if (!n.read) await app.notifications.setRead(n, true);
  };
  return (
    <p class="notification-evaluation form-actions" data-testid="evaluation-actions">
      <button
        type="button"
        class="button button-small"
        disabled={busy}
        onClick={() => void run(acknowledge, () => t('feedback.acknowledgedToast'))}
      >
        {t('feedback.acknowledge')}
      </button>
      <Link class="button button-small button-primary" href={`/app/tasks/${encodeURIComponent(task)}?feedback=dispute`}>
        {t('feedback.dispute')}
      </Link>
    </p>
  );
}

/** NotificationItem is one notification with its actions: mark read or unread, delete. */
export function NotificationItem({ n, compact }: { n: Notification; compact?: boolean }) {
  const app = useApp();
  const { busy, run } = useAction();
  const admin = atLeast(app.profile.value?.role ?? 'none', 'admin');
  const canDelete = !n.is_global || admin; // only admins delete a notification for everyone
  const target = n.link ? notificationHref(n.link) : null;
  return (
    <li class={`notification variant-${n.variant}${n.read ? '' : ' unread'}`} data-id={n.id}>
      <span class="variant-icon" aria-hidden="true">
        {icons[n.variant] ?? 'i'}
      </span>
      <div class="notification-body">
        <p class="notification-text">
          <span class="sr-only">{t(`variant.${n.variant}` as MessageKey)}: </span>
          {n.text}
        </p>
        <p class="notification-meta small muted">
          {!n.read && <span class="badge badge-unread">{t('notif.unread')}</span>}
          {n.is_global && <span class="badge">{t('notif.global')}</span>}
          <Ago at={n.created_at} />
          {target?.internal && <Link href={target.href}>{t('notif.open')}</Link>}
          {target && !target.internal && (
            <a href={target.href} rel="noopener noreferrer" target="_blank">
              {t('notif.open')}
            </a>
          )}
          {n.link && !target && <span class="notification-link">{n.link}</span>}
        </p>
        {n.kind === 'evaluation' && n.task_uuid && <EvaluationActions n={n} task={n.task_uuid} />}
      </div>
      <div class={compact ? 'notification-actions compact' : 'notification-actions'}>
        <button
          type="button"
          class="button button-small"
          disabled={busy}
          onClick={() => void run(() => app.notifications.setRead(n, !n.read))}
        >
          {n.read ? t('notif.markUnread') : t('notif.markRead')}
        </button>
        {canDelete && (
          <button
            type="button"
            class="button button-small button-quiet"
            disabled={busy}
            onClick={() => void run(() => app.notifications.remove(n))}
          >
            {t('notif.delete')}
          </button>
        )}
      </div>
    </li>
  );
}
