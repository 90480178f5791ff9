import { useState } from 'preact/hooks';
import { formatDateTime, t } from '../i18n';
import { useApp } from '../state';
import { atLeast, type TaskDetail } from '../types';
import type { components } from '../openapi';
import { ErrorMessage, useAction } from '../ui';

/**
 * PrivacyBlock is a task's legal hold and what retention or an erasure
 * deleted of it; an admin places and lifts the hold here.
 */
export function PrivacyBlock({ task, onChanged }: { task: TaskDetail; onChanged: () => void }) {
  const app = useApp();
  const { busy, run } = useAction();
  const [reason, setReason] = useState('');
  const p = task.privacy;
  const hold = p.legal_hold;
  const admin = atLeast(app.profile.value?.role ?? 'none', 'admin');
  const holdPath = { params: { path: { uuid: task.uuid } } };
  const deleted = [
    p.recording_deleted_at && t('task.recordingDeleted', { at: formatDateTime(p.recording_deleted_at) }),
    p.transcript_deleted_at && t('task.transcriptDeleted', { at: formatDateTime(p.transcript_deleted_at) }),
    p.audit_deleted_at && t('task.auditDeleted', { at: formatDateTime(p.audit_deleted_at) }),
  ].filter(Boolean);

  const place = async (e: Event) => {
    e.preventDefault();
    const done = await run(
      () => app.api.put('/tasks/{uuid}/legal-hold', { ...holdPath, body: { reason: reason.trim() } }),
      () => t('task.holdPlaced'),
    );
    if (done !== undefined) {
      setReason('');
      onChanged();
    }
  };
  const lift = async () => {
    const done = await run(
      () => app.api.delete('/tasks/{uuid}/legal-hold', holdPath),
      () => t('task.holdLifted'),
    );
    if (done !== undefined) onChanged();
  };

  return (
    <section class="card" aria-labelledby="privacy-title" data-testid="privacy">
      <h2 id="privacy-title">{t('task.privacy')}</h2>
      <p data-testid="legal-hold" class={hold ? 'alert alert-warning' : 'muted'}>
        {hold ? t('task.heldBy', { at: formatDateTime(hold.placed_at), by: hold.placed_by, reason: hold.reason }) : t('task.notHeld')}
      </p>
      {deleted.map((line) => (
        <p key={line} class="muted">
          {line}
        </p>
      ))}
      <Readers uuid={task.uuid} />
      {admin &&
        (hold ? (
          <button type="button" class="button" disabled={busy} onClick={() => void lift()}>
            {t('task.liftHold')}
          </button>
        ) : (
          <form class="filter-row" onSubmit={(e) => void place(e)}>
            <div class="field">
              <label for="hold-reason">{t('task.holdReason')}</label>
              <input id="hold-reason" required maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
            </div>
            <div class="filter-buttons">
              <button type="submit" class="button button-primary" disabled={busy || reason.trim() === ''}>
                {t('task.placeHold')}
              </button>
            </div>
          </form>
        ))}
    </section>
  );
}

type AccessRecord = components['schemas']['AccessRecord'];

/**
 * Readers shows, when asked, who opened the task (its access record, the
 * latest 20): analysts see any task's, agents their own when the campaign
 * lets them (the API refuses otherwise, and says why).
 */
function Readers({ uuid }: { uuid: string }) {
  const app = useApp();
  const [records, setRecords] = useState<AccessRecord[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    setError(null);
    try {
      const page = await app.api.get('/tasks/{uuid}/access-records', { params: { path: { uuid }, query: { limit: 20 } } });
      setRecords(page.items);
    } catch (err) {
      setError(err);
    }
  };
  if (error !== null) return <ErrorMessage error={error} />;
  if (records === null)
    return (
      <p>
        <button type="button" class="button" onClick={() => void load()}>
          {t('task.whoOpened')}
        </button>
      </p>
    );
  return (
    <div class="table-wrap">
      <table class="table" data-testid="task-readers">
        <caption class="sr-only">{t('task.whoOpened')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('privacy.at')}</th>
            <th scope="col">{t('privacy.user')}</th>
            <th scope="col">{t('privacy.kind')}</th>
          </tr>
        </thead>
        <tbody>
          {records.map((a) => (
            <tr key={a.id}>
              <td>{formatDateTime(a.at)}</td>
              <td>{a.user_name || a.user_id}</td>
              <td>{t(`privacy.kind.${a.kind}`)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
