import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { formatNumber, t, type MessageKey } from '../i18n';
import { useApp } from '../state';
import type { Campaign, Criterion, ScorecardPreview } from '../types';
import { Loading, OutcomeMessage, type Outcome } from '../ui';
import { verdictOf } from '../verdict';
import {
  blank,
  changes,
  idOf,
  langs,
  mark,
  move,
  phraseKeys,
  place,
  primaryOf,
  toCriteria,
  toDrafts,
  totals,
  type Draft,
  type Lang,
  type PhraseKey,
  type Placed,
  type Problem,
} from './scorecard';

const nothingPlaced: Placed = { problems: [], general: [] };

/** ScorecardBuilder edits a campaign's scorecard as a form, tries it on a transcript and publishes it as a new version. */
export function ScorecardBuilder({ campaign, onPublished }: { campaign: Campaign; onPublished: () => void }) {
  const app = useApp();
  const primary = primaryOf(campaign.language);
  const [published, setPublished] = useState<Criterion[] | null>(null);
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [placed, setPlaced] = useState<Placed>(nothingPlaced);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [text, setText] = useState('');
  const [taskUUID, setTaskUUID] = useState('');
  const [preview, setPreview] = useState<ScorecardPreview | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    app.api
      .get('/campaigns/{id}/scorecard', { params: { path: { id: campaign.id } } })
      .then((s) => {
        setPublished(s.criteria ?? []);
        setDrafts(toDrafts(s.criteria ?? [], primary));
      })
      .catch((err: unknown) => setOutcome({ error: err }));
  }, [app.api, campaign.id, primary]);

  const update = (i: number, patch: Partial<Draft>) => setDrafts((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const criteria = toCriteria(drafts, primary);

  /** send runs a request with the drafts, placing the server's problems at their fields when it refuses them. */
  const send = async (action: () => Promise<void>) => {
    setBusy(true);
    setOutcome(null);
    setPlaced(nothingPlaced);
    try {
      await action();
    } catch (err) {
      if (err instanceof ApiError) setPlaced(place(err.details, drafts, primary));
      setOutcome({ error: err });
    } finally {
      setBusy(false);
    }
  };

  const publish = (e: Event) => {
    e.preventDefault();
    void send(async () => {
      const s = await app.api.put('/campaigns/{id}/scorecard', { params: { path: { id: campaign.id } }, body: { criteria } });
      setPublished(s.criteria ?? []);
      setDrafts((ds) => ds.map((d, i) => ({ ...d, id: criteria[i].id, published: true })));
      setOutcome({ ok: t('camp.published', { version: s.version, job: s.recompute_job_id ?? '—' }) });
      onPublished();
    });
  };

  const tryIt = () =>
    void send(async () => {
      const body = taskUUID.trim() ? { criteria, task_uuid: taskUUID.trim() } : { criteria, text };
      setPreview(await app.api.post('/campaigns/{id}/scorecard/preview', { params: { path: { id: campaign.id } }, body }));
    });

  if (published === null) return outcome ? <OutcomeMessage outcome={outcome} /> : <Loading />;
  const sum = totals(drafts);
  const diff = changes(published, criteria);
  const verdicts = new Map((preview?.result.items ?? []).map((it) => [it.criterion_id, it]));
  return (
    <form class="card builder" onSubmit={publish} aria-labelledby="camp-scorecard" noValidate>
      <h2 id="camp-scorecard">{t('camp.scorecard', { version: campaign.scorecard_version })}</h2>
      <p class="muted small">{t('sc.help', { language: t(langName[primary]) })}</p>
      <datalist id="sc-categories">
        {[...new Set(drafts.map((d) => d.category).filter(Boolean))].map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      {drafts.map((d, i) => (
        <CriterionForm
          key={d.key}
          draft={d}
          index={i}
          count={drafts.length}
          primary={primary}
          problems={placed.problems.filter((p) => p.criterion === i)}
          verdict={verdicts.get(criteria[i].id)}
          previewed={preview !== null}
          onChange={(patch) => update(i, patch)}
          onMove={(step) => setDrafts((ds) => move(ds, i, step))}
          onRemove={() => setDrafts((ds) => ds.filter((_, j) => j !== i))}
        />
      ))}
      <div class="form-actions">
        <button type="button" class="button" onClick={() => setDrafts((ds) => [...ds, blank()])}>
          {t('sc.add')}
        </button>
        <button type="button" class="button button-quiet" onClick={() => setDrafts([blank()])}>
          {t('sc.startEmpty')}
        </button>
      </div>
      <p class="sc-totals" aria-live="polite">
        {t('sc.totals', { call: sum.call, chat: sum.chat })}
      </p>
      <details class="sc-json">
        <summary>{t('sc.viewJson')}</summary>
        <pre class="code">{JSON.stringify(criteria, null, 2)}</pre>
      </details>
      <fieldset class="sc-try">
        <legend>{t('sc.try')}</legend>
        <div class="field">
          <label for="sc-text">{t('sc.text')}</label>
          <textarea id="sc-text" class="code" rows={6} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="sc-task">{t('sc.task')}</label>
          <input id="sc-task" value={taskUUID} onInput={(e) => setTaskUUID(e.currentTarget.value)} />
        </div>
        <button type="button" class="button" disabled={busy} onClick={tryIt}>
          {t('sc.tryButton')}
        </button>
        {preview && <PreviewScore result={preview.result} />}
      </fieldset>
      {placed.general.length > 0 && (
        <ul class="field-error" lang="en">
          {placed.general.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      <p class="muted small">
        {t('sc.changes', { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length })}
        {[...diff.added, ...diff.removed, ...diff.changed].length > 0 &&
          ` (${[...diff.added, ...diff.removed, ...diff.changed].join(', ')})`}
      </p>
      <button type="submit" class="button button-primary" disabled={busy}>
        {t('camp.publish')}
      </button>
      <OutcomeMessage outcome={outcome} />
    </form>
  );
}

const langName: Record<Lang, MessageKey> = { es: 'sc.lang.es', en: 'sc.lang.en' };
const phraseLabel: Record<PhraseKey, MessageKey> = {
  any: 'sc.any',
  none: 'sc.none',
  applies_if: 'sc.appliesIf',
  before: 'sc.before',
  against: 'sc.against',
  unless: 'sc.unless',
  hints: 'sc.hints',
};

type Verdict = NonNullable<ScorecardPreview['result']['items']>[number];

function CriterionForm(props: {
  draft: Draft;
  index: number;
  count: number;
  primary: Lang;
  problems: Problem[];
  verdict?: Verdict;
  previewed: boolean;
  onChange: (patch: Partial<Draft>) => void;
  onMove: (step: number) => void;
  onRemove: () => void;
}) {
  const { draft: d, index: i, primary, problems, onChange } = props;
  const n = i + 1;
  const at = (field: string) => problems.filter((p) => p.field === field);
  const idFor = (field: string) => `sc-${d.key}-${field.replace(/\W/g, '-')}`;
  const errors = (field: string, text = '') => <FieldErrors id={`${idFor(field)}-error`} problems={at(field)} text={text} />;
  const invalid = (field: string) => (at(field).length > 0 ? { 'aria-invalid': true, 'aria-describedby': `${idFor(field)}-error` } : {});
  const advanced = phraseKeys.slice(2);
  return (
    <fieldset class="sc-criterion">
      <legend>{t('sc.criterion', { n, id: d.id || idOf(d.question[primary]) || '—' })}</legend>
      <div class="sc-grid">
        {langs.map((l) => (
          <div class="field" key={l}>
            <label for={idFor(`question.${l}`)}>{t('sc.question', { language: t(langName[l]) })}</label>
            <input
              id={idFor(`question.${l}`)}
              lang={l}
              value={d.question[l]}
              onInput={(e) => onChange({ question: { ...d.question, [l]: e.currentTarget.value } })}
              {...invalid(`question.${l}`)}
            />
            {errors(`question.${l}`)}
          </div>
        ))}
        {langs.map((l) => (
          <div class="field" key={l}>
            <label for={idFor(`guidance.${l}`)}>{t('sc.guidance', { language: t(langName[l]) })}</label>
            <textarea
              id={idFor(`guidance.${l}`)}
              lang={l}
              rows={2}
              value={d.guidance[l]}
              onInput={(e) => onChange({ guidance: { ...d.guidance, [l]: e.currentTarget.value } })}
              {...invalid(`guidance.${l}`)}
            />
            {errors(`guidance.${l}`)}
          </div>
        ))}
      </div>
      <div class="filter-row">
        <div class="field">
          <label for={idFor('id')}>{t('sc.id')}</label>
          <input
            id={idFor('id')}
            value={d.id}
            placeholder={idOf(d.question[primary])}
            readOnly={d.published}
            aria-describedby={`${idFor('id')}-hint`}
            onInput={(e) => onChange({ id: e.currentTarget.value })}
          />
          <span id={`${idFor('id')}-hint`} class="muted small">
            {t(d.published ? 'sc.idPublished' : 'sc.idHint')}
          </span>
          {errors('id')}
        </div>
        <div class="field">
          <label for={idFor('category')}>{t('sc.category')}</label>
          <input
            id={idFor('category')}
            list="sc-categories"
            value={d.category}
            onInput={(e) => onChange({ category: e.currentTarget.value })}
            {...invalid('category')}
          />
          {errors('category')}
        </div>
        <div class="field">
          <label for={idFor('weight')}>{t('sc.weight')}</label>
          <input
            id={idFor('weight')}
            type="number"
            min={0}
            step="any"
            value={d.weight}
            onInput={(e) => onChange({ weight: e.currentTarget.value })}
            {...invalid('weight')}
          />
          {errors('weight')}
        </div>
        <div class="field">
          <label for={idFor('applies_to')}>{t('sc.appliesTo')}</label>
          <select
            id={idFor('applies_to')}
            value={d.appliesTo}
            onChange={(e) => onChange({ appliesTo: e.currentTarget.value as Draft['appliesTo'] })}
          >
            <option value="both">{t('sc.both')}</option>
            <option value="call">{t('sc.calls')}</option>
            <option value="chat">{t('sc.chats')}</option>
          </select>
        </div>
        <div class="field">
          <label for={idFor('rule.speaker')}>{t('sc.speaker')}</label>
          <select
            id={idFor('rule.speaker')}
            value={d.speaker}
            onChange={(e) => onChange({ speaker: e.currentTarget.value as Draft['speaker'] })}
            {...invalid('rule.speaker')}
          >
            <option value="agent">{t('sc.agent')}</option>
            <option value="customer">{t('sc.customer')}</option>
            <option value="any">{t('sc.anyone')}</option>
          </select>
          {errors('rule.speaker')}
        </div>
        <label class="check">
          <input type="checkbox" checked={d.critical} onChange={(e) => onChange({ critical: e.currentTarget.checked })} />
          {t('sc.critical')}
        </label>
        <p class="muted">{t('sc.answers')}</p>
      </div>
      <div class="sc-grid">
        {phraseKeys.slice(0, 2).map((k) => (
          <PhraseList key={k} draft={d} phraseKey={k} idFor={idFor} errors={errors} invalid={invalid} onChange={onChange} />
        ))}
      </div>
      <details open={advanced.some((k) => d.phrases[k] || at(`rule.${k}`).length)}>
        <summary>{t('sc.morePhrases')}</summary>
        <div class="sc-grid">
          {advanced.map((k) => (
            <PhraseList key={k} draft={d} phraseKey={k} idFor={idFor} errors={errors} invalid={invalid} onChange={onChange} />
          ))}
        </div>
      </details>
      {Object.keys(d.rest).length > 0 && <p class="muted small">{t('sc.rest', { keys: Object.keys(d.rest).join(', ') })}</p>}
      {errors('rule')}
      {props.previewed && <VerdictLine verdict={props.verdict} />}
      <div class="row-actions">
        <button type="button" class="button button-small" disabled={i === 0} onClick={() => props.onMove(-1)}>
          {t('sc.up', { n })}
        </button>
        <button type="button" class="button button-small" disabled={i === props.count - 1} onClick={() => props.onMove(1)}>
          {t('sc.down', { n })}
        </button>
        <button type="button" class="button button-small button-danger" disabled={props.count === 1} onClick={props.onRemove}>
          {t('sc.remove', { n })}
        </button>
      </div>
    </fieldset>
  );
}

function PhraseList(props: {
  draft: Draft;
  phraseKey: PhraseKey;
  idFor: (field: string) => string;
  errors: (field: string, text?: string) => preact.JSX.Element;
  invalid: (field: string) => object;
  onChange: (patch: Partial<Draft>) => void;
}) {
  const { draft: d, phraseKey: k } = props;
  const field = `rule.${k}`;
  return (
    <div class="field">
      <label for={props.idFor(field)}>{t(phraseLabel[k])}</label>
      <textarea
        id={props.idFor(field)}
        class="code"
        rows={Math.min(8, Math.max(2, d.phrases[k].split('\n').length))}
        spellcheck={false}
        value={d.phrases[k]}
        onInput={(e) => props.onChange({ phrases: { ...d.phrases, [k]: e.currentTarget.value } })}
        {...props.invalid(field)}
      />
      {props.errors(field, d.phrases[k])}
    </div>
  );
}

/** FieldErrors shows the server's problems of a field (its words, in English); a phrase's at its line and character, marked. */
function FieldErrors({ id, problems, text }: { id: string; problems: Problem[]; text: string }) {
  if (problems.length === 0) return null;
  return (
    <ul id={id} class="field-error">
      {problems.map((p, i) => {
        const m = mark(text, p);
        return (
          <li key={i}>
            {p.line !== undefined && (
              <span>{p.at ? t('sc.lineChar', { line: p.line + 1, at: p.at }) : t('sc.line', { line: p.line + 1 })} </span>
            )}
            {m && (
              <code class="sc-mark">
                {m.before}
                <mark>{m.at}</mark>
                {m.after}
              </code>
            )}{' '}
            <span lang="en">{p.message}</span>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * PreviewScore is the preview's score: whether it passes or, while verdicts
 * await review, what it can still become; and the points it is made of,
 * which leave out the weight of criteria judged not applicable.
 */
function PreviewScore({ result: r }: { result: ScorecardPreview['result'] }) {
  const pending = (r.pending ?? []).length > 0;
  return (
    <p class="sc-score" role="status">
      {pending
        ? t('sc.previewPending', {
            score: formatNumber(r.score),
            min: formatNumber(r.score_min ?? 0),
            max: formatNumber(r.score_max ?? 0),
            passing: r.passing_score,
          })
        : t(r.passed ? 'sc.previewPassed' : 'sc.previewFailed', { score: r.score, passing: r.passing_score })}{' '}
      <span class="muted">{t('sc.previewPoints', { earned: formatNumber(r.earned), possible: formatNumber(r.possible) })}</span>
    </p>
  );
}

/**
 * VerdictLine is what the preview made of a criterion: met or not, or not
 * applicable (its weight left out), why and what was quoted; or that it is
 * not for this kind of interaction.
 */
function VerdictLine({ verdict }: { verdict?: Verdict }) {
  if (!verdict) return <p class="sc-verdict muted">{t('sc.notApplied')}</p>;
  const [cls, key] = verdict.not_applicable
    ? (['sc-na', 'sc.notApplicable'] as const)
    : verdict.complies
      ? (['task-pass', 'sc.complies'] as const)
      : (['task-fail', 'sc.notComplies'] as const);
  return (
    <div class={`sc-verdict ${cls}`} data-verdict={verdictOf(verdict)}>
      <strong>{t(key)}</strong>
      {verdict.needs_review && <span class="badge badge-review">{t('sc.needsReview')}</span>} <span>{verdict.explanation}</span>
      {verdict.evidence && <q class="evidence">{verdict.evidence}</q>}
    </div>
  );
}
