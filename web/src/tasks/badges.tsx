import { t, type MessageKey } from '../i18n';
import type { TaskStatus } from '../types';

/** StatusBadge is a task's pipeline status. */
export function StatusBadge({ status }: { status: TaskStatus }) {
  return <span class={`badge task-${status}`}>{t(`status.${status}` as MessageKey)}</span>;
}

/** ScoreBadge is an audit's score with pass or fail, or a dash before the audit. */
export function ScoreBadge({ score, passed }: { score?: number; passed?: boolean }) {
  if (score === undefined || score === null) return <span class="muted">—</span>;
  return (
    <span class="score">
      <strong>{score.toFixed(1)}</strong>{' '}
      <span class={passed ? 'badge task-pass' : 'badge task-fail'}>{passed ? t('task.passed') : t('task.failed')}</span>
    </span>
  );
}

/** TranscriptBadge says that a call's transcript is unreliable, and why in its title; nothing when it is not. */
export function TranscriptBadge({ reason }: { reason?: 'low_quality' | 'too_fast' }) {
  if (!reason) return null;
  return (
    <span class="badge badge-review" data-testid="transcript-unreliable" title={t(`transcript.${reason}`)}>
      {t('transcript.unreliable')}
    </span>
  );
}

/** ReviewBadge says how many items of an audit need an analyst's review; nothing when none do (or before the audit). */
export function ReviewBadge({ count }: { count?: number }) {
  if (!count) return null;
  return <span class="badge badge-review">{t('review.count', { count })}</span>;
}
