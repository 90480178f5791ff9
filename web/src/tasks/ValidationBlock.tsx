import { formatBytes, formatDateTime, listOf, t, type MessageKey } from '../i18n';
import type { TaskDetail } from '../types';

type Validation = NonNullable<TaskDetail['validation']>;

/**
 * ValidationBlock is how a task was validated: by whom and when, the notes
 * and attachments, who the e-mail went to and what became of it. The task
 * view reloads it on the validation's events, so the e-mail's status is
 * live.
 */
export function ValidationBlock({ validation: v }: { validation: Validation }) {
  const email = v.email;
  return (
    <section class="card" aria-labelledby="validation-title" data-testid="validation">
      <h2 id="validation-title">{t('validation.title')}</h2>
      <dl class="facts">
        <div>
          <dt>{t('validation.by')}</dt>
          <dd>{v.validator_name || v.validator_id}</dd>
        </div>
        <div>
          <dt>{t('validation.at')}</dt>
          <dd>{formatDateTime(v.validated_at)}</dd>
        </div>
        <div>
          <dt>{t('validation.revision')}</dt>
          <dd>{v.audit_revision}</dd>
        </div>
        <div>
          <dt>{t('validate.sentTo')}</dt>
          <dd data-testid="validation-sent-to">{listOf(v.sent_to ?? [])}</dd>
        </div>
        {v.bcc && v.bcc.length > 0 && (
          <div>
            <dt>{t('validate.bcc')}</dt>
            <dd>{listOf(v.bcc)}</dd>
          </div>
        )}
        <div>
          <dt>{t('validation.email')}</dt>
          <dd data-testid="validation-email">
            <span class={`badge email-${email.status}`}>{t(`emailStatus.${email.status}` as MessageKey)}</span>{' '}
            <span class="muted small">
              {t('validation.attempts', { attempts: email.attempts })}
              {email.sent_at && `, ${t('validation.sentAt', { time: formatDateTime(email.sent_at) })}`}
            </span>
            {email.error && <p class="small">{email.error}</p>}
          </dd>
        </div>
      </dl>
      <h3>{t('validation.notes')}</h3>
      <p class="notes" data-testid="validation-notes">
        {v.notes}
      </p>
      {v.attachments && v.attachments.length > 0 && (
        <>
          <h3>{t('validation.attachments')}</h3>
          <ul data-testid="validation-attachments">
            {v.attachments.map((a) => (
              <li key={a.sha256 + a.name}>
                {a.name} <span class="muted small">({formatBytes(a.size)})</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
