// msw handlers for Flutterwave v3 (https://developer.flutterwave.com/docs/collecting-payments/standard,
// .../docs/transaction-verification): POST /v3/payments → { status, message: 'Hosted Link',
// data: { link } }; GET /v3/transactions/{id}/verify and /v3/transactions/verify_by_reference?tx_ref=
// → { status: 'success', message: 'Transaction fetched successfully', data: <transaction> }, all with
// 'Authorization: Bearer <secret key>'. `flutterwaveMock.settle()` turns a created payment into a
// transaction with an id, the way a customer paying on the hosted page does.
// Transfers (payouts of withdrawals, .../docs/making-payments/transfers/overview, .../v3.0/reference/get-all-banks,
// .../docs/bank-account-verification-1): GET /v3/banks/{country} → data [{ id, code, name }];
// POST /v3/accounts/resolve { account_number, account_bank } → data { account_number, account_name };
// POST /v3/transfers → 'Transfer Queued Successfully', data { id, account_number, bank_code, full_name,
// currency, debit_currency, amount, fee, status: 'NEW', reference, narration, complete_message, … };
// GET /v3/transfers/{id}: a NEW transfer completes on the first status request (SUCCESSFUL unless
// the test set another outcome for its account number); transferEvent() builds the 'transfer.completed'
// webhook body (sent with the verif-hash header). A reused reference is refused (400, the mock's wording).
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

export interface MockFlwTransfer {
  id: number; account_number: string; bank_code: string; full_name: string; bank_name: string; created_at: string; currency: string; debit_currency: string;
  amount: number; fee: number; status: 'NEW' | 'SUCCESSFUL' | 'FAILED'; reference: string; meta: unknown; narration: string; complete_message: string;
  requires_approval: number; is_approved: number;
}

