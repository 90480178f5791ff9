// The one verdict control: "Complies / Does not comply / N/A", labelled
// radios wherever a verdict is chosen (an audit item, a calibration answer,
// a dispute's resolution), and its read-only badge.
import { t } from './i18n';
import { answers, type Answer } from './types';

/** Verdict is a criterion's verdict, in the calibration answers' words. */
export type Verdict = Answer;

/** verdictOf is the verdict an item (complies, not_applicable) says. */
export function verdictOf(item: { complies: boolean; not_applicable?: boolean }): Verdict {
  if (item.not_applicable) return 'not_applicable';
  return item.complies ? 'complies' : 'does_not_comply';
}

/** verdictFields is what the API takes for a verdict: complies, and not_applicable when so. */
export function verdictFields(v: Verdict): { complies: boolean; not_applicable?: boolean } {
  return v === 'not_applicable' ? { complies: true, not_applicable: true } : { complies: v === 'complies' };
}

/** pendingNames are the keys naming a verdict awaiting an analyst's confirmation. */
const pendingNames = { complies: 'pending.met', does_not_comply: 'pending.notMet', not_applicable: 'pending.notApplicable' } as const;

/** pendingVerdictName names a verdict awaiting an analyst's confirmation ("met", "not met", "N/A"). */
export const pendingVerdictName = (item: { complies: boolean; not_applicable?: boolean }) => t(pendingNames[verdictOf(item)]);

/** verdictLabel names a verdict. */
export const verdictLabel = (v: Verdict) => t(`verdict.${v}`);

/** VerdictControl is the three labelled radios of one criterion's verdict. */
export function VerdictControl({
  name,
  question,
  value,
  disabled,
  onChange,
}: {
  /** name groups the radios: unique on the page. */
  name: string;
  question: string;
  value?: Verdict;
  disabled?: boolean;
  onChange: (v: Verdict) => void;
}) {
  return (
    <div class="verdict-choices" role="radiogroup" aria-label={t('verdict.of', { question })}>
      {answers.map((v) => (
        <label key={v} class={`verdict-choice verdict-${v}`}>
          <input type="radio" name={name} value={v} checked={value === v} disabled={disabled} onChange={() => onChange(v)} />{' '}
          {verdictLabel(v)}
        </label>
      ))}
    </div>
  );
}

/** VerdictBadge shows a verdict read-only. */
export function VerdictBadge({ value }: { value: Verdict }) {
  const cls = { complies: 'task-pass', does_not_comply: 'task-fail', not_applicable: 'badge-na' }[value];
  return <span class={`badge ${cls}`}>{verdictLabel(value)}</span>;
}
