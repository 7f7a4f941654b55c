// The mock hosted checkouts of CoinPayments, Flutterwave, MoonPay, Wipays and Perfect Money under
// MOCKS=1 (Stripe's and PayPal's are in payments.ts). The msw handlers answer the server's own API
// calls, but the customer's browser must reach a real page: `localCheckout` swaps the provider's
// checkout address (what the mocked API answered, or what the adapter built: MoonPay's signed widget
// URL, Perfect Money's SCI form) for the app's page /payments/mock/:gateway/:ref
// (routes/payments.mock.$gateway.$ref.tsx). 'Pay' there sends the provider's documented
// notification, signed by the provider's documented scheme with the gateway's saved keys (computed
// here, not with the adapters' helpers, so an adapter that drifted from the scheme fails), to the
// app's webhook, then sends the customer back the way the provider does:
//   CoinPayments  IPN form POST to ipn_url, 'HMAC' header = hex HMAC-SHA512(body, IPN secret = key2)
//                 (https://www.coinpayments.net/merchant-tools-ipn); back to success_url
//   Flutterwave   charge.completed JSON with the 'verif-hash' header = the dashboard's secret hash
//                 (key3) (https://developer.flutterwave.com/docs/webhooks); back to redirect_url
//                 ?status=successful&tx_ref=…&transaction_id=…
//   MoonPay       the widget checks the URL's signature (base64 HMAC-SHA256 of the query, secret key);
//                 transaction_updated JSON, Moonpay-Signature-V2: t=…,s=hex HMAC-SHA256("t.body",
//                 webhook key) (https://dev.moonpay.com/api-reference/widget/webhooks/signature);
//                 back to redirectURL?transactionId=…&transactionStatus=completed
//   Wipays        IPN JSON { identifier, status, signature, timestamp, data }, signature =
//                 upper(hex HMAC-SHA256(identifier + timestamp, secret_key)) (https://docs.wipays.com/ipn);
//                 back to success_url
//   Perfect Money the SCI status form to STATUS_URL with V2_HASH = upper(MD5(PAYMENT_ID:PAYEE_ACCOUNT:
//                 PAYMENT_AMOUNT:PAYMENT_UNITS:PAYMENT_BATCH_NUM:PAYER_ACCOUNT:upper(MD5(alternate
//                 passphrase)):TIMESTAMPGMT)) (SCI v2.0 specification); back to PAYMENT_URL (GET)
// Notifications go to this app's origin only.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import type { GatewayConfig, PaymentStart } from '~/modules/payments/adapter.ts';
import { PERFECTMONEY_SCI_URL } from '~/modules/payments/adapters/perfectmoney.server.ts';
import { MOONPAY_WIDGET } from '~/modules/payments/adapters/moonpay.server.ts';
import { coinpaymentsMock } from './providers/coinpayments.ts';
import { flutterwaveMock } from './providers/flutterwave.ts';
import { moonpayMock } from './providers/moonpay.ts';
import { wipaysMock } from './providers/wipays.ts';
import { perfectmoneyMock } from './providers/perfectmoney.ts';

export interface CheckoutContext {
  /** the app's public origin: notifications are delivered there only */
  origin: string;
  /** the gateway's saved settings (the keys the provider shares with the merchant) */
  config: GatewayConfig | null;
  /** the page's own URL (MoonPay's widget reads its signed query) */
  url: URL;
}

export interface CheckoutView {
  title: string;
  /** what the customer pays, e.g. '101.50 USD' */
  amount: string;
  /** more lines under the amount */
  lines?: string[];
  /** the provider refuses the checkout (shown instead of the Pay button) */
  error?: string;
}

export interface MockCheckout {
  view(ref: string, ctx: CheckoutContext): CheckoutView | null;
  /** pays: the signed notification delivered; where the customer goes next */
  pay(ref: string, ctx: CheckoutContext): Promise<string | null>;
  cancel(ref: string, ctx: CheckoutContext): string | null;
  /** Perfect Money: the browser's entry form arrives (POST …/sci); the id of the payment page */
  enter?(fields: Record<string, string>): string | null;
}

const hex = (n: number) => randomBytes(n).toString('hex');
const withQuery = (url: string, q: Record<string, string>) => {
  const u = new URL(url);
  for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
  return u.toString();
};

