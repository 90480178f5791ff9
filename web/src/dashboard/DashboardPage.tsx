import { DashboardCalibration } from '../calibration/CalibrationPages';
import { useMemo } from 'preact/hooks';
import { formatScore, t } from '../i18n';
import { location } from '../router';
import { useApp } from '../state';
import { dayOf, dayStart, taskListLink } from '../tasks/state';
import { atLeast, type Dashboard } from '../types';
import { ErrorMessage, Loading, PageHeader, useLoad } from '../ui';
import { ChannelsCard } from './ChannelsCard';
import { ChartCard } from './ChartCard';
import { PeriodForm } from './PeriodForm';
import { ranked } from './ranking';

const basePath = '/app/dashboard';
const fields = ['from', 'to', 'campaign', 'operator'] as const;
type Filters = Record<(typeof fields)[number], string>;

/** queryOf is the page's query string for f, empty filters left out. */
function queryOf(f: Filters): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of fields) if (f[k].trim()) q.set(k, f[k].trim());
  return q;
}

function filtersOf(q: URLSearchParams): Filters {
  return { from: q.get('from') ?? '', to: q.get('to') ?? '', campaign: q.get('campaign') ?? '', operator: q.get('operator') ?? '' };
}

/**
 * tasksLink is the task list behind a chart's bar: the dashboard's
 * campaign, agent and period (in days, both ends included: the
 * dashboard's `to` is the midnight that ends it; its default, the last 30
 * days), narrowed by narrow.
 */
function tasksLink(applied: Filters, narrow: Record<string, string>): string {
  const today = dayOf(new Date());
  const from = applied.from || dayOf(new Date(dayStart(today, -30)));
  return taskListLink(from, dayOf(new Date(applied.to ? dayStart(applied.to, -1) : dayStart(today))), applied, narrow);
}

const percent = (x: number | null) => (x === null ? '—' : `${formatScore(x * 100)} %`);

