// MoonPay (on-ramp widget, Buy), written against:
//   https://dev.moonpay.com/widget/on-ramp/customization/url-signing  and
//   https://dev.moonpay.com/v1.0/docs/ramps-sdk-url-signing          (signature = base64
//       HMAC-SHA256 of the URL's query string — '?' included, values URL-encoded — keyed with the
//       secret key, appended last as the URL-encoded 'signature' parameter; mandatory with
//       walletAddress; sandbox widget https://buy-sandbox.moonpay.com for pk_test_ keys)
//   https://dev.moonpay.com/api-reference/widget/webhooks/signature  (header Moonpay-Signature-V2:
//       't=<unix>,s=<hex>', s = HMAC-SHA256 of '<t>.<raw body>' keyed with the webhook API key)
//   https://dev.moonpay.com/api-reference/widget/webhooks/buy        (events transaction_created,
//       transaction_updated, transaction_failed; body { type, data: <buy transaction> }; duplicates
//       and out-of-order deliveries happen)
//   https://dev.moonpay.com/api-reference/widget/getbuytransaction   (the buy transaction object;
//       by our id: GET https://api.moonpay.com/v1/transactions/ext/{externalTransactionId}?apiKey=
//       <publishable key>, an array)
//
// Settings (kinds.ts): key1 publishable key, key2 secret key, key3 webhook key, key4 the wallet the
// crypto is delivered to, key5 the crypto code (e.g. 'usdc'). The amount reported is what the
// customer paid: baseCurrencyAmount + feeAmount + extraFeeAmount + networkFeeAmount (MoonPay's
// baseCurrencyAmount excludes its fees), added exactly.
//
// Whose purchase it is (issue 22): the widget URL is in the customer's hands. MoonPay requires the
// signature only when the URL carries walletAddress, so a customer can strip walletAddress and
// signature, buy into a wallet of their own, and MoonPay's signed notification still carries our
// externalTransactionId ('dep-N'). A signed notification proves MoonPay sent it, not that the
// broker was paid: a transaction is payable to a deposit only when the buy transaction object's
// own fields (the webhook's data and GET /v1/transactions/ext/… are that object) say so —
// `walletAddress` equal to key4, `currency.code` equal to key5 and `externalCustomerId` equal to the
// deposit's customer. Anything else is an event with a `refusal` (recorded 'rejected', nothing
// credited or declined), the same in the webhook and in the status job.
import { createHmac } from 'node:crypto';
import Decimal from 'decimal.js';
import type { GatewayAdapter, GatewayConfig, PaymentState, VerifiedEvent } from '../adapter.ts';
import { NotificationRefused } from '../adapter.ts';
import { decimalString, depositIdFrom, depositRef, isObject, jsonObject, notifyKey, ProviderError, requireKey, safeEqual } from './more-helpers.server.ts';

export const MOONPAY_API = 'https://api.moonpay.com';
export const MOONPAY_WIDGET = { live: 'https://buy.moonpay.com', sandbox: 'https://buy-sandbox.moonpay.com' } as const;
/** Seconds a Moonpay-Signature-V2 timestamp may differ from our clock. */
export const MOONPAY_TOLERANCE_SECONDS = 300;

export const moonpaySignQuery = (search: string, secretKey: string) => createHmac('sha256', secretKey).update(search, 'utf8').digest('base64');
export const moonpayWebhookSignature = (t: string, body: string, webhookKey: string) => createHmac('sha256', webhookKey).update(`${t}.${body}`, 'utf8').digest('hex');

export function moonpayState(status: unknown): PaymentState {
  if (status === 'completed') return 'paid';
  if (status === 'failed') return 'failed';
  return 'pending';
}

/** A buy transaction object read into our shape (amount: what the customer paid, fees included). */
export function readMoonpayTransaction(d: Record<string, unknown>) {
  const ext = d.externalTransactionId;
  const base = decimalString(d.baseCurrencyAmount);
  const currency = isObject(d.baseCurrency) ? d.baseCurrency.code : undefined;
  if (typeof d.id !== 'string' || !base || typeof currency !== 'string') return null;
  let total = new Decimal(base);
  for (const k of ['feeAmount', 'extraFeeAmount', 'networkFeeAmount'] as const) {
    if (d[k] === null || d[k] === undefined) continue;
    const v = decimalString(d[k]);
    if (!v) return null;
    total = total.plus(v);
  }
  const crypto = isObject(d.currency) && typeof d.currency.code === 'string' ? d.currency.code : null;
  return {
    id: d.id,
    walletAddress: typeof d.walletAddress === 'string' ? d.walletAddress : null,
    cryptoCode: crypto,
    externalCustomerId: typeof d.externalCustomerId === 'string' && d.externalCustomerId ? d.externalCustomerId : null,
    providerRef: typeof ext === 'string' && ext ? ext : d.id,
    depositId: depositIdFrom(ext),
    state: moonpayState(d.status),
    status: typeof d.status === 'string' ? d.status : '',
    amount: total.toFixed(),
    currency: currency.toUpperCase(),
    updatedAt: typeof d.updatedAt === 'string' ? d.updatedAt : '',
  };
}

type MoonpayTx = NonNullable<ReturnType<typeof readMoonpayTransaction>>;

