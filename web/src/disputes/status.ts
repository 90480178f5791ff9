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
