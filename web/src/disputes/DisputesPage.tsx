import { useEffect, useState } from 'preact/hooks';
import { formatRelative, t } from '../i18n';
import { Link } from '../router';
import { useApp } from '../state';
import { atLeast, type Dispute } from '../types';
import { ErrorMessage, Loading, PageHeader, useLoad } from '../ui';
import { CoachDialog, type CoachingSeed } from '../coaching/CoachDialog';
import { CampaignPicker, UserPicker } from '../pickers/Picker';
import { ResolveDialog } from './ResolveDialog';
import { statusKey } from './status';

const statuses = ['open', 'accepted', 'rejected', 'all'] as const;
type Status = (typeof statuses)[number];

/**
 * DisputesPage is the queue of disputes (GET /disputes): open ones oldest
 * first, for supervisors every one (analysts those of the audits they
 * validated, agents their own); supervisors resolve them here.
 */
export function DisputesPage() {
  const app = useApp();
  const [status, setStatus] = useState<Status>('open');
  const [resolving, setResolving] = useState<Dispute | null>(null);
  const [coaching, setCoaching] = useState<CoachingSeed | null>(null);
  const [f, setF] = useState({ agent_id: '', campaign_id: '' });
  const put = (patch: Partial<typeof f>) => setF((cur) => ({ ...cur, ...patch }));
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/disputes', { params: { query: { status, agent_id: f.agent_id, campaign_id: f.campaign_id } }, signal }),
    [app.api, status, f.agent_id, f.campaign_id],
  );
  const canResolve = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const analyst = atLeast(app.profile.value?.role ?? 'none', 'quality');
  useEffect(() => {
    const offs = ['dispute.opened', 'dispute.accepted', 'dispute.rejected'].map((type) => app.events.on(type, () => reload()));
    return () => offs.forEach((off) => off());
  }, [app.events, reload, status]);

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('disputes.title')} />
      <div class="filter-row">
        <div class="field">
          <label for="disputes-status">{t('disputes.status')}</label>
          <select id="disputes-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status)}>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s === 'all' ? t('disputes.all') : t(`dispute.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        {analyst && (
          <UserPicker id="disputes-agent" label={t('disputes.agent')} value={f.agent_id} onChange={(agent_id) => put({ agent_id })} />
        )}
        <CampaignPicker
          id="disputes-campaign"
          by="id"
          label={t('disputes.campaign')}
          value={f.campaign_id}
          onChange={(campaign_id) => put({ campaign_id })}
        />
      </div>
      {error !== null && !data ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : !data ? (
        <Loading />
      ) : !data.items?.length ? (
        <p class="muted">{t('disputes.empty')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('disputes.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('disputes.task')}</th>
                <th scope="col">{t('disputes.agent')}</th>
                <th scope="col">{t('disputes.criteria')}</th>
                <th scope="col">{t('disputes.status')}</th>
                <th scope="col">{t('disputes.opened')}</th>
                {canResolve && <th scope="col">{t('jobs.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {data.items.map((d) => (
                <tr key={d.id} data-dispute={d.id}>
                  <td>
                    <Link href={`/app/tasks/${d.task_uuid}`}>{d.file_name}</Link>
                  </td>
                  <td>{d.agent_id}</td>
                  <td>{(d.items ?? []).map((i) => i.question).join(' · ')}</td>
                  <td>{t(statusKey(d))}</td>
                  <td>{formatRelative(d.opened_at)}</td>
                  {canResolve && (
                    <td>
                      {d.status === 'open' && (
                        <button
                          type="button"
                          class="button button-small"
                          aria-label={`${t('disputes.resolve')}: ${d.file_name}`}
                          onClick={() => setResolving(d)}
                        >
                          {t('disputes.resolve')}
                        </button>
                      )}{' '}
                      <button
                        type="button"
                        class="button button-small"
                        aria-label={`${t('coaching.open')}: ${d.file_name}`}
                        onClick={() =>
                          setCoaching({
                            agentId: d.agent_id,
                            campaign: d.campaign,
                            criteria: (d.items ?? []).map((i) => ({ id: i.criterion_id, question: i.question })),
                            links: [{ taskUuid: d.task_uuid, fileName: d.file_name, quote: '' }],
                            disputeId: d.id,
                          })
                        }
                      >
                        {t('coaching.open')}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {coaching && <CoachDialog seed={coaching} onClose={() => setCoaching(null)} />}
      {resolving && (
        <ResolveDialog
          dispute={resolving}
          onClose={() => {
            setResolving(null);
            reload();
          }}
        />
      )}
    </section>
  );
}