/** DashboardPage shows GET /stats/dashboard as figures and charts, with its filters in the URL. */
export function DashboardPage() {
  const app = useApp();
  const query = location.value.query;
  const key = query.toString();
  const applied = useMemo(() => filtersOf(new URLSearchParams(key)), [key]);
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const quality = atLeast(app.profile.value?.role ?? 'none', 'quality');
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/stats/dashboard', { params: { query: { ...applied, tz } }, signal }).then(withLists),
    [app.api, applied, tz],
  );

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('dash.title')}>
        <button type="button" class="button" onClick={reload}>
          {t('app.refresh')}
        </button>
      </PageHeader>
      <PeriodForm key={key} id="dash" label={t('dash.filters')} basePath={basePath} initial={applied} agent={quality} query={queryOf} />
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : (
        <>
          <dl class="facts card" data-testid="dash-figures">
            <div>
              <dt>{t('dash.tasks')}</dt>
              <dd>{data.tasks}</dd>
            </div>
            <div>
              <dt>{t('dash.audited')}</dt>
              <dd>{data.audited}</dd>
            </div>
            <div data-testid="dash-pending">
              <dt>{t('dash.pendingReview')}</dt>
              <dd title={t('dash.pendingReviewTitle')}>{data.pending_review}</dd>
            </div>
            <div>
              <dt>{t('dash.approval')}</dt>
              <dd>{percent(data.approval_rate)}</dd>
            </div>
            <div>
              <dt>{t('dash.average')}</dt>
              <dd>{data.average_score === null ? '—' : formatScore(data.average_score)}</dd>
            </div>
            <div>
              <dt>{t('dash.validated')}</dt>
              <dd>{data.validated}</dd>
            </div>
            <div>
              <dt>{t('dash.minutes')}</dt>
              <dd>{formatScore(data.audio_minutes)}</dd>
            </div>
            <div data-testid="dash-automatic">
              <dt>{t('dash.automatic')}</dt>
              <dd>
                {percent(data.automatic.share)}{' '}
                <span class="muted small">
                  {t('dash.automaticOf', { confident: data.automatic.confident, verdicts: data.automatic.verdicts })}
                </span>
              </dd>
            </div>
          </dl>
          <div class="charts">
            <ChartCard
              title={t('dash.perDay')}
              config={{
                type: 'bar',
                data: {
                  labels: data.per_day.map((d) => d.day),
                  datasets: [
                    { label: t('dash.tasks'), data: data.per_day.map((d) => d.tasks), backgroundColor: '#93c5fd' },
                    { label: t('dash.audited'), data: data.per_day.map((d) => d.audited), backgroundColor: '#1d4ed8' },
                    { label: t('dash.passed'), data: data.per_day.map((d) => d.passed), backgroundColor: '#15803d' },
                  ],
                },
              }}
              table={[
                [t('dash.day'), t('dash.tasks'), t('dash.audited'), t('dash.passed')],
                ...data.per_day.map((d) => [d.day, d.tasks, d.audited, d.passed]),
              ]}
              links={data.per_day.map((d) => tasksLink(applied, { from: d.day, to: d.day }))}
            />
            <ChartCard
              title={t('dash.distribution')}
              config={{
                type: 'bar',
                data: {
                  labels: data.score_distribution.map((b) => `${b.from}–${b.to}`),
                  datasets: [{ label: t('dash.audited'), data: data.score_distribution.map((b) => b.count), backgroundColor: '#1d4ed8' }],
                },
              }}
              table={[[t('dash.range'), t('dash.audited')], ...data.score_distribution.map((b) => [`${b.from}–${b.to}`, b.count])]}
              links={data.score_distribution.map((b) =>
                // Ranges hold their start: the last one holds 100 too.
                tasksLink(applied, { min_score: String(b.from), max_score: String(b.to >= 100 ? 100 : b.to - 0.01) }),
              )}
            />
            <ChartCard
              title={t('dash.approvalPerDay')}
              config={{
                type: 'line',
                data: {
                  labels: data.per_day.map((d) => d.day),
                  datasets: [
                    {
                      label: t('dash.approval'),
                      data: data.per_day.map((d) => (d.audited ? (100 * d.passed) / d.audited : null)),
                      borderColor: '#15803d',
                      backgroundColor: '#15803d',
                    },
                  ],
                },
                options: { scales: { y: { min: 0, max: 100 } } },
              }}
              table={[
                [t('dash.day'), t('dash.approval')],
                ...data.per_day.map((d) => [d.day, d.audited ? percent(d.passed / d.audited) : '—']),
              ]}
              links={data.per_day.map((d) => tasksLink(applied, { from: d.day, to: d.day }))}
            />
            <ChartCard
              title={t('dash.criteria')}
              config={{
                type: 'bar',
                data: {
                  labels: data.criteria_failed.map((c) => (c.question.length > 40 ? c.question.slice(0, 39) + '…' : c.question)),
                  datasets: [
                    { label: t('dash.failedRate'), data: data.criteria_failed.map((c) => 100 * c.rate), backgroundColor: '#b91c1c' },
                  ],
                },
                options: { indexAxis: 'y', scales: { x: { min: 0, max: 100 } } },
              }}
              table={[[t('dash.criterion'), t('dash.failedRate')], ...data.criteria_failed.map((c) => [c.question, percent(c.rate)])]}
              links={data.criteria_failed.map((c) => tasksLink(applied, { failed_criterion: c.criterion_id }))}
            />
            <ChartCard
              title={t('dash.operators')}
              config={{
                type: 'bar',
                data: {
                  labels: data.agents.map((o) => o.operator_id),
                  datasets: [{ label: t('dash.average'), data: data.agents.map((o) => o.average_score), backgroundColor: '#5b21b6' }],
                },
                options: { scales: { y: { min: 0, max: 100 } } },
              }}
              table={[
                [t('tasks.operator'), t('dash.average'), t('dash.audited')],
                ...data.agents.map((o) => [o.operator_id, formatScore(o.average_score), o.audited]),
              ]}
              links={data.agents.map((o) => tasksLink(applied, { operator: o.operator_id }))}
            />
            <ChannelsCard c={data.channels} link={(narrow) => tasksLink(applied, narrow)} />
            <DashboardCalibration />
          </div>
        </>
      )}
    </section>
  );
}

/** withLists is d with an empty list for each list the API sent as null. */
function withLists(d: Dashboard) {
  return {
    ...d,
    per_day: d.per_day ?? [],
    score_distribution: d.score_distribution ?? [],
    criteria_failed: d.criteria_failed ?? [],
    agents: ranked({ top: d.operators.top ?? [], bottom: d.operators.bottom ?? [] }),
  };
}
