// PayPal Payouts, plain fetch against the documented REST API (Payouts v1,
// https://developer.paypal.com/api/payments.payouts-batch/v1 and https://developer.paypal.com/api/payouts):
// - POST /v1/payments/payouts (Bearer token of the same OAuth client as the deposits) with
//   sender_batch_header.sender_batch_id and one item: recipient_type PAYPAL_ID, receiver = the payer
//   id PayPal reported for the customer's own earlier PayPal deposit (return to source), amount
//   { value, currency }, sender_item_id. "PayPal does not process duplicate payouts. If you specify a
//   sender_batch_id that was used in the last 30 days, the API rejects the request with an error
//   message that shows the duplicate sender_batch_id and includes a HATEOAS link to the original
//   payout": our sender_batch_id is the payout's own reference (payoutRef), so a retry (a 5xx, a crash, a
//   double click) never pays twice; a duplicate's link leads back to the first payout. The
//   PayPal-Request-Id header carries the same key (the docs' idempotency header).
// - GET /v1/payments/payouts/{payout_batch_id}: batch_header.batch_status (DENIED, PENDING,
//   PROCESSING, SUCCESS, CANCELED) and items[].transaction_status (SUCCESS, FAILED, PENDING,
//   UNCLAIMED, RETURNED, ONHOLD, BLOCKED, REFUNDED, REVERSED).
// - webhooks PAYMENT.PAYOUTS-ITEM.{SUCCEEDED, FAILED, BLOCKED, CANCELED, DENIED, HELD, REFUNDED,
//   RETURNED, UNCLAIMED} (resource: the payout item) and PAYMENT.PAYOUTSBATCH.{DENIED, PROCESSING,
//   SUCCESS} (resource: the batch, without items: its status is fetched again). They arrive at the
//   same URL as the deposit notifications and are verified there (verify-webhook-signature) before
//   this file reads them.
import type { GatewayConfig } from '../adapter.ts';
import { accessToken, paypalBase } from './paypal.server.ts';
import { isObject } from './more-helpers.server.ts';

export type { PayoutState } from '~/modules/money/payout-view.ts';
import type { PayoutState } from '~/modules/money/payout-view.ts';

/** One withdrawal to pay. Amounts are exact decimal strings in major units. */
export interface PayoutRequest {
  withdrawalId: number;
  /** our idempotency key of this payout (payoutRef), stored with it: PayPal's sender_batch_id */
  reference: string;
  amount: string;
  currency: string;
  /** the provider account the money goes to (PayPal: the payer id; a bank payout: the account number) */
  receiver: string;
  /** a payout to a bank account (Flutterwave): the bank the approver picked from the provider's list; null for PayPal */
  destination?: BankDestination | null;
}

/** A bank account a payout goes to, fixed by the final approval (withdrawal_payouts.destination). */
export interface BankDestination {
  /** the provider's own bank code, picked by the approver from the provider's bank list */
  bankCode: string;
  /** that bank's name in the provider's list */
  bankName: string;
  accountNumber: string;
  /** the account holder's name (the withdrawal's, else the customer's full name) */
  accountName: string;
  /** ISO-2 */
  country: string;
}

/** What the provider says about a payout. */
export interface PayoutStatus {
  /** the provider's payout id (PayPal: payout_batch_id) */
  providerRef: string;
  itemId: string | null;
  /** the provider's own word (PayPal: the item's transaction_status, else the batch_status) */
  providerStatus: string;
  state: PayoutState;
  /** the provider's reason of a failure (error name and message) */
  reason: string | null;
  /** our withdrawal id, read back from sender_item_id / sender_batch_id */
  withdrawalId: number | null;
  /** our reference, as the provider echoes it (sender_item_id / sender_batch_id) */
  reference: string | null;
}

/** A payout notification, read after its signature was verified. */
export interface PayoutNotice {
  eventId: string;
  eventType: string;
  providerRef: string;
  /** null: a batch event, which carries no item: the payout's status is fetched again */
  status: PayoutStatus | null;
  /** our reference as the notification echoes it (found by it when the provider's id is not stored yet) */
  reference?: string | null;
  amount: string | null;
  currency: string | null;
}

/**
 * The provider refused the payout request itself (400 / 422): this request paid nothing. `local`:
 * refused here, before any call. Whether it confirms that no payout exists depends on whether an
 * earlier request with the same reference may have reached the provider (payouts.server.ts sendPayout).
 */
export class PayoutRefused extends Error {
  constructor(message: string, readonly local = false) {
    super(message);
  }
}

/**
 * The provider's answer leaves open whether a payout exists (a refusal naming our reference as used
 * before): never failed automatically (no refund that could pay twice), held for a person.
 */
export class PayoutAmbiguous extends Error {}

export interface PayoutAdapter {
  name: string;
  /** Whether this amount and currency can be sent at all (a refusal names why). */
  check(request: Pick<PayoutRequest, 'withdrawalId' | 'amount' | 'currency'>): string | null;
  createPayout(config: GatewayConfig, request: PayoutRequest): Promise<PayoutStatus>;
  fetchPayout(config: GatewayConfig, providerRef: string): Promise<PayoutStatus>;
  /** A verified notification's body: a payout event, or null (not a payout event). */
  readNotification(rawBody: string): PayoutNotice | null;
}

