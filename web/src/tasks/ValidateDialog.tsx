import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { listOf, t } from '../i18n';
import { useApp } from '../state';
import type { TaskDetail, ValidationResult } from '../types';
import { DialogButtons, DialogDone, ErrorMessage, Loading, useLoad, useModal, useSubmit } from '../ui';
import { pendingVerdictName } from '../verdict';

/** PendingVerdict is a verdict a refused validation names as pending. */
type PendingVerdict = { criterion_id: string; question: string; complies: boolean; not_applicable?: boolean };

/** pendingOf is the pending verdicts a validation was refused for (409 CONFLICT naming them), or null. */
function pendingOf(err: unknown): PendingVerdict[] | null {
  if (!(err instanceof ApiError) || err.status !== 409) return null;
  const p = err.facts.pending;
  return Array.isArray(p) && p.length > 0 ? (p as PendingVerdict[]) : null;
}

/**
 * ValidateDialog validates a task's audit with notes and attachments
 * (multipart POST /validate-audit): it says who the e-mail will go to
 * before it is sent, and where it went after.
 */
export function ValidateDialog({ task, onClose }: { task: TaskDetail; onClose: () => void }) {
  const app = useApp();
  const ref = useModal();
  const [notes, setNotes] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [result, setResult] = useState<ValidationResult | null>(null);
  const { busy, error, submit } = useSubmit();
  const recipients = useLoad(
    (signal) => app.api.get('/tasks/{uuid}/validation-recipients', { params: { path: { uuid: task.uuid } }, signal }),
    [app.api, task.uuid],
  );

  // A 409 naming pending verdicts offers to validate accepting them.
  const pending = pendingOf(error);
  const validate = async (acceptPending = false) => {
    // The form's fields as the document has them, sent with the files.
    const fields = {
      task_uuid: task.uuid,
      notes,
      isCall: task.kind === 'call' ? 'true' : 'false',
      accept_pending: acceptPending ? 'true' : undefined,
    } as const;
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.set(k, v);
    files.forEach((f, i) => form.append(`attachment${i + 1}`, f, f.name));
    setResult(await app.api.post('/validate-audit', { body: fields, bodySerializer: () => form }));
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="validate-title" onClose={onClose}>
      <h2 id="validate-title">{t('validate.title')}</h2>
      {result ? (
        <DialogDone onClose={() => ref.current?.close()}>
          <p class="alert alert-success">{t(result.email_status === 'pending' ? 'validate.pending' : 'validate.done')}</p>
          <dl class="facts">
            <div>
              <dt>{t('validate.sentTo')}</dt>
              <dd data-testid="sent-to">{result.sent_to?.join(', ') || '—'}</dd>
            </div>
            <div>
              <dt>{t('validate.bcc')}</dt>
              <dd>{result.bcc?.join(', ') || '—'}</dd>
            </div>
          </dl>
        </DialogDone>
      ) : (
        <form onSubmit={(e) => void submit(() => validate())(e)}>
          <div data-testid="recipients">
            {recipients.data ? (
              <div class="alert alert-info">
                <p>{t('validate.recipients', { to: listOf(recipients.data.sent_to ?? []) })}</p>
                {recipients.data.bcc && recipients.data.bcc.length > 0 && (
                  <p>{t('validate.recipientsBcc', { bcc: listOf(recipients.data.bcc) })}</p>
                )}
                {recipients.data.to_validator && <p>{t('validate.toValidator')}</p>}
                {!recipients.data.to_agent && (
                  <p class="alert alert-warning" data-testid="agent-not-told">
                    {t(task.operator_id ? 'validate.agentNoEmail' : 'validate.noAgent')}
                  </p>
                )}
              </div>
            ) : recipients.error !== null ? (
              <ErrorMessage error={recipients.error} onRetry={recipients.reload} />
            ) : (
              <Loading />
            )}
          </div>
          <div class="field">
            <label for="validate-notes">{t('validate.notes')}</label>
            <textarea id="validate-notes" rows={4} required value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="validate-files">{t('validate.attachments')}</label>
            <input id="validate-files" type="file" multiple onChange={(e) => setFiles(Array.from(e.currentTarget.files ?? []))} />
          </div>
          {pending ? (
            <div class="alert alert-warning" role="alert" data-testid="validate-pending">
              <p>{t('pending.refused', { count: pending.length })}</p>
              <ul>
                {pending.map((p) => (
                  <li key={p.criterion_id}>
                    {p.question} · {pendingVerdictName(p)}
                  </li>
                ))}
              </ul>
              <button type="button" class="button" disabled={busy} onClick={(e) => void submit(() => validate(true))(e)}>
                {t('pending.acceptAndValidate')}
              </button>
            </div>
          ) : (
            error !== null && <ErrorMessage error={error} />
          )}
          <DialogButtons
            label={busy ? t('validate.sending') : t('validate.submit')}
            disabled={busy || !recipients.data}
            onCancel={() => ref.current?.close()}
          />
        </form>
      )}
    </dialog>
  );
}
