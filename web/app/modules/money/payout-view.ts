// A withdrawal's payout as the staff's withdrawal lists show it: the values the payments module
// (payouts.server.ts, which sends payouts through a provider) hands the money pages.

/** What a provider says of one payout (the adapters' word for it). */
export type PayoutState = 'paid' | 'pending' | 'failed';

export type PayoutStatusName = 'requested' | 'sent' | 'paid' | 'failed' | 'review';

/** A withdrawal's payout, as the admin's lists show it. */
export interface PayoutView {
  gateway: string;
  status: PayoutStatusName;
  providerRef: string | null;
  providerStatus: string | null;
  reason: string | null;
  lastError: string | null;
  updatedAt: string;
  /** a bank payout's bank and account (the provider's bank name, as the approver picked it) */
  bank: { name: string; accountNumber: string } | null;
  /** what the provider said, oldest first (payout_events) */
  events: PayoutEventRow[];
}

export interface PayoutEventRow {
  id: number;
  createdAt: string;
  kind: string;
  state: PayoutState;
  outcome: 'received' | 'verified' | 'applied' | 'rejected';
  reason: string | null;
  eventId: string;
}
