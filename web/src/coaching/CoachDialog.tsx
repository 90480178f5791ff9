import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { Chosen, CriterionPicker } from '../pickers/Picker';
import { navigate } from '../router';
import { useApp } from '../state';
import type { Coaching } from '../types';
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

/** Draft is what a coach writes of an item, as the form holds it: due is a day (YYYY-MM-DD, local). */
interface Draft {
  title: string;
  focus: string;
  due: string;
  criteria: CoachingSeed['criteria'];
  links: CoachingSeed['links'];
}

/** dayOf is the date (YYYY-MM-DD, local) of d: a due date input's value. */
function dayOf(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** inDays is the date (YYYY-MM-DD, local) n days from now: a due date input's default. */
function inDays(n: number): string {
  return dayOf(new Date(Date.now() + n * 86400000));
}

/** draftBody is a draft as POST and PUT /coaching take it: due at the end of its day, local time. */
function draftBody(d: Draft) {
  return {
    title: d.title,
    focus: d.focus,
    criteria: d.criteria.map((c) => c.id),
    due_at: new Date(`${d.due}T23:59:59`).toISOString(),
    links: d.links.map((l) => ({ task_uuid: l.taskUuid, quote: l.quote })),
  };
}

/**
 * CoachDialog opens a coaching item for an agent (POST /coaching) from a
 * seed, then shows it.
 */
export function CoachDialog({ seed, onClose }: { seed: CoachingSeed; onClose: () => void }) {
  const app = useApp();
  const initial: Draft = {
    title: seed.criteria
      .map((c) => c.question)
      .join(' · ')
      .slice(0, 120),
    focus: '',
    due: inDays(7),
    criteria: seed.criteria,
    links: seed.links.map((l) => ({ ...l, quote: l.quote.slice(0, 1000) })),
  };
  const open = async (d: Draft) => {
    const campaigns = await app.api.get('/campaigns');
    const c = await app.api.post('/coaching', {
      body: {
        agent_id: seed.agentId,
        campaign_id: campaigns?.find((k) => k.name === seed.campaign)?.id ?? '',
        dispute_id: seed.disputeId,
        ...draftBody(d),
      },
    });
    navigate(`/app/coaching/${c.id}`);
  };
  return (
    <CoachingDialog
      title={t('coaching.openFor', { agent: seed.agentId })}
      submit={t('coaching.submit')}
      campaign={seed.campaign}
      initial={initial}
      save={open}
      onClose={onClose}
    />
  );
}

/** CoachEditDialog edits a coaching item (PUT /coaching/{id}): all but its agent and campaign; onSaved follows. */
export function CoachEditDialog({ item, onSaved, onClose }: { item: Coaching; onSaved: () => void; onClose: () => void }) {
  const app = useApp();
  const initial: Draft = {
    title: item.title,
    focus: item.focus,
    due: dayOf(new Date(item.due_at)),
    criteria: (item.criteria ?? []).map((c) => ({ id: c.criterion_id, question: c.question })),
    links: (item.links ?? []).map((l) => ({ taskUuid: l.task_uuid, fileName: l.file_name, quote: l.quote })),
  };
  const save = async (d: Draft) => {
    await app.api.put('/coaching/{id}', { params: { path: { id: item.id } }, body: draftBody(d) });
    onSaved();
  };
  return (
    <CoachingDialog
      title={t('coaching.editTitle', { title: item.title })}
      submit={t('coaching.save')}
      campaign={item.campaign}
      initial={initial}
      save={save}
      onClose={onClose}
    />
  );
}

/**
 * CoachingDialog is the form of a coaching item: a title, what to work on,
 * the due date, the criteria (picked by question among the campaign's) and
 * the linked interactions with their quotes; save sends it, then it closes.
 */
function CoachingDialog(p: {
  title: string;
  submit: string;
  campaign: string;
  initial: Draft;
  save: (d: Draft) => Promise<void>;
  onClose: () => void;
}) {
  const ref = useModal();
  const [d, setD] = useState(p.initial);
  const put = (patch: Partial<Draft>) => setD((cur) => ({ ...cur, ...patch }));
  const { busy, error, submit } = useSubmit();
  const save = async () => {
    await p.save(d);
    ref.current?.close();
  };

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="coach-title" onClose={p.onClose}>
      <h2 id="coach-title">{p.title}</h2>
      <form onSubmit={(e) => void submit(save)(e)}>
        <div class="field">
          <label for="coach-name">{t('coaching.itemTitle')}</label>
          <input id="coach-name" required maxLength={120} value={d.title} onInput={(e) => put({ title: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="coach-focus">{t('coaching.focus')}</label>
          <textarea
            id="coach-focus"
            rows={3}
            required
            maxLength={4000}
            value={d.focus}
            onInput={(e) => put({ focus: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="coach-due">{t('coaching.dueDate')}</label>
          <input id="coach-due" type="date" required min={inDays(0)} value={d.due} onInput={(e) => put({ due: e.currentTarget.value })} />
        </div>
        <CriterionPicker
          id="coach-criterion"
          adding
          label={t('coaching.criteria')}
          any={t('coaching.addCriterion')}
          campaign={p.campaign}
          value=""
          onChange={(id, question) =>
            setD((cur) => (!id || cur.criteria.some((c) => c.id === id) ? cur : { ...cur, criteria: [...cur.criteria, { id, question }] }))
          }
        />
        <Chosen
          options={d.criteria.map((c) => ({ value: c.id, label: c.question }))}
          onRemove={(id) => setD((cur) => ({ ...cur, criteria: cur.criteria.filter((c) => c.id !== id) }))}
        />
        {d.links.map((l, i) => (
          <div class="field" key={l.taskUuid}>
            <label for={`coach-quote-${i}`}>{t('coaching.quote', { file: l.fileName })}</label>
            <textarea
              id={`coach-quote-${i}`}
              rows={2}
              maxLength={1000}
              value={l.quote}
              onInput={(e) => {
                const quote = e.currentTarget.value;
                setD((cur) => ({ ...cur, links: cur.links.map((k) => (k.taskUuid === l.taskUuid ? { ...k, quote } : k)) }));
              }}
            />
            <button
              type="button"
              class="button-link small"
              onClick={() => setD((cur) => ({ ...cur, links: cur.links.filter((k) => k.taskUuid !== l.taskUuid) }))}
            >
              {t('app.remove', { name: l.fileName })}
            </button>
          </div>
        ))}
        {error !== null && <ErrorMessage error={error} />}
        <DialogButtons
          label={p.submit}
          disabled={busy || !d.title.trim() || !d.focus.trim() || !d.due}
          onCancel={() => ref.current?.close()}
        />
      </form>
    </dialog>
  );
}
