import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Query } from '../api';
import { t, type MessageKey } from '../i18n';
import { Link, location } from '../router';
import { useApp } from '../state';
import { StreamStatus } from '../notifications/Bell';
import { atLeast, taskStatuses, type TaskSummary } from '../types';
import { Ago, AnySelect, ErrorMessage, FilterButtons, Loading, PageHeader, showFilters, SortHeader, useAction, useLoad } from '../ui';
import { ReviewStateBadge } from '../reviews/ReviewStateBadge';
import { ReviewBadge, ScoreBadge, StatusBadge, TranscriptBadge } from './badges';
import {
  apiFilters,
  applyTask,
  arrive,
  directions,
  filtersOf,
  promote,
  queryOf,
  reviewStates,
  unseenFilters,
  type TaskFilters,
} from './state';
import { BulkActions, BulkCheckCell, BulkCheckHeader, useBulk } from './BulkActions';
import { SavedViews } from './SavedViews';
import { Upload } from './Upload';
import { CampaignPicker, CriterionPicker, UserPicker } from '../pickers/Picker';

const basePath = '/app/tasks';
const pageSize = 50;
const liveEvents = ['task.created', 'task.updated', 'audit.updated'] as const;

function apiQuery(f: TaskFilters, cursor?: string): Query {
  return { ...apiFilters(f), sort: f.sort, order: f.order, limit: pageSize, cursor };
}

/** filterQuery is the list's filters alone: what the export and bulk actions select by. */
function filterQuery(f: TaskFilters): Query {
  const { sort: _sort, order: _order, limit: _limit, cursor: _cursor, ...filters } = apiQuery(f);
  return filters;
}

/** exportQuery is the export of what the list shows: its filters, a row per task. */
function exportQuery(f: TaskFilters, format: 'csv' | 'xlsx'): Query {
  return { ...filterQuery(f), format };
}

/** Listing is the list as the page shows it. */
interface Listing {
  tasks: TaskSummary[];
  /** fresh: new tasks held above the list until the reader shows them. */
  fresh: TaskSummary[];
  total: number;
  /** estimated: total is the server's estimate (many matches). */
  estimated?: boolean;
  next?: string;
}

/** summaryOf is the task summary an event carries (audit.updated wraps it in task). */
function summaryOf(type: string, data: unknown): TaskSummary {
  return type === 'audit.updated' ? (data as { task: TaskSummary }).task : (data as TaskSummary);
}

