import type { ChartConfiguration } from 'chart.js';
import { useMemo } from 'preact/hooks';
import { channelFigures } from '../dashboard/ChannelsCard';
import { ChartCard, FiguresTable, useChart, type Cell } from '../dashboard/ChartCard';
import { CoachingReportCard } from '../coaching/CoachingReportCard';
import { PeriodForm } from '../dashboard/PeriodForm';
import { formatNumber, locale, t, type MessageKey } from '../i18n';
import { Link, location } from '../router';
import { useApp } from '../state';
import { atLeast, type AnalystsReport, type AnalystWork, type Trends } from '../types';
import { ErrorMessage, Loading, PageHeader, showFilters, SortHeader, useLoad } from '../ui';
import { duration, reportFiltersOf, reportQueryOf, signed, tasksLink, weekLabel, type ReportFilters } from './state';

const basePath = '/app/reports';

/** Lines of the criteria chart, one colour each (distinct on white, in this order). */
const palette = ['#b91c1c', '#1d4ed8', '#15803d', '#a16207', '#7e22ce', '#0e7490', '#be185d', '#4d7c0f', '#c2410c', '#334155'];

const percent = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : new Intl.NumberFormat(locale.value, { style: 'percent', maximumFractionDigits: 1 }).format(x);
const score = (x: number | null | undefined) => (x === null || x === undefined ? '—' : formatNumber(x));

/**
 * ReportsPage shows GET /stats/trends (each agent's and each criterion's
 * weeks, and what the calls' channels tell) and, for analysts and above,
 * GET /stats/analysts; every agent, criterion, figure and week opens the
 * task list behind it. Its filters are in the URL.
 */
export function ReportsPage() {
  const app = useApp();
  const analystsShown = atLeast(app.profile.value?.role ?? 'none', 'quality');
  const query = location.value.query;
  const key = query.toString();
  const applied = useMemo(() => reportFiltersOf(new URLSearchParams(key)), [key]);
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const period = useMemo(() => ({ from: applied.from, to: applied.to, tz, campaign: applied.campaign }), [applied, tz]);
  const trends = useLoad(
    (signal) =>
      app.api
        .get('/stats/trends', {
          params: { query: { ...period, operator: applied.operator, sort: applied.sort, order: applied.order } },
          signal,
        })
        .then(withLists),
    [app.api, applied.operator, applied.order, applied.sort, period],
  );
  const analysts = useLoad(
    (signal) => (analystsShown ? app.api.get('/stats/analysts', { params: { query: period }, signal }) : Promise.resolve(null)),
    [analystsShown, app.api, period],
  );
  const coachingShown = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const coaching = useLoad(
    (signal) => (coachingShown ? app.api.get('/stats/coaching', { params: { query: period }, signal }) : Promise.resolve(null)),
    [coachingShown, app.api, period],
  );
  const reload = () => {
    trends.reload();
    analysts.reload();
    coaching.reload();
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('reports.title')}>
        <button type="button" class="button" onClick={reload}>
          {t('app.refresh')}
        </button>
      </PageHeader>
      <PeriodForm
        key={key}
        id="reports"
        label={t('reports.filters')}
        basePath={basePath}
        initial={applied}
        agent={analystsShown}
        query={reportQueryOf}
      />
      <p class="muted small">{t('reports.weeks', { tz })}</p>
      {trends.error !== null ? (
        <ErrorMessage error={trends.error} onRetry={trends.reload} />
      ) : trends.data === null ? (
        <Loading />
      ) : (
        <>
          <Agents report={trends.data} applied={applied} />
          <Criteria report={trends.data} applied={applied} />
          <Channels report={trends.data} applied={applied} />
        </>
      )}
      {analystsShown &&
        (analysts.error !== null ? (
          <ErrorMessage error={analysts.error} onRetry={analysts.reload} />
        ) : analysts.data ? (
          <Analysts report={analysts.data} />
        ) : (
          trends.data !== null && <Loading />
        ))}
      {coachingShown &&
        (coaching.error !== null ? (
          <ErrorMessage error={coaching.error} onRetry={coaching.reload} />
        ) : coaching.data ? (
          <CoachingReportCard
            report={coaching.data}
            agent={applied.operator}
            campaign={applied.campaign}
            criteria={trends.data?.criteria.filter((c) => c.failed > 0) ?? []}
          />
        ) : (
          <Loading />
        ))}
    </section>
  );
}

type Report = ReturnType<typeof withLists>;
type Agent = Report['agents'][number];
type Criterion = Report['criteria'][number];