/**
 * Our reference of a withdrawal's payout (PayPal's sender_batch_id and sender_item_id): the
 * withdrawal id and a random part chosen once with the payout row, so a database started again
 * (withdrawal ids reused) never meets a payout of its predecessor on the same PayPal account.
 */
export const payoutRef = (withdrawalId: number, nonce: string) => `withdrawal-${withdrawalId}-${nonce}`;
export function withdrawalIdFrom(ref: unknown): number | null {
  const m = typeof ref === 'string' ? /^withdrawal-([1-9]\d{0,15})-[a-z0-9]{1,16}$/.exec(ref) : null;
  return m ? Number(m[1]) : null;
}

// https://developer.paypal.com/api/rest/reference/currency-codes/: these do not support decimals
const ZERO_DECIMAL = new Set(['HUF', 'JPY', 'TWD']);
const PAYOUT_CURRENCIES = new Set(['AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN', 'TWD', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD']);

/** '100.50000000' → '100.50' (or null when it has more precision than the currency takes). */
export function paypalValue(amount: string, currency: string): string | null {
  const m = /^(\d{1,15})(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return null;
  const places = ZERO_DECIMAL.has(currency.toUpperCase()) ? 0 : 2;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > places) return null;
  return places === 0 ? String(BigInt(m[1])) : `${BigInt(m[1])}.${frac.padEnd(2, '0')}`;
}

const ITEM_STATE: Record<string, PayoutState> = {
  SUCCESS: 'paid',
  FAILED: 'failed', RETURNED: 'failed', BLOCKED: 'failed', REFUNDED: 'failed', REVERSED: 'failed',
  PENDING: 'pending', UNCLAIMED: 'pending', ONHOLD: 'pending',
};
const BATCH_STATE: Record<string, PayoutState> = { DENIED: 'failed', CANCELED: 'failed', PENDING: 'pending', PROCESSING: 'pending', SUCCESS: 'pending' };
// the item webhooks' suffixes (PAYMENT.PAYOUTS-ITEM.<suffix>) as item states
const ITEM_EVENT: Record<string, PayoutState> = {
  SUCCEEDED: 'paid', FAILED: 'failed', BLOCKED: 'failed', CANCELED: 'failed', DENIED: 'failed', REFUNDED: 'failed', RETURNED: 'failed',
  HELD: 'pending', UNCLAIMED: 'pending',
};

interface PaypalItem {
  payout_item_id?: string;
  transaction_status?: string;
  payout_batch_id?: string;
  sender_batch_id?: string;
  payout_item?: { sender_item_id?: string; amount?: { value?: string; currency?: string }; receiver?: string };
  errors?: { name?: string; message?: string };
}
interface PaypalBatch {
  batch_header?: { payout_batch_id?: string; batch_status?: string; sender_batch_header?: { sender_batch_id?: string } };
  items?: PaypalItem[];
}

const errorText = (e: PaypalItem['errors']) => (e && (e.name || e.message) ? [e.name, e.message].filter(Boolean).join(': ').slice(0, 300) : null);

function readItem(i: PaypalItem, fallbackRef = ''): PayoutStatus {
  const status = String(i.transaction_status ?? '').toUpperCase();
  const state = ITEM_STATE[status] ?? 'pending';
  return {
    providerRef: i.payout_batch_id ?? fallbackRef, itemId: i.payout_item_id ?? null, providerStatus: status || 'UNKNOWN', state,
    reason: state === 'failed' ? errorText(i.errors) ?? `PayPal reported the payout ${status.toLowerCase()}` : null,
    withdrawalId: withdrawalIdFrom(i.payout_item?.sender_item_id) ?? withdrawalIdFrom(i.sender_batch_id),
    reference: i.payout_item?.sender_item_id ?? i.sender_batch_id ?? null,
  };
}

/** A batch as a payout: its item's state when it has one, else the batch's. */
function readBatch(b: PaypalBatch): PayoutStatus {
  const h = b.batch_header;
  const ref = h?.payout_batch_id;
  if (typeof ref !== 'string' || !ref) throw new Error('PayPal answered a payout without payout_batch_id');
  const item = b.items?.[0];
  const batchStatus = String(h?.batch_status ?? '').toUpperCase();
  if (item && item.transaction_status) {
    const read = readItem(item, ref);
    return { ...read, providerRef: ref, reference: read.reference ?? h?.sender_batch_header?.sender_batch_id ?? null };
  }
  const state = BATCH_STATE[batchStatus] ?? 'pending';
  return {
    providerRef: ref, itemId: null, providerStatus: batchStatus || 'UNKNOWN', state,
    reason: state === 'failed' ? `PayPal reported the payout batch ${batchStatus.toLowerCase()}` : null,
    withdrawalId: withdrawalIdFrom(h?.sender_batch_header?.sender_batch_id),
    reference: h?.sender_batch_header?.sender_batch_id ?? null,
  };
}

async function call(config: GatewayConfig, method: 'GET' | 'POST', path: string, body?: string, requestId?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${await accessToken(config)}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (requestId) headers['paypal-request-id'] = requestId;
  const res = await fetch(`${paypalBase(config)}${path}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const json = await res.json().catch(() => null) as Record<string, unknown> | null;
  return { status: res.status, json };
}

export const paypalPayouts: PayoutAdapter = {
  name: 'paypal',

  check(r) {
    if (!PAYOUT_CURRENCIES.has(r.currency.toUpperCase())) return `PayPal does not pay out ${r.currency}`;
    if (!paypalValue(r.amount, r.currency)) return `PayPal cannot send ${r.amount} ${r.currency} exactly`;
    return null;
  },

  async createPayout(config, r) {
    const value = paypalValue(r.amount, r.currency);
    if (!value) throw new PayoutRefused(`PayPal cannot send ${r.amount} ${r.currency} exactly`, true);
    const ref = r.reference;
    if (withdrawalIdFrom(ref) !== r.withdrawalId) throw new PayoutRefused('The payout reference does not name this withdrawal', true);
    const { status, json } = await call(config, 'POST', '/v1/payments/payouts', JSON.stringify({
      sender_batch_header: {
        sender_batch_id: ref,
        recipient_type: 'PAYPAL_ID',
        email_subject: 'You have a payout',
        email_message: `Withdrawal #${r.withdrawalId}`,
      },
      items: [{
        recipient_type: 'PAYPAL_ID',
        amount: { value, currency: r.currency.toUpperCase() },
        receiver: r.receiver,
        note: `Withdrawal #${r.withdrawalId}`,
        sender_item_id: ref,
      }],
    }), ref);
    if (status >= 200 && status < 300 && json) return readBatch(json as PaypalBatch);
    // a sender_batch_id used before: the answer links to the original payout, which is ours
    const links = Array.isArray(json?.links) ? json.links as { href?: unknown }[] : [];
    for (const l of links) {
      const m = typeof l.href === 'string' ? /\/v1\/payments\/payouts\/([A-Za-z0-9]+)$/.exec(l.href) : null;
      if (m) return this.fetchPayout(config, m[1]);
    }
    const name = typeof json?.name === 'string' ? json.name : '';
    const message = typeof json?.message === 'string' ? json.message : '';
    // 400 / 422: the request itself was refused, nothing was paid by it (a retry's refusal does not
    // say the first request paid nothing: sendPayout holds that for review). 401, 403, 429, 5xx: ours
    // or transient: tried again later with the same sender_batch_id.
    if (status === 400 || status === 422) throw new PayoutRefused([name, message].filter(Boolean).join(': ').slice(0, 300) || `HTTP ${status}`);
    throw new Error(`PayPal POST /v1/payments/payouts: HTTP ${status}${name ? ` ${name}` : ''}`);
  },

  async fetchPayout(config, providerRef) {
    if (!/^[A-Za-z0-9]{1,30}$/.test(providerRef)) throw new Error('Not a PayPal payout id');
    const { status, json } = await call(config, 'GET', `/v1/payments/payouts/${providerRef}`);
    if (status !== 200 || !json) throw new Error(`PayPal GET /v1/payments/payouts/…: HTTP ${status}`);
    return readBatch(json as PaypalBatch);
  },

  readNotification(rawBody) {
    let ev: unknown;
    try { ev = JSON.parse(rawBody); } catch { return null; }
    if (!isObject(ev) || typeof ev.id !== 'string' || typeof ev.event_type !== 'string' || !isObject(ev.resource)) return null;
    const type = ev.event_type;
    if (type.startsWith('PAYMENT.PAYOUTS-ITEM.')) {
      const item = ev.resource as PaypalItem;
      const suffix = type.slice('PAYMENT.PAYOUTS-ITEM.'.length);
      if (typeof item.payout_batch_id !== 'string' || !(suffix in ITEM_EVENT)) return null;
      const read = readItem(item);
      // the event's own name decides the state; transaction_status says the same in PayPal's payloads
      const state = ITEM_EVENT[suffix];
      const status: PayoutStatus = {
        ...read, state, providerStatus: read.providerStatus === 'UNKNOWN' ? suffix : read.providerStatus,
        reason: state === 'failed' ? read.reason ?? `PayPal reported the payout ${suffix.toLowerCase()}` : null,
      };
      return {
        eventId: ev.id, eventType: type, providerRef: item.payout_batch_id, status,
        amount: item.payout_item?.amount?.value ?? null, currency: item.payout_item?.amount?.currency?.toUpperCase() ?? null,
      };
    }
    if (type.startsWith('PAYMENT.PAYOUTSBATCH.')) {
      const ref = (ev.resource as PaypalBatch).batch_header?.payout_batch_id;
      if (typeof ref !== 'string' || !ref) return null;
      return { eventId: ev.id, eventType: type, providerRef: ref, status: null, amount: null, currency: null };
    }
    return null;
  },
};
