import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { categoryName, engineName, formatDateTime, formatNumber, formatScore, type MessageKey, t } from '../i18n';
import { guardLeaving, Link } from '../router';
import { useApp } from '../state';
import { atLeast, type AuditItem, type Segment, type TaskDetail } from '../types';
import { ChannelsCard } from './ChannelsCard';
import { clock } from './state';
import { PrivacyBlock } from './PrivacyBlock';
import { ValidationBlock } from './ValidationBlock';
import { FeedbackCard } from '../disputes/FeedbackCard';
import { CoachDialog, type CoachingSeed } from '../coaching/CoachDialog';
import { ErrorMessage, Loading, PageHeader, useAction, useLoad } from '../ui';
import { ReviewStateBadge } from '../reviews/ReviewStateBadge';
import { ReviewBadge, ScoreBadge, StatusBadge, TranscriptBadge } from './badges';
import { ValidateDialog } from './ValidateDialog';
import { VerdictBadge, VerdictControl, pendingVerdictName, verdictFields, verdictOf, type Verdict } from '../verdict';

/** Draft is an analyst's pending change to one criterion. */
type Drafts = Record<string, { verdict: Verdict; explanation: string }>;

/** speakerLabel is who says a segment: the name the source gave, or the role in the reader's language when the source named only the role ("agent"). */
export function speakerLabel(s: Segment): string {
  return s.name && s.name.toLowerCase() !== s.speaker ? s.name : t(`speaker.${s.speaker}` as MessageKey);
}

/** playingIndex is the segment that holds time, or -1. */
function playingIndex(segments: Segment[], time: number): number {
  return segments.findIndex((s) => s.start !== undefined && s.end !== undefined && time >= s.start && time < s.end);
}

/** RetryNotice says, to analysts, that a call's transcription is being retried: the attempts so far, why the last did not finish, and when the next is due. */
function RetryNotice({ retry }: { retry: NonNullable<TaskDetail['retry']> }) {
  const due = new Date(retry.next_attempt_at).getTime() > Date.now();
  return (
    <div class="alert alert-warning" role="status" data-testid="task-retry">
      <p>
        <strong>{t('task.retryAttempt', { attempt: retry.attempt, max: retry.max_attempts })}</strong>{' '}
        {t(`task.retryReason.${retry.reason}`)}
      </p>
      <p class="muted">
        {t('task.retryDetail')} <span lang="en">{retry.error}</span>
      </p>
      <p>{due ? t('task.retryNext', { at: formatDateTime(retry.next_attempt_at) }) : t('task.retryNow')}</p>
    </div>
  );
}

/** TaskView shows a task: its recording and transcript, its audit to edit, its revisions, and validation. */
export function TaskView({ uuid }: { uuid: string }) {
  const app = useApp();
  const {
    data: task,
    error,
    reload,
  } = useLoad((signal) => app.api.get('/tasks/{uuid}', { params: { path: { uuid } }, signal }), [app.api, uuid]);

  useEffect(() => {
    const offs = [
      'task.updated',
      'audit.updated',
      'validation.created',
      'validation.updated',
      'dispute.opened',
      'dispute.accepted',
      'dispute.rejected',
      'audit.acknowledged',
    ].map((type) =>
      app.events.on(type, (ev) => {
        const d = ev.data as { uuid?: string; task?: { uuid: string }; task_uuid?: string };
        if ((d.task?.uuid ?? d.task_uuid ?? d.uuid) === uuid) reload();
      }),
    );
    return () => offs.forEach((off) => off());
  }, [app.events, reload, uuid]);

  if (error !== null && !task) return <ErrorMessage error={error} onRetry={reload} />;
  if (!task) return <Loading />;
  return <TaskScreen task={task} onChanged={reload} />;
}

