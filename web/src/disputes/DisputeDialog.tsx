import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { useApp } from '../state';
import type { TaskDetail } from '../types';
import { DialogButtons, DialogDone, ErrorMessage, useModal, useSubmit } from '../ui';
import { verdictKey } from './status';

/**
 * DisputeDialog is the agent's dispute of their validated task's
 * evaluation (POST /disputes): the criteria they tick, each with a comment.
 * Criteria decided by an earlier dispute are not offered.
 */
export function DisputeDialog({ task, onClose }: { task: TaskDetail; onClose: (sent: boolean) => void }) {
  const app = useApp();
  const ref = useModal();
  const [comments, setComments] = useState<Record<string, string>>({});
  // claims: the criteria the agent says do not apply, rather than that their verdict is wrong.
  const [claims, setClaims] = useState<Record<string, boolean>>({});
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit();
  const decided = new Set(
    (task.feedback?.disputes ?? []).flatMap((d) => (d.items ?? []).filter((i) => i.decision).map((i) => i.criterion_id)),
  );
  const items = (task.audit?.items ?? []).filter((it) => !decided.has(it.criterion_id));
  const chosen = Object.keys(comments);

  const send = async () => {
    await app.api.post('/disputes', {
      body: {
        task_uuid: task.uuid,
        items: chosen.map((id) => ({ criterion_id: id, comment: comments[id], not_applicable: claims[id] === true })),
      },
    });
    setSent(true);
  };
  const toggle = (id: string, on: boolean) => {
    const next = { ...comments };
    if (on) next[id] = '';
    else delete next[id];
    setComments(next);
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dispute-title" onClose={() => onClose(sent)}>
      <h2 id="dispute-title">{t('dispute.dialogTitle')}</h2>
      {sent ? (
        <DialogDone onClose={() => ref.current?.close()}>
          <p class="alert alert-success">{t('dispute.sent')}</p>
        </DialogDone>
      ) : (
        <form onSubmit={(e) => void submit(send)(e)}>
          <p>{t('dispute.dialogIntro')}</p>
          <fieldset class="criteria">
            <legend>{t('disputes.criteria')}</legend>
            {items.map((it) => {
              const id = `dispute-${it.criterion_id}`;
              const on = it.criterion_id in comments;
              return (
                <div key={it.criterion_id} class={it.complies ? 'criterion' : 'criterion criterion-fail'}>
                  <label class="check" for={id}>
                    <input id={id} type="checkbox" checked={on} onChange={(e) => toggle(it.criterion_id, e.currentTarget.checked)} />
                    <span>
                      {it.question}
                      <span class="muted small"> · {t(verdictKey(it))}</span>
                    </span>
                  </label>
                  {on && (
                    <>
                      {!it.not_applicable && (
                        <label class="check" for={`${id}-na`}>
                          <input
                            id={`${id}-na`}
                            type="checkbox"
                            checked={claims[it.criterion_id] === true}
                            onChange={(e) => setClaims({ ...claims, [it.criterion_id]: e.currentTarget.checked })}
                          />
                          <span>{t('dispute.claimNA')}</span>
                        </label>
                      )}
                      <label for={`${id}-comment`}>{t('dispute.commentFor', { question: it.question })}</label>
                      <textarea
                        id={`${id}-comment`}
                        rows={2}
                        required
                        maxLength={2000}
                        value={comments[it.criterion_id]}
                        onInput={(e) => setComments({ ...comments, [it.criterion_id]: e.currentTarget.value })}
                      />
                    </>
                  )}
                </div>
              );
            })}
          </fieldset>
          {error !== null && <ErrorMessage error={error} />}
          <DialogButtons
            label={busy ? t('dispute.sending') : t('dispute.submit')}
            disabled={busy || chosen.length === 0}
            onCancel={() => ref.current?.close()}
          />
        </form>
      )}
    </dialog>
  );
}
