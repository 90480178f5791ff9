import { t } from '../i18n';
import type { TaskSummary } from '../types';

/** ReviewStateBadge shows an audit's review state: automatic, reviewed or validated (nothing before any audit). */
export function ReviewStateBadge({ state }: { state: TaskSummary['review_state'] }) {
  if (!state) return null;
  return (
    <span class={`badge review-${state}`} data-review-state={state}>
      {t(`reviewState.${state}`)}
    </span>
  );
}
