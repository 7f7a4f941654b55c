// msw handlers for Flutterwave v3 (https://developer.flutterwave.com/docs/collecting-payments/standard,
// .../docs/transaction-verification): POST /v3/payments → { status, message: 'Hosted Link',
// data: { link } }; GET /v3/transactions/{id}/verify and /v3/transactions/verify_by_reference?tx_ref=
// → { status: 'success', message: 'Transaction fetched successfully', data: <transaction> }, all with
// 'Authorization: Bearer <secret key>'. `flutterwaveMock.settle()` turns a created payment into a
// transaction with an id, the way a customer paying on the hosted page does.
import { http, HttpResponse } from 'msw';
import { FLUTTERWAVE_API } from '~/modules/payments/adapters/flutterwave.server.ts';

export interface MockFlwTx {
  id: number;
  tx_ref: string;
  flw_ref: string;
  amount: number;
  currency: string;
  charged_amount: number;
  status: 'successful' | 'failed' | 'pending';
}

export const flutterwaveMock = {
  secretKeys: new Set(['FLWSECK_TEST-mock-X']),
  payments: new Map<string, { amount: number; currency: string; email: string; redirect_url: string }>(),
  txs: new Map<number, MockFlwTx>(),
  calls: [] as { method: string; url: string; authorization: string | null; body: string }[],
  reset() {
    this.payments.clear();
    this.txs.clear();
    this.calls.length = 0;
  },
  /** The customer pays (or fails) on the hosted page: a transaction with an id appears. */
  settle(txRef: string, status: MockFlwTx['status'] = 'successful', override: Partial<MockFlwTx> = {}): MockFlwTx {
    const p = this.payments.get(txRef);
    const id = 4000000 + this.txs.size + 1;
    const tx: MockFlwTx = {
      id, tx_ref: txRef, flw_ref: `FLW-MOCK-${id}`, amount: p?.amount ?? 0, currency: p?.currency ?? 'NGN', charged_amount: p?.amount ?? 0, status, ...override,
    };
    this.txs.set(tx.id, tx);
    return tx;
  },
};

const unauthorized = () => HttpResponse.json({ status: 'error', message: 'Invalid authorization key', data: null }, { status: 401 });
const authorized = (request: Request) => flutterwaveMock.secretKeys.has((request.headers.get('authorization') ?? '').replace(/^Bearer /, ''));

const txData = (t: MockFlwTx) => ({
  id: t.id, tx_ref: t.tx_ref, flw_ref: t.flw_ref, device_fingerprint: 'N/A', amount: t.amount, currency: t.currency,
  charged_amount: t.charged_amount, app_fee: 1.4, merchant_fee: 0, processor_response: t.status === 'successful' ? 'Approved' : 'Declined',
  auth_model: 'PIN', ip: '::ffff:10.5.179.3', narration: 'CARD Transaction ', status: t.status, payment_type: 'card',
  created_at: '2026-11-25T01:00:00.000Z', account_id: 17321,
});

export const flutterwaveHandlers = [
  http.post(`${FLUTTERWAVE_API}/payments`, async ({ request }) => {
    const body = await request.text();
    flutterwaveMock.calls.push({ method: 'POST', url: request.url, authorization: request.headers.get('authorization'), body });
    if (!authorized(request)) return unauthorized();
    const b = JSON.parse(body) as { tx_ref?: string; amount?: string | number; currency?: string; redirect_url?: string; customer?: { email?: string } };
    if (!b.tx_ref || !b.amount || !b.redirect_url || !b.customer?.email) {
      return HttpResponse.json({ status: 'error', message: 'tx_ref, amount, redirect_url and customer.email are required', data: null }, { status: 400 });
    }
    flutterwaveMock.payments.set(b.tx_ref, { amount: Number(b.amount), currency: b.currency ?? 'NGN', email: b.customer.email, redirect_url: b.redirect_url });
    return HttpResponse.json({ status: 'success', message: 'Hosted Link', data: { link: `https://checkout.flutterwave.com/v3/hosted/pay/mock_${encodeURIComponent(b.tx_ref)}` } });
  }),
  http.get(`${FLUTTERWAVE_API}/transactions/verify_by_reference`, ({ request }) => {
    flutterwaveMock.calls.push({ method: 'GET', url: request.url, authorization: request.headers.get('authorization'), body: '' });
    if (!authorized(request)) return unauthorized();
    const ref = new URL(request.url).searchParams.get('tx_ref');
    const tx = [...flutterwaveMock.txs.values()].reverse().find((t) => t.tx_ref === ref);
    if (!tx) return HttpResponse.json({ status: 'error', message: 'No transaction was found for this id', data: null }, { status: 400 });
    return HttpResponse.json({ status: 'success', message: 'Transaction fetched successfully', data: txData(tx) });
  }),
  http.get(`${FLUTTERWAVE_API}/transactions/:id/verify`, ({ request, params }) => {
    flutterwaveMock.calls.push({ method: 'GET', url: request.url, authorization: request.headers.get('authorization'), body: '' });
    if (!authorized(request)) return unauthorized();
    const tx = flutterwaveMock.txs.get(Number(params.id));
    if (!tx) return HttpResponse.json({ status: 'error', message: 'No transaction was found for this id', data: null }, { status: 400 });
    return HttpResponse.json({ status: 'success', message: 'Transaction fetched successfully', data: txData(tx) });
  }),
];
