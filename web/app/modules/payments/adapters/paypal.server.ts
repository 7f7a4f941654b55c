// PayPal, plain fetch against the documented REST API (https://developer.paypal.com/api/rest/):
// - OAuth 2.0 client credentials: POST /v1/oauth2/token (Basic client_id:secret), cached until it expires;
// - Orders v2: POST /v2/checkout/orders (intent CAPTURE, one purchase unit of the deposit's total,
//   custom_id = our deposit id, payment_source.paypal.experience_context return / cancel URLs),
//   the customer approves at the 'payer-action' link, then POST /v2/checkout/orders/{id}/capture
//   (docs/specs.md#money: /payments/paypal/capture/{orderId}); GET /v2/checkout/orders/{id} for the status;
// - webhooks: PAYMENT.CAPTURE.COMPLETED / DENIED / DECLINED / PENDING verified by PayPal's
//   POST /v1/notifications/verify-webhook-signature with the PAYPAL-* transmission headers and the
//   configured webhook id; the raw body is sent back as webhook_event byte for byte (re-serialised
//   JSON can fail the check).
// Live and sandbox base URLs by the mode setting. Settings: key1 = client id, key2 = secret,
// key3 = mode ('live' | 'sandbox', default sandbox), key4 = webhook id.
//
// Beyond the GatewayAdapter interface: `capture` (PayPal's order is paid only when the merchant
// captures it after the customer's approval).
import {
  NotificationRefused,
  type GatewayAdapter, type GatewayConfig, type IncomingNotification, type PaymentRequest, type PaymentStart, type PaymentState, type VerifiedEvent,
} from '../adapter.ts';
import type { DisputeKind, DisputeNotice } from '~/modules/money/dispute.ts';

export const PAYPAL_LIVE = 'https://api-m.paypal.com';
export const PAYPAL_SANDBOX = 'https://api-m.sandbox.paypal.com';
/** How far a notification's PAYPAL-TRANSMISSION-TIME may be from our clock (each retry is a new transmission). */
export const PAYPAL_TOLERANCE_S = 600;

export const paypalBase = (config: GatewayConfig) => (config.key3?.trim().toLowerCase() === 'live' ? PAYPAL_LIVE : PAYPAL_SANDBOX);

const tokens = new Map<string, { token: string; until: number }>();

function credentials(config: GatewayConfig): { id: string; secret: string } {
  if (!config.key1 || !config.key2) throw new NotificationRefused('not_configured', 'PayPal client id and secret are not set');
  return { id: config.key1, secret: config.key2 };
}

/** An OAuth access token (cached until it expires); the payouts adapter (paypal-payout.server.ts) uses it too. */
export async function accessToken(config: GatewayConfig): Promise<string> {
  const { id, secret } = credentials(config);
  const base = paypalBase(config);
  const cacheKey = `${base}|${id}`;
  const hit = tokens.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.token;
  const res = await fetch(`${base}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(20_000),
  });
  if (!res.ok) throw new Error(`PayPal token: HTTP ${res.status}`);
  const body = await res.json() as { access_token?: string; expires_in?: number };
  if (!body.access_token) throw new Error('PayPal token: no access_token');
  tokens.set(cacheKey, { token: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 300) - 60) * 1000 });
  return body.access_token;
}

async function api<T>(config: GatewayConfig, method: 'GET' | 'POST', path: string, body?: string, requestId?: string): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${await accessToken(config)}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (requestId) headers['paypal-request-id'] = requestId;
  const res = await fetch(`${paypalBase(config)}${path}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`PayPal ${method} ${path.replace(/\/[A-Z0-9]{10,}/g, '/…')}: HTTP ${res.status}`);
  return JSON.parse(text) as T;
}

interface Money { currency_code: string; value: string }
interface Capture { id: string; status: string; amount?: Money; custom_id?: string; supplementary_data?: { related_ids?: { order_id?: string } } }
interface Order {
  id: string;
  status: string;
  links?: { href: string; rel: string }[];
  purchase_units?: { reference_id?: string; custom_id?: string; amount?: Money; payments?: { captures?: Capture[] } }[];
  /** the customer's PayPal account once they approved (Orders v2 'payer'): where a payout returns money to */
  payer?: { payer_id?: string };
}

const depositIdOf = (raw: string | undefined) => (raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null);

