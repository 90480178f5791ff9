import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { CampaignPicker, UserPicker } from '../pickers/Picker';
import { FilterButtons, showFilters } from '../ui';

/** PeriodFilters are a statistics screen's period (days), campaign and agent, as typed. */
export interface PeriodFilters {
  from: string;
  to: string;
  campaign: string;
  operator: string;
}

/**
 * PeriodForm edits the period, campaign and (with agent, for quality and
 * above: an operator sees only their own) agent of a statistics screen at
 * basePath, and applies them: the screen opens with the query string query
 * gives for them.
 */
export function PeriodForm<F extends PeriodFilters>({
  id,
  label,
  basePath,
  initial,
  agent,
  query,
}: {
  id: string;
  label: string;
  basePath: string;
  initial: F;
  agent: boolean;
  query: (f: F) => URLSearchParams;
}) {
  const [f, setF] = useState<F>(initial);
  // Changes merge into the latest filters: a picker commits what was typed on blur, as the next control changes.
  const put = (patch: Partial<PeriodFilters>) => setF((cur) => ({ ...cur, ...patch }));
  const submit = (e: Event) => {
    e.preventDefault();
    showFilters(basePath, query(f));
  };
  const date = (k: 'from' | 'to', text: string) => (
    <div class="field">
      <label for={`${id}-${k}`}>{text}</label>
      <input id={`${id}-${k}`} type="date" value={f[k]} onInput={(e) => put({ [k]: e.currentTarget.value })} />
    </div>
  );
  return (
    <form class="filters" onSubmit={submit} aria-label={label}>
      <div class="filter-row">
        {date('from', t('dash.from'))}
        {date('to', t('dash.to'))}
        <CampaignPicker
          id={`${id}-campaign`}
          free
          label={t('tasks.campaign')}
          value={f.campaign}
          onChange={(campaign) => put({ campaign })}
        />
        {agent && (
          <UserPicker
            id={`${id}-operator`}
            free
            label={t('tasks.operator')}
            value={f.operator}
            onChange={(operator) => put({ operator })}
          />
        )}
        <FilterButtons basePath={basePath} apply={t('tasks.apply')} reset={t('tasks.reset')} />
      </div>
    </form>
  );
}
