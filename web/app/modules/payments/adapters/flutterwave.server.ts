// Flutterwave (v3, Flutterwave Standard), written against:
//   https://developer.flutterwave.com/docs/collecting-payments/standard  (POST
//       https://api.flutterwave.com/v3/payments, 'Authorization: Bearer <secret key>', JSON tx_ref,
//       amount, currency, redirect_url, customer.email/name, meta, customizations → data.link)
//   https://developer.flutterwave.com/docs/webhooks                     (the 'verif-hash' header carries
//       the secret hash set on the dashboard's webhook settings; JSON body { event, data })
//   https://developer.flutterwave.com/docs/transaction-verification     (GET
//       /v3/transactions/{id}/verify: check tx_ref, status 'successful', currency and amount
//       before giving value)
//   https://developer.flutterwave.com/v3.0/reference/verify-transaction-with-tx_ref (GET
//       /v3/transactions/verify_by_reference?tx_ref=…)
//
// Settings (kinds.ts): key1 public key, key2 secret key, key3 encryption key. The settings have no
// field for the webhook's secret hash (a value the merchant chooses on the dashboard); this adapter
// compares 'verif-hash' with key3: the merchant sets the dashboard's secret hash to the value saved
// in key3. A notification is never trusted by itself: its transaction is fetched again with
// /verify and the amount, currency and status reported are the verify answer's.
import type { GatewayAdapter, GatewayConfig, PaymentState, VerifiedEvent } from '../adapter.ts';
import { NotificationRefused } from '../adapter.ts';
import { decimalString, depositIdFrom, depositRef, isObject, jsonObject, notifyKey, ProviderError, requireKey, safeEqual } from './more-helpers.server.ts';

export const FLUTTERWAVE_API = 'https://api.flutterwave.com/v3';

export function flutterwaveState(status: unknown): PaymentState {
  if (status === 'successful') return 'paid';
  if (status === 'failed' || status === 'cancelled') return 'failed';
  return 'pending';
}

async function flwGet(config: GatewayConfig, path: string): Promise<Record<string, unknown>> {
  const secret = requireKey(config, 'key2', 'secret key');
  const res = await fetch(`${FLUTTERWAVE_API}${path}`, { headers: { Authorization: `Bearer ${secret}`, Accept: 'application/json' } });
  const json = (await res.json().catch(() => null)) as { status?: unknown; message?: unknown; data?: unknown } | null;
  if (!res.ok || !json || json.status !== 'success' || !isObject(json.data)) {
    throw new ProviderError('flutterwave', `GET ${path.split('?')[0]} failed (HTTP ${res.status}${json && typeof json.message === 'string' ? `: ${json.message}` : ''})`);
  }
  return json.data;
}

/** A verify answer's data, read into our shape. */
function readTransaction(d: Record<string, unknown>) {
  const txRef = d.tx_ref;
  const amount = decimalString(d.amount);
  const currency = d.currency;
  if (typeof txRef !== 'string' || !amount || typeof currency !== 'string') {
    throw new ProviderError('flutterwave', 'the verify answer has no tx_ref / amount / currency');
  }
  return { providerRef: txRef, depositId: depositIdFrom(txRef), state: flutterwaveState(d.status), amount, currency: currency.toUpperCase() };
}

export const flutterwave: GatewayAdapter = {
  name: 'flutterwave',

  async createPayment(config, request) {
    const secret = requireKey(config, 'key2', 'secret key');
    const txRef = depositRef(request.depositId);
    const res = await fetch(`${FLUTTERWAVE_API}/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        tx_ref: txRef,
        amount: request.total,
        currency: request.currency,
        redirect_url: request.returnUrl,
        customer: { email: request.customer.email, name: request.customer.fullName },
        meta: { deposit_id: request.depositId },
        customizations: { title: `Deposit #${request.depositId}` },
      }),
    });
    const json = (await res.json().catch(() => null)) as { status?: unknown; message?: unknown; data?: { link?: unknown } } | null;
    const link = json?.data?.link;
    if (!res.ok || json?.status !== 'success' || typeof link !== 'string' || !link.startsWith('https://')) {
      throw new ProviderError('flutterwave', `create payment failed (HTTP ${res.status}${json && typeof json.message === 'string' ? `: ${json.message}` : ''})`);
    }
    return { kind: 'redirect', url: link, providerRef: txRef };
  },

  async verifyNotification(config, incoming) {
    const secretHash = notifyKey(config, 'key3', 'webhook secret hash');
    const given = incoming.headers.get('verif-hash');
    if (!given) throw new NotificationRefused('bad_signature', 'no verif-hash header');
    if (!safeEqual(given, secretHash)) throw new NotificationRefused('bad_signature', 'verif-hash does not match the secret hash');
    const body = jsonObject(incoming.rawBody);
    const data = body.data;
    if (typeof body.event !== 'string' || !isObject(data)) throw new NotificationRefused('malformed', 'event / data missing');
    if (body.event !== 'charge.completed') return null;
    const id = data.id;
    if ((typeof id !== 'number' && typeof id !== 'string') || !/^\d{1,20}$/.test(String(id))) {
      throw new NotificationRefused('malformed', 'data.id is not a transaction id');
    }
    // Verified by id before anything is reported (the docs' rule): amount, currency and status
    // are the verify answer's, and its tx_ref must be the one the notification names.
    const verified = readTransaction(await flwGet(config, `/transactions/${String(id)}/verify`));
    if (typeof data.tx_ref === 'string' && data.tx_ref !== verified.providerRef) {
      throw new NotificationRefused('malformed', 'the verified transaction has another tx_ref');
    }
    const event: VerifiedEvent = { eventId: `flutterwave:${String(id)}:${verified.state}`, ...verified };
    return event;
  },

  async fetchStatus(config, providerRef) {
    return readTransaction(await flwGet(config, `/transactions/verify_by_reference?tx_ref=${encodeURIComponent(providerRef)}`));
  },

  acknowledge: { status: 200, body: '' },
};
