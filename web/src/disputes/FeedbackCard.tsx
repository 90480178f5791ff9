import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDateTime, formatScore, type MessageKey, t } from '../i18n';
import { location } from '../router';
import { useApp } from '../state';
import { atLeast, type Dispute, type TaskDetail } from '../types';
import { useAction } from '../ui';
import { DisputeDialog } from './DisputeDialog';
import { ResolveDialog } from './ResolveDialog';
import { statusKey, verdictKey } from './status';

/**
 * FeedbackCard is a validated task's acknowledgement and disputes: to its
 * agent, Acknowledge and Dispute while they may; to everyone who reads the
 * task, each dispute with its outcome, and the history of the steps.
 * Opened with ?feedback (from the notification of the evaluation) it
 * scrolls into view; with ?feedback=dispute its dispute dialog opens.
 */
export function FeedbackCard({ task, onChanged }: { task: TaskDetail; onChanged: () => void }) {
  const app = useApp();
  const { busy, run } = useAction();
  const asked = location.value.query.get('feedback');
  const [disputing, setDisputing] = useState(
    () => asked === 'dispute' && !!task.feedback?.can_dispute && app.profile.value?.id === task.operator_id,
  );
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (asked !== null) ref.current?.scrollIntoView({ block: 'start' });
  }, [asked]);
  const [resolving, setResolving] = useState<Dispute | null>(null);
  const canResolve = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const f = task.feedback;
  if (!f) return null;
  const disputes = f.disputes ?? [];
  const steps = f.steps ?? [];
  const isAgent = app.profile.value?.id === task.operator_id;

  return (
    <section ref={ref} class="card" aria-labelledby="feedback-title" data-testid="feedback">
      <h2 id="feedback-title">{t('feedback.title')}</h2>
      {isAgent && (
        <>
          {f.dispute_until && f.can_dispute && <p>{t('feedback.until', { date: formatDateTime(f.dispute_until) })}</p>}
          {f.why_not && !f.acknowledgement && (
            <p class="muted small" data-testid="why-not">
              {t(`feedback.whyNot.${f.why_not.code}`, { date: formatDateTime(f.dispute_until) })}
            </p>
          )}
          <div class="form-actions">
            {f.can_acknowledge && (
              <button
                type="button"
                class="button"
                disabled={busy}
                onClick={() =>
                  void run(
                    () => app.api.post('/tasks/{uuid}/acknowledgement', { params: { path: { uuid: task.uuid } } }),
                    () => t('feedback.acknowledgedToast'),
                  ).then(onChanged)
                }
              >
                {t('feedback.acknowledge')}
              </button>
            )}
            {f.can_dispute && (
              <button type="button" class="button button-primary" onClick={() => setDisputing(true)}>
                {t('feedback.dispute')}
              </button>
            )}
          </div>
        </>
      )}
      {f.acknowledgement && (
        <p class="alert alert-success">
          {t('feedback.acknowledged', { who: f.acknowledgement.agent_id, date: formatDateTime(f.acknowledgement.acknowledged_at) })}
        </p>
      )}
      {disputes.length === 0 && !f.acknowledgement && !(isAgent && f.why_not) && (
        <p class="muted">{t(f.dispute_until ? 'feedback.none' : 'feedback.noWindow')}</p>
      )}
      {disputes.map((d) => (
        <DisputeOutcome key={d.id} dispute={d}>
          {canResolve && d.status === 'open' && (
            <button type="button" class="button button-primary button-small" onClick={() => setResolving(d)}>
              {t('disputes.resolve')}
            </button>
          )}
        </DisputeOutcome>
      ))}
      {steps.length > 0 && (
        <>
          <h3>{t('feedback.steps')}</h3>
          <ol class="timeline small" data-testid="feedback-steps">
            {steps.map((s, i) => (
              <li key={i}>
                {formatDateTime(s.at)} · {t(`feedback.step.${s.step}` as MessageKey, { who: s.by })}
              </li>
            ))}
          </ol>
        </>
      )}
      {resolving && (
        <ResolveDialog
          dispute={resolving}
          onClose={(resolved) => {
            setResolving(null);
            if (resolved) onChanged();
          }}
        />
      )}
      {disputing && (
        <DisputeDialog
          task={task}
          onClose={(sent) => {
            setDisputing(false);
            if (sent) onChanged();
          }}
        />
      )}
    </section>
  );
}

/** DisputeOutcome is one dispute: its criteria, the agent's comments, and the decisions with their replies. */
export function DisputeOutcome({ dispute: d, children }: { dispute: Dispute; children?: ComponentChildren }) {
  return (
    <article
      class="dispute"
      data-testid="dispute"
      aria-label={t('dispute.heading', { date: formatDateTime(d.opened_at), status: t(statusKey(d)) })}
    >
      <h3>{t('dispute.heading', { date: formatDateTime(d.opened_at), status: t(statusKey(d)) })}</h3>
      <ul class="dispute-items">
        {(d.items ?? []).map((it) => (
          <li key={it.criterion_id} data-criterion={it.criterion_id}>
            <strong>{it.question}</strong> <span class="muted small">({t('dispute.disputedVerdict', { verdict: t(verdictKey(it)) })})</span>
            <p class="small">
              {t('dispute.comment')}: {it.comment}
            </p>
            {it.decision && (
              <p class={it.decision === 'accept' ? 'small dispute-accepted' : 'small dispute-rejected'}>
                <strong>{t(`dispute.decision.${it.decision}`)}</strong>
                {d.resolver_name ? ` (${d.resolver_name})` : ''}: {it.reason}
              </p>
            )}
          </li>
        ))}
      </ul>
      {d.status === 'accepted' &&
        (d.revision !== undefined && d.score_after !== undefined ? (
          <p class="alert alert-info" data-testid="dispute-revised">
            {t('dispute.revised', { revision: d.revision, before: formatScore(d.score_before), after: formatScore(d.score_after) })}
          </p>
        ) : (
          <p class="muted small">{t('dispute.pending')}</p>
        ))}
      {children}
    </article>
  );
}
