import { formatScore, type MessageKey, t } from '../i18n';
import type { TaskStatus } from '../types';

/** StatusBadge is a task's pipeline status. */
export function StatusBadge({ status }: { status: TaskStatus }) {
  return <span class={`badge task-${status}`}>{t(`status.${status}` as MessageKey)}</span>;
}

/**
 * ScoreBadge is an audit's score with pass or fail, or a dash before the
 * audit. An audit with pending verdicts (pending) is neither: it shows the
 * range its score can still take (min to max), marked pending review.
 */
export function ScoreBadge({
  score,
  passed,
  pending,
  min,
  max,
}: {
  score?: number;
  passed?: boolean;
  pending?: string[] | null;
  min?: number;
  max?: number;
}) {
  if (pending && pending.length > 0 && min !== undefined && max !== undefined) {
    return (
      <span class="score" data-testid="provisional-score" title={t('pending.rangeTitle', { min: formatScore(min), max: formatScore(max) })}>
        <strong>
          {formatScore(min)}–{formatScore(max)}
        </strong>{' '}
        <span class="badge badge-review">{t('pending.badge', { count: pending.length })}</span>
      </span>
    );
  }
  if (score === undefined || score === null) return <span class="muted">—</span>;
  return (
    <span class="score">
      <strong>{formatScore(score)}</strong>{' '}
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
