// Recent bulk actions (GET /bulk-actions), reached from the task list: the
// caller's own, or anyone's for supervisors, with their status and counts
// kept live by bulk_action.updated events; and one action's results by task
// (GET /bulk-actions/{id}/items), each said in the reader's language.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { formatDateTime, formatNumber, formatRelative, t, type MessageKey } from '../i18n';
import { UserPicker } from '../pickers/Picker';
import { Link, location } from '../router';
import { useApp } from '../state';
import { atLeast } from '../types';
import { Ago, AnySelect, ErrorMessage, FilterButtons, Loading, PageHeader, showFilters, useAction, useLoad } from '../ui';
import { actionName, BulkPanel, ResultMessage } from './BulkActions';
import {
  advance,
  advanceAll,
  bulkActions,
  bulkStatuses,
  finished,
  listFiltersOf,
  listQueryOf,
  type BulkAction,
  type BulkActionSummary,
  type BulkItem,
  type BulkProgress,
  type ListFilters,
} from './bulk';

const basePath = '/app/bulk-actions';
const pageSize = 20;
const resultsPageSize = 100;

/** statusName is an action's status as the dashboard names it. */
const statusName = (s: BulkProgress['status']) => t(`bulk.statusName.${s}` as MessageKey);

/** useBulkEvents calls on with the progress of every bulk_action.updated event while the screen is open. */
function useBulkEvents(on: (p: BulkProgress) => void) {
  const app = useApp();
  const latest = useRef(on);
  latest.current = on;
  useEffect(() => app.events.on('bulk_action.updated', (ev) => latest.current(ev.data as BulkProgress)), [app.events]);
}

/** Listing is the list as the page shows it: the pages read so far, and the cursor after them. */
interface Listing {
  items: BulkActionSummary[];
  next?: string;
}

