// msw handlers of the payment providers (modules/payments), in their documented formats. The
// tests use them, and `MOCKS=1 npm start` serves the app with them and with those of
// providers/*.ts (`allPaymentHandlers`, modules/payments/mocks.server.ts) so a card deposit can be
// tried end to end: the provider's checkout is the app's mock page /payments/mock/:gateway/:ref,
// which pays, sends the signed webhook and redirects back (CoinPayments, Flutterwave, MoonPay,
// Wipays and Perfect Money: checkouts.ts).
//
// Stripe (https://docs.stripe.com/api/checkout/sessions): POST /v1/checkout/sessions (form
//   encoded, Bearer secret key), GET /v1/checkout/sessions/:id, POST /v1/checkout/sessions/:id/expire; webhooks signed like Stripe's
//   (Stripe-Signature t=…,v1=HMAC-SHA256 of "t.body" with the signing secret, the SDK's own helper).
// PayPal (https://developer.paypal.com/api/rest/): POST /v1/oauth2/token (Basic), Orders v2 create /
//   get / capture (Bearer), POST /v1/notifications/verify-webhook-signature: the mock PayPal signs
//   `transmission_id|transmission_time|webhook_id|crc32(body)` with its RSA key (SHA256withRSA, the
//   documented scheme) and verifies it with its public key, so a changed body or header fails.
// PayPal Payouts: providers/paypal-payouts.ts (same OAuth tokens).
import { createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import Stripe from 'stripe';
import { PAYPAL_LIVE, PAYPAL_SANDBOX } from '~/modules/payments/adapters/paypal.server.ts';
import { moreProviderHandlers } from './providers/more.ts';
import { coinpaymentsMock } from './providers/coinpayments.ts';
import { flutterwaveMock } from './providers/flutterwave.ts';
import { moonpayMock } from './providers/moonpay.ts';
import { wipaysMock } from './providers/wipays.ts';
import { payoutHandlers } from './providers/paypal-payouts.ts';

const STRIPE = 'https://api.stripe.com';
const id = (prefix: string, n = 12) => `${prefix}${randomBytes(n).toString('hex')}`;
const originOf = (u: string | null | undefined) => { try { return u ? new URL(u).origin : ''; } catch { return ''; } };

// ---------------------------------------------------------------- Stripe

export interface MockSession {
  id: string; object: 'checkout.session'; status: 'open' | 'complete' | 'expired'; payment_status: 'unpaid' | 'paid';
  amount_total: number; currency: string; client_reference_id: string | null; metadata: Record<string, string>;
  success_url: string; cancel_url: string | null; expires_at: number; url: string | null; customer_email: string | null;
  created: number; livemode: false; mode: 'payment';
  /** the session's PaymentIntent (its metadata: the session's payment_intent_data[metadata]) */
  payment_intent: string | null;
}
/** The PaymentIntents of the sessions (GET /v1/payment_intents/:id): what a dispute or refund is traced back through. */
export const stripePaymentIntents = new Map<string, { id: string; object: 'payment_intent'; metadata: Record<string, string>; amount: number; currency: string; status: string }>();
export const stripeSessions = new Map<string, MockSession>();
/** every Stripe call the server made: the key it sent and the form it posted */
export const stripeCalls: { method: string; path: string; auth: string | null; idempotencyKey: string | null; form: Record<string, string> }[] = [];

const stripeError = (status: number, message: string, type = 'invalid_request_error') => HttpResponse.json({ error: { type, message } }, { status });

function stripeAuthOk(request: Request) {
  return /^Bearer sk_(test|live)_\w+$/.test(request.headers.get('authorization') ?? '');
}

/** A Stripe event of a session, as Stripe posts it. */
export function stripeEvent(session: MockSession, type = 'checkout.session.completed', eventId = id('evt_', 12)) {
  return JSON.stringify({
    id: eventId, object: 'event', api_version: '2025-01-27', created: Math.floor(Date.now() / 1000), livemode: false,
    pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object: session },
  }, null, 2);
}

