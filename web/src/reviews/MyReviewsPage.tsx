// "My reviews": an analyst's queue of the tasks assigned to them for
// review, soonest due first, kept live by the task events; supervisors
// also see each analyst's progress.
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n';
import { Link } from '../router';
import { useApp } from '../state';
import { StatusBadge } from '../tasks/badges';
import { atLeast, type TaskSummary } from '../types';
import { Ago, ErrorMessage, Loading, PageHeader, useLoad } from '../ui';
import { ReviewProgressPanel } from './ReviewProgressPanel';
import { ReviewStateBadge } from './ReviewStateBadge';

/** MyReviewsPage lists GET /reviews/mine and, for supervisors, the analysts' progress. */
export function MyReviewsPage() {
  const app = useApp();
  const me = app.profile.value;
  const [withReviewed, setWithReviewed] = useState(false);
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/reviews/mine', { params: { query: { include_reviewed: withReviewed || undefined } }, signal }),
    [app.api, withReviewed],
  );
  // A task assigned to the user, or one of the queue that changed, reloads it.
  useEffect(
    () =>
      app.events.on('task.updated', (ev) => {
        const s = ev.data as TaskSummary;
        if (s.assignee_id === me?.id || data?.items?.some((x) => x.uuid === s.uuid)) reload();
      }),
    [app.events, data, me?.id, reload],
  );
  const items = data?.items ?? [];
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('reviews.title')}>
        <button type="button" class="button" onClick={reload}>
          {t('app.refresh')}
        </button>
      </PageHeader>
      <label class="check">
        <input type="checkbox" checked={withReviewed} onChange={(e) => setWithReviewed(e.currentTarget.checked)} />
        {t('reviews.includeReviewed')}
      </label>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : items.length === 0 ? (
        <p class="empty">{t('reviews.empty')}</p>
      ) : (
        <>
          <p class="muted" aria-live="polite">
            {t('reviews.count', { total: data.total, overdue: items.filter((x) => x.overdue).length })}
          </p>
          <div class="table-wrap">
            <table class="table" data-testid="my-reviews">
              <caption class="sr-only">{t('reviews.title')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('tasks.file')}</th>
                  <th scope="col">{t('tasks.campaign')}</th>
                  <th scope="col">{t('tasks.operator')}</th>
                  <th scope="col">{t('tasks.status')}</th>
                  <th scope="col">{t('reviews.state')}</th>
                  <th scope="col">{t('reviews.due')}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((x) => (
                  <tr key={x.uuid} data-uuid={x.uuid} class={x.overdue ? 'overdue' : undefined}>
                    <td>
                      <Link href={`/app/tasks/${x.uuid}`}>{x.file_name}</Link>
                    </td>
                    <td>{x.campaign}</td>
                    <td>{x.operator_id ?? '—'}</td>
                    <td>
                      <StatusBadge status={x.status} />
                    </td>
                    <td>
                      <ReviewStateBadge state={x.review_state} />
                    </td>
                    <td>
                      {x.due_at ? <Ago at={x.due_at} /> : '—'}{' '}
                      {x.overdue && <span class="badge badge-overdue">{t('reviews.overdue')}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {atLeast(me?.role ?? 'none', 'supervisor') && <ReviewProgressPanel />}
    </section>
  );
}
