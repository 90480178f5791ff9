import { useState } from 'preact/hooks';
import { formatScore, t } from '../i18n';
import { useApp } from '../state';
import type { Dispute } from '../types';
import { DialogButtons, DialogDone, ErrorMessage, useModal, useSubmit } from '../ui';
import { statusKey, verdictKey } from './status';

type Choice = { decision: 'accept' | 'reject' | ''; not_applicable?: boolean; reason: string };

/**
 * ResolveDialog is a supervisor's resolution of a dispute (POST
 * /disputes/{id}/resolution): accept or reject each disputed criterion,
 * with a reason for the agent.
 */
export function ResolveDialog({ dispute, onClose }: { dispute: Dispute; onClose: (resolved: Dispute | null) => void }) {
  const app = useApp();
  const ref = useModal();
  const items = dispute.items ?? [];
  const [choices, setChoices] = useState<Record<string, Choice>>(
    Object.fromEntries(items.map((i) => [i.criterion_id, { decision: '', reason: '' }])),
  );
  const [resolved, setResolved] = useState<Dispute | null>(null);
  const { busy, error, submit } = useSubmit();
  const set = (id: string, patch: Partial<Choice>) => setChoices({ ...choices, [id]: { ...choices[id], ...patch } });
  const ready = items.every((i) => choices[i.criterion_id].decision !== '' && choices[i.criterion_id].reason.trim() !== '');

  const resolve = async () => {
    setResolved(
      await app.api.post('/disputes/{id}/resolution', {
        params: { path: { id: dispute.id } },
        body: {
          items: items.flatMap((i) => {
            const c = choices[i.criterion_id];
            return c.decision === '' ? [] : [{ criterion_id: i.criterion_id, ...c, decision: c.decision }];
          }),
        },
      }),
    );
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="resolve-title" onClose={() => onClose(resolved)}>
      <h2 id="resolve-title">{t('resolve.title', { file: dispute.file_name })}</h2>
      {resolved ? (
        <DialogDone onClose={() => ref.current?.close()}>
          <p class="alert alert-success">
            {t('resolve.done', { status: t(statusKey(resolved)) })}
            {resolved.revision !== undefined && resolved.score_after !== undefined && (
              <>
                {' '}
                {t('dispute.revised', {
                  revision: resolved.revision,
                  before: formatScore(resolved.score_before),
                  after: formatScore(resolved.score_after),
                })}
              </>
            )}
          </p>
        </DialogDone>
      ) : (
        <form onSubmit={(e) => void submit(resolve)(e)}>
          {items.map((it) => {
            const id = `resolve-${it.criterion_id}`;
            const c = choices[it.criterion_id];
            return (
              <fieldset key={it.criterion_id} class="criteria" data-criterion={it.criterion_id}>
                <legend>{it.question}</legend>
                <p class="small">{t('resolve.current', { verdict: t(verdictKey(it)) })}</p>
                {it.claims_not_applicable && <p class="small">{t('resolve.claimsNA')}</p>}
                <p class="small">
                  <strong>{t('dispute.comment')}:</strong> {it.comment}
                </p>
                <label class="check" for={`${id}-accept`}>
                  <input
                    id={`${id}-accept`}
                    type="radio"
                    name={id}
                    checked={c.decision === 'accept' && !c.not_applicable}
                    onChange={() => set(it.criterion_id, { decision: 'accept', not_applicable: false })}
                  />
                  <span>{t(it.claims_not_applicable ? 'resolve.acceptNA' : 'resolve.accept')}</span>
                </label>
                {!it.claims_not_applicable && !it.not_applicable && (
                  <label class="check" for={`${id}-accept-na`}>
                    <input
                      id={`${id}-accept-na`}
                      type="radio"
                      name={id}
                      checked={c.decision === 'accept' && c.not_applicable === true}
                      onChange={() => set(it.criterion_id, { decision: 'accept', not_applicable: true })}
                    />
                    <span>{t('resolve.acceptNA')}</span>
                  </label>
                )}
                <label class="check" for={`${id}-reject`}>
                  <input
                    id={`${id}-reject`}
                    type="radio"
                    name={id}
                    checked={c.decision === 'reject'}
                    onChange={() => set(it.criterion_id, { decision: 'reject', not_applicable: false })}
                  />
                  <span>{t('resolve.reject')}</span>
                </label>
                <div class="field">
                  <label for={`${id}-reason`}>{t('resolve.reason')}</label>
                  <textarea
                    id={`${id}-reason`}
                    rows={2}
                    required
                    maxLength={2000}
                    value={c.reason}
                    onInput={(e) => set(it.criterion_id, { reason: e.currentTarget.value })}
                  />
                </div>
              </fieldset>
            );
          })}
          {error !== null && <ErrorMessage error={error} />}
          <DialogButtons label={t('resolve.submit')} disabled={busy || !ready} onCancel={() => ref.current?.close()} />
        </form>
      )}
    </dialog>
  );
}