/** A Stripe-Signature header for a body: Stripe's scheme, by the SDK's helper. */
export function stripeSignature(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** The mock checkout's payment: the session paid. */
export function stripePay(sessionId: string): MockSession | null {
  const s = stripeSessions.get(sessionId);
  if (!s || s.status !== 'open') return s ?? null;
  Object.assign(s, { status: 'complete', payment_status: 'paid' });
  return s;
}

export const stripeHandlers = [
  http.post(`${STRIPE}/v1/checkout/sessions`, async ({ request }) => {
    const form = Object.fromEntries(new URLSearchParams(await request.text()));
    stripeCalls.push({ method: 'POST', path: '/v1/checkout/sessions', auth: request.headers.get('authorization'), idempotencyKey: request.headers.get('idempotency-key'), form });
    if (!stripeAuthOk(request)) return stripeError(401, 'Invalid API Key provided', 'invalid_request_error');
    const unit = Number(form['line_items[0][price_data][unit_amount]']);
    const currency = form['line_items[0][price_data][currency]'];
    if (!Number.isInteger(unit) || unit < 1 || !/^[a-z]{3}$/.test(currency ?? '')) return stripeError(400, 'Invalid line_items');
    if (!form.success_url || form.mode !== 'payment') return stripeError(400, 'Missing required param: success_url.');
    const sid = id('cs_test_', 24);
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(form)) { const m = /^metadata\[(\w+)\]$/.exec(k); if (m) metadata[m[1]] = v; }
    const piMetadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(form)) { const m = /^payment_intent_data\[metadata\]\[(\w+)\]$/.exec(k); if (m) piMetadata[m[1]] = v; }
    const pi = id('pi_', 12);
    stripePaymentIntents.set(pi, { id: pi, object: 'payment_intent', metadata: piMetadata, amount: unit * Number(form['line_items[0][quantity]'] ?? 1), currency, status: 'requires_payment_method' });
    const session: MockSession = {
      payment_intent: pi,
      id: sid, object: 'checkout.session', status: 'open', payment_status: 'unpaid', amount_total: unit * Number(form['line_items[0][quantity]'] ?? 1),
      currency, client_reference_id: form.client_reference_id ?? null, metadata, success_url: form.success_url, cancel_url: form.cancel_url ?? null,
      expires_at: Number(form.expires_at ?? Math.floor(Date.now() / 1000) + 86400), customer_email: form.customer_email ?? null,
      url: `${originOf(form.success_url)}/payments/mock/stripe/${sid}`, created: Math.floor(Date.now() / 1000), livemode: false, mode: 'payment',
    };
    stripeSessions.set(sid, session);
    return HttpResponse.json(session);
  }),
  http.get(`${STRIPE}/v1/checkout/sessions/:id`, ({ request, params }) => {
    stripeCalls.push({ method: 'GET', path: `/v1/checkout/sessions/${params.id}`, auth: request.headers.get('authorization'), idempotencyKey: null, form: {} });
    if (!stripeAuthOk(request)) return stripeError(401, 'Invalid API Key provided');
    const s = stripeSessions.get(String(params.id));
    if (!s) return stripeError(404, `No such checkout.session: '${params.id}'`);
    if (s.status === 'open' && s.expires_at < Date.now() / 1000) s.status = 'expired';
    return HttpResponse.json(s);
  }),
  // https://docs.stripe.com/api/checkout/sessions/expire: only an open session; any other is a 400
  http.post(`${STRIPE}/v1/checkout/sessions/:id/expire`, ({ request, params }) => {
    stripeCalls.push({ method: 'POST', path: `/v1/checkout/sessions/${params.id}/expire`, auth: request.headers.get('authorization'), idempotencyKey: request.headers.get('idempotency-key'), form: {} });
    if (!stripeAuthOk(request)) return stripeError(401, 'Invalid API Key provided');
    const s = stripeSessions.get(String(params.id));
    if (!s) return stripeError(404, `No such checkout.session: '${params.id}'`);
    if (s.status === 'open' && s.expires_at < Date.now() / 1000) s.status = 'expired';
    if (s.status !== 'open') return stripeError(400, `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".`);
    Object.assign(s, { status: 'expired', url: null });
    return HttpResponse.json(s);
  }),
  http.get(`${STRIPE}/v1/payment_intents/:id`, ({ request, params }) => {
    stripeCalls.push({ method: 'GET', path: `/v1/payment_intents/${params.id}`, auth: request.headers.get('authorization'), idempotencyKey: null, form: {} });
    if (!stripeAuthOk(request)) return stripeError(401, 'Invalid API Key provided');
    const pi = stripePaymentIntents.get(String(params.id));
    return pi ? HttpResponse.json(pi) : stripeError(404, `No such payment_intent: '${params.id}'`);
  }),
];

