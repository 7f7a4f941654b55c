// Stripe (https://docs.stripe.com/api/checkout/sessions, https://docs.stripe.com/webhooks): a
// Checkout Session per deposit (one line item of the deposit's total, our deposit id as
// client_reference_id and metadata.deposit_id, closed by expires_at when the deposit stops
// waiting, or expired at once when the customer cancels at Checkout), and the webhook `checkout.session.completed` (plus the async_payment_* and expired
// events of the same session) verified by the official SDK on the raw body with the endpoint's
// signing secret: `Stripe-Signature: t=<unix time>,v1=<HMAC-SHA256 of "t.body">`, refused
// outside the timestamp tolerance. Settings: key1 = secret key, key2 = webhook signing secret.
import Stripe from 'stripe';
import {
  NotificationRefused,
  type GatewayAdapter, type GatewayConfig, type IncomingNotification, type PaymentRequest, type PaymentStart, type PaymentState, type VerifiedEvent,
} from '../adapter.ts';
import { fromMinorUnits, toMinorUnits } from './money-units.ts';
import type { DisputeKind, DisputeNotice } from '~/modules/money/dispute.ts';

/** Seconds a notification's timestamp may differ from our clock (Stripe's own default). */
export const STRIPE_TOLERANCE_S = 300;
/** Stripe's bounds of a Checkout Session's expires_at: 30 minutes to 24 hours after creation. */
const MIN_EXPIRY_S = 30 * 60 + 60;
const MAX_EXPIRY_S = 24 * 3600 - 60;

function client(config: GatewayConfig): Stripe {
  if (!config.key1) throw new NotificationRefused('not_configured', 'Stripe secret key is not set');
  // fetch rather than node:https: the same client in Node and in tests (msw answers fetch)
  return new Stripe(config.key1, { httpClient: Stripe.createFetchHttpClient(), maxNetworkRetries: 1, timeout: 20_000 });
}

type Session = Stripe.Checkout.Session;

function sessionState(s: Session, type?: string): PaymentState {
  if (type === 'checkout.session.async_payment_failed' || type === 'checkout.session.expired' || s.status === 'expired') return 'failed';
  if (s.payment_status === 'paid') return 'paid';
  return 'pending';
}

function depositIdOf(s: Session): number | null {
  const raw = s.metadata?.deposit_id ?? s.client_reference_id ?? '';
  return /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
}

function readSession(s: Session, type?: string): Omit<VerifiedEvent, 'eventId'> {
  const currency = (s.currency ?? '').toUpperCase();
  return {
    providerRef: s.id,
    depositId: depositIdOf(s),
    state: sessionState(s, type),
    amount: s.amount_total == null ? '' : fromMinorUnits(s.amount_total, currency),
    currency,
  };
}

const HANDLED = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
]);

/** The `t=` of a Stripe-Signature header, or null. */
export function signatureTimestamp(header: string): number | null {
  const t = header.split(',').map((p) => p.trim().split('=')).find(([k]) => k === 't')?.[1];
  return t && /^\d{1,12}$/.test(t) ? Number(t) : null;
}