/** TasksPage lists tasks with filters and order kept in the URL, live through the task events; analysts upload here. */
export function TasksPage() {
  const app = useApp();
  const query = location.value.query;
  const key = query.toString();
  const applied = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  const [live, setLive] = useState(new Map<string, TaskSummary>());
  // A load applies the latest live tasks to its page; they do not load it again.
  const seen = useRef(live);
  seen.current = live;
  const { busy, run } = useAction();
  const filters = useRef(applied);
  filters.current = applied;
  // The tasks uploaded from this page go straight into the list.
  const mine = useRef(new Set<string>());
  const canUpload = atLeast(app.profile.value?.role ?? 'none', 'quality');
  const bulk = useBulk(key);
  // Kept once opened: closing it does not lose the uploads in progress.
  const [uploading, setUploading] = useState(false);

  // The list, its total and the cursor after it change together: an event
  // adds or drops a task.
  const {
    data: view,
    setData: setView,
    error,
    loading,
    reload,
  } = useLoad<Listing>(
    (signal) =>
      app.api.get('/tasks', { params: { query: apiQuery(applied) }, signal }).then((page) => {
        const listed = page.tasks ?? [];
        let list = listed;
        for (const s of seen.current.values()) if (list.some((x) => x.uuid === s.uuid)) list = applyTask(list, applied, s);
        return {
          tasks: list,
          fresh: [],
          total: page.total + list.length - listed.length,
          estimated: page.total_estimated,
          next: page.next,
        };
      }),
    [app.api, applied],
  );
  // Subscribed as the load starts: events that arrive meanwhile are applied
  // on top of the page, which gives the same result whatever the order.
  useEffect(() => {
    const offs = liveEvents.map((type) =>
      app.events.on(type, (ev) => {
        const s = summaryOf(ev.type, ev.data);
        setLive((m) => new Map(m).set(s.uuid, s));
        setView((v) => {
          if (!v) return v;
          const shown = arrive(v, filters.current, s, mine.current.has(s.uuid));
          return { ...v, ...shown, total: v.total + shown.tasks.length + shown.fresh.length - v.tasks.length - v.fresh.length };
        });
      }),
    );
    return () => offs.forEach((off) => off());
  }, [app.events, setView]);

  const tasks = view?.tasks ?? null;
  const total = view?.total ?? 0;
  const next = view?.next;

  const loadMore = () =>
    run(async () => {
      const page = await app.api.get('/tasks', { params: { query: apiQuery(applied, next) } });
      const known = new Set((tasks ?? []).map((x) => x.uuid));
      setView({
        tasks: [...(tasks ?? []), ...(page.tasks ?? []).filter((x) => !known.has(x.uuid))],
        fresh: view?.fresh ?? [],
        total: page.total,
        estimated: page.total_estimated,
        next: page.next,
      });
    });

  const sortHeader = (sort: TaskFilters['sort'], label: MessageKey) => (
    <SortHeader
      label={t(label)}
      sorted={applied.sort === sort ? applied.order : null}
      onSort={(order) => showFilters(basePath, queryOf({ ...applied, sort, order }))}
    />
  );

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('tasks.title')}>
        <StreamStatus />
        {canUpload && (
          <button
            type="button"
            class="button button-primary"
            aria-expanded={uploading}
            aria-controls="upload-panel"
            onClick={() => setUploading(!uploading)}
          >
            {t('tasks.upload')}
          </button>
        )}
        <button type="button" class="button" onClick={reload}>
          {t('app.refresh')}
        </button>
        {bulk.enabled && (
          <Link class="button" href="/app/bulk-actions">
            {t('bulk.recent')}
          </Link>
        )}
        {(['csv', 'xlsx'] as const).map((format) => (
          <button
            key={format}
            type="button"
            class="button"
            disabled={busy}
            title={t('tasks.exportHint')}
            onClick={() =>
              void run(
                () => app.api.download('/tasks/export', { params: { query: exportQuery(applied, format) } }),
                (name) => t('tasks.exported', { name }),
              )
            }
          >
            {t(format === 'csv' ? 'tasks.exportCSV' : 'tasks.exportXLSX')}
          </button>
        ))}
      </PageHeader>
      {canUpload && (
        <div id="upload-panel" hidden={!uploading}>
          <Upload
            live={live}
            onUploaded={(uuid) => {
              mine.current.add(uuid);
              setView((v) => v && { ...v, ...promote(v, uuid) });
            }}
          />
        </div>
      )}
      <SavedViews />
      <FilterForm key={key} initial={applied} quality={canUpload} />
      <BulkActions bulk={bulk} filter={filterQuery(applied)} total={total} estimated={view?.estimated} />
      {view && view.fresh.length > 0 && (
        <button
          type="button"
          class="button new-tasks"
          onClick={() => setView({ ...view, tasks: [...view.fresh, ...view.tasks], fresh: [] })}
        >
          {t('tasks.fresh', { n: view.fresh.length })}
        </button>
      )}
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : tasks === null ? (
        <Loading />
      ) : tasks.length === 0 ? (
        <p class="empty">{t('tasks.empty')}</p>
      ) : (
        <>
          <p class="muted" aria-live="polite">
            {t(view?.estimated ? 'tasks.countAbout' : 'tasks.count', { shown: tasks.length, total })}
          </p>
          <div class="table-wrap" aria-busy={loading}>
            <table class="table">
              <caption class="sr-only">{t('tasks.caption')}</caption>
              <thead>
                <tr>
                  {bulk.enabled && <BulkCheckHeader bulk={bulk} uuids={tasks.map((x) => x.uuid)} />}
                  {sortHeader('file_name', 'tasks.file')}
                  <th scope="col">{t('tasks.kind')}</th>
                  <th scope="col">{t('tasks.status')}</th>
                  <th scope="col">{t('tasks.campaign')}</th>
                  <th scope="col">{t('tasks.operator')}</th>
                  {sortHeader('score', 'tasks.score')}
                  {sortHeader('created_at', 'tasks.created')}
                </tr>
              </thead>
              <tbody>
                {tasks.map((x) => (
                  <tr key={x.uuid} data-uuid={x.uuid} data-status={x.status}>
                    {bulk.enabled && <BulkCheckCell bulk={bulk} uuid={x.uuid} name={x.file_name} />}
                    <td>
                      <Link href={`${basePath}/${x.uuid}`}>{x.file_name}</Link>
                      {x.error && <p class="small muted">{x.error}</p>}
                      {x.snippet && (
                        <p class="small snippet" data-testid="snippet">
                          {x.snippet.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : part.text))}
                        </p>
                      )}
                    </td>
                    <td>{t(x.kind === 'call' ? 'tasks.call' : 'tasks.chat')}</td>
                    <td>
                      <StatusBadge status={x.status} /> <ReviewStateBadge state={x.review_state} />
                    </td>
                    <td>{x.campaign}</td>
                    <td>{x.operator_id ?? '—'}</td>
                    <td>
                      <ScoreBadge score={x.score} passed={x.passed} pending={x.pending} min={x.score_min} max={x.score_max} />{' '}
                      <ReviewBadge count={x.review_items} /> <TranscriptBadge reason={x.transcript_unreliable} />
                    </td>
                    <td>
                      <Ago at={x.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {next && tasks && (
        <button type="button" class="button" disabled={busy} onClick={() => void loadMore()}>
          {t('app.loadMore')}
        </button>
      )}
    </section>
  );
}

/** moreFilters are the filters behind "More filters": the bar shows the others. */
const moreFilters = [
  'kind',
  'needs_review',
  'transcript_unreliable',
  'review_state',
  'min_score',
  'max_score',
  'failed_criterion',
  'validated_by',
  'assignee',
  'language',
  'direction',
  'queue',
  'call_id',
  ...unseenFilters,
] as const;

/**
 * FilterForm is the list's filters: a bar of the common ones, the others behind "More filters" (open when one is
 * set); quality shows those an agent may not use (qualityFilters) and the pickers of users.
 */
function FilterForm({ initial, quality }: { initial: TaskFilters; quality: boolean }) {
  const [f, setF] = useState<TaskFilters>(initial);
  // Changes merge into the latest filters: a picker commits what was typed on blur, as the next control changes.
  const put = (patch: Partial<TaskFilters>) => setF((cur) => ({ ...cur, ...patch }));
  const set = moreFilters.filter((k) => initial[k].trim()).length;
  const submit = (e: Event) => {
    e.preventDefault();
    showFilters(basePath, queryOf(f));
  };
  const user = (k: 'operator' | 'validated_by' | 'assignee', id: string, label: MessageKey) =>
    quality ? (
      <UserPicker id={id} free label={t(label)} value={f[k]} onChange={(v) => put({ [k]: v })} />
    ) : (
      <div class="field">
        <label for={id}>{t(label)}</label>
        <input id={id} value={f[k]} size={12} onInput={(e) => put({ [k]: e.currentTarget.value })} />
      </div>
    );
  return (
    <form class="filters filter-bar" role="search" onSubmit={submit} aria-label={t('tasks.filters')}>
      <div class="filter-row">
        <div class="field field-wide">
          <label for="tasks-q">{t('tasks.search')}</label>
          <input
            id="tasks-q"
            type="search"
            value={f.q}
            placeholder={t('tasks.searchExample')}
            title={t('tasks.searchHint')}
            onInput={(e) => put({ q: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="tasks-file">{t('tasks.fileName')}</label>
          <input id="tasks-file" type="search" size={14} value={f.file_name} onInput={(e) => put({ file_name: e.currentTarget.value })} />
        </div>
        <AnySelect
          id="tasks-status"
          label={t('tasks.status')}
          value={f.status}
          options={taskStatuses.map((s) => [s, t(`status.${s}` as MessageKey)] as const)}
          onChange={(status) => put({ status })}
        />
        <CampaignPicker
          id="tasks-campaign"
          free
          label={t('tasks.campaign')}
          value={f.campaign}
          onChange={(campaign) => put({ campaign })}
        />
        {user('operator', 'tasks-operator', 'tasks.operator')}
        <AnySelect
          id="tasks-passed"
          label={t('tasks.result')}
          value={f.passed}
          options={[
            ['true', t('tasks.resultPassed')],
            ['false', t('tasks.resultFailed')],
          ]}
          onChange={(passed) => put({ passed })}
        />
        <div class="field">
          <label for="tasks-from">{t('tasks.from')}</label>
          <input id="tasks-from" type="date" value={f.from} onInput={(e) => put({ from: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="tasks-to">{t('tasks.to')}</label>
          <input id="tasks-to" type="date" value={f.to} onInput={(e) => put({ to: e.currentTarget.value })} />
        </div>
        <FilterButtons basePath={basePath} apply={t('tasks.apply')} reset={t('tasks.reset')} />
      </div>
      <details class="more-filters" open={set > 0}>
        <summary>{set > 0 ? t('tasks.moreFiltersSet', { n: set }) : t('tasks.moreFilters')}</summary>
        <p id="tasks-q-hint" class="small muted">
          {t('tasks.searchHint')}
        </p>
        <div class="filter-row">
          <AnySelect
            id="tasks-kind"
            label={t('tasks.kind')}
            value={f.kind}
            options={[
              ['call', t('tasks.call')],
              ['chat', t('tasks.chat')],
            ]}
            onChange={(kind) => put({ kind })}
          />
          <AnySelect
            id="tasks-review"
            label={t('tasks.review')}
            value={f.needs_review}
            options={[
              ['true', t('tasks.reviewNeeded')],
              ['false', t('tasks.reviewNone')],
            ]}
            onChange={(needs_review) => put({ needs_review })}
          />
          <AnySelect
            id="tasks-transcript"
            label={t('transcript.label')}
            value={f.transcript_unreliable}
            options={[
              ['true', t('transcript.unreliable')],
              ['false', t('transcript.reliable')],
            ]}
            onChange={(transcript_unreliable) => put({ transcript_unreliable })}
          />
          <AnySelect
            id="tasks-review-state"
            label={t('review.state')}
            value={f.review_state}
            options={reviewStates.map((r) => [r, t(`reviewState.${r}`)] as const)}
            onChange={(review_state) => put({ review_state })}
          />
          {(
            [
              ['min_score', 'tasks-min-score', 'tasks.minScore'],
              ['max_score', 'tasks-max-score', 'tasks.maxScore'],
            ] as const
          ).map(([k, id, label]) => (
            <div class="field" key={k}>
              <label for={id}>{t(label)}</label>
              <input
                id={id}
                type="number"
                min="0"
                max="100"
                step="0.01"
                size={6}
                value={f[k]}
                onInput={(e) => put({ [k]: e.currentTarget.value })}
              />
            </div>
          ))}
          <CriterionPicker
            id="tasks-failed"
            free
            label={t('tasks.failedCriterion')}
            campaign={f.campaign}
            value={f.failed_criterion}
            onChange={(failed_criterion) => put({ failed_criterion })}
          />
          {user('validated_by', 'tasks-validator', 'tasks.validatedBy')}
          {user('assignee', 'tasks-assignee', 'tasks.assignee')}
          <div class="field">
            <label for="tasks-language">{t('tasks.language')}</label>
            <input
              id="tasks-language"
              value={f.language}
              placeholder="es, en-GB"
              size={8}
              onInput={(e) => put({ language: e.currentTarget.value })}
            />
          </div>
          <AnySelect
            id="tasks-direction"
            label={t('tasks.direction')}
            value={f.direction}
            options={directions.map((d) => [d, t(`tasks.${d}`)] as const)}
            onChange={(direction) => put({ direction })}
          />
          <div class="field">
            <label for="tasks-queue">{t('tasks.queue')}</label>
            <input id="tasks-queue" value={f.queue} size={10} onInput={(e) => put({ queue: e.currentTarget.value })} />
          </div>
          <div class="field">
            <label for="tasks-call-id">{t('tasks.callId')}</label>
            <input id="tasks-call-id" value={f.call_id} size={12} onInput={(e) => put({ call_id: e.currentTarget.value })} />
          </div>
        </div>
        <CallFilters f={f} put={put} quality={quality} />
      </details>
    </form>
  );
}

/** channelBounds are the inputs of the bounds on what a call's channels tell: key, input id, label, step, max. */
const channelBounds = [
  ['min_agent_talk_ratio', 'tasks-min-talk', 'tasks.minAgentTalk', '0.01', '1'],
  ['max_agent_talk_ratio', 'tasks-max-talk', 'tasks.maxAgentTalk', '0.01', '1'],
  ['min_silence_share', 'tasks-min-silence', 'tasks.minSilence', '0.01', '1'],
  ['max_silence_share', 'tasks-max-silence', 'tasks.maxSilence', '0.01', '1'],
  ['min_longest_silence', 'tasks-min-longest', 'tasks.minLongestSilence', '1', '99999'],
  ['min_dead_air', 'tasks-min-dead-air', 'tasks.minDeadAir', '1', '9999'],
  ['min_overtalk', 'tasks-min-overtalk', 'tasks.minOvertalk', '1', '9999'],
  ['min_holds', 'tasks-min-holds', 'tasks.minHolds', '1', '9999'],
] as const;

/**
 * CallFilters are the filters on a call's facts (when it started; its numbers and custom fields for quality and
 * above) and on what its channels tell.
 */
function CallFilters({ f, put, quality }: { f: TaskFilters; put: (patch: Partial<TaskFilters>) => void; quality: boolean }) {
  const text = (k: 'caller' | 'called' | 'metadata', id: string, label: MessageKey, placeholder: string) => (
    <div class="field" key={k}>
      <label for={id}>{t(label)}</label>
      <input id={id} value={f[k]} size={14} placeholder={placeholder} onInput={(e) => put({ [k]: e.currentTarget.value })} />
    </div>
  );
  return (
    <div class="filter-row" data-testid="call-filters">
      <div class="field">
        <label for="tasks-started-from">{t('tasks.startedFrom')}</label>
        <input id="tasks-started-from" type="date" value={f.started_from} onInput={(e) => put({ started_from: e.currentTarget.value })} />
      </div>
      <div class="field">
        <label for="tasks-started-to">{t('tasks.startedTo')}</label>
        <input id="tasks-started-to" type="date" value={f.started_to} onInput={(e) => put({ started_to: e.currentTarget.value })} />
      </div>
      {quality && (
        <>
          {text('caller', 'tasks-caller', 'tasks.caller', '+34600112233')}
          {text('called', 'tasks-called', 'tasks.called', '')}
          {text('metadata', 'tasks-metadata', 'tasks.metadata', 'tier=gold')}
        </>
      )}
      {channelBounds.map(([k, id, label, step, max]) => (
        <div class="field" key={k}>
          <label for={id}>{t(label)}</label>
          <input
            id={id}
            type="number"
            min="0"
            max={max}
            step={step}
            size={6}
            value={f[k]}
            onInput={(e) => put({ [k]: e.currentTarget.value })}
          />
        </div>
      ))}
    </div>
  );
}
