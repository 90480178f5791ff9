import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { Query } from '../api';
import { formatDateTime, formatNumber, jobStateName, t } from '../i18n';
import { location } from '../router';
import { useApp } from '../state';
import { jobStates, type CanaryResult, type Job } from '../types';
import { Ago, ErrorMessage, FilterButtons, Loading, PageHeader, showFilters, useAction, useLoad } from '../ui';

const basePath = '/app/admin/jobs';
const limits = ['25', '50', '100', '200'];
const retryable = new Set(['cancelled', 'completed', 'discarded', 'retryable', 'scheduled']);
const cancellable = new Set(['available', 'pending', 'retryable', 'running', 'scheduled']);

interface Filters {
  state: string[];
  kind: string;
  queue: string;
  limit: string;
}

function filtersOf(q: URLSearchParams): Filters {
  return { state: q.getAll('state'), kind: q.get('kind') ?? '', queue: q.get('queue') ?? '', limit: q.get('limit') ?? '50' };
}

/** apiQuery is the GET /admin/jobs query for f, as the URL has it: the API checks it (an unknown state is its 400). */
function apiQuery(f: Filters, cursor?: string): Query {
  return { state: f.state, kind: f.kind.trim(), queue: f.queue.trim(), limit: f.limit, cursor };
}

/** queryOf is the page's own query string for f (defaults left out). */
function queryOf(f: Filters): URLSearchParams {
  const q = new URLSearchParams();
  for (const s of f.state) q.append('state', s);
  if (f.kind.trim()) q.set('kind', f.kind.trim());
  if (f.queue.trim()) q.set('queue', f.queue.trim());
  if (f.limit !== '50') q.set('limit', f.limit);
  return q;
}

