import { useState } from 'preact/hooks';
import { formatNumber, t } from '../i18n';
import type { CoachingReport } from '../types';
import { CoachDialog, type CoachingSeed } from './CoachDialog';

/** rate shows a before or after figure: its percentage and how many audits it rests on. */
function rate(value: number | null | undefined, audits: number): string {
  if (value === null || value === undefined) return t('coaching.report.none');
  return t('coaching.report.audits', { rate: `${formatNumber(Math.round(value * 10) / 10)} %`, n: audits });
}

/**
 * CoachingReportCard is GET /stats/coaching on the Reports page: coaching
 * open and done per team (campaign), and each coached criterion's score
 * before and after. With an agent and a campaign chosen in the filters, each
 * criterion of the agent's report opens coaching for them.
 */
export function CoachingReportCard({
  report,
  agent,
  campaign,
  criteria,
}: {
  report: CoachingReport;
  agent: string;
  campaign: string;
  criteria: { criterion_id: string; question?: string }[];
}) {
  const [seed, setSeed] = useState<CoachingSeed | null>(null);
  const teams = report.teams ?? [];
  const coached = report.criteria ?? [];
  return (
    <section class="card" aria-labelledby="coaching-report-title" data-testid="coaching-report">
      <h2 id="coaching-report-title">{t('coaching.report')}</h2>
      <p class="muted small">{t('coaching.report.intro', { days: report.window_days })}</p>
      {teams.length === 0 ? (
        <p class="muted">{t('coaching.report.empty')}</p>
      ) : (
        <div class="table-scroll">
          <table class="table" data-testid="coaching-teams">
            <caption class="sr-only">{t('coaching.report.teams')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('coaching.campaign')}</th>
                <th scope="col">{t('coaching.report.openCount')}</th>
                <th scope="col">{t('coaching.report.overdue')}</th>
                <th scope="col">{t('coaching.report.done')}</th>
              </tr>
            </thead>
            <tbody>
              {teams.map((tm) => (
                <tr key={tm.campaign_id}>
                  <td>{tm.campaign}</td>
                  <td>{tm.open}</td>
                  <td>{tm.overdue}</td>
                  <td>{tm.done}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table class="table" data-testid="coaching-criteria">
            <caption class="sr-only">{t('coaching.criteria')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('coaching.campaign')}</th>
                <th scope="col">{t('coaching.report.criterion')}</th>
                <th scope="col">{t('coaching.report.items')}</th>
                <th scope="col">{t('coaching.report.before')}</th>
                <th scope="col">{t('coaching.report.after')}</th>
              </tr>
            </thead>
            <tbody>
              {coached.map((c) => (
                <tr key={`${c.campaign_id}/${c.criterion_id}`}>
                  <td>{c.campaign}</td>
                  <td>{c.question || c.criterion_id}</td>
                  <td>{c.items}</td>
                  <td>{rate(c.before, c.audits_before)}</td>
                  <td>{rate(c.after, c.audits_after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {agent && campaign && criteria.length > 0 && (
        <p class="form-actions">
          {criteria.map((c) => (
            <button
              key={c.criterion_id}
              type="button"
              class="button button-small"
              onClick={() =>
                setSeed({ agentId: agent, campaign, criteria: [{ id: c.criterion_id, question: c.question || c.criterion_id }], links: [] })
              }
            >
              {t('coaching.openFor', { agent })}: {c.question || c.criterion_id}
            </button>
          ))}
        </p>
      )}
      {seed && <CoachDialog seed={seed} onClose={() => setSeed(null)} />}
    </section>
  );
}