function TaskScreen({ task, onChanged }: { task: TaskDetail; onChanged: () => void }) {
  const app = useApp();
  const [time, setTime] = useState(0);
  // The turn an evidence link went to, shown until another is chosen.
  const [focused, setFocused] = useState<number | null>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const [validating, setValidating] = useState(false);
  const { busy, run } = useAction();
  const canEdit = atLeast(app.profile.value?.role ?? 'none', 'quality');
  const segments = task.transcript?.segments ?? [];
  const playing = playingIndex(segments, time);
  const seek = (s: Segment) => {
    const a = audio.current;
    if (!a || s.start === undefined) return;
    a.currentTime = s.start;
    void a.play().catch(() => {});
  };
  /** goToTurn shows turn n (numbered from 1) and, in a call, plays it. */
  const goToTurn = (n: number) => {
    setFocused(n);
    const el = document.getElementById(`turn-${n}`);
    el?.scrollIntoView({ block: 'center' });
    el?.focus({ preventScroll: true });
    const s = segments[n - 1];
    if (task.kind === 'call' && s) seek(s);
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={task.file_name}>
        <Link href="/app/tasks">{t('task.back')}</Link>
        {canEdit && task.review_state === 'automatic' && (
          <button
            type="button"
            class="button"
            disabled={busy}
            onClick={() =>
              void run(
                () => app.api.post('/tasks/{uuid}/review', { params: { path: { uuid: task.uuid } } }),
                () => t('review.marked'),
              )
            }
          >
            {t('review.mark')}
          </button>
        )}
        {canEdit && task.status === 'audited' && (
          <button type="button" class="button button-primary" onClick={() => setValidating(true)}>
            {t('validate.open')}
          </button>
        )}
        {canEdit && task.status === 'failed' && (
          <button
            type="button"
            class="button button-primary"
            disabled={busy}
            onClick={() =>
              void run(
                () => app.api.post('/tasks/{uuid}/retry', { params: { path: { uuid: task.uuid } } }),
                () => t('task.retried'),
              )
            }
          >
            {t('task.retry')}
          </button>
        )}
      </PageHeader>
      {task.status === 'failed' && task.error && (
        <p class="alert alert-error" data-testid="task-error">
          {t('task.failedBecause', { error: task.error })}
        </p>
      )}
      {task.retry && <RetryNotice retry={task.retry} />}
      <dl class="facts">
        <div>
          <dt>{t('tasks.status')}</dt>
          <dd>
            <StatusBadge status={task.status} />
          </dd>
        </div>
        <div>
          <dt>{t('tasks.score')}</dt>
          <dd data-testid="task-score">
            <ScoreBadge
              score={task.audit?.score}
              passed={task.audit?.passed}
              pending={task.audit?.pending}
              min={task.audit?.score_min}
              max={task.audit?.score_max}
            />
          </dd>
        </div>
        {task.transcript_unreliable && (
          <div>
            <dt>{t('transcript.label')}</dt>
            <dd data-testid="task-transcript">
              <TranscriptBadge reason={task.transcript_unreliable} /> {t(`transcript.${task.transcript_unreliable}`)}
            </dd>
          </div>
        )}
        {task.review_items !== undefined && (
          <div>
            <dt>{t('tasks.review')}</dt>
            <dd data-testid="task-review">{task.review_items > 0 ? <ReviewBadge count={task.review_items} /> : t('tasks.reviewNone')}</dd>
          </div>
        )}
        {task.review_state && (
          <div>
            <dt>{t('review.state')}</dt>
            <dd data-testid="task-review-state">
              <ReviewStateBadge state={task.review_state} />
              {task.assignee_id && task.due_at && (
                <span class="small muted"> {t('review.due', { who: task.assignee_id, due: formatDateTime(task.due_at) })}</span>
              )}
            </dd>
          </div>
        )}
        <div>
          <dt>{t('tasks.kind')}</dt>
          <dd>{t(task.kind === 'call' ? 'tasks.call' : 'tasks.chat')}</dd>
        </div>
        <div>
          <dt>{t('tasks.campaign')}</dt>
          <dd>{task.campaign}</dd>
        </div>
        <div>
          <dt>{t('tasks.operator')}</dt>
          <dd>{task.operator_id ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('tasks.created')}</dt>
          <dd>{formatDateTime(task.created_at)}</dd>
        </div>
        <CallFacts task={task} />
      </dl>
      {task.error && task.status !== 'failed' && <p class="alert alert-warning">{task.error}</p>}
      {task.channels && <ChannelsCard channels={task.channels} />}
      <div class="task-columns">
        <section class="card" aria-labelledby="transcript-title">
          <h2 id="transcript-title">{t('task.transcript')}</h2>
          {task.kind === 'call' && task.audio_url && <Player uuid={task.uuid} audio={audio} onTime={setTime} />}
          {segments.length === 0 ? (
            <p class="muted">{t('task.noTranscript')}</p>
          ) : (
            <ol class="transcript">
              {segments.map((s, i) => {
                const body = (
                  <>
                    <TurnNumber n={i + 1} />
                    <span class={`speaker speaker-${s.speaker}`}>{speakerLabel(s)}</span>
                    {s.start !== undefined && <span class="muted small"> {clock(s.start)}</span>}
                    <span class="segment-text">{s.text}</span>
                  </>
                );
                return (
                  <li
                    key={i}
                    id={`turn-${i + 1}`}
                    tabIndex={-1}
                    class={['segment', i === playing && 'segment-playing', focused === i + 1 && 'segment-focused']
                      .filter(Boolean)
                      .join(' ')}
                    aria-current={i === playing ? 'true' : undefined}
                  >
                    {task.kind === 'call' && s.start !== undefined ? (
                      <button type="button" class="segment-button" onClick={() => seek(s)} title={t('task.seek', { time: clock(s.start) })}>
                        {body}
                      </button>
                    ) : (
                      body
                    )}
                  </li>
                );
              })}
            </ol>
          )}
        </section>
        <section class="card" aria-labelledby="audit-title">
          <h2 id="audit-title">{t('task.audit')}</h2>
          {task.calibration_blind ? (
            <p class="alert alert-info" data-testid="calibration-blind">
              {t('cal.blindTask', { name: task.calibration_blind.name })}{' '}
              <Link href={`/app/calibration/${task.calibration_blind.id}`}>{t('cal.blindOpen')}</Link>
            </p>
          ) : task.audit ? (
            <AuditEditor task={task} canEdit={canEdit && task.status === 'audited'} onSaved={onChanged} onEvidence={goToTurn} />
          ) : (
            <p class="muted">{t(task.audit_hidden ? 'review.hidden' : 'task.noAudit')}</p>
          )}
        </section>
      </div>
      {task.validation && <ValidationBlock validation={task.validation} />}
      <FeedbackCard task={task} onChanged={onChanged} />
      <PrivacyBlock task={task} onChanged={onChanged} />
      <Revisions task={task} />
      {validating && (
        <ValidateDialog
          task={task}
          onClose={() => {
            setValidating(false);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

/** Player fetches the recording with the token (an <audio> element cannot send it) and plays it from an object URL. */
function Player({ uuid, audio, onTime }: { uuid: string; audio: preact.RefObject<HTMLAudioElement>; onTime: (s: number) => void }) {
  const app = useApp();
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const ctl = new AbortController();
    let url: string | null = null;
    void (async () => {
      try {
        const { blob } = await app.api.blob('/tasks/{uuid}/audio', { params: { path: { uuid } }, signal: ctl.signal });
        url = URL.createObjectURL(blob);
        setSrc(url);
      } catch (err) {
        if (!ctl.signal.aborted) setError(err);
      }
    })();
    return () => {
      ctl.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [app.api, uuid]);
  if (error !== null) return <ErrorMessage error={error} />;
  if (!src) return <Loading />;
  return (
    <audio
      ref={audio}
      class="player"
      controls
      src={src}
      aria-label={t('task.recording')}
      onTimeUpdate={(e) => onTime(e.currentTarget.currentTime)}
    />
  );
}

function AuditEditor({
  task,
  canEdit,
  onSaved,
  onEvidence,
}: {
  task: TaskDetail;
  canEdit: boolean;
  onSaved: () => void;
  onEvidence: (turn: number) => void;
}) {
  const app = useApp();
  const audit = task.audit!;
  const [drafts, setDrafts] = useState<Drafts>({});
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'ok' | 'accepted'; text: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The revision the drafts were started on: sent as If-Match, so that an
  // edit made meanwhile by someone else (shown live) is a 409 to resolve,
  // never silently overwritten.
  const [base, setBase] = useState<number | null>(null);
  const [coaching, setCoaching] = useState<CoachingSeed | null>(null);
  const coach = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const discard = () => {
    setDrafts({});
    setBase(null);
  };
  const current = (it: AuditItem) => drafts[it.criterion_id] ?? { verdict: verdictOf(it), explanation: it.explanation };
  // A draft of an item to review is a change even when it keeps the
  // engine's verdict: the analyst confirms it, and it becomes theirs.
  const items = audit.items ?? [];
  const changed = items.filter((it) => {
    const d = drafts[it.criterion_id];
    return d && (it.needs_review || d.verdict !== verdictOf(it) || d.explanation !== it.explanation);
  });
  // The items to review come first, in a group of their own.
  const toReview = items.filter((it) => it.needs_review);
  const others = items.filter((it) => !it.needs_review);
  const categories = [...new Set(others.map((it) => it.category))];
  // Unsaved edits are not lost by leaving the page without a question.
  const unsaved = changed.length > 0;
  useEffect(() => (unsaved ? guardLeaving(t('audit.unsaved')) : undefined), [unsaved]);
  const set = (it: AuditItem, patch: Partial<Drafts[string]>) => {
    if (base === null) setBase(audit.revision);
    setDrafts({ ...drafts, [it.criterion_id]: { ...current(it), ...patch } });
  };
  // The pending verdicts: decided in one click each (or all at once),
  // each decision a revision of the audit by the analyst.
  const pending = items.filter((it) => audit.pending?.includes(it.criterion_id));
  const decide = async (body: { all?: boolean; decisions?: { criterion_id: string; complies?: boolean }[] }) => {
    setBusy(true);
    setError(null);
    setOutcome(null);
    try {
      const res = await app.api.post('/tasks/{uuid}/pending-verdicts', {
        params: { path: { uuid: task.uuid } },
        headers: { 'x-username': app.profile.value?.username ?? '', 'If-Match': String(audit.revision) },
        body,
      });
      // 202: the edit continues in the background, as a job.
      if ('job_id' in res) {
        setOutcome({ kind: 'accepted', text: t('audit.accepted', { job: res.job_id }) });
      } else {
        setOutcome({ kind: 'ok', text: t('pending.decided', { revision: res.revision }) });
        onSaved();
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const criterion = (it: AuditItem) => (
    <Criterion
      key={it.criterion_id}
      item={it}
      draft={drafts[it.criterion_id]}
      canEdit={canEdit}
      busy={busy}
      pending={audit.pending?.includes(it.criterion_id) ?? false}
      onChange={(patch) => set(it, patch)}
      onDecide={(complies) => void decide({ decisions: [{ criterion_id: it.criterion_id, complies }] })}
      onEvidence={onEvidence}
      onCoach={
        coach && task.operator_id
          ? () =>
              setCoaching({
                agentId: task.operator_id!,
                campaign: task.campaign,
                criteria: [{ id: it.criterion_id, question: it.question }],
                links: [{ taskUuid: task.uuid, fileName: task.file_name, quote: it.evidence ?? '' }],
              })
          : undefined
      }
    />
  );
  const subtotals = new Map((audit.categories ?? []).map((c) => [c.category, c]));

  /** save sends the drafts based on revision on (the drafts' base unless told). */
  const save = async (on = base ?? audit.revision) => {
    setBusy(true);
    setError(null);
    setOutcome(null);
    try {
      const res = await app.api.post('/compute-audit-results', {
        headers: { 'x-username': app.profile.value?.username ?? '', 'If-Match': String(on) },
        body: {
          task_uuid: task.uuid,
          file_name: task.file_name,
          isCall: task.kind === 'call',
          audit: changed.map((it) => {
            const d = current(it);
            return { category: it.category, question: it.question, ...verdictFields(d.verdict), explanation: d.explanation };
          }),
        },
      });
      discard();
      if ('job_id' in res) {
        setOutcome({ kind: 'accepted', text: t('audit.accepted', { job: res.job_id }) });
      } else {
        const c = res;
        setOutcome({
          kind: 'ok',
          text: c.pending?.length
            ? t('pending.saved', {
                revision: c.revision,
                count: c.pending.length,
                min: formatScore(c.score_min ?? 0),
                max: formatScore(c.score_max ?? 0),
              })
            : t('audit.saved', { revision: c.revision, score: formatScore(c.score), result: t(c.passed ? 'task.passed' : 'task.failed') }),
        });
        onSaved();
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        aria-describedby="audit-summary"
      >
        <p id="audit-summary" class="muted small">
          {t('audit.summary', {
            revision: audit.revision,
            version: audit.scorecard_version,
            passing: audit.passing_score,
            who: audit.updated_by_name || (audit.engine ? engineName(audit.engine) : t(`source.${audit.source}`)),
          })}
        </p>
        <p class="muted small" data-testid="audit-rules">
          {t('audit.total', {
            earned: formatNumber(audit.earned),
            possible: formatNumber(audit.possible),
            score: formatScore(audit.score),
          })}{' '}
          {t('audit.rules', { passing: audit.passing_score })}
        </p>
        {pending.length > 0 && (
          <p class="alert alert-info" data-testid="provisional">
            {t('pending.provisional', {
              min: formatScore(audit.score_min ?? 0),
              max: formatScore(audit.score_max ?? 0),
              score: formatScore(audit.score),
              questions: pending.map((it) => `“${it.question}”`).join(', '),
            })}
          </p>
        )}
        {toReview.length > 0 && (
          <fieldset class="criteria criteria-review">
            <legend>
              {t('review.group', { count: toReview.length })}
              {canEdit && pending.length > 1 && (
                <>
                  {' '}
                  <button
                    type="button"
                    class="button button-small"
                    disabled={busy}
                    data-testid="confirm-all"
                    onClick={() => void decide({ all: true })}
                  >
                    {t('pending.confirmAll', { count: pending.length })}
                  </button>
                </>
              )}
            </legend>
            {toReview.map(criterion)}
          </fieldset>
        )}
        {categories.map((cat) => {
          const sub = subtotals.get(cat);
          return (
            <fieldset key={cat} class="criteria">
              <legend>
                {categoryName(cat)}
                {sub && (
                  <span class="muted small" data-testid="subtotal">
                    {' · '}
                    {t('audit.subtotal', { earned: formatNumber(sub.earned), possible: formatNumber(sub.possible) })}
                  </span>
                )}
              </legend>
              {others.filter((it) => it.category === cat).map(criterion)}
            </fieldset>
          );
        })}
        {canEdit && (
          <div class="form-actions">
            <button type="submit" class="button button-primary" disabled={busy || changed.length === 0}>
              {busy ? t('audit.saving') : t('audit.save', { count: changed.length })}
            </button>
            <button type="button" class="button button-quiet" disabled={busy || changed.length === 0} onClick={discard}>
              {t('audit.discard')}
            </button>
          </div>
        )}
        <div aria-live="polite">
          {outcome && (
            <p class={outcome.kind === 'ok' ? 'alert alert-success' : 'alert alert-info'} role="status">
              {outcome.text}
            </p>
          )}
        </div>
        {error !== null && (
          <ErrorMessage
            error={error}
            onRetry={error instanceof ApiError && error.status === 409 ? () => void save(audit.revision) : undefined}
          />
        )}
      </form>
      {coaching && <CoachDialog seed={coaching} onClose={() => setCoaching(null)} />}
    </>
  );
}

/** percent shows a confidence from 0 to 1 as a whole percentage. */
const percent = (x: number) => `${Math.round(x * 100)} %`;

/**
 * Criterion is one item of the audit: its verdict and explanation (editable
 * by analysts), the quote it rests on and, for the engine's verdicts, how
 * it reached them and how sure it is. An item to review shows its category
 * (it is listed apart from it) and can be confirmed as it is.
 */
function Criterion({
  item: it,
  draft,
  canEdit,
  busy,
  pending,
  onChange,
  onDecide,
  onEvidence,
  onCoach,
}: {
  item: AuditItem;
  draft?: Drafts[string];
  canEdit: boolean;
  busy: boolean;
  /** pending: the verdict awaits an analyst's decision (onDecide: confirm it, or change it to complies). */
  pending: boolean;
  onChange: (patch: Partial<Drafts[string]>) => void;
  onDecide: (complies?: boolean) => void;
  onEvidence: (turn: number) => void;
  /** onCoach opens coaching for the agent on this criterion, when it failed and the user coaches. */
  onCoach?: () => void;
}) {
  const d = draft ?? { verdict: verdictOf(it), explanation: it.explanation };
  const id = `crit-${it.criterion_id}`;
  // What confirming a pending verdict keeps, and what changing it makes it (N/A is changed to not met).
  const engine = pendingVerdictName(it);
  const other = t(it.complies ? 'pending.notMet' : 'pending.met');
  return (
    <div class={d.verdict === 'does_not_comply' ? 'criterion criterion-fail' : 'criterion'} data-criterion={it.criterion_id}>
      <p class="check">
        <span>
          {it.needs_review && <span class="criterion-category">{categoryName(it.category)} · </span>}
          {it.question}
          <span class="muted small" data-testid="weight">
            {' · '}
            {t(d.verdict === 'not_applicable' ? 'audit.weightOut' : 'audit.weight', { weight: formatNumber(it.weight) })}
          </span>
          {it.critical && <span class="badge task-fail"> {t('audit.critical')}</span>}
          {it.needs_review && (
            <>
              {' '}
              <span class="badge badge-review">{t('review.badge')}</span>
            </>
          )}{' '}
          {!canEdit && <VerdictBadge value={d.verdict} />}
        </span>
      </p>
      {canEdit && <VerdictControl name={id} question={it.question} value={d.verdict} onChange={(verdict) => onChange({ verdict })} />}
      <label class="sr-only" for={`${id}-why`}>
        {t('audit.explanation', { question: it.question })}
      </label>
      <textarea
        id={`${id}-why`}
        rows={2}
        value={d.explanation}
        readOnly={!canEdit}
        onInput={(e) => onChange({ explanation: e.currentTarget.value })}
      />
      {it.evidence && <Evidence text={it.evidence} turns={it.evidence_turns ?? []} onEvidence={onEvidence} />}
      {onCoach && !it.complies && (
        <p class="form-actions">
          <button type="button" class="button button-small" aria-label={`${t('coaching.open')}: ${it.question}`} onClick={onCoach}>
            {t('coaching.open')}
          </button>
        </p>
      )}
      {it.basis && (
        <p class="small muted" data-testid="assessment">
          {t('review.automatic', { basis: t(`basis.${it.basis}`), confidence: percent(it.confidence ?? 0) })}
        </p>
      )}
      {canEdit && it.needs_review && pending && !draft && (
        <p class="form-actions" data-testid="pending-actions">
          <button
            type="button"
            class="button button-small button-primary"
            disabled={busy}
            aria-label={`${t('pending.confirm', { verdict: engine })}: ${it.question}`}
            onClick={() => onDecide()}
          >
            {t('pending.confirm', { verdict: engine })}
          </button>
          <button
            type="button"
            class="button button-small"
            disabled={busy}
            aria-label={`${t('pending.change', { verdict: other })}: ${it.question}`}
            onClick={() => onDecide(!it.complies)}
          >
            {t('pending.change', { verdict: other })}
          </button>
        </p>
      )}
      {canEdit &&
        it.needs_review &&
        (!pending || draft) &&
        (draft ? (
          <p class="small">{t('review.yours')}</p>
        ) : (
          <button
            type="button"
            class="button button-small"
            aria-label={`${t('review.confirm')}: ${it.question}`}
            onClick={() => onChange({})}
          >
            {t('review.confirm')}
          </button>
        ))}
    </div>
  );
}

/** TurnNumber is a turn's number as the transcript shows it, read out as "Turn n". */
function TurnNumber({ n }: { n: number }) {
  return (
    <span class="turn-number">
      <span class="sr-only">{t('task.turn', { n })}</span>
      <span aria-hidden="true">{n}</span>
    </span>
  );
}

/** Evidence is an item's quotes, a line each, each linked to the turn it is said in when the service found it. */
function Evidence({ text, turns, onEvidence }: { text: string; turns: number[]; onEvidence: (turn: number) => void }) {
  return (
    <ul class="evidence small">
      {text.split('\n').map((line, i) => (
        <li key={i}>
          {turns[i] ? (
            <button type="button" class="button-link" onClick={() => onEvidence(turns[i])} title={t('audit.evidence', { n: turns[i] })}>
              <TurnNumber n={turns[i]} /> “{line}”
            </button>
          ) : (
            <span class="muted">“{line}”</span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Revisions({ task }: { task: TaskDetail }) {
  if (!task.revisions?.length) return null;
  return (
    <section class="card" aria-labelledby="revisions-title">
      <h2 id="revisions-title">{t('revisions.title')}</h2>
      <div class="table-wrap" data-testid="revisions">
        <table class="table">
          <thead>
            <tr>
              <th scope="col">{t('revisions.revision')}</th>
              <th scope="col">{t('revisions.source')}</th>
              <th scope="col">{t('revisions.author')}</th>
              <th scope="col">{t('tasks.score')}</th>
              <th scope="col">{t('revisions.when')}</th>
            </tr>
          </thead>
          <tbody>
            {[...task.revisions].reverse().map((r) => (
              <tr key={r.revision}>
                <td>{r.revision}</td>
                <td>
                  {t(`source.${r.source}` as MessageKey)}
                  {r.calibration && (
                    <>
                      {' · '}
                      <Link href={`/app/calibration/${r.calibration.id}`}>{t('cal.revisionReason', { name: r.calibration.name })}</Link>
                    </>
                  )}
                </td>
                <td>{r.author_name || r.author_id || (r.engine ? engineName(r.engine) : '—')}</td>
                <td>
                  {r.score_before !== undefined && <span class="muted">{formatScore(r.score_before)} → </span>}
                  {r.pending ? (
                    <span class="score">
                      <strong>{formatScore(r.score)}</strong>{' '}
                      <span class="badge badge-review">{t('pending.badge', { count: r.pending })}</span>
                    </span>
                  ) : (
                    <ScoreBadge score={r.score} passed={r.passed} />
                  )}
                </td>
                <td>{formatDateTime(r.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** CallFacts are what the platform said of the call or chat: its references, and the customer's data to analysts. */
function CallFacts({ task }: { task: TaskDetail }) {
  const facts: [string, string, string][] = [];
  const add = (id: string, label: string, value: string | undefined) => value && facts.push([id, label, value]);
  add('call-id', t('tasks.callId'), task.call_id);
  add('queue', t('tasks.queue'), task.queue);
  add('direction', t('tasks.direction'), task.direction && t(`tasks.${task.direction}`));
  add('started', t('task.startedAt'), task.started_at && formatDateTime(task.started_at));
  add('caller', t('task.caller'), task.caller);
  add('called', t('task.called'), task.called);
  add('customer', t('privacy.externalId'), task.customer_ref);
  const meta = Object.entries(task.metadata ?? {});
  return (
    <>
      {facts.map(([id, label, value]) => (
        <div key={id}>
          <dt>{label}</dt>
          <dd data-testid={`task-${id}`}>{value}</dd>
        </div>
      ))}
      {meta.length > 0 && (
        <div>
          <dt>{t('task.metadata')}</dt>
          <dd data-testid="task-metadata" class="metadata">
            {meta.map(([k, v]) => (
              <span key={k} class="badge">
                {k}: {String(v)}
              </span>
            ))}
          </dd>
        </div>
      )}
    </>
  );
}
