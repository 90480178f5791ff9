// A campaign's sampling rules, in its settings: the rules that pick
// audited tasks for an analyst's review and share them among the analysts.
import { useState } from 'preact/hooks';
import { formatDateTime, t, type MessageKey } from '../i18n';
import { useApp } from '../state';
import type { Campaign, SamplingRule } from '../types';
import { ErrorMessage, Loading, OutcomeMessage, useLoad, type Outcome } from '../ui';

type Kind = SamplingRule['kind'];
const kinds: Kind[] = ['per_agent', 'failed_critical', 'needs_review', 'random_share'];

interface Draft {
  name: string;
  kind: Kind;
  perAgent: string;
  share: string;
  period: SamplingRule['period'];
  language: string;
  taskKind: '' | 'call' | 'chat';
  strategy: SamplingRule['strategy'];
  dueDays: string;
}

const blank: Draft = {
  name: '',
  kind: 'per_agent',
  perAgent: '5',
  share: '10',
  period: 'week',
  language: '',
  taskKind: '',
  strategy: 'round_robin',
  dueDays: '3',
};

/** bodyOf is the API's rule for a draft: the count or the share only for the kinds that take them. */
function bodyOf(d: Draft) {
  return {
    name: d.name.trim(),
    kind: d.kind,
    per_agent: d.kind === 'per_agent' ? Number(d.perAgent) : undefined,
    share: d.kind === 'random_share' ? Number(d.share) : undefined,
    period: d.period,
    language: d.language.trim() || undefined,
    task_kind: d.taskKind || undefined,
    strategy: d.strategy,
    due_days: Number(d.dueDays),
  };
}

/** what says what a rule picks, in words. */
function what(r: SamplingRule): string {
  const base = t(`sampling.kind.${r.kind}` as MessageKey);
  const amount =
    r.kind === 'per_agent'
      ? t('sampling.perAgentAmount', { n: r.per_agent ?? 0, period: t(`sampling.period.${r.period}` as MessageKey) })
      : r.kind === 'random_share'
        ? t('sampling.shareAmount', { share: r.share ?? 0 })
        : '';
  const filters = [r.language, r.task_kind ? t(r.task_kind === 'call' ? 'tasks.call' : 'tasks.chat') : ''].filter(Boolean).join(', ');
  return [base, amount, filters].filter(Boolean).join(' · ');
}

