import type { MessageKey } from '../i18n';
import type { Dispute } from '../types';

/**
 * statusKey is the message naming a dispute's outcome: "accepted" only when
 * every criterion was, "partly accepted" when some were and some were not.
 */
export function statusKey(d: Pick<Dispute, 'status' | 'items'>): MessageKey {
  if (d.status === 'accepted' && (d.items ?? []).some((i) => i.decision === 'reject')) return 'dispute.status.partly';
  return `dispute.status.${d.status}`;
}

/** verdictKey is the message naming a disputed criterion's verdict in a sentence: met, not met or not applicable. */
export function verdictKey(it: { complies: boolean; not_applicable?: boolean }): MessageKey {
  if (it.not_applicable) return 'dispute.verdict.na';
  return it.complies ? 'dispute.verdict.met' : 'dispute.verdict.notMet';
}
