import { useState } from 'preact/hooks';
import { listOf, t } from '../i18n';
import { useApp } from '../state';
import type { TaskDetail, ValidationRecipients, ValidationResult } from '../types';
import { DialogButtons, DialogDone, ErrorMessage, Loading, useLoad, useModal, useSubmit } from '../ui';

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
    (signal) => app.api.get<ValidationRecipients>(`/tasks/${encodeURIComponent(task.uuid)}/validation-recipients`, undefined, signal),
    [task.uuid],
  );

  const validate = async () => {
    const form = new FormData();
    form.set('task_uuid', task.uuid);
    form.set('notes', notes);
    form.set('isCall', String(task.kind === 'call'));
    files.forEach((f, i) => form.append(`attachment${i + 1}`, f, f.name));
    setResult(await app.api.request<ValidationResult>('POST', '/validate-audit', { form }));
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
        <form onSubmit={(e) => void submit(validate)(e)}>
          <div data-testid="recipients">
            {recipients.data ? (
              <div class="alert alert-info">
                <p>{t('validate.recipients', { to: listOf(recipients.data.sent_to ?? []) })}</p>
                {recipients.data.bcc && recipients.data.bcc.length > 0 && (
                  <p>{t('validate.recipientsBcc', { bcc: listOf(recipients.data.bcc) })}</p>
                )}
                {recipients.data.to_validator && <p>{t('validate.toValidator')}</p>}
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
          {error !== null && <ErrorMessage error={error} />}
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