/** POSTs a notification to the app, as the provider's servers would. */
async function deliver(ctx: CheckoutContext, gateway: string, url: string, headers: Record<string, string>, body: string): Promise<void> {
  const target = new URL(url, ctx.origin);
  if (target.origin !== new URL(ctx.origin).origin) throw new Error(`mock ${gateway}: the notification URL ${url} is not this app's`);
  const res = await fetch(target, { method: 'POST', headers, body });
  if (!res.ok) console.warn(`[payments] mock ${gateway} notification answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
}

// ---------------------------------------------------------------- CoinPayments

const coinpayments: MockCheckout = {
  view(ref) {
    const tx = coinpaymentsMock.txs.get(ref);
    if (!tx) return null;
    return { title: 'CoinPayments (mock)', amount: `${tx.amount1} ${tx.currency1}`, lines: [`${tx.amountf} ${tx.coin} to mockAddress1111111111111111111111`] };
  },
  async pay(ref, ctx) {
    const tx = coinpaymentsMock.txs.get(ref);
    if (!tx || !tx.ipn_url) return null;
    Object.assign(tx, { status: 100, status_text: 'Complete' });
    const body = new URLSearchParams({
      ipn_version: '1.0', ipn_id: hex(16), ipn_mode: 'hmac', merchant: 'mock0merchant0id0000000000000000', ipn_type: 'api',
      txn_id: tx.txn_id, status: '100', status_text: 'Complete', currency1: tx.currency1, currency2: tx.coin,
      amount1: tx.amount1, amount2: tx.amountf, fee: '0.00000500', buyer_name: tx.buyer_name ?? '', email: tx.buyer_email ?? '',
      item_name: tx.invoice, invoice: tx.invoice, custom: tx.custom, received_amount: tx.amountf, received_confirms: '2',
    }).toString();
    // the IPN Secret the merchant set on CoinPayments' settings page: the private key (the adapter's documented setup)
    const hmac = createHmac('sha512', ctx.config?.key2 ?? '').update(body).digest('hex');
    await deliver(ctx, 'coinpayments', tx.ipn_url, { 'content-type': 'application/x-www-form-urlencoded', hmac }, body);
    return tx.success_url || null;
  },
  cancel(ref) {
    return coinpaymentsMock.txs.get(ref)?.cancel_url || null;
  },
};

// ---------------------------------------------------------------- Flutterwave

const flutterwave: MockCheckout = {
  view(ref) {
    const p = flutterwaveMock.payments.get(ref);
    if (!p) return null;
    return { title: 'Flutterwave (mock)', amount: `${p.amount.toFixed(2)} ${p.currency}` };
  },
  async pay(ref, ctx) {
    const p = flutterwaveMock.payments.get(ref);
    if (!p) return null;
    const tx = flutterwaveMock.settle(ref, 'successful');
    const body = JSON.stringify({
      event: 'charge.completed',
      data: {
        id: tx.id, tx_ref: tx.tx_ref, flw_ref: tx.flw_ref, device_fingerprint: 'N/A', amount: tx.amount, currency: tx.currency,
        charged_amount: tx.charged_amount, app_fee: 1.4, merchant_fee: 0, processor_response: 'Approved', auth_model: 'PIN',
        ip: '::ffff:10.5.179.3', narration: 'CARD Transaction ', status: tx.status, payment_type: 'card', created_at: new Date().toISOString(),
        account_id: 17321, customer: { id: 215604089, name: 'Mock Customer', phone_number: null, email: p.email, created_at: new Date().toISOString() },
      },
    });
    // Flutterwave posts to the webhook URL set on its dashboard: here, the app's own
    await deliver(ctx, 'flutterwave', '/payments/webhooks/flutterwave', { 'content-type': 'application/json', 'verif-hash': ctx.config?.key3 ?? '' }, body);
    return withQuery(p.redirect_url, { status: 'successful', tx_ref: ref, transaction_id: String(tx.id) });
  },
  cancel(ref) {
    const p = flutterwaveMock.payments.get(ref);
    return p ? withQuery(p.redirect_url, { status: 'cancelled', tx_ref: ref }) : null;
  },
};

// ---------------------------------------------------------------- MoonPay

/** Where the mock delivers a purchase whose URL named no wallet: the customer's own (MoonPay lets them type one). */
export const MOONPAY_CUSTOMER_WALLET = '0x000000000000000000000000000000000000c0de';

/**
 * The widget URL's query, checked as MoonPay's widget does (the signature is the last parameter).
 * MoonPay asks for the signature only when the URL carries walletAddress: without it the customer
 * types a wallet of their own (issue 22: the signed notification must then credit nothing).
 */
function moonpayQuery(ctx: CheckoutContext): { q: URLSearchParams; error?: string } {
  const search = ctx.url.search;
  const at = search.lastIndexOf('&signature=');
  const q = new URLSearchParams(search);
  if (!moonpayMock.publishableKeys.has(q.get('apiKey') ?? '')) return { q, error: 'Invalid API key' };
  if (!q.get('walletAddress')) return { q };
  if (at < 0) return { q, error: 'The URL is not signed' };
  const given = decodeURIComponent(search.slice(at + '&signature='.length));
  const expected = createHmac('sha256', ctx.config?.key2 ?? '').update(search.slice(0, at)).digest('base64');
  return given === expected ? { q } : { q, error: 'Invalid URL signature' };
}

const moonpay: MockCheckout = {
  view(ref, ctx) {
    if (ref !== 'widget') return null;
    const { q, error } = moonpayQuery(ctx);
    return {
      title: 'MoonPay (mock)', amount: `${q.get('baseCurrencyAmount') ?? '?'} ${(q.get('baseCurrencyCode') ?? '').toUpperCase()}`,
      lines: [`${(q.get('currencyCode') ?? '').toUpperCase()} to ${q.get('walletAddress') ?? `your own wallet ${MOONPAY_CUSTOMER_WALLET}`}`], error,
    };
  },
  async pay(ref, ctx) {
    const { q, error } = moonpayQuery(ctx);
    const total = q.get('baseCurrencyAmount');
    const ext = q.get('externalTransactionId');
    const back = q.get('redirectURL');
    if (ref !== 'widget' || error || !total || !ext || !back || !/^\d+(\.\d+)?$/.test(total)) return null;
    // what the customer pays, split as MoonPay reports it: baseCurrencyAmount excludes the fees
    const fee = new Decimal(total).gt(10) ? { feeAmount: 3.99, networkFeeAmount: 0.56 } : { feeAmount: 0, networkFeeAmount: 0 };
    const base = new Decimal(total).minus(fee.feeAmount).minus(fee.networkFeeAmount).toNumber();
    const tx = moonpayMock.transaction(ext, {
      status: 'completed', baseCurrencyAmount: base, ...fee, extraFeeAmount: 0, currency: (q.get('baseCurrencyCode') ?? 'usd').toLowerCase(),
      id: crypto.randomUUID(), updatedAt: new Date().toISOString(),
      // the buy transaction object echoes the widget's parameters (getbuytransaction)
      walletAddress: q.get('walletAddress') ?? MOONPAY_CUSTOMER_WALLET, cryptoCode: q.get('currencyCode') ?? undefined, externalCustomerId: q.get('externalCustomerId'),
    });
    moonpayMock.txs.push(tx);
    const body = JSON.stringify({ data: tx, type: 'transaction_updated' });
    const t = String(Math.floor(Date.now() / 1000));
    const s = createHmac('sha256', ctx.config?.key3 ?? '').update(`${t}.${body}`).digest('hex');
    await deliver(ctx, 'moonpay', '/payments/webhooks/moonpay', { 'content-type': 'application/json', 'moonpay-signature-v2': `t=${t},s=${s}` }, body);
    return withQuery(back, { transactionId: tx.id, transactionStatus: 'completed' });
  },
  cancel(ref, ctx) {
    const back = new URLSearchParams(ctx.url.search).get('redirectURL');
    return ref === 'widget' && back ? withQuery(back, { transactionStatus: 'failed' }) : null;
  },
};

// ---------------------------------------------------------------- Wipays

const wipays: MockCheckout = {
  view(ref) {
    const p = wipaysMock.payments.get(ref);
    return p ? { title: 'Wipays (mock)', amount: `${p.amount} ${p.currency}` } : null;
  },
  async pay(ref, ctx) {
    const p = wipaysMock.payments.get(ref);
    if (!p) return null;
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', ctx.config?.key2 ?? '').update(`${ref}${timestamp}`).digest('hex').toUpperCase();
    const body = JSON.stringify({
      identifier: ref, status: 'success', signature, timestamp,
      data: { trx: `MOCK${hex(6).toUpperCase()}`, amount: p.amount, currency: p.currency, type: 'checkout', timestamp: new Date().toISOString().slice(0, 19).replace('T', ' ') },
    });
    await deliver(ctx, 'wipays', p.ipn_url, { 'content-type': 'application/json' }, body);
    return p.success_url;
  },
  cancel(ref) {
    return wipaysMock.payments.get(ref)?.cancel_url ?? null;
  },
};

// ---------------------------------------------------------------- Perfect Money

const md5Upper = (s: string) => createHash('md5').update(s, 'utf8').digest('hex').toUpperCase();
const SCI_REQUIRED = ['PAYEE_ACCOUNT', 'PAYMENT_AMOUNT', 'PAYMENT_UNITS', 'PAYMENT_ID', 'STATUS_URL', 'PAYMENT_URL', 'NOPAYMENT_URL'];

const perfectmoney: MockCheckout = {
  enter(fields) {
    if (SCI_REQUIRED.some((k) => !fields[k])) return null;
    const id = `pm${hex(8)}`;
    perfectmoneyMock.payments.set(id, { id, fields, batch: null });
    return id;
  },
  view(ref) {
    const p = perfectmoneyMock.payments.get(ref);
    if (!p) return null;
    return { title: 'Perfect Money (mock)', amount: `${p.fields.PAYMENT_AMOUNT} ${p.fields.PAYMENT_UNITS}`, lines: [`To ${p.fields.PAYEE_ACCOUNT}${p.fields.PAYEE_NAME ? ` (${p.fields.PAYEE_NAME})` : ''}`] };
  },
  async pay(ref, ctx) {
    const p = perfectmoneyMock.payments.get(ref);
    if (!p) return null;
    const f = p.fields;
    p.batch ??= String(100000000 + ++perfectmoneyMock.batches);
    const status: Record<string, string> = {
      PAYEE_ACCOUNT: f.PAYEE_ACCOUNT, PAYMENT_ID: f.PAYMENT_ID, PAYMENT_AMOUNT: f.PAYMENT_AMOUNT, PAYMENT_UNITS: f.PAYMENT_UNITS,
      PAYMENT_BATCH_NUM: p.batch, PAYER_ACCOUNT: 'U7654321', TIMESTAMPGMT: String(Math.floor(Date.now() / 1000)),
    };
    status.V2_HASH = md5Upper([status.PAYMENT_ID, status.PAYEE_ACCOUNT, status.PAYMENT_AMOUNT, status.PAYMENT_UNITS, status.PAYMENT_BATCH_NUM,
      status.PAYER_ACCOUNT, md5Upper(ctx.config?.key3 ?? ''), status.TIMESTAMPGMT].join(':'));
    // the merchant's own fields come back too (BAGGAGE_FIELDS names them)
    for (const k of (f.BAGGAGE_FIELDS ?? '').split(/\s+/).filter(Boolean)) if (f[k] !== undefined) status[k] = f[k];
    await deliver(ctx, 'perfectmoney', f.STATUS_URL, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(status).toString());
    const { V2_HASH: _h, ...shown } = status;
    return withQuery(f.PAYMENT_URL, shown);
  },
  cancel(ref) {
    const p = perfectmoneyMock.payments.get(ref);
    return p ? withQuery(p.fields.NOPAYMENT_URL, { PAYMENT_ID: p.fields.PAYMENT_ID }) : null;
  },
};

export const mockCheckouts: Record<string, MockCheckout> = { coinpayments, flutterwave, moonpay, wipays, perfectmoney };

/**
 * A payment's start with the provider's browser address swapped for the app's mock page (the
 * addresses the mocked APIs answer, MoonPay's widget, Perfect Money's SCI). Anything else as is.
 */
export function localCheckout(start: PaymentStart): PaymentStart {
  if (start.kind === 'form') return start.action === PERFECTMONEY_SCI_URL ? { ...start, action: '/payments/mock/perfectmoney/sci' } : start;
  let u: URL;
  try { u = new URL(start.url); } catch { return start; }
  const page = (gateway: string, ref: string) => ({ ...start, url: `/payments/mock/${gateway}/${encodeURIComponent(ref)}` });
  if (u.origin === 'https://www.coinpayments.net' && u.searchParams.get('cmd') === 'checkout' && u.searchParams.get('id')) return page('coinpayments', u.searchParams.get('id')!);
  const flw = /^\/v3\/hosted\/pay\/mock_(.+)$/.exec(u.pathname);
  if (u.origin === 'https://checkout.flutterwave.com' && flw) return page('flutterwave', decodeURIComponent(flw[1]!));
  const trx = u.searchParams.get('payment_trx');
  if (u.origin === 'https://wipays.com' && u.pathname === '/payment/checkout' && trx?.startsWith('MOCK')) return page('wipays', trx.slice(4));
  // the signed query exactly as the adapter wrote it: MoonPay's signature covers these bytes
  if ((Object.values(MOONPAY_WIDGET) as string[]).includes(u.origin)) return { ...start, url: `/payments/mock/moonpay/widget${start.url.slice(start.url.indexOf('?'))}` };
  return start;
}
