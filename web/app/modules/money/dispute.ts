// What a provider's signed notification says about money of a deposit going back to the payer
// (issue 22 §3): a chargeback, a card dispute, a refund or a reversal, when it opens and when it
// ends. The adapters read it from a notification their verifyNotification already verified (and
// answered null: not a payment of a pending deposit); disputes.server.ts stores it as a
// payment event, flags the deposit and tells the staff.

export type DisputeKind = 'chargeback' | 'dispute' | 'refund' | 'reversal';
export const DISPUTE_KINDS: readonly DisputeKind[] = ['chargeback', 'dispute', 'refund', 'reversal'];

/** The words of a kind (notifications, the admin's deposit list): i18n keys. */
export const DISPUTE_LABELS: Record<string, string> = { chargeback: 'Chargeback', dispute: 'Dispute', refund: 'Refund', reversal: 'Reversal' };

/** How a dispute ended, as far as the provider says: won (the money came back to us), lost, closed (any other end). */
export type DisputeEnd = 'won' | 'lost' | 'closed';

export interface DisputeNotice {
  /** the provider's own event id (or one built from what the signature covers): stored once */
  eventId: string;
  /** the provider's event type, kept with the event */
  eventType: string;
  kind: DisputeKind;
  /** 'opened' flags the deposit; an end records how it ended */
  phase: 'opened' | DisputeEnd;
  /** our deposit id, as the provider's verified data names it */
  depositId: number | null;
  /** the deposit's reference (the provider's payment id) when the provider names it: must be the deposit's */
  providerRef: string | null;
  /** the provider's id of the dispute / refund */
  disputeId: string;
  /** exact decimal string in major units (or '' when not reported), and the ISO currency */
  amount: string;
  currency: string;
  /** the provider's status or reason words, for the staff */
  detail: string | null;
}