/** Agents is the table of the agents: their figures, a line of their weekly averages, their latest week and its change. */
function Agents({ report, applied }: { report: Report; applied: ReportFilters }) {
  const sortHeader = (sort: ReportFilters['sort'], label: MessageKey) => (
    <SortHeader
      label={t(label)}
      sorted={applied.sort === sort ? applied.order : null}
      onSort={(order) => showFilters(basePath, reportQueryOf({ ...applied, sort, order }))}
    />
  );
  const weeks = report.weeks;
  const labels = weeks.map((w) => weekLabel(w.week, locale.value));
  const weekLink = (a: Agent, i: number) => (a.weeks[i]?.audited ? tasksLink(weeks[i], applied, { operator: a.operator_id }) : undefined);
  return (
    <section class="card" aria-labelledby="agents-title">
      <h2 id="agents-title">{t('reports.agents')}</h2>
      {report.agents.length === 0 ? (
        <p class="muted">{t('reports.noAudits')}</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="table table-weeks" data-testid="agents">
              <thead>
                <tr>
                  {sortHeader('agent', 'tasks.operator')}
                  <th scope="col">{t('dash.audited')}</th>
                  <th scope="col">{t('dash.average')}</th>
                  <th scope="col">{t('dash.approval')}</th>
                  <th scope="col">{t('reports.trend')}</th>
                  {sortHeader('latest', 'reports.latest')}
                  {sortHeader('change', 'reports.change')}
                </tr>
              </thead>
              <tbody>
                {report.agents.map((a) => (
                  <tr key={a.operator_id} data-agent={a.operator_id}>
                    <th scope="row">
                      <Link href={tasksLink(report, applied, { operator: a.operator_id })}>{a.operator_id}</Link>
                    </th>
                    <td>{a.audited}</td>
                    <td>{score(a.average_score)}</td>
                    <td>{percent(a.approval_rate)}</td>
                    <td>
                      <Sparkline
                        label={t('reports.sparkline', {
                          agent: a.operator_id,
                          weeks: a.weeks.map((w, i) => `${labels[i]} ${score(w.average_score)}`).join(', '),
                        })}
                        labels={labels}
                        values={a.weeks.map((w) => w.average_score ?? null)}
                        link={(i) => weekLink(a, i)}
                      />
                    </td>
                    <td>
                      {score(a.latest_average)}{' '}
                      <span class="muted small">{t('reports.weekOf', { day: weekLabel(a.latest_week, locale.value) })}</span>
                    </td>
                    <td class={a.change ? (a.change < 0 ? 'change-down' : 'change-up') : undefined}>{signed(a.change, locale.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="muted small">
            {report.agents_total > report.agents.length &&
              `${t('reports.shown', { shown: report.agents.length, total: report.agents_total })} `}
            {t('reports.changeHelp')}
          </p>
          <details>
            <summary>{t('reports.byWeek')}</summary>
            <FiguresTable
              weeks
              head={[t('tasks.operator'), ...newestFirst(labels)]}
              rows={report.agents.map((a) => [
                { text: a.operator_id, href: tasksLink(report, applied, { operator: a.operator_id }) },
                ...newestFirst(
                  a.weeks.map((w, i): Cell =>
                    w.audited ? { text: `${score(w.average_score)} (${w.audited})`, href: weekLink(a, i) ?? '' } : '—',
                  ),
                ),
              ])}
            />
          </details>
        </>
      )}
    </section>
  );
}

/** Sparkline is a small line of an agent's weekly averages (0 to 100); a point clicked opens that week's tasks. */
function Sparkline({
  label,
  labels,
  values,
  link,
}: {
  label: string;
  labels: string[];
  values: (number | null)[];
  link: (week: number) => string | undefined;
}) {
  const { canvas } = useChart(
    {
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            data: values,
            borderColor: '#5b21b6',
            backgroundColor: '#5b21b6',
            borderWidth: 1.5,
            pointRadius: 2.5,
            pointHitRadius: 8,
            spanGaps: true,
            clip: false,
          },
        ],
      },
      options: {
        plugins: { legend: { display: false } },
        scales: { x: { display: false }, y: { display: false, min: 0, max: 100 } },
        layout: { padding: 4 },
      },
    },
    (_d, i) => link(i),
  );
  return (
    <div class="sparkline">
      <canvas ref={canvas} role="img" aria-label={label} data-testid="sparkline" />
    </div>
  );
}

/** Criteria is the chart of each criterion's failed share by week, its table leading to the audits that failed it. */
function Criteria({ report, applied }: { report: Report; applied: ReportFilters }) {
  const weeks = report.weeks;
  const labels = weeks.map((w) => weekLabel(w.week, locale.value));
  const criteria = report.criteria;
  const name = (c: Criterion) => c.question || c.criterion_id;
  const short = (s: string) => (s.length > 36 ? s.slice(0, 35) + '…' : s);
  const link = (c: Criterion, i: number) => tasksLink(weeks[i], applied, { failed_criterion: c.criterion_id });
  const config: ChartConfiguration = {
    type: 'line',
    data: {
      labels,
      datasets: criteria.map((c, i) => ({
        label: short(name(c)),
        data: c.weeks.map((w) => (w.rate === null || w.rate === undefined ? null : 100 * w.rate)),
        borderColor: palette[i % palette.length],
        backgroundColor: palette[i % palette.length],
        spanGaps: true,
      })),
    },
    options: { scales: { y: { min: 0, max: 100 } }, plugins: { legend: { position: 'bottom' } } },
  };
  return (
    <div class="chart-wide">
      <ChartCard
        title={t('reports.criteria')}
        config={config}
        pointLink={(d, i) => (criteria[d]?.weeks[i]?.failed ? link(criteria[d], i) : undefined)}
        weeks
        table={[
          [t('dash.criterion'), t('reports.period'), ...newestFirst(labels)],
          ...criteria.map((c) => [
            { text: name(c), href: tasksLink(report, applied, { failed_criterion: c.criterion_id }) },
            `${percent(c.rate)} (${c.failed}/${c.judged})`,
            ...newestFirst(
              c.weeks.map((w, i): Cell => (w.judged ? { text: `${percent(w.rate)} (${w.failed}/${w.judged})`, href: link(c, i) } : '—')),
            ),
          ]),
        ]}
      />
    </div>
  );
}

/**
 * Channels is the table of what the channels of the report's calls tell, over the period and by week, each figure a
 * link to the task list of the calls behind it (as on the dashboard's card).
 */
function Channels({ report, applied }: { report: Report; applied: ReportFilters }) {
  const c = report.channels;
  const rows = channelFigures(c);
  // The columns: the period, then the weeks, the latest first.
  const columns = [
    { span: report, figures: rows, calls: c.calls },
    ...newestFirst(report.weeks.map((w, i) => ({ span: w, figures: channelFigures(c.weeks[i]), calls: c.weeks[i].calls }))),
  ];
  const labels = newestFirst(report.weeks.map((w) => weekLabel(w.week, locale.value)));
  return (
    <section class="card" aria-labelledby="channels-title" data-testid="report-channels">
      <h2 id="channels-title">{t('reports.channels')}</h2>
      {c.calls === 0 ? (
        <p class="muted">{t('dash.channelsNone')}</p>
      ) : (
        <>
          <p class="muted small">{t('dash.channelsOf', { calls: c.calls, stereo: c.stereo_calls })}</p>
          <div class="table-scroll">
            <table class="table table-weeks">
              <thead>
                <tr>
                  <th scope="col">{t('reports.figure')}</th>
                  <th scope="col">{t('reports.period')}</th>
                  {labels.map((l, i) => (
                    <th key={i} scope="col">
                      {l}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((f, j) => (
                  <tr key={f.label} data-testid={f.testid}>
                    <th scope="row">{t(f.label)}</th>
                    {columns.map((col, i) => (
                      <td key={i}>
                        {col.calls === 0 ? (
                          '—'
                        ) : (
                          <Link href={tasksLink(col.span, applied, col.figures[j].narrow)} title={f.title && t(f.title)}>
                            {col.figures[j].value}
                          </Link>
                        )}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** Analysts is the table of the analysts' productivity, everyone's at its foot. */
function Analysts({ report }: { report: AnalystsReport }) {
  const analysts = report.analysts ?? [];
  const figures = (a: AnalystWork | AnalystsReport['total']) => (
    <>
      <td>{a.reviewed}</td>
      <td>{a.edits}</td>
      <td>{a.validations}</td>
      <td>
        {a.median_review_seconds === null || a.median_review_seconds === undefined ? '—' : duration(a.median_review_seconds, locale.value)}
      </td>
      <td>{a.timed}</td>
    </>
  );
  return (
    <section class="card" aria-labelledby="analysts-title">
      <h2 id="analysts-title">{t('reports.analysts')}</h2>
      {analysts.length === 0 ? (
        <p class="muted">{t('reports.noAnalysts')}</p>
      ) : (
        <div class="table-scroll">
          <table class="table" data-testid="analysts">
            <thead>
              <tr>
                <th scope="col">{t('reports.analyst')}</th>
                <th scope="col">{t('reports.reviewed')}</th>
                <th scope="col">{t('reports.edits')}</th>
                <th scope="col">{t('reports.validations')}</th>
                <th scope="col">{t('reports.median')}</th>
                <th scope="col">{t('reports.timed')}</th>
              </tr>
            </thead>
            <tbody>
              {analysts.map((a) => (
                <tr key={a.analyst_id} data-analyst={a.analyst_id}>
                  <th scope="row">
                    {a.name}
                    {a.name !== a.analyst_id && <span class="muted small"> ({a.analyst_id})</span>}
                  </th>
                  {figures(a)}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-analyst="">
                <th scope="row">{t('reports.everyone')}</th>
                {figures(report.total)}
              </tr>
            </tfoot>
          </table>
        </div>
      )}
      <p class="muted small">{t('reports.medianHelp')}</p>
    </section>
  );
}

/** newestFirst is a list of weeks' figures, the latest week first: the tables show it without scrolling. */
const newestFirst = <T,>(weeks: T[]) => [...weeks].reverse();

/** withLists is r with an empty list for each list the API sent as null. */
function withLists(r: Trends) {
  return {
    ...r,
    weeks: r.weeks ?? [],
    criteria: (r.criteria ?? []).map((c) => ({ ...c, weeks: c.weeks ?? [] })),
    agents: (r.agents ?? []).map((a) => ({ ...a, weeks: a.weeks ?? [] })),
    channels: { ...r.channels, weeks: r.channels.weeks ?? [] },
  };
}
