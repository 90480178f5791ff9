import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { navigate } from '../router';
import { useApp } from '../state';
import { DialogButtons, ErrorMessage, useModal, useSubmit } from '../ui';

/** CoachingSeed is where a coaching item starts: a failed criterion, a dispute or a report's agent × criterion. */
export interface CoachingSeed {
  agentId: string;
  /** campaign is the campaign's name, as tasks and disputes give it. */
  campaign: string;
  criteria: { id: string; question: string }[];
  links: { taskUuid: string; fileName: string; quote: string }[];
  disputeId?: string;
}

/** inDays is the date (YYYY-MM-DD, local) n days from now: a due date input's default. */
function inDays(n: number): string {
  const d = new Date(Date.now() + n * 86400000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * CoachDialog opens a coaching item for an agent (POST /coaching): a title,
 * what to work on, the due date (the end of that day, local time), the
 * criteria and the linked interactions with their quotes, then shows it.
 */
export function CoachDialog({ seed, onClose }: { seed: CoachingSeed; onClose: () => void }) {
  const app = useApp();
  const ref = useModal();
  const [title, setTitle] = useState(
    seed.criteria
      .map((c) => c.question)
      .join(' · ')
      .slice(0, 120),
  );
  const [focus, setFocus] = useState('');
  const [due, setDue] = useState(inDays(7));
  const [quotes, setQuotes] = useState(seed.links.map((l) => l.quote.slice(0, 1000)));
  const { busy, error, submit } = useSubmit();

  const open = async () => {
    const campaigns = await app.api.get('/campaigns');
    const c = await app.api.post('/coaching', {
      body: {
        agent_id: seed.agentId,
        campaign_id: campaigns?.find((k) => k.name === seed.campaign)?.id ?? '',
        dispute_id: seed.disputeId,
        title,
        focus,
        criteria: seed.criteria.map((c) => c.id),
        due_at: new Date(`${due}T23:59:59`).toISOString(),
        links: seed.links.map((l, i) => ({ task_uuid: l.taskUuid, quote: quotes[i] })),
      },
    });
    ref.current?.close();
    navigate(`/app/coaching/${c.id}`);
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="coach-title" onClose={onClose}>
      <h2 id="coach-title">{t('coaching.openFor', { agent: seed.agentId })}</h2>
      <form onSubmit={(e) => void submit(open)(e)}>
        {seed.criteria.length > 0 && (
          <p class="small">
            <strong>{t('coaching.criteria')}:</strong> {seed.criteria.map((c) => c.question).join(' · ')}
          </p>
        )}
        <div class="field">
          <label for="coach-name">{t('coaching.itemTitle')}</label>
          <input id="coach-name" required maxLength={120} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="coach-focus">{t('coaching.focus')}</label>
          <textarea id="coach-focus" rows={3} required maxLength={4000} value={focus} onInput={(e) => setFocus(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="coach-due">{t('coaching.dueDate')}</label>
          <input id="coach-due" type="date" required min={inDays(0)} value={due} onInput={(e) => setDue(e.currentTarget.value)} />
        </div>
        {seed.links.map((l, i) => (
          <div class="field" key={l.taskUuid}>
            <label for={`coach-quote-${i}`}>{t('coaching.quote', { file: l.fileName })}</label>
            <textarea
              id={`coach-quote-${i}`}
              rows={2}
              maxLength={1000}
              value={quotes[i]}
              onInput={(e) => setQuotes(quotes.map((q, j) => (j === i ? e.currentTarget.value : q)))}
            />
          </div>
        ))}
        {error !== null && <ErrorMessage error={error} />}
        <DialogButtons
          label={t('coaching.submit')}
          disabled={busy || !title.trim() || !focus.trim() || !due}
          onCancel={() => ref.current?.close()}
        />
      </form>
    </dialog>
  );
}