/**
 * A dispute's or a refund's event as Stripe posts it (https://docs.stripe.com/api/events/types):
 * charge.dispute.created / closed carry a Dispute, charge.refunded a Charge.
 */
export function stripeDisputeEvent(o: { paymentIntent: string; amount: number; currency: string; type?: 'charge.dispute.created' | 'charge.dispute.closed' | 'charge.refunded'; status?: string; eventId?: string }) {
  const type = o.type ?? 'charge.dispute.created';
  const charge = id('ch_', 12);
  const object = type === 'charge.refunded'
    ? { id: charge, object: 'charge', amount: o.amount, amount_refunded: o.amount, currency: o.currency, payment_intent: o.paymentIntent, refunded: true, status: 'succeeded', metadata: {} }
    : { id: id('dp_', 12), object: 'dispute', amount: o.amount, currency: o.currency, charge, payment_intent: o.paymentIntent, reason: 'fraudulent', status: o.status ?? 'needs_response', metadata: {} };
  return JSON.stringify({
    id: o.eventId ?? id('evt_', 12), object: 'event', api_version: '2025-01-27', created: Math.floor(Date.now() / 1000), livemode: false,
    pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object },
  }, null, 2);
}

// ---------------------------------------------------------------- PayPal

interface MockOrder {
  id: string; status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED' | 'VOIDED'; intent: 'CAPTURE';
  purchase_units: { reference_id?: string; custom_id?: string; amount: { currency_code: string; value: string }; payments?: { captures: unknown[] } }[];
  links: { href: string; rel: string; method: string }[];
  returnUrl: string; base: string;
  payer?: { payer_id: string; email_address: string };
}
/** the payer id of every mock PayPal customer */
export const MOCK_PAYER_ID = 'MOCKPAYER7QX2L';
export const paypalOrders = new Map<string, MockOrder>();
const paypalRequests = new Map<string, string>();
export const paypalCalls: { method: string; path: string; auth: string | null; requestId: string | null; body: unknown }[] = [];
/** the mock PayPal's signing key; its certificate is 'published' at PAYPAL_CERT_URL */
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
export const PAYPAL_CERT_URL = `${PAYPAL_SANDBOX}/v1/notifications/certs/CERT-360caa42-fca2a594-mock`;
export const PAYPAL_CLIENT = { id: 'mock-client-id', secret: 'mock-client-secret' };
const tokensIssued = new Set<string>();

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(text: string): number {
  let c = 0xffffffff;
  for (const b of Buffer.from(text, 'utf8')) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The PAYPAL-* headers of a notification body, signed by the mock PayPal for a webhook id. */
export function paypalSignatureHeaders(body: string, webhookId: string, time = new Date()): Record<string, string> {
  const transmissionId = crypto.randomUUID();
  const transmissionTime = time.toISOString();
  const sig = createSign('sha256').update(`${transmissionId}|${transmissionTime}|${webhookId}|${crc32(body)}`).sign(privateKey, 'base64');
  return {
    'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': PAYPAL_CERT_URL, 'paypal-transmission-id': transmissionId,
    'paypal-transmission-sig': sig, 'paypal-transmission-time': transmissionTime, 'content-type': 'application/json',
  };
}

/** A PAYMENT.CAPTURE.* event of a captured order, as PayPal posts it. */
export function paypalCaptureEvent(order: { id: string; amount: { currency_code: string; value: string }; customId: string }, type = 'PAYMENT.CAPTURE.COMPLETED', eventId = `WH-${randomBytes(8).toString('hex').toUpperCase()}`) {
  return JSON.stringify({
    id: eventId, event_version: '1.0', create_time: new Date().toISOString(), resource_type: 'capture', resource_version: '2.0', event_type: type,
    summary: `Payment ${type.split('.').pop()?.toLowerCase()}`,
    resource: {
      id: `CAP${order.id.slice(-10)}`, status: type === 'PAYMENT.CAPTURE.COMPLETED' ? 'COMPLETED' : type.split('.').pop(), amount: order.amount,
      custom_id: order.customId, final_capture: true, supplementary_data: { related_ids: { order_id: order.id } },
    },
  });
}

/**
 * A PAYMENT.CAPTURE.REFUNDED / REVERSED event as PayPal posts it: its resource is the refund, whose
 * 'up' link is the capture (https://developer.paypal.com/docs/api/payments/v2/#refunds_get).
 */
export function paypalRefundEvent(captureId: string, amount: { currency_code: string; value: string }, type: 'PAYMENT.CAPTURE.REFUNDED' | 'PAYMENT.CAPTURE.REVERSED' = 'PAYMENT.CAPTURE.REFUNDED', eventId = `WH-${randomBytes(8).toString('hex').toUpperCase()}`) {
  const refund = randomBytes(8).toString('hex').toUpperCase();
  return JSON.stringify({
    id: eventId, event_version: '1.0', create_time: new Date().toISOString(), resource_type: 'refund', resource_version: '2.0', event_type: type,
    summary: type === 'PAYMENT.CAPTURE.REFUNDED' ? 'A payment was refunded' : 'A payment was reversed',
    resource: {
      id: refund, status: 'COMPLETED', amount,
      links: [
        { href: `${PAYPAL_SANDBOX}/v2/payments/refunds/${refund}`, rel: 'self', method: 'GET' },
        { href: `${PAYPAL_SANDBOX}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' },
      ],
    },
  });
}

/** The mock approval: the customer approved the order at PayPal. */
export function paypalApprove(orderId: string): MockOrder | null {
  const o = paypalOrders.get(orderId);
  if (o && o.status === 'PAYER_ACTION_REQUIRED') o.status = 'APPROVED';
  return o ?? null;
}

const paypalError = (status: number, name: string, issue: string) =>
  HttpResponse.json({ name, message: issue, debug_id: randomBytes(6).toString('hex'), details: [{ issue, description: issue }] }, { status });

function bearerOk(request: Request) {
  const m = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '');
  return !!m && tokensIssued.has(m[1]);
}

/** Sends the order's capture notification to the app, as PayPal would (after a capture). */
export let paypalAutoWebhook: { webhookId: string } | null = null;
export function setPaypalAutoWebhook(v: { webhookId: string } | null) { paypalAutoWebhook = v; }

function paypalHandlersFor(base: string) {
  return [
    http.post(`${base}/v1/oauth2/token`, async ({ request }) => {
      const body = new URLSearchParams(await request.text());
      const basic = `Basic ${Buffer.from(`${PAYPAL_CLIENT.id}:${PAYPAL_CLIENT.secret}`).toString('base64')}`;
      paypalCalls.push({ method: 'POST', path: '/v1/oauth2/token', auth: request.headers.get('authorization'), requestId: null, body: Object.fromEntries(body) });
      if (request.headers.get('authorization') !== basic || body.get('grant_type') !== 'client_credentials') {
        return HttpResponse.json({ error: 'invalid_client', error_description: 'Client Authentication failed' }, { status: 401 });
      }
      const token = `A21AA${randomBytes(16).toString('hex')}`;
      tokensIssued.add(token);
      return HttpResponse.json({ scope: 'https://uri.paypal.com/services/payments/payment', access_token: token, token_type: 'Bearer', app_id: 'APP-80W284485P519543T', expires_in: 32400, nonce: randomBytes(8).toString('hex') });
    }),
    http.post(`${base}/v2/checkout/orders`, async ({ request }) => {
      const body = await request.json() as { intent?: string; purchase_units?: MockOrder['purchase_units']; payment_source?: { paypal?: { experience_context?: { return_url?: string } } } };
      paypalCalls.push({ method: 'POST', path: '/v2/checkout/orders', auth: request.headers.get('authorization'), requestId: request.headers.get('paypal-request-id'), body });
      if (!bearerOk(request)) return paypalError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed due to invalid authentication credentials or a missing Authorization header.');
      // PayPal-Request-Id: the same request again answers the order it created
      const requestId = request.headers.get('paypal-request-id');
      const known = requestId ? paypalOrders.get(paypalRequests.get(requestId) ?? '') : undefined;
      if (known) return HttpResponse.json({ id: known.id, status: known.status, payment_source: { paypal: {} }, links: known.links });
      const unit = body.purchase_units?.[0];
      if (body.intent !== 'CAPTURE' || !unit || !/^\d+(\.\d{1,2})?$/.test(unit.amount?.value ?? '')) return paypalError(422, 'UNPROCESSABLE_ENTITY', 'INVALID_PARAMETER_VALUE');
      const returnUrl = body.payment_source?.paypal?.experience_context?.return_url ?? '';
      const oid = randomBytes(9).toString('hex').toUpperCase().slice(0, 17);
      const order: MockOrder = {
        id: oid, status: 'PAYER_ACTION_REQUIRED', intent: 'CAPTURE', purchase_units: [unit], returnUrl, base,
        links: [
          { href: `${base}/v2/checkout/orders/${oid}`, rel: 'self', method: 'GET' },
          { href: `${originOf(returnUrl)}/payments/mock/paypal/${oid}`, rel: 'payer-action', method: 'GET' },
        ],
      };
      paypalOrders.set(oid, order);
      if (requestId) paypalRequests.set(requestId, oid);
      return HttpResponse.json({ id: oid, status: order.status, payment_source: { paypal: {} }, links: order.links });
    }),
    http.get(`${base}/v2/checkout/orders/:id`, ({ request, params }) => {
      if (!bearerOk(request)) return paypalError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed');
      const o = paypalOrders.get(String(params.id));
      if (!o) return paypalError(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
      const { returnUrl: _r, base: _b, ...shown } = o;
      return HttpResponse.json(shown);
    }),
    http.post(`${base}/v2/checkout/orders/:id/capture`, ({ request, params }) => {
      paypalCalls.push({ method: 'POST', path: `/v2/checkout/orders/${params.id}/capture`, auth: request.headers.get('authorization'), requestId: request.headers.get('paypal-request-id'), body: null });
      if (!bearerOk(request)) return paypalError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed');
      const o = paypalOrders.get(String(params.id));
      if (!o) return paypalError(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
      if (o.status === 'COMPLETED') return paypalError(422, 'UNPROCESSABLE_ENTITY', 'ORDER_ALREADY_CAPTURED');
      if (o.status !== 'APPROVED') return paypalError(422, 'UNPROCESSABLE_ENTITY', 'ORDER_NOT_APPROVED');
      const unit = o.purchase_units[0];
      const capture = { id: `CAP${o.id.slice(-10)}`, status: 'COMPLETED', amount: unit.amount, custom_id: unit.custom_id, final_capture: true, supplementary_data: { related_ids: { order_id: o.id } } };
      o.status = 'COMPLETED';
      o.purchase_units = [{ ...unit, payments: { captures: [capture] } }];
      // the customer who approved (Orders v2 'payer'): their payer id is where a payout returns money to
      o.payer = { payer_id: MOCK_PAYER_ID, email_address: 'buyer@example.com' };
      if (paypalAutoWebhook && o.returnUrl) {
        const body = paypalCaptureEvent({ id: o.id, amount: unit.amount, customId: unit.custom_id ?? '' });
        const headers = paypalSignatureHeaders(body, paypalAutoWebhook.webhookId);
        setTimeout(() => { fetch(`${originOf(o.returnUrl)}/payments/webhooks/paypal`, { method: 'POST', headers, body }).catch(() => {}); }, 50);
      }
      const { returnUrl: _r, base: _b, ...shown } = o;
      return HttpResponse.json(shown, { status: 201 });
    }),
    http.get(`${base}/v2/payments/captures/:id`, ({ request, params }) => {
      paypalCalls.push({ method: 'GET', path: `/v2/payments/captures/${params.id}`, auth: request.headers.get('authorization'), requestId: null, body: null });
      if (!bearerOk(request)) return paypalError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed');
      for (const o of paypalOrders.values()) {
        const c = o.purchase_units[0]?.payments?.captures?.[0] as { id?: string } | undefined;
        if (c?.id === params.id) return HttpResponse.json(c);
      }
      return paypalError(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
    }),
    http.post(`${base}/v1/notifications/verify-webhook-signature`, async ({ request }) => {
      const text = await request.text();
      paypalCalls.push({ method: 'POST', path: '/v1/notifications/verify-webhook-signature', auth: request.headers.get('authorization'), requestId: null, body: text });
      if (!bearerOk(request)) return paypalError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed');
      let b: Record<string, string>;
      try { b = JSON.parse(text); } catch { return paypalError(400, 'INVALID_REQUEST', 'MALFORMED_REQUEST_JSON'); }
      for (const k of ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id']) {
        if (typeof b[k] !== 'string' || !b[k]) return paypalError(400, 'VALIDATION_ERROR', `MISSING_REQUIRED_PARAMETER ${k}`);
      }
      // the event exactly as it was sent: the bytes after "webhook_event": up to the closing brace
      const at = text.indexOf('"webhook_event":');
      const raw = at < 0 ? '' : text.slice(at + '"webhook_event":'.length, text.lastIndexOf('}'));
      let ok: boolean;
      try {
        ok = b.cert_url === PAYPAL_CERT_URL && b.auth_algo === 'SHA256withRSA'
          && createVerify('sha256').update(`${b.transmission_id}|${b.transmission_time}|${b.webhook_id}|${crc32(raw)}`).verify(publicKey, b.transmission_sig, 'base64');
      } catch { ok = false; }
      return HttpResponse.json({ verification_status: ok ? 'SUCCESS' : 'FAILURE' });
    }),
  ];
}

export const paypalHandlers = [...paypalHandlersFor(PAYPAL_SANDBOX), ...paypalHandlersFor(PAYPAL_LIVE)];

export const paymentHandlers = [...stripeHandlers, ...paypalHandlers, ...payoutHandlers(bearerOk)];

/** Every provider's handlers: what MOCKS=1 answers the server's calls with. */
export const allPaymentHandlers = [...paymentHandlers, ...moreProviderHandlers];

export { localCheckout, mockCheckouts, type CheckoutContext } from './checkouts.ts';

/**
 * Mock settings a development database gets under MOCKS=1 when a gateway has no keys yet: keys the
 * mocks accept (providers/*.ts), and the shared secrets their notifications are signed with.
 */
export type MockKeys = Partial<Record<'key1' | 'key2' | 'key3' | 'key4' | 'key5', string>>;
export const MOCK_KEYS: Record<string, MockKeys> = {
  stripe: { key1: 'sk_test_mock0000000000000000', key2: 'whsec_mock00000000000000000000' },
  paypal: { key1: PAYPAL_CLIENT.id, key2: PAYPAL_CLIENT.secret, key3: 'sandbox', key4: 'MOCKWEBHOOK0001' },
  // public key, private key (also the IPN Secret), the coin the buyer pays
  coinpayments: { key1: [...coinpaymentsMock.keys.keys()][0], key2: [...coinpaymentsMock.keys.values()][0], key3: 'BTC' },
  // public key, secret key, the webhook's secret hash (key3, see the adapter)
  flutterwave: { key1: 'FLWPUBK_TEST-mock-X', key2: [...flutterwaveMock.secretKeys][0], key3: 'mock-flw-secret-hash' },
  // publishable key, secret key (URL signing), webhook key, the wallet and the crypto delivered
  moonpay: { key1: [...moonpayMock.publishableKeys][0], key2: 'sk_test_mock_moonpay', key3: 'wk_test_mock_moonpay', key4: '0xc216eD2D6c295579718dbd4a797845CdA70B3C36', key5: 'usdc' },
  wipays: { key1: [...wipaysMock.publicKeys][0], key2: 'wp-secret-test' },
  // USD wallet, EUR wallet, alternate passphrase
  perfectmoney: { key1: 'U1234567', key2: 'E1234567', key3: 'mock-alternate-passphrase' },
};
