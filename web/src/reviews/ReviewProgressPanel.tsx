import { useState } from 'preact/hooks';
import { formatNumber, t } from '../i18n';
import { useApp } from '../state';
import { ErrorMessage, Loading, useLoad } from '../ui';
import { CampaignPicker } from '../pickers/Picker';

/** daysAgo is the date (YYYY-MM-DD, UTC) n days before today. */
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** ReviewProgressPanel shows GET /reviews/progress: each analyst's assignments of a campaign and period. */
export function ReviewProgressPanel() {
  const app = useApp();
  const [campaign, setCampaign] = useState('');
  const [from, setFrom] = useState(daysAgo(30));
  const [to, setTo] = useState(daysAgo(-1));
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/reviews/progress', { params: { query: { campaign: campaign || undefined, from, to } }, signal }),
    [app.api, campaign, from, to],
  );
  const rows = data?.analysts ?? [];
  return (
    <section class="card" aria-labelledby="progress-title">
      <h2 id="progress-title">{t('reviews.progress')}</h2>
      <div class="filter-row progress-filters">
        <CampaignPicker
          id="progress-campaign"
          by="id"
          label={t('tasks.campaign')}
          any={t('reviews.allCampaigns')}
          value={campaign}
          onChange={setCampaign}
        />
        <div class="field">
          <label for="progress-from">{t('reviews.assignedFrom')}</label>
          <input id="progress-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="progress-to">{t('reviews.assignedTo')}</label>
          <input id="progress-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </div>
      </div>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p class="empty">{t('reviews.noProgress')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table" data-testid="review-progress">
            <caption class="sr-only">{t('reviews.progress')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('reviews.analyst')}</th>
                <th scope="col">{t('reviews.assigned')}</th>
                <th scope="col">{t('reviews.reviewed')}</th>
                <th scope="col">{t('reviews.validated')}</th>
                <th scope="col">{t('reviews.open')}</th>
                <th scope="col">{t('reviews.overdueCount')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.analyst_id} data-analyst={a.analyst_id}>
                  <th scope="row">{a.name || a.analyst_id}</th>
                  <td>{formatNumber(a.assigned)}</td>
                  <td>{formatNumber(a.reviewed)}</td>
                  <td>{formatNumber(a.validated)}</td>
                  <td>{formatNumber(a.open)}</td>
                  <td>{a.overdue > 0 ? <span class="badge badge-overdue">{formatNumber(a.overdue)}</span> : '0'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