/** EVM addresses ('0x' + 40 hex) are case-insensitive (EIP-55 casing is a checksum); other chains' addresses are compared exactly. */
function sameWallet(a: string, b: string): boolean {
  const hex = /^0x[0-9a-fA-F]{40}$/;
  return hex.test(a) && hex.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** Why a buy transaction is not payable to this gateway's destination, or null: its wallet and crypto are the configured ones. */
export function moonpayRefusal(config: GatewayConfig, tx: Pick<MoonpayTx, 'walletAddress' | 'cryptoCode'>): string | null {
  const wallet = config.key4?.trim();
  const crypto = config.key5?.trim().toLowerCase();
  if (!wallet || !crypto) return 'MoonPay wallet address or crypto code not configured: nothing is credited';
  if (!tx.walletAddress || !sameWallet(tx.walletAddress.trim(), wallet)) return `Wallet mismatch: bought into ${tx.walletAddress ?? '?'}, not the gateway's wallet`;
  if (!tx.cryptoCode || tx.cryptoCode.toLowerCase() !== crypto) return `Crypto mismatch: bought ${tx.cryptoCode ?? '?'}, not ${crypto}`;
  return null;
}

function widgetBase(config: GatewayConfig, publishable: string) {
  void config;
  return publishable.startsWith('pk_test_') ? MOONPAY_WIDGET.sandbox : MOONPAY_WIDGET.live;
}

export const moonpay: GatewayAdapter = {
  name: 'moonpay',

  async createPayment(config, request) {
    const publishable = requireKey(config, 'key1', 'publishable key');
    const secret = requireKey(config, 'key2', 'secret key');
    const wallet = requireKey(config, 'key4', 'wallet address');
    const crypto = requireKey(config, 'key5', 'crypto receiving');
    const ref = depositRef(request.depositId);
    const params = new URLSearchParams({
      apiKey: publishable,
      currencyCode: crypto.toLowerCase(),
      walletAddress: wallet,
      baseCurrencyCode: request.currency.toLowerCase(),
      baseCurrencyAmount: request.total,
      externalTransactionId: ref,
      externalCustomerId: String(request.customer.id),
      email: request.customer.email,
      redirectURL: request.returnUrl,
    });
    const search = `?${params.toString()}`;
    const url = `${widgetBase(config, publishable)}/${search}&signature=${encodeURIComponent(moonpaySignQuery(search, secret))}`;
    return { kind: 'redirect', url, providerRef: ref };
  },

  async verifyNotification(config, incoming) {
    const webhookKey = notifyKey(config, 'key3', 'webhook key');
    const header = incoming.headers.get('moonpay-signature-v2');
    if (!header) throw new NotificationRefused('bad_signature', 'no Moonpay-Signature-V2 header');
    const parts = new Map<string, string>();
    for (const el of header.split(',')) {
      const i = el.indexOf('=');
      if (i > 0) parts.set(el.slice(0, i).trim(), el.slice(i + 1).trim());
    }
    const t = parts.get('t');
    const s = parts.get('s');
    if (!t || !s || !/^\d{1,12}$/.test(t)) throw new NotificationRefused('bad_signature', 'Moonpay-Signature-V2 has no t / s');
    if (!safeEqual(s.toLowerCase(), moonpayWebhookSignature(t, incoming.rawBody, webhookKey))) {
      throw new NotificationRefused('bad_signature', 'the signature does not match');
    }
    if (Math.abs(incoming.now.getTime() / 1000 - Number(t)) > MOONPAY_TOLERANCE_SECONDS) {
      throw new NotificationRefused('stale_timestamp', 'the signature timestamp is outside the tolerance');
    }
    const body = jsonObject(incoming.rawBody);
    if (typeof body.type !== 'string' || !isObject(body.data)) throw new NotificationRefused('malformed', 'type / data missing');
    if (!['transaction_created', 'transaction_updated', 'transaction_failed'].includes(body.type)) return null;
    const tx = readMoonpayTransaction(body.data);
    if (!tx) throw new NotificationRefused('malformed', 'the transaction has no id / baseCurrencyAmount / baseCurrency');
    const event: VerifiedEvent = {
      eventId: `moonpay:${tx.id}:${body.type}:${tx.status}:${tx.updatedAt}`,
      providerRef: tx.providerRef,
      depositId: tx.depositId,
      state: body.type === 'transaction_failed' ? 'failed' : tx.state,
      amount: tx.amount,
      currency: tx.currency,
      customerRef: tx.externalCustomerId,
      refusal: moonpayRefusal(config, tx),
    };
    return event;
  },

  async fetchStatus(config, providerRef) {
    const publishable = requireKey(config, 'key1', 'publishable key');
    const res = await fetch(`${MOONPAY_API}/v1/transactions/ext/${encodeURIComponent(providerRef)}?apiKey=${encodeURIComponent(publishable)}`, {
      headers: { Accept: 'application/json' },
    });
    if (!res.ok) throw new ProviderError('moonpay', `GET transactions/ext answered HTTP ${res.status}`);
    const list = (await res.json().catch(() => null)) as unknown;
    if (!Array.isArray(list)) throw new ProviderError('moonpay', 'GET transactions/ext answered no array');
    const txs = list.filter(isObject).map(readMoonpayTransaction).filter((t) => t !== null);
    if (txs.length === 0) throw new ProviderError('moonpay', `no transaction for ${providerRef}`);
    // Several attempts can carry our id (anyone can start one with it): a completed one into our
    // wallet settles it, else any completed one (refused below: held for review), else the latest says where it is.
    const payable = (t: MoonpayTx) => moonpayRefusal(config, t) === null;
    const pick = txs.find((t) => t.state === 'paid' && payable(t)) ?? txs.find((t) => t.state === 'paid')
      ?? txs.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))[0]!;
    return {
      providerRef, depositId: pick.depositId, state: pick.state, amount: pick.amount, currency: pick.currency,
      customerRef: pick.externalCustomerId, refusal: moonpayRefusal(config, pick),
    };
  },

  acknowledge: { status: 200, body: '' },
};
