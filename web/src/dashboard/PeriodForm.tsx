import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { FilterButtons, showFilters } from '../ui';

/** PeriodFilters are a statistics screen's period (days), campaign and agent, as typed. */
export interface PeriodFilters {
  from: string;
  to: string;
  campaign: string;
  operator: string;
}

/**
 * PeriodForm edits the period, campaign and (with agent) agent of a
 * statistics screen at basePath, and applies them: the screen opens with
 * the query string query gives for them.
 */
export function PeriodForm<F extends PeriodFilters>({
  id,
  label,
  basePath,
  initial,
  agent = true,
  query,
}: {
  id: string;
  label: string;
  basePath: string;
  initial: F;
  agent?: boolean;
  query: (f: F) => URLSearchParams;
}) {
  const [f, setF] = useState<F>(initial);
  const submit = (e: Event) => {
    e.preventDefault();
    showFilters(basePath, query(f));
  };
  const input = (k: keyof PeriodFilters, text: string, type = 'text') => (
    <div class="field">
      <label for={`${id}-${k}`}>{text}</label>
      <input id={`${id}-${k}`} type={type} value={f[k]} onInput={(e) => setF({ ...f, [k]: e.currentTarget.value })} />
    </div>
  );
  return (
    <form class="filters" onSubmit={submit} aria-label={label}>
      <div class="filter-row">
        {input('from', t('dash.from'), 'date')}
        {input('to', t('dash.to'), 'date')}
        {input('campaign', t('tasks.campaign'))}
        {agent && input('operator', t('tasks.operator'))}
        <FilterButtons basePath={basePath} apply={t('tasks.apply')} reset={t('tasks.reset')} />
      </div>
    </form>
  );
}
