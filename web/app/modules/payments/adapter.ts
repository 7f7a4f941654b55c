// The one shape every card / wallet / crypto payment provider is reached through (issue 13).
// An adapter holds a provider's real request, signing and parsing code and nothing else: it
// never touches the database or the ledger. The payments module (payments.server.ts) decides
// what a verified notification does to a deposit: matched amount and currency, event id stored
// once, the credit through the ledger exactly once.

/** A gateway's saved settings (payment_gateways row), secrets already decrypted. */
export type { GatewayConfig } from '~/modules/gateways/kinds.ts';
import type { GatewayConfig } from '~/modules/gateways/kinds.ts';

/** The pending deposit a payment is created for. Amounts are exact decimal strings. */
export interface PaymentRequest {
  depositId: number;
  /** what the customer pays the provider: amount + fee */
  total: string;
  currency: string;
  customer: { id: number; email: string; fullName: string };
  /** where the provider sends the customer back (success / cancel) and posts notifications */
  returnUrl: string;
  cancelUrl: string;
  notifyUrl: string;
  /**
   * When the deposit stops waiting for the payment (created + PAYMENT_PENDING_MINUTES): a provider
   * that can close its checkout at a given time (Stripe's expires_at) is told, so a customer cannot
   * pay after the reconciliation job expired the deposit. Added for Stripe; optional for the others.
   */
  expiresAt?: Date;
}

/** How the customer's browser continues to the provider. */
export type PaymentStart =
  | { kind: 'redirect'; url: string; providerRef: string }
  | { kind: 'form'; action: string; method: 'POST' | 'GET'; fields: Record<string, string>; providerRef: string };

/** An incoming request as the webhook route received it: the raw body, never a re-serialised one. */
export interface IncomingNotification {
  headers: Headers;
  rawBody: string;
  /** the route's clock, for timestamp tolerance */
  now: Date;
}

export type PaymentState = 'paid' | 'pending' | 'failed';

/** What a provider says about one payment, after its signature was verified. */
export interface VerifiedEvent {
  /** the provider's own event / notification id: stored so a replay changes nothing */
  eventId: string;
  /** the provider's payment id (the deposit's `reference`) */
  providerRef: string;
  /** our deposit id when the provider echoes it back (metadata, custom field) */
  depositId: number | null;
  state: PaymentState;
  /** exact decimal string in major units, and the ISO currency, as the provider reports them */
  amount: string;
  currency: string;
  /**
   * The payer's own account at the provider when the provider's verified answer names it (PayPal's
   * payer id on a captured order): kept with the event, it is where a payout of a later withdrawal
   * returns money to (modules/payments/payouts.server.ts). Optional: most providers do not say.
   */
  payerAccount?: string | null;
  /**
   * Our customer id as the provider echoes it back on this payment (MoonPay's externalCustomerId),
   * for providers whose payment can be made outside the checkout we created: a payment whose
   * customer is not the deposit's is never applied to it. Undefined: the provider echoes none.
   */
  customerRef?: string | null;
  /**
   * Why this verified payment is not payable to the deposit as the gateway is configured (MoonPay: a
   * purchase into another wallet or of another crypto). Set: the event is recorded 'rejected' with
   * this reason and changes nothing (never a credit, never a decline).
   */
  refusal?: string | null;
  /**
   * The provider's signature does not cover the amount and currency (Wipays signs only identifier +
   * timestamp) and it has no API to read the payment back: the only figures ever credited are the
   * deposit's own, and a notification whose unsigned figures are not exactly those is refused.
   */
  unsignedFigures?: boolean;
}

/** A notification refused before anything was read from it. */
export class NotificationRefused extends Error {
  constructor(readonly reason: 'bad_signature' | 'stale_timestamp' | 'malformed' | 'not_configured', message: string) {
    super(message);
  }
}

export interface GatewayAdapter {
  /** the payment_gateways.name this adapter serves */
  name: string;
  /** Creates the provider-side payment for a pending deposit. */
  createPayment(config: GatewayConfig, request: PaymentRequest): Promise<PaymentStart>;
  /** Verifies the signature of a notification and reads it; throws NotificationRefused. Null: an event kind we ignore. */
  verifyNotification(config: GatewayConfig, incoming: IncomingNotification): Promise<VerifiedEvent | null>;
  /** Asks the provider for a payment's state (pending deposits past their time, and providers whose notifications carry no amount). */
  fetchStatus(config: GatewayConfig, providerRef: string): Promise<Omit<VerifiedEvent, 'eventId'>>;
  /**
   * The customer cancelled at the provider's checkout (came back by the cancel URL): closes the
   * checkout so it can no longer be paid, and answers the payment's state then (failed once closed;
   * paid when it was paid before it could be closed). Optional: a provider without it is only asked
   * (fetchStatus) and the deposit waits for its expiry.
   */
  cancelPayment?(config: GatewayConfig, providerRef: string): Promise<Omit<VerifiedEvent, 'eventId'>>;
  /** The status code and body the provider expects for an accepted / ignored notification. */
  acknowledge?: { status: number; body: string };
}
