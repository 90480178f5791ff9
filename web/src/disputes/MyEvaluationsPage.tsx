import type { ChartConfiguration } from 'chart.js';
import { ChartCard, FiguresTable, type Cell } from '../dashboard/ChartCard';
import { formatDateTime, formatNumber, locale, t } from '../i18n';
import { weekLabel } from '../reports/state';
import { Link } from '../router';
import { useApp } from '../state';
import type { MyEvaluations, Trends } from '../types';
import { ErrorMessage, Loading, PageHeader, useLoad } from '../ui';
import { statusKey } from './status';

const percent = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : new Intl.NumberFormat(locale.value, { style: 'percent', maximumFractionDigits: 0 }).format(x);

/**
 * MyEvaluationsPage is an agent's own evaluations: their validated ones
 * (GET /users/me/evaluations) with the acknowledgement and each dispute's
 * outcome, their average score week by week and how often they met each
 * criterion (GET /stats/trends, which shows an agent only their figures).
 */
export function MyEvaluationsPage() {
  const app = useApp();
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const list = useLoad((signal) => app.api.get('/users/me/evaluations', { params: { query: { limit: 200 } }, signal }), [app.api]);
  const trends = useLoad(
    (signal) => app.api.get('/stats/trends', { params: { query: { tz, operator: app.profile.value?.id } }, signal }),
    [app.api, app.profile.value?.id, tz],
  );
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('mine.title')} />
      <p class="muted small">{t('mine.intro', { tz })}</p>
      {trends.error !== null ? (
        <ErrorMessage error={trends.error} onRetry={trends.reload} />
      ) : trends.data === null ? (
        <Loading />
      ) : (
        <MyTrend trends={trends.data} />
      )}
      {list.error !== null ? (
        <ErrorMessage error={list.error} onRetry={list.reload} />
      ) : list.data === null ? (
        <Loading />
      ) : (
        <Evaluations page={list.data} />
      )}
    </section>
  );
}

/** MyTrend is the agent's average score by week, and each criterion's share met by week. */
function MyTrend({ trends }: { trends: Trends }) {
  const weeks = trends.weeks ?? [];
  const labels = weeks.map((w) => weekLabel(w.week, locale.value));
  const mine = trends.agents?.[0];
  const scores = (mine?.weeks ?? []).map((w) => w.average_score ?? null);
  const config: ChartConfiguration = {
    type: 'line',
    data: {
      labels,
      datasets: [{ label: t('mine.score'), data: scores, borderColor: '#5b21b6', backgroundColor: '#5b21b6', spanGaps: true }],
    },
    options: { scales: { y: { min: 0, max: 100 } }, plugins: { legend: { display: false } } },
  };
  const criteria = trends.criteria ?? [];
  const newestFirst = <T,>(xs: T[]) => [...xs].reverse();
  return (
    <>
      <ChartCard
        title={t('mine.trend')}
        config={config}
        weeks
        table={[
          [t('mine.week'), t('mine.score'), t('mine.audited')],
          ...newestFirst(
            weeks.map((_, i): Cell[] => {
              const w = mine?.weeks?.[i];
              return [labels[i], w?.average_score == null ? '—' : formatNumber(w.average_score), String(w?.audited ?? 0)];
            }),
          ),
        ]}
      />
      <section class="card" aria-labelledby="mine-criteria">
        <h2 id="mine-criteria">{t('mine.criteria')}</h2>
        {criteria.length === 0 ? (
          <p class="muted">{t('mine.none')}</p>
        ) : (
          <FiguresTable
            weeks
            head={[t('dash.criterion'), t('reports.period'), ...newestFirst(labels)]}
            rows={criteria.map((c) => [
              c.question || c.criterion_id,
              percent(c.judged ? (c.judged - c.failed) / c.judged : null),
              ...newestFirst((c.weeks ?? []).map((w) => (w.judged ? percent((w.judged - w.failed) / w.judged) : '—'))),
            ])}
          />
        )}
      </section>
    </>
  );
}

/** Evaluations is the table of the agent's validated evaluations: result, acknowledgement, disputes and their outcome. */
function Evaluations({ page }: { page: MyEvaluations }) {
  const items = page.items ?? [];
  return (
    <section class="card" aria-labelledby="mine-list">
      <h2 id="mine-list">{t('mine.list', { count: page.total })}</h2>
      {items.length === 0 ? (
        <p class="muted">{t('mine.empty')}</p>
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table class="table" data-testid="my-evaluations">
            <thead>
              <tr>
                <th scope="col">{t('mine.task')}</th>
                <th scope="col">{t('mine.campaign')}</th>
                <th scope="col">{t('mine.score')}</th>
                <th scope="col">{t('mine.validated')}</th>
                <th scope="col">{t('mine.acknowledgement')}</th>
                <th scope="col">{t('mine.disputes')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.task_uuid} data-task={e.task_uuid}>
                  <td>
                    <Link href={`/app/tasks/${encodeURIComponent(e.task_uuid)}`}>{e.file_name}</Link>
                  </td>
                  <td>{e.campaign}</td>
                  <td>
                    {e.score == null ? '—' : formatNumber(e.score)}{' '}
                    {e.passed != null && (
                      <span class={e.passed ? 'badge badge-passed' : 'badge badge-failed'}>
                        {t(e.passed ? 'mine.passed' : 'mine.failed')}
                      </span>
                    )}
                  </td>
                  <td>
                    {formatDateTime(e.validated_at)} · {e.validator_name}
                  </td>
                  <td data-testid="ack">
                    {e.acknowledged_at ? t('mine.acknowledgedOn', { date: formatDateTime(e.acknowledged_at) }) : t('mine.notAcknowledged')}
                  </td>
                  <td data-testid="disputes">
                    {(e.disputes ?? []).length === 0
                      ? '—'
                      : (e.disputes ?? []).map((d) => (
                          <span key={d.id} class={`badge dispute-${d.status}`}>
                            {t(statusKey(d))}
                          </span>
                        ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