function captureState(status: string | undefined): PaymentState {
  if (status === 'COMPLETED') return 'paid';
  if (status === 'DECLINED' || status === 'FAILED' || status === 'DENIED') return 'failed';
  return 'pending';
}

/** An order as a payment: its capture's state and figures when captured, else the order's. */
function readOrder(o: Order): Omit<VerifiedEvent, 'eventId'> {
  const unit = o.purchase_units?.[0];
  const capture = unit?.payments?.captures?.[0];
  const state: PaymentState = capture ? captureState(capture.status) : o.status === 'VOIDED' ? 'failed' : 'pending';
  const money = capture?.amount ?? unit?.amount;
  return {
    providerRef: o.id,
    depositId: depositIdOf(capture?.custom_id ?? unit?.custom_id ?? unit?.reference_id),
    state,
    amount: money?.value ?? '',
    currency: (money?.currency_code ?? '').toUpperCase(),
    payerAccount: typeof o.payer?.payer_id === 'string' && /^[A-Z0-9]{1,20}$/.test(o.payer.payer_id) ? o.payer.payer_id : null,
  };
}

const CAPTURE_EVENTS: Record<string, PaymentState> = {
  'PAYMENT.CAPTURE.COMPLETED': 'paid',
  'PAYMENT.CAPTURE.PENDING': 'pending',
  'PAYMENT.CAPTURE.DENIED': 'failed',
  'PAYMENT.CAPTURE.DECLINED': 'failed',
};

export interface PaypalAdapter extends GatewayAdapter {
  /** Captures an approved order (POST /v2/checkout/orders/{id}/capture, idempotent by PayPal-Request-Id). */
  capture(config: GatewayConfig, orderId: string): Promise<Omit<VerifiedEvent, 'eventId'> & { captureId: string | null }>;
}

export const paypalAdapter: PaypalAdapter = {
  name: 'paypal',

  async createPayment(config: GatewayConfig, r: PaymentRequest): Promise<PaymentStart> {
    const order = await api<Order>(config, 'POST', '/v2/checkout/orders', JSON.stringify({
      intent: 'CAPTURE',
      purchase_units: [{
        reference_id: String(r.depositId),
        custom_id: String(r.depositId),
        description: `Deposit #${r.depositId}`,
        amount: { currency_code: r.currency.toUpperCase(), value: r.total },
      }],
      payment_source: {
        paypal: {
          experience_context: { return_url: r.returnUrl, cancel_url: r.cancelUrl, user_action: 'PAY_NOW', shipping_preference: 'NO_SHIPPING' },
        },
      },
    }), `deposit-${r.depositId}`);
    const link = order.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve');
    if (!link) throw new Error('PayPal returned an order without an approval link');
    return { kind: 'redirect', url: link.href, providerRef: order.id };
  },

  async capture(config: GatewayConfig, orderId: string) {
    const order = await api<Order>(config, 'POST', `/v2/checkout/orders/${encodeURIComponent(orderId)}/capture`, '{}', `capture-${orderId}`);
    return { ...readOrder(order), captureId: order.purchase_units?.[0]?.payments?.captures?.[0]?.id ?? null };
  },

  async verifyNotification(config: GatewayConfig, incoming: IncomingNotification): Promise<VerifiedEvent | null> {
    const h = (name: string) => incoming.headers.get(name)?.trim() ?? '';
    const transmission = {
      auth_algo: h('paypal-auth-algo'),
      cert_url: h('paypal-cert-url'),
      transmission_id: h('paypal-transmission-id'),
      transmission_sig: h('paypal-transmission-sig'),
      transmission_time: h('paypal-transmission-time'),
    };
    if (Object.values(transmission).some((v) => !v)) throw new NotificationRefused('bad_signature', 'PayPal transmission headers missing');
    if (!config.key4) throw new NotificationRefused('not_configured', 'PayPal webhook id is not set');
    const sent = Date.parse(transmission.transmission_time);
    if (!Number.isFinite(sent)) throw new NotificationRefused('bad_signature', 'Bad PAYPAL-TRANSMISSION-TIME');
    if (Math.abs(incoming.now.getTime() - sent) > PAYPAL_TOLERANCE_S * 1000) throw new NotificationRefused('stale_timestamp', 'Transmission time outside the tolerance');
    let event: { id?: string; event_type?: string; resource?: Capture };
    try {
      event = JSON.parse(incoming.rawBody);
    } catch {
      throw new NotificationRefused('malformed', 'The body is not JSON');
    }
    if (!event || typeof event !== 'object' || typeof event.id !== 'string') throw new NotificationRefused('malformed', 'No event id');
    // webhook_event: the raw body itself, not a re-serialised copy
    const body = `{${Object.entries({ ...transmission, webhook_id: config.key4 }).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')},"webhook_event":${incoming.rawBody}}`;
    const verdict = await api<{ verification_status?: string }>(config, 'POST', '/v1/notifications/verify-webhook-signature', body);
    if (verdict.verification_status !== 'SUCCESS') throw new NotificationRefused('bad_signature', `PayPal verification: ${verdict.verification_status ?? 'no answer'}`);

    const state = CAPTURE_EVENTS[event.event_type ?? ''];
    if (!state) return null;
    const c = event.resource;
    const orderId = c?.supplementary_data?.related_ids?.order_id;
    if (!c || !orderId) throw new NotificationRefused('malformed', 'The event carries no capture of an order');
    return {
      eventId: event.id,
      providerRef: orderId,
      depositId: depositIdOf(c.custom_id),
      state,
      amount: c.amount?.value ?? '',
      currency: (c.amount?.currency_code ?? '').toUpperCase(),
    };
  },

  async fetchStatus(config: GatewayConfig, providerRef: string) {
    return readOrder(await api<Order>(config, 'GET', `/v2/checkout/orders/${encodeURIComponent(providerRef)}`));
  },

  acknowledge: { status: 200, body: '' },
};