/** SamplingRules lists a campaign's rules, adds, switches off and deletes them, and runs them at once. */
export function SamplingRules({ campaign }: { campaign: Campaign }) {
  const app = useApp();
  const ofCampaign = { params: { path: { id: campaign.id } } };
  const { data, setData, error, reload } = useLoad(
    (signal) => app.api.get('/campaigns/{id}/sampling-rules', { params: { path: { id: campaign.id } }, signal }),
    [app.api, campaign.id],
  );
  const [draft, setDraft] = useState<Draft>(blank);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const set = (d: Partial<Draft>) => setDraft({ ...draft, ...d });
  const act = async (fn: () => Promise<string>) => {
    setOutcome(null);
    try {
      setOutcome({ ok: await fn() });
      reload();
    } catch (err) {
      setOutcome({ error: err });
    }
  };
  const add = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      await app.api.post('/campaigns/{id}/sampling-rules', { ...ofCampaign, body: bodyOf(draft) });
      setDraft(blank);
      return t('sampling.added');
    });
  };
  const toggle = (r: SamplingRule) =>
    act(async () => {
      const body = {
        name: r.name,
        kind: r.kind,
        per_agent: r.per_agent,
        share: r.share,
        period: r.period,
        language: r.language,
        task_kind: r.task_kind,
        strategy: r.strategy,
        due_days: r.due_days,
        enabled: !r.enabled,
      };
      await app.api.put('/sampling-rules/{id}', { params: { path: { id: r.id } }, body });
      return t(r.enabled ? 'sampling.disabled' : 'sampling.enabled');
    });
  const remove = (r: SamplingRule) =>
    act(async () => {
      await app.api.delete('/sampling-rules/{id}', { params: { path: { id: r.id } } });
      return t('sampling.deleted', { name: r.name });
    });
  const run = () =>
    act(async () => {
      const res = await app.api.post('/campaigns/{id}/sampling-rules/run', ofCampaign);
      if (!res.rules) return t('sampling.running', { job: res.job_id });
      setData({ items: res.rules });
      return t('sampling.ran', { picked: res.rules.reduce((n, r) => n + r.last_picked, 0) });
    });
  const rules = data?.items ?? [];

  return (
    <section class="card sampling-rules" aria-labelledby="sampling-title">
      <h2 id="sampling-title">{t('sampling.title')}</h2>
      <p class="small muted">{t('sampling.hint')}</p>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : rules.length === 0 ? (
        <p class="empty">{t('sampling.none')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table" data-testid="sampling-rules">
            <caption class="sr-only">{t('sampling.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('sampling.name')}</th>
                <th scope="col">{t('sampling.what')}</th>
                <th scope="col">{t('sampling.strategy')}</th>
                <th scope="col">{t('sampling.dueDays')}</th>
                <th scope="col">{t('sampling.lastRun')}</th>
                <th scope="col">{t('jobs.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr key={r.id} data-rule={r.name}>
                  <th scope="row">
                    {r.name} {!r.enabled && <span class="badge">{t('sampling.off')}</span>}
                  </th>
                  <td>{what(r)}</td>
                  <td>{t(`sampling.strategy.${r.strategy}` as MessageKey)}</td>
                  <td>{r.due_days}</td>
                  <td>
                    {r.last_run_at
                      ? t('sampling.lastRunWas', { at: formatDateTime(r.last_run_at), picked: r.last_picked, total: r.total_picked })
                      : '—'}
                  </td>
                  <td>
                    <button type="button" class="button button-small" onClick={() => void toggle(r)}>
                      {t(r.enabled ? 'sampling.disable' : 'sampling.enable')}
                    </button>{' '}
                    <button
                      type="button"
                      class="button button-small"
                      aria-label={`${t('sampling.delete')} ${r.name}`}
                      onClick={() => void remove(r)}
                    >
                      {t('sampling.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <button type="button" class="button" disabled={rules.length === 0} onClick={() => void run()}>
        {t('sampling.runNow')}
      </button>
      <form onSubmit={add} aria-labelledby="sampling-add">
        <h3 id="sampling-add">{t('sampling.add')}</h3>
        <div class="filter-row">
          <div class="field">
            <label for="rule-name">{t('sampling.name')}</label>
            <input id="rule-name" required maxLength={100} value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
          </div>
          <div class="field">
            <label for="rule-kind">{t('sampling.what')}</label>
            <select id="rule-kind" value={draft.kind} onChange={(e) => set({ kind: e.currentTarget.value as Kind })}>
              {kinds.map((k) => (
                <option key={k} value={k}>
                  {t(`sampling.kind.${k}` as MessageKey)}
                </option>
              ))}
            </select>
          </div>
          {draft.kind === 'per_agent' && (
            <>
              <div class="field">
                <label for="rule-n">{t('sampling.perAgent')}</label>
                <input id="rule-n" type="number" value={draft.perAgent} onInput={(e) => set({ perAgent: e.currentTarget.value })} />
              </div>
              <div class="field">
                <label for="rule-period">{t('sampling.periodLabel')}</label>
                <select id="rule-period" value={draft.period} onChange={(e) => set({ period: e.currentTarget.value as Draft['period'] })}>
                  {(['day', 'week', 'month'] as const).map((p) => (
                    <option key={p} value={p}>
                      {t(`sampling.period.${p}`)}
                    </option>
                  ))}
                </select>
              </div>
            </>
          )}
          {draft.kind === 'random_share' && (
            <div class="field">
              <label for="rule-share">{t('sampling.share')}</label>
              <input id="rule-share" type="number" step="0.01" value={draft.share} onInput={(e) => set({ share: e.currentTarget.value })} />
            </div>
          )}
          <div class="field">
            <label for="rule-language">{t('sampling.language')}</label>
            <input id="rule-language" value={draft.language} placeholder="es" onInput={(e) => set({ language: e.currentTarget.value })} />
          </div>
          <div class="field">
            <label for="rule-task-kind">{t('tasks.kind')}</label>
            <select
              id="rule-task-kind"
              value={draft.taskKind}
              onChange={(e) => set({ taskKind: e.currentTarget.value as Draft['taskKind'] })}
            >
              <option value="">{t('sampling.anyKind')}</option>
              <option value="call">{t('tasks.call')}</option>
              <option value="chat">{t('tasks.chat')}</option>
            </select>
          </div>
          <div class="field">
            <label for="rule-strategy">{t('sampling.strategy')}</label>
            <select
              id="rule-strategy"
              value={draft.strategy}
              onChange={(e) => set({ strategy: e.currentTarget.value as Draft['strategy'] })}
            >
              <option value="round_robin">{t('sampling.strategy.round_robin')}</option>
              <option value="load">{t('sampling.strategy.load')}</option>
            </select>
          </div>
          <div class="field">
            <label for="rule-due">{t('sampling.dueDays')}</label>
            <input id="rule-due" type="number" value={draft.dueDays} onInput={(e) => set({ dueDays: e.currentTarget.value })} />
          </div>
        </div>
        <button type="submit" class="button button-primary">
          {t('sampling.addButton')}
        </button>
      </form>
      <OutcomeMessage outcome={outcome} />
    </section>
  );
}
