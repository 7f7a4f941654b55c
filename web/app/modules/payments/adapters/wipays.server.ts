// Wipays (hosted payment page), written against:
//   https://docs.wipays.com                 (POST https://{DOMAIN}/payment/initiate, JSON with
//       public_key in the body, amount, currency, customer, details, identifier, ipn_url,
//       success_url, cancel_url, site_name → { status: 'success', redirect_url })
//   https://docs.wipays.com/authentication  (public_key authenticates requests, secret_key signs IPNs)
//   https://docs.wipays.com/ipn             (IPN: identifier, status, timestamp, signature, data
//       { trx, amount, currency, type: 'checkout' | 'chargeback_*' }; signature =
//       upper(hex HMAC-SHA256(identifier + timestamp, secret_key)))
//
// The documentation writes the API host as '{{DOMAIN}}'; its example answer sends the customer to
// https://wipays.com/payment/checkout, so the API is called at https://wipays.com.
//
// What is trusted (issue 22): the IPN signature covers only identifier + timestamp; status and data
// (amount, currency, type, trx) are not signed, and the documentation describes no API to read a
// payment back (only payment/initiate and the IPN), so nothing can confirm them. Hence:
// - the event id is built from the two signed fields, so a copy of a signed IPN with other unsigned
//   fields is a replay of the same event and changes nothing;
// - the event is marked `unsignedFigures`: the payments module credits only the deposit's own
//   figures (the total and currency we sent to payment/initiate), and refuses (records 'rejected',
//   changes nothing) a notification whose unsigned amount or currency is not exactly those;
// - what remains unsigned and still decides is `status` ('success' credits); a forged status needs
//   a signature of that identifier within the 300 s tolerance, i.e. Wipays' secret key.
// fetchStatus says there is no status API; the expiry job expires a silent deposit without asking.
// Settings (kinds.ts): key1 public key, key2 secret key.
import { createHmac } from 'node:crypto';
import type { GatewayAdapter, PaymentState, VerifiedEvent } from '../adapter.ts';
import { NotificationRefused } from '../adapter.ts';
import { decimalString, depositIdFrom, depositRef, isObject, notifyKey, ProviderError, requireKey, safeEqual } from './more-helpers.server.ts';
import type { DisputeNotice } from '~/modules/money/dispute.ts';

export const WIPAYS_API = 'https://wipays.com';
/** Seconds an IPN's signed timestamp may differ from our clock. */
export const WIPAYS_TOLERANCE_SECONDS = 300;

export const wipaysSignature = (identifier: string, timestamp: string, secret: string) =>
  createHmac('sha256', secret).update(`${identifier}${timestamp}`, 'utf8').digest('hex').toUpperCase();

export function wipaysState(status: string): PaymentState {
  if (status === 'success') return 'paid';
  if (['failed', 'cancelled', 'canceled', 'rejected', 'expired'].includes(status)) return 'failed';
  return 'pending';
}

/** The IPN body: JSON, or a form with data[...] fields. */
function readIpn(raw: string): { identifier: unknown; status: unknown; timestamp: unknown; signature: unknown; data: Record<string, unknown> | null } {
  const text = raw.trim();
  if (text.startsWith('{')) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new NotificationRefused('malformed', 'the body is not JSON');
    }
    if (!isObject(v)) throw new NotificationRefused('malformed', 'the body is not a JSON object');
    return { identifier: v.identifier, status: v.status, timestamp: v.timestamp, signature: v.signature, data: isObject(v.data) ? v.data : null };
  }
  const f = new URLSearchParams(text);
  const data: Record<string, unknown> = {};
  for (const [k, val] of f) {
    const m = /^data\[(\w+)\]$/.exec(k);
    if (m) data[m[1]!] = val;
  }
  return { identifier: f.get('identifier'), status: f.get('status'), timestamp: f.get('timestamp'), signature: f.get('signature'), data: Object.keys(data).length ? data : null };
}