/** BulkActionsPage lists bulk actions newest first, with filters in the URL. */
export function BulkActionsPage() {
  const app = useApp();
  const query = location.value.query;
  const applied = listFiltersOf(query);
  const key = listQueryOf(applied).toString();
  const lead = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const { busy, run } = useAction();
  const params = useCallback((cursor?: string) => ({ ...Object.fromEntries(new URLSearchParams(key)), limit: pageSize, cursor }), [key]);
  const { data, setData, error, loading, reload } = useLoad<Listing>(
    (signal) =>
      app.api.get('/bulk-actions', { params: { query: params() }, signal }).then((page) => ({ items: page.items ?? [], next: page.next })),
    [app.api, params],
  );
  useBulkEvents((p) => setData((d) => d && { ...d, items: advanceAll(d.items, p) }));
  const loadMore = () =>
    run(async () => {
      const page = await app.api.get('/bulk-actions', { params: { query: params(data?.next) } });
      setData((d) => d && { items: [...d.items, ...(page.items ?? [])], next: page.next });
    });

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('bulk.list.title')}>
        <Link class="button" href="/app/tasks">
          {t('bulk.list.toTasks')}
        </Link>
        <button type="button" class="button" onClick={reload}>
          {t('app.refresh')}
        </button>
      </PageHeader>
      <p class="muted">{t(lead ? 'bulk.list.introLead' : 'bulk.list.intro')}</p>
      <ListFilterForm key={key} initial={applied} lead={lead} />
      {error !== null && !data ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : !data ? (
        <Loading />
      ) : data.items.length === 0 ? (
        <p class="empty">{t('bulk.list.empty')}</p>
      ) : (
        <div class="table-wrap" aria-busy={loading}>
          <table class="table" data-testid="bulk-actions">
            <caption class="sr-only">{t('bulk.list.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('bulk.list.requested')}</th>
                <th scope="col">{t('bulk.action')}</th>
                <th scope="col">{t('bulk.list.requestedBy')}</th>
                <th scope="col">{t('bulk.list.tasks')}</th>
                <th scope="col">{t('bulk.list.status')}</th>
                <th scope="col">{t('bulk.count.done')}</th>
                <th scope="col">{t('bulk.count.succeeded')}</th>
                <th scope="col">{t('bulk.count.skipped')}</th>
                <th scope="col">{t('bulk.count.failed')}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((a) => (
                <tr key={a.id} data-bulk={a.id} data-action={a.action} data-status={a.status}>
                  <td>
                    <Link href={`${basePath}/${a.id}`} title={formatDateTime(a.created_at)}>
                      {formatRelative(a.created_at)}
                    </Link>
                  </td>
                  <td>{actionName(a.action)}</td>
                  <td>{a.requested_by}</td>
                  <td class="small">{a.filter !== undefined ? a.filter || t('bulk.noFilter') : t('bulk.list.byID')}</td>
                  <td>
                    <span class={`badge bulk-status-${a.status}`}>{statusName(a.status)}</span>
                  </td>
                  <td>
                    {t('bulk.list.doneOf', { done: formatNumber(a.done), matched: a.matched === null ? '—' : formatNumber(a.matched) })}
                  </td>
                  <td>{formatNumber(a.succeeded)}</td>
                  <td>{formatNumber(a.skipped)}</td>
                  <td>{formatNumber(a.failed)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data?.next && (
        <button type="button" class="button" disabled={busy} onClick={() => void loadMore()}>
          {t('app.loadMore')}
        </button>
      )}
    </section>
  );
}

function ListFilterForm({ initial, lead }: { initial: ListFilters; lead: boolean }) {
  const [f, setF] = useState<ListFilters>(initial);
  return (
    <form
      class="filters"
      role="search"
      aria-label={t('bulk.list.filters')}
      onSubmit={(e) => {
        e.preventDefault();
        showFilters(basePath, listQueryOf(f));
      }}
    >
      <div class="filter-row">
        <AnySelect
          id="bulk-list-status"
          label={t('bulk.list.status')}
          value={f.status}
          options={bulkStatuses.map((s) => [s, statusName(s)] as const)}
          onChange={(status) => setF((cur) => ({ ...cur, status }))}
        />
        <AnySelect
          id="bulk-list-action"
          label={t('bulk.action')}
          value={f.action}
          options={bulkActions.map((a) => [a, actionName(a)] as const)}
          onChange={(action) => setF((cur) => ({ ...cur, action }))}
        />
        {lead && (
          <UserPicker
            id="bulk-list-requester"
            free
            label={t('bulk.list.requester')}
            value={f.requested_by}
            onChange={(requested_by) => setF((cur) => ({ ...cur, requested_by }))}
          />
        )}
        <FilterButtons basePath={basePath} apply={t('tasks.apply')} reset={t('tasks.reset')} />
      </div>
    </form>
  );
}

const outcomes = ['failed', 'skipped', 'succeeded'] as const;
type OutcomeFilter = (typeof outcomes)[number] | '';

/** BulkActionPage is one bulk action, live, and its result on every task, in pages. */
export function BulkActionPage({ id }: { id: string }) {
  const app = useApp();
  const action = useLoad<BulkAction>((signal) => app.api.get('/bulk-actions/{id}', { params: { path: { id } }, signal }), [app.api, id]);
  useBulkEvents((p) => action.setData((a) => a && advance(a, p)));
  const a = action.data;
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={a ? t('bulk.panelTitle', { action: actionName(a.action) }) : t('bulk.list.title')}>
        <Link class="button" href={basePath}>
          {t('bulk.list.back')}
        </Link>
      </PageHeader>
      {action.error !== null && !a ? (
        <ErrorMessage error={action.error} onRetry={action.reload} />
      ) : !a ? (
        <Loading />
      ) : (
        <>
          <p class="muted small">{t('bulk.list.requestedOn', { who: a.requested_by, when: formatDateTime(a.created_at) })}</p>
          <BulkPanel action={a} onChange={(v) => action.setData(v)} labelledBy="page-title" />
          <BulkResults action={a} />
        </>
      )}
    </section>
  );
}

/** BulkResults is action a's result on each task so far, of one outcome if chosen, in pages; read again when a ends. */
function BulkResults({ action: a }: { action: BulkAction }) {
  const app = useApp();
  const [outcome, setOutcome] = useState<OutcomeFilter>('');
  const { busy, run } = useAction();
  const ended = finished(a.status);
  const params = useCallback((cursor?: string) => ({ outcome: outcome || undefined, limit: resultsPageSize, cursor }), [outcome]);
  // Deleted results are not read (the screen says they were deleted).
  const deleted = a.results_deleted_at !== undefined;
  const { data, setData, error, loading, reload } = useLoad<{ items: BulkItem[]; next?: string }>(
    (signal) =>
      deleted
        ? Promise.resolve({ items: [] })
        : app.api
            .get('/bulk-actions/{id}/items', { params: { path: { id: a.id }, query: params() }, signal })
            .then((p) => ({ items: p.items ?? [], next: p.next })),
    [app.api, deleted, a.id, params],
  );
  // Read again when the action ends.
  const wasEnded = useRef(ended);
  useEffect(() => {
    if (ended && !wasEnded.current) reload();
    wasEnded.current = ended;
  }, [ended, reload]);
  const loadMore = () =>
    run(async () => {
      const page = await app.api.get('/bulk-actions/{id}/items', { params: { path: { id: a.id }, query: params(data?.next) } });
      setData((d) => d && { items: [...d.items, ...(page.items ?? [])], next: page.next });
    });
  return (
    <section class="card" aria-labelledby="bulk-results-title">
      <h2 id="bulk-results-title">{t('bulk.results.title')}</h2>
      <div class="filter-row">
        <AnySelect
          id="bulk-results-outcome"
          label={t('bulk.results.outcome')}
          value={outcome}
          options={outcomes.map((o) => [o, t(`bulk.outcome.${o}` as MessageKey)] as const)}
          onChange={setOutcome}
        />
        <div class="filter-buttons">
          <button type="button" class="button" onClick={reload}>
            {t('app.refresh')}
          </button>
        </div>
      </div>
      {error !== null && !data ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : !data ? (
        <Loading />
      ) : a.results_deleted_at ? (
        <p class="empty">{t('bulk.resultsDeleted', { date: formatDateTime(a.results_deleted_at) })}</p>
      ) : data.items.length === 0 ? (
        <p class="empty">{t('bulk.results.empty')}</p>
      ) : (
        <div class="table-wrap" aria-busy={loading}>
          <table class="table" data-testid="bulk-results">
            <caption class="sr-only">{t('bulk.results.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('bulk.results.task')}</th>
                <th scope="col">{t('bulk.results.outcome')}</th>
                <th scope="col">{t('bulk.results.message')}</th>
                <th scope="col">{t('bulk.results.at')}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((it) => (
                <tr key={it.task_uuid} data-uuid={it.task_uuid} data-outcome={it.outcome}>
                  <td>
                    <Link href={`/app/tasks/${it.task_uuid}`}>{it.file_name}</Link>
                  </td>
                  <td>
                    <span class={`badge bulk-${it.outcome}`}>{t(`bulk.outcome.${it.outcome}` as MessageKey)}</span>
                  </td>
                  <td>
                    <ResultMessage item={it} />
                  </td>
                  <td>
                    <Ago at={it.at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data?.next && (
        <button type="button" class="button" disabled={busy} onClick={() => void loadMore()}>
          {t('app.loadMore')}
        </button>
      )}
    </section>
  );
}