// ---------------------------------------------------------------- refunds and reversals (issue 22 §3)
// https://developer.paypal.com/api/rest/webhooks/event-names/ (Payments v2): PAYMENT.CAPTURE.REFUNDED
// "A merchant refunds a payment capture", PAYMENT.CAPTURE.REVERSED "PayPal reverses a payment
// capture" (a chargeback or a reversal PayPal makes). Their resource is a refund
// (https://developer.paypal.com/docs/api/payments/v2/#refunds_get: id, amount, status, links, the
// 'up' link being the refunded capture). The capture is read back from PayPal
// (GET /v2/payments/captures/{id}): its custom_id is our deposit id (createPayment set it) and its
// supplementary_data.related_ids.order_id the deposit's reference. Called only with a body
// verifyNotification verified through PayPal (and answered null).
const REFUND_EVENTS: Record<string, DisputeKind> = {
  'PAYMENT.CAPTURE.REFUNDED': 'refund',
  'PAYMENT.CAPTURE.REVERSED': 'reversal',
};

export async function readPaypalDispute(config: GatewayConfig, rawBody: string): Promise<DisputeNotice | null> {
  const event = JSON.parse(rawBody) as { id?: unknown; event_type?: unknown; resource?: { id?: unknown; amount?: Money; status?: unknown; links?: { href?: unknown; rel?: unknown }[] } };
  const kind = typeof event.event_type === 'string' ? REFUND_EVENTS[event.event_type] : undefined;
  const r = event.resource;
  if (!kind || typeof event.id !== 'string' || !r) return null;
  const up = (r.links ?? []).find((l) => l.rel === 'up' && typeof l.href === 'string');
  const captureId = /\/v2\/payments\/captures\/([A-Za-z0-9]{1,40})$/.exec(String(up?.href ?? ''))?.[1] ?? null;
  let depositId: number | null = null;
  let orderId: string | null = null;
  if (captureId) {
    // a capture PayPal does not know (404) names no deposit; any other failure is thrown: the webhook answers 500 and PayPal retries
    const capture = await api<Capture>(config, 'GET', `/v2/payments/captures/${encodeURIComponent(captureId)}`)
      .catch((e: unknown) => { if (e instanceof Error && /HTTP 404$/.test(e.message)) return null; throw e; });
    depositId = depositIdOf(capture?.custom_id);
    orderId = capture?.supplementary_data?.related_ids?.order_id ?? null;
  }
  const value = r.amount?.value ?? '';
  return {
    eventId: event.id,
    eventType: event.event_type as string,
    kind,
    phase: 'opened',
    depositId,
    providerRef: orderId,
    disputeId: typeof r.id === 'string' ? r.id : '',
    amount: /^\d{1,18}(\.\d{1,8})?$/.test(value) ? value : '',
    currency: (r.amount?.currency_code ?? '').toUpperCase(),
    detail: typeof r.status === 'string' ? r.status : null,
  };
}