/** JobsPage lists background jobs with filters (kept in the URL), retry and cancel, and runs the canary. */
export function JobsPage() {
  const app = useApp();
  const query = location.value.query;
  const key = query.toString();
  const applied = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  const { data, setData, error, reload } = useLoad(
    (signal) => app.api.get('/admin/jobs', { params: { query: apiQuery(applied) }, signal }),
    [app.api, applied],
  );
  const jobs = data?.items ?? null;
  const next = data?.next;
  const { busy, run } = useAction();

  const loadMore = () =>
    run(async () => {
      const page = await app.api.get('/admin/jobs', { params: { query: apiQuery(applied, next) } });
      setData({ items: [...(jobs ?? []), ...(page.items ?? [])], next: page.next });
    });

  const replace = (j: Job) => setData((p) => p && { ...p, items: (p.items ?? []).map((x) => (x.id === j.id ? j : x)) });
  const act = (j: Job, action: 'retry' | 'cancel') =>
    run(
      async () => {
        const updated = await app.api.post(`/admin/jobs/{id}/${action}`, { params: { path: { id: j.id } } });
        replace(updated);
        return updated;
      },
      (u) => t(action === 'retry' ? 'jobs.retried' : 'jobs.cancelled', { id: u.id, state: jobStateName(u.state) }),
    );

  // River UI's pages cannot send the token: it is exchanged for a session
  // cookie scoped to /riverui/, then River UI opens in this tab, at the
  // page River UI sent a browser without a session from (?riverui=).
  const back = riverUIPage(query.get('riverui'));
  const openRiverUI = useCallback(
    () =>
      run(async () => {
        const s = await app.api.post('/admin/riverui/session');
        window.location.assign(back ?? s.url);
      }),
    [app.api, back, run],
  );
  useEffect(() => {
    if (back && app.auth.config?.river_ui) void openRiverUI();
    // Once, for the page River UI sent the browser from.
  }, [app.auth.config?.river_ui, back, openRiverUI]);

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('jobs.title')}>
        {app.auth.config?.river_ui && (
          <button type="button" class="button" disabled={busy} onClick={() => void openRiverUI()}>
            {t('jobs.riverUI')}
          </button>
        )}
        <button type="button" class="button" onClick={reload}>
          {t('app.refresh')}
        </button>
      </PageHeader>
      <Canary onDone={reload} />
      <FilterForm key={key} initial={applied} />
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : jobs === null ? (
        <Loading />
      ) : jobs.length === 0 ? (
        <p class="empty">{t('jobs.empty')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('jobs.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('jobs.id')}</th>
                <th scope="col">{t('jobs.kindColumn')}</th>
                <th scope="col">{t('jobs.state')}</th>
                <th scope="col">{t('jobs.queueColumn')}</th>
                <th scope="col">{t('jobs.attempt')}</th>
                <th scope="col">{t('jobs.created')}</th>
                <th scope="col">{t('jobs.finalized')}</th>
                <th scope="col">{t('jobs.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <JobRow key={j.id} job={j} busy={busy} onAct={act} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && jobs && (
        <button type="button" class="button" disabled={busy} onClick={() => void loadMore()}>
          {t('app.loadMore')}
        </button>
      )}
    </section>
  );
}

function JobRow({ job: j, busy, onAct }: { job: Job; busy: boolean; onAct: (j: Job, a: 'retry' | 'cancel') => void }) {
  return (
    <tr data-kind={j.kind} data-state={j.state}>
      <td>{j.id}</td>
      <td>
        <code>{j.kind}</code>
        <details class="job-details">
          <summary>{t('jobs.details')}</summary>
          <h3>{t('jobs.args')}</h3>
          <pre>{JSON.stringify(j.args, null, 2)}</pre>
          <h3>{t('jobs.errors')}</h3>
          {!j.errors?.length ? (
            <p class="muted">{t('jobs.noErrors')}</p>
          ) : (
            <ul>
              {j.errors.map((e) => (
                <li key={e.attempt}>{t('jobs.attemptError', { attempt: e.attempt, time: formatDateTime(e.at), error: e.error })}</li>
              ))}
            </ul>
          )}
        </details>
      </td>
      <td>
        <span class={`badge state-${j.state}`}>{jobStateName(j.state)}</span>
      </td>
      <td>{j.queue}</td>
      <td>
        {j.attempt}/{j.max_attempts}
      </td>
      <td>
        <Ago at={j.created_at} />
      </td>
      <td>{j.finalized_at ? <time dateTime={j.finalized_at}>{formatDateTime(j.finalized_at)}</time> : '—'}</td>
      <td>
        <div class="row-actions">
          {retryable.has(j.state) && (
            <button
              type="button"
              class="button button-small"
              disabled={busy}
              onClick={() => onAct(j, 'retry')}
              aria-label={`${t('jobs.retry')} #${j.id}`}
            >
              {t('jobs.retry')}
            </button>
          )}
          {cancellable.has(j.state) && (
            <button
              type="button"
              class="button button-small button-quiet"
              disabled={busy}
              onClick={() => onAct(j, 'cancel')}
              aria-label={`${t('jobs.cancel')} #${j.id}`}
            >
              {t('jobs.cancel')}
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}

function FilterForm({ initial }: { initial: Filters }) {
  const [f, setF] = useState<Filters>(initial);
  const submit = (e: Event) => {
    e.preventDefault();
    showFilters(basePath, queryOf(f));
  };
  return (
    <form class="filters" onSubmit={submit} aria-label={t('jobs.filters')}>
      <fieldset>
        <legend>{t('jobs.state')}</legend>
        <div class="checks">
          {jobStates.map((s) => (
            <label key={s} class="check">
              <input
                type="checkbox"
                name="state"
                value={s}
                checked={f.state.includes(s)}
                onChange={(e) => setF({ ...f, state: e.currentTarget.checked ? [...f.state, s] : f.state.filter((x) => x !== s) })}
              />
              {jobStateName(s)}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="filter-row">
        <div class="field">
          <label for="jobs-kind">{t('jobs.kind')}</label>
          <input
            id="jobs-kind"
            name="kind"
            value={f.kind}
            placeholder="canary"
            aria-describedby="jobs-kind-help"
            onInput={(e) => setF({ ...f, kind: e.currentTarget.value })}
          />
          <p id="jobs-kind-help" class="help">
            {t('jobs.kindHelp')}
          </p>
        </div>
        <div class="field">
          <label for="jobs-queue">{t('jobs.queue')}</label>
          <input id="jobs-queue" name="queue" value={f.queue} onInput={(e) => setF({ ...f, queue: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="jobs-limit">{t('jobs.limit')}</label>
          <select id="jobs-limit" name="limit" value={f.limit} onChange={(e) => setF({ ...f, limit: e.currentTarget.value })}>
            {limits.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </div>
        <FilterButtons basePath={basePath} apply={t('jobs.apply')} reset={t('jobs.reset')} />
      </div>
    </form>
  );
}

function Canary({ onDone }: { onDone: () => void }) {
  const app = useApp();
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<CanaryResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const go = async () => {
    setRunning(true);
    setResult(null);
    setError(null);
    try {
      setResult(await app.api.post('/admin/canary'));
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
      onDone();
    }
  };
  return (
    <div class="canary">
      <div>
        <button type="button" class="button button-primary" onClick={() => void go()} disabled={running} aria-describedby="canary-help">
          {running ? t('jobs.canaryRunning') : t('jobs.canary')}
        </button>
        <p id="canary-help" class="help">
          {t('jobs.canaryHelp')}
        </p>
      </div>
      <div aria-live="polite">
        {result && (
          <p class="alert alert-success" role="status">
            {t('jobs.canaryOk', { id: result.job_id, ms: formatNumber(result.latency_ms) })}
          </p>
        )}
      </div>
      {error !== null && <ErrorMessage error={error} />}
    </div>
  );
}

/** riverUIPage is a River UI page to return to, or null for anything else (no redirect elsewhere). */
export function riverUIPage(path: string | null): string | null {
  return path && path.startsWith('/riverui/') && !path.includes('//') && !path.includes('\\') ? path : null;
}