export const stripeAdapter: GatewayAdapter = {
  name: 'stripe',

  async createPayment(config: GatewayConfig, r: PaymentRequest): Promise<PaymentStart> {
    const currency = r.currency.toLowerCase();
    const unitAmount = toMinorUnits(r.total, r.currency);
    if (unitAmount === null) throw new Error(`Stripe cannot charge ${r.total} ${r.currency}`);
    const now = Math.floor(Date.now() / 1000);
    const wanted = r.expiresAt ? Math.floor(r.expiresAt.getTime() / 1000) - now : MIN_EXPIRY_S;
    const session = await client(config).checkout.sessions.create({
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency, unit_amount: unitAmount, product_data: { name: `Deposit #${r.depositId}` } } }],
      client_reference_id: String(r.depositId),
      metadata: { deposit_id: String(r.depositId) },
      payment_intent_data: { metadata: { deposit_id: String(r.depositId) } },
      customer_email: r.customer.email || undefined,
      success_url: r.returnUrl,
      cancel_url: r.cancelUrl,
      expires_at: now + Math.min(MAX_EXPIRY_S, Math.max(MIN_EXPIRY_S, wanted)),
    }, { idempotencyKey: `deposit-${r.depositId}` });
    if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
    return { kind: 'redirect', url: session.url, providerRef: session.id };
  },

  async verifyNotification(config: GatewayConfig, incoming: IncomingNotification): Promise<VerifiedEvent | null> {
    const header = incoming.headers.get('stripe-signature');
    if (!header) throw new NotificationRefused('bad_signature', 'No Stripe-Signature header');
    if (!config.key2) throw new NotificationRefused('not_configured', 'Stripe webhook signing secret is not set');
    const t = signatureTimestamp(header);
    if (t === null) throw new NotificationRefused('bad_signature', 'No timestamp in the Stripe-Signature header');
    // the SDK refuses only old timestamps; one from the future is refused here too
    if (Math.abs(Math.floor(incoming.now.getTime() / 1000) - t) > STRIPE_TOLERANCE_S) {
      throw new NotificationRefused('stale_timestamp', 'Timestamp outside the tolerance zone');
    }
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(incoming.rawBody, header, config.key2, STRIPE_TOLERANCE_S, undefined, incoming.now.getTime());
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new NotificationRefused(/tolerance/i.test(message) ? 'stale_timestamp' : 'bad_signature', message);
    }
    if (!HANDLED.has(event.type)) return null;
    const session = event.data.object as Session;
    if (!session || session.object !== 'checkout.session' || typeof session.id !== 'string') {
      throw new NotificationRefused('malformed', 'The event carries no Checkout Session');
    }
    return { eventId: event.id, ...readSession(session, event.type) };
  },

  async fetchStatus(config: GatewayConfig, providerRef: string) {
    return readSession(await client(config).checkout.sessions.retrieve(providerRef));
  },

  // https://docs.stripe.com/api/checkout/sessions/expire: only an `open` session can be expired;
  // Stripe refuses any other (already complete or expired) with a 400, whose state is then read back
  async cancelPayment(config: GatewayConfig, providerRef: string) {
    const stripe = client(config);
    try {
      return readSession(await stripe.checkout.sessions.expire(providerRef));
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode !== 400) throw e;
      return readSession(await stripe.checkout.sessions.retrieve(providerRef));
    }
  },

  acknowledge: { status: 200, body: '{"received":true}' },
};

// ---------------------------------------------------------------- disputes and refunds (issue 22 §3)
// https://docs.stripe.com/api/events/types: charge.dispute.created and charge.dispute.closed carry
// a Dispute (https://docs.stripe.com/api/disputes/object: id, amount in minor units, currency,
// charge, payment_intent, reason, status won | lost | warning_closed …), charge.refunded a Charge
// (https://docs.stripe.com/api/charges/object: id, amount_refunded in minor units — all refunds so
// far —, currency, payment_intent). The deposit is the PaymentIntent's metadata.deposit_id, which
// createPayment set (payment_intent_data.metadata) and is read back from Stripe here, never taken
// from the notification. Called only with a body verifyNotification verified (and answered null).
const DISPUTE_EVENTS: Record<string, { kind: DisputeKind; closing: boolean }> = {
  'charge.dispute.created': { kind: 'dispute', closing: false },
  'charge.dispute.closed': { kind: 'dispute', closing: true },
  'charge.refunded': { kind: 'refund', closing: false },
};

export async function readStripeDispute(config: GatewayConfig, rawBody: string): Promise<DisputeNotice | null> {
  const event = JSON.parse(rawBody) as { id?: unknown; type?: unknown; data?: { object?: Record<string, unknown> } };
  const spec = typeof event.type === 'string' ? DISPUTE_EVENTS[event.type] : undefined;
  const o = event.data?.object;
  if (!spec || typeof event.id !== 'string' || !o) return null;
  const pi = typeof o.payment_intent === 'string' ? o.payment_intent : isObjectWithId(o.payment_intent) ? o.payment_intent.id : null;
  const currency = typeof o.currency === 'string' ? o.currency.toUpperCase() : '';
  const minor = spec.kind === 'refund' ? o.amount_refunded : o.amount;
  const status = typeof o.status === 'string' ? o.status : '';
  let depositId: number | null = null;
  if (pi) {
    // a PaymentIntent Stripe does not know (404) names no deposit; any other failure is thrown: the webhook answers 500 and Stripe retries
    const intent = await client(config).paymentIntents.retrieve(pi)
      .catch((e: unknown) => { if ((e as { statusCode?: number }).statusCode === 404) return null; throw e; });
    const raw = intent?.metadata?.deposit_id ?? '';
    depositId = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null;
  }
  return {
    eventId: event.id,
    eventType: event.type as string,
    kind: spec.kind,
    phase: !spec.closing ? 'opened' : status === 'won' ? 'won' : status === 'lost' ? 'lost' : 'closed',
    depositId,
    providerRef: null,
    disputeId: typeof o.id === 'string' ? o.id : '',
    amount: typeof minor === 'number' && Number.isSafeInteger(minor) && minor > 0 ? fromMinorUnits(minor, currency) : '',
    currency,
    detail: [status, typeof o.reason === 'string' ? o.reason : ''].filter(Boolean).join(': ') || null,
  };
}

const isObjectWithId = (v: unknown): v is { id: string } => !!v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string';