export const wipays: GatewayAdapter = {
  name: 'wipays',

  async createPayment(config, request) {
    const publicKey = requireKey(config, 'key1', 'public key');
    const identifier = depositRef(request.depositId);
    const [first, ...rest] = request.customer.fullName.trim().split(/\s+/);
    const res = await fetch(`${WIPAYS_API}/payment/initiate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        public_key: publicKey,
        amount: request.total,
        cancel_url: request.cancelUrl,
        currency: request.currency,
        customer: { first_name: first ?? '', last_name: rest.join(' '), email: request.customer.email },
        details: `Deposit #${request.depositId}`,
        identifier,
        ipn_url: request.notifyUrl,
        site_name: 'Deposit',
        success_url: request.returnUrl,
      }),
    });
    const json = (await res.json().catch(() => null)) as { status?: unknown; message?: unknown; redirect_url?: unknown } | null;
    const url = json?.redirect_url;
    if (!res.ok || json?.status !== 'success' || typeof url !== 'string' || !url.startsWith('https://')) {
      throw new ProviderError('wipays', `payment/initiate failed (HTTP ${res.status}${json && typeof json.message === 'string' ? `: ${json.message}` : ''})`);
    }
    return { kind: 'redirect', url, providerRef: identifier };
  },

  async verifyNotification(config, incoming) {
    const secret = notifyKey(config, 'key2', 'secret key');
    const ipn = readIpn(incoming.rawBody);
    const { identifier, timestamp, signature, status, data } = ipn;
    if (typeof identifier !== 'string' || !identifier || (typeof timestamp !== 'string' && typeof timestamp !== 'number') || typeof signature !== 'string') {
      throw new NotificationRefused('malformed', 'identifier, timestamp or signature missing');
    }
    const ts = String(timestamp);
    if (!safeEqual(signature.toUpperCase(), wipaysSignature(identifier, ts, secret))) {
      throw new NotificationRefused('bad_signature', 'the signature does not match');
    }
    if (!/^\d{1,12}$/.test(ts) || Math.abs(incoming.now.getTime() / 1000 - Number(ts)) > WIPAYS_TOLERANCE_SECONDS) {
      throw new NotificationRefused('stale_timestamp', 'the timestamp is outside the tolerance');
    }
    if (typeof status !== 'string' || !data) throw new NotificationRefused('malformed', 'status / data missing');
    // Chargebacks are for the staff, not for a pending deposit.
    if (data.type !== 'checkout') return null;
    const amount = decimalString(data.amount);
    if (!amount || typeof data.currency !== 'string') throw new NotificationRefused('malformed', 'data.amount / data.currency missing');
    const event: VerifiedEvent = {
      eventId: `wipays:${identifier}:${ts}`,
      providerRef: identifier,
      depositId: depositIdFrom(identifier),
      state: wipaysState(status),
      amount,
      currency: data.currency.toUpperCase(),
      unsignedFigures: true,
    };
    return event;
  },

  async fetchStatus() {
    throw new ProviderError('wipays', 'the Wipays documentation describes no payment status API; a payment is known only from its IPN');
  },

  acknowledge: { status: 200, body: '' },
};

// ---------------------------------------------------------------- chargebacks (issue 22 §3)
// https://docs.wipays.com/ipn, "IPN Types": type "chargeback_initiated" and "chargeback_resolved",
// the data's amount and currency being those of the chargeback. The signature covers only the
// identifier and the timestamp (see above), so the amount is what the IPN says, not what Wipays
// signed: it is shown to the staff, and a debit never takes more than the deposit credited.
// Called only with a body verifyNotification verified (and answered null).
export function readWipaysDispute(rawBody: string): DisputeNotice | null {
  const { identifier, timestamp, status, data } = readIpn(rawBody);
  if (!data || (data.type !== 'chargeback_initiated' && data.type !== 'chargeback_resolved') || typeof identifier !== 'string') return null;
  const ts = String(timestamp);
  return {
    eventId: `wipays:${data.type}:${identifier}:${ts}`,
    eventType: data.type,
    kind: 'chargeback',
    phase: data.type === 'chargeback_initiated' ? 'opened' : 'closed',
    depositId: depositIdFrom(identifier),
    providerRef: identifier,
    disputeId: typeof data.trx === 'string' ? data.trx : identifier,
    amount: decimalString(data.amount) ?? '',
    currency: typeof data.currency === 'string' ? data.currency.toUpperCase() : '',
    detail: typeof status === 'string' ? status : null,
  };
}