export const flutterwaveMock = {
  secretKeys: new Set(['FLWSECK_TEST-mock-X']),
  payments: new Map<string, { amount: number; currency: string; email: string; redirect_url: string }>(),
  txs: new Map<number, MockFlwTx>(),
  calls: [] as { method: string; url: string; authorization: string | null; body: string }[],
  /** Flutterwave's bank list by country (GET /v3/banks/{country}); a country missing here has none */
  banks: { NG: [{ id: 132, code: '044', name: 'Access Bank' }, { id: 191, code: '058', name: 'Guaranty Trust Bank' }, { id: 173, code: '011', name: 'First Bank of Nigeria' }, { id: 177, code: '057', name: 'Zenith Bank' }] } as Record<string, { id: number; code: string; name: string }[]>,
  /** accounts Flutterwave resolves, by '<bank code>:<account number>' */
  accounts: new Map<string, string>([['044:0690000032', 'Pastor Bright'], ['058:0123456789', 'Ada Obi']]),
  transfers: new Map<number, MockFlwTransfer>(),
  /** the status a NEW transfer moves to on the next status request, by account number (default SUCCESSFUL) */
  outcome: new Map<string, { status: 'SUCCESSFUL' | 'FAILED'; message?: string }>(),
  /** the next N create calls fail with a 500 after creating the transfer (the answer is lost) */
  loseAnswers: 0,
  /** answers the next create calls get before anything is created, in order (a refusal, an outage) */
  createAnswers: [] as { status: number; message: string }[],
  reset() {
    this.payments.clear();
    this.txs.clear();
    this.calls.length = 0;
    this.transfers.clear();
    this.outcome.clear();
    this.loseAnswers = 0;
    this.createAnswers.length = 0;
  },
  /** Moves a transfer to a final status now (what Flutterwave does when the bank answered). */
  settleTransfer(id: number, status: 'SUCCESSFUL' | 'FAILED', message?: string) {
    const t = this.transfers.get(id);
    if (!t) return null;
    t.status = status;
    t.complete_message = message ?? (status === 'SUCCESSFUL' ? 'Successful' : 'DISBURSE FAILED: Account does not exist');
    return t;
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

const flwError = (status: number, message: string) => HttpResponse.json({ status: 'error', message, data: null }, { status });
const record = async (request: Request) => {
  const body = request.method === 'GET' ? '' : await request.text();
  flutterwaveMock.calls.push({ method: request.method, url: request.url, authorization: request.headers.get('authorization'), body });
  return body;
};

/** The 'transfer.completed' webhook body of a mock transfer, as Flutterwave posts it. */
export function transferEvent(id: number, override: Partial<MockFlwTransfer> = {}): string {
  const t = flutterwaveMock.transfers.get(id);
  if (!t) throw new Error(`no mock transfer ${id}`);
  const { full_name, ...rest } = { ...t, ...override };
  return JSON.stringify({ event: 'transfer.completed', 'event.type': 'Transfer', data: { ...rest, fullname: full_name, approver: null } });
}

export const flutterwaveHandlers = [
  http.get(`${FLUTTERWAVE_API}/banks/:country`, async ({ request, params }) => {
    await record(request);
    if (!authorized(request)) return unauthorized();
    return HttpResponse.json({ status: 'success', message: 'Banks fetched successfully', data: flutterwaveMock.banks[String(params.country)] ?? [] });
  }),
  http.post(`${FLUTTERWAVE_API}/accounts/resolve`, async ({ request }) => {
    const body = await record(request);
    if (!authorized(request)) return unauthorized();
    const b = JSON.parse(body || '{}') as { account_number?: string; account_bank?: string };
    const name = flutterwaveMock.accounts.get(`${b.account_bank}:${b.account_number}`);
    if (!name) return flwError(400, 'Sorry, that account number is invalid, please check and try again');
    return HttpResponse.json({ status: 'success', message: 'Account details fetched', data: { account_number: b.account_number, account_name: name } });
  }),
  http.post(`${FLUTTERWAVE_API}/transfers`, async ({ request }) => {
    const body = await record(request);
    if (!authorized(request)) return unauthorized();
    let b: { account_bank?: unknown; account_number?: unknown; amount?: unknown; currency?: unknown; debit_currency?: unknown; narration?: unknown; reference?: unknown; beneficiary_name?: unknown; meta?: unknown };
    try { b = JSON.parse(body) as typeof b; } catch { return flwError(400, 'Invalid JSON'); }
    const scripted = flutterwaveMock.createAnswers.shift();
    if (scripted) return flwError(scripted.status, scripted.message);
    if (typeof b.account_bank !== 'string' || typeof b.account_number !== 'string' || typeof b.amount !== 'number' || !(b.amount > 0) || typeof b.currency !== 'string') {
      return flwError(400, 'account_bank, account_number, amount and currency are required');
    }
    if (typeof b.reference === 'string' && [...flutterwaveMock.transfers.values()].some((t) => t.reference === b.reference)) return flwError(400, 'Transfer with this reference already exists');
    const bank = Object.values(flutterwaveMock.banks).flat().find((x) => x.code === b.account_bank);
    if (!bank) return flwError(400, 'Invalid bank code');
    const fullName = flutterwaveMock.accounts.get(`${b.account_bank}:${b.account_number}`);
    if (!fullName) return flwError(400, 'Account resolve failed');
    const id = 500000 + flutterwaveMock.transfers.size + 1;
    const t: MockFlwTransfer = {
      id, account_number: b.account_number, bank_code: b.account_bank, full_name: fullName, bank_name: bank.name.toUpperCase(), created_at: new Date().toISOString(),
      currency: b.currency, debit_currency: typeof b.debit_currency === 'string' ? b.debit_currency : b.currency, amount: b.amount, fee: 10.75, status: 'NEW',
      reference: typeof b.reference === 'string' ? b.reference : `mock-${id}`, meta: b.meta ?? null, narration: typeof b.narration === 'string' ? b.narration : '',
      complete_message: '', requires_approval: 0, is_approved: 1,
    };
    flutterwaveMock.transfers.set(id, t);
    if (flutterwaveMock.loseAnswers > 0) { flutterwaveMock.loseAnswers--; return flwError(500, 'Internal server error'); }
    return HttpResponse.json({ status: 'success', message: 'Transfer Queued Successfully', data: t });
  }),
  http.get(`${FLUTTERWAVE_API}/transfers/:id`, async ({ request, params }) => {
    await record(request);
    if (!authorized(request)) return unauthorized();
    const t = flutterwaveMock.transfers.get(Number(params.id));
    if (!t) return flwError(404, 'Transfer not found');
    if (t.status === 'NEW') {
      const next = flutterwaveMock.outcome.get(t.account_number) ?? { status: 'SUCCESSFUL' as const };
      flutterwaveMock.settleTransfer(t.id, next.status, next.message);
    }
    return HttpResponse.json({ status: 'success', message: 'Transfer fetched', data: t });
  }),
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
