// The deposit pages' loaders and actions against PostgreSQL (docs/specs.md#money): /deposits
// (form data, the checks before a manual gateway's page, the History tab), the bank transfer page
// (proof through the upload service, a double submit is one deposit), the crypto page (QR, the
// live rate through the engine's client, mocked at the network with msw) and /admin/deposits (the
// list, its filters and search, the decisions and who may take them). A customer only ever sees or
// acts on their own records; bad input is a message, never a 500.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { AppLoadContext, LoaderFunctionArgs } from '@remix-run/node';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, ensureGateways, walletFor, sessionFor, get, post, unique, type TestUser, answerOf } from '../helpers.ts';
import { png, text, uploadRequest, type Part } from '../uploads/fixtures.ts';
import { env } from '~/shared/env.server.ts';
import { createDeposit } from '~/modules/money/money.server.ts';
import { depositFee } from '~/modules/money/fees.ts';
import { cryptoQuote } from '~/modules/money/deposits.server.ts';
import { cryptoConfirmSchema, cryptoNetwork, type CryptoNetwork } from '~/modules/money/deposit-schemas.ts';
import { uploadHref } from '~/modules/uploads/href.ts';
import * as index from '~/routes/_client.deposits._index.tsx';
import * as bank from '~/routes/_client.deposits.bank.$id.tsx';
import * as cryptoPage from '~/routes/_client.deposits.crypto.$id.tsx';
import * as admin from '~/routes/_staff.admin.deposits.tsx';

// the bank page stores proofs here (read by env() on first use)
const dir = mkdtempSync(path.join(tmpdir(), 'deposit-proofs-'));
process.env.UPLOAD_DIR = dir;

const sql = testSql(6);
const engineUrl = env().ENGINE_URL;
/** what the engine's GET /v1/rates answers: a rate per 'FROM_TO', else 404; `down`: unreachable */
let rates: Record<string, string> = {};
let down = false;
mockServer(
  http.get(`${engineUrl}/v1/rates`, ({ request }) => {
    if (down) return HttpResponse.error();
    const u = new URL(request.url);
    const from = u.searchParams.get('from')!.toUpperCase(), to = u.searchParams.get('to')!.toUpperCase();
    const rate = rates[`${from}_${to}`];
    return rate ? HttpResponse.json({ from, to, rate }) : HttpResponse.json({ message: `No conversion rate from ${from} to ${to}`, code: 'not_found' }, { status: 404 });
  }),
  http.post(`${engineUrl}/v1/events`, () => HttpResponse.json({ ok: true })),
);
beforeAll(async () => {
  await ensureGateways(sql);
  // the languages the number input tests post in (docs/specs.md#number-input)
  await sql`INSERT INTO languages (code, name) VALUES ('en', 'English'), ('de', 'Deutsch') ON CONFLICT (code) DO NOTHING`;
});
afterEach(() => { rates = {}; down = false; });
afterAll(async () => {
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

interface Customer extends TestUser { cookie: string; wallet: number }
async function customer(opts: { kyc?: boolean; credit?: string } = {}): Promise<Customer> {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id, { credit: opts.credit });
  if (opts.kyc) await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${u.id}, 'passport', 'approved', now())`;
  return { ...u, wallet, cookie: (await sessionFor(sql, u.id)).cookie };
}
async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}

type Args = LoaderFunctionArgs;
const args = (request: Request, params: Record<string, string> = {}, context: AppLoadContext = {}): Args => ({ request, params, context });
/** A loader's or action's answer: a thrown or returned Response, or the data (status 200). */
const run = answerOf;
const depositsOf = (userId: number) => sql`SELECT id, status, gateway, amount::text AS amount, fee::text AS fee, total::text AS total, description, details, client_ref
                                             FROM deposits WHERE user_id = ${userId} ORDER BY id`;
const uploadsOf = (userId: number) => sql`SELECT id, kind FROM uploads WHERE owner_id = ${userId} ORDER BY id`;

describe('/deposits', () => {
  test('the Deposit tab offers the own real wallets, the active gateways and the KYC notice', async () => {
    const c = await customer();
    const other = await customer();
    await walletFor(sql, c.id, { mode: 'demo' });
    const r = await run(index.loader(args(get('/deposits', c.cookie))));
    expect(r.status).toBe(200);
    expect(r.body.tab).toBe('deposit');
    expect(r.body.wallets.map((w: { id: number }) => w.id)).toEqual([c.wallet]);
    expect(r.body.wallets).not.toContainEqual(expect.objectContaining({ id: other.wallet }));
    const names = r.body.gateways.map((g: { name: string }) => g.name);
    expect(names).toEqual(expect.arrayContaining(['bank', 'btc', 'usdt']));
    expect(names).not.toContain('stripe');
    expect(r.body.kycNotice).toBe(true);
    const verified = await customer({ kyc: true });
    expect((await run(index.loader(args(get('/deposits', verified.cookie))))).body.kycNotice).toBe(false);
  });

  test('a manual gateway: the checks pass on the server, then its page', async () => {
    const c = await customer();
    const toBank = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount: '100' }, { cookie: c.cookie }))));
    expect(toBank).toMatchObject({ status: 302, location: `/deposits/bank/${c.wallet}?amount=100.00` });
    const toBtc = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'btc', amount: '0.5' }, { cookie: c.cookie }))));
    expect(toBtc).toMatchObject({ status: 302, location: `/deposits/crypto/btc?balance=${c.wallet}&amount=0.50` });
    expect(await depositsOf(c.id)).toEqual([]); // nothing is recorded before the gateway's page
  });

  test("refused with field errors, changing nothing: missing fields, another user's or a demo wallet, an inactive gateway, bad amounts", async () => {
    const c = await customer();
    const other = await customer();
    const demo = await walletFor(sql, c.id, { mode: 'demo' });
    const cases: [Record<string, string>, string, string][] = [
      [{ gateway: 'bank', amount: '10' }, 'balance_id', 'Wallet is required'],
      [{ balance_id: String(c.wallet), amount: '10' }, 'gateway', 'Gateway is required'],
      [{ balance_id: String(c.wallet), gateway: 'bank' }, 'amount', 'Amount is required'],
      [{ balance_id: String(other.wallet), gateway: 'bank', amount: '10' }, 'balance_id', 'Wallet is required'],
      [{ balance_id: String(demo), gateway: 'bank', amount: '10' }, 'balance_id', 'Wallet is required'],
      [{ balance_id: 'abc', gateway: 'bank', amount: '10' }, 'balance_id', 'Wallet is required'],
      [{ balance_id: '99999999999999999999', gateway: 'bank', amount: '10' }, 'balance_id', 'Wallet is required'],
      [{ balance_id: String(c.wallet), gateway: 'stripe', amount: '10' }, 'gateway', 'Gateway is required'],
      [{ balance_id: String(c.wallet), gateway: '<script>', amount: '10' }, 'gateway', 'Gateway is required'],
      [{ balance_id: String(c.wallet), gateway: 'bank', amount: '-5' }, 'amount', 'Amount must be greater than 0'],
      [{ balance_id: String(c.wallet), gateway: 'bank', amount: '1.005' }, 'amount', 'Amount allows at most 2 decimal places'],
      [{ balance_id: String(c.wallet), gateway: 'bank', amount: '1e9' }, 'amount', 'Amount must be a number like 12.5'],
      [{ balance_id: String(c.wallet), gateway: 'bank', amount: '9999999999999' }, 'amount', 'Amount is too large'],
    ];
    for (const [form, field, message] of cases) {
      const r = await run(index.action(args(post('/deposits', form, { cookie: c.cookie }))));
      expect(r.status, JSON.stringify(form)).toBe(400);
      expect(r.body.ok).toBe(false);
      expect(r.body.result.error[field], JSON.stringify(form)).toEqual([message]);
    }
    expect(await depositsOf(c.id)).toEqual([]);
  });

  test('History: only the own deposits, newest first, 15 a page with the page in the URL, a date range', async () => {
    const c = await customer();
    const other = await customer();
    for (let i = 1; i <= 17; i++) {
      const d = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'btc', amount: String(i) });
      if (!d.ok) throw new Error(d.message);
    }
    await createDeposit(sql, { userId: other.id, balanceId: other.wallet, gateway: 'bank', amount: '999' });
    // two of them on known days
    const ids = (await depositsOf(c.id)).map((d) => Number(d.id));
    await sql`UPDATE deposits SET created_at = '2024-03-05T12:00:00Z' WHERE id = ${ids[0]}`;
    await sql`UPDATE deposits SET created_at = '2024-03-07T23:30:00Z' WHERE id = ${ids[1]}`;

    const first = await run(index.loader(args(get('/deposits?tab=history', c.cookie))));
    expect(first.status).toBe(200);
    expect(first.body.history.total).toBe(17);
    expect(first.body.history.rows).toHaveLength(15);
    const [btc] = await sql`SELECT fee::text AS fee FROM payment_gateways WHERE name = 'btc'`;
    expect(first.body.history.rows[0]).toMatchObject({ id: ids[16], ...depositFee('17', btc.fee), status: 'pending', gateway: 'btc', balanceAfter: null });
    expect(first.body.history.rows.every((r: { amount: string }) => r.amount !== '999.00')).toBe(true);
    const second = await run(index.loader(args(get('/deposits?tab=history&page=2', c.cookie))));
    expect(second.body.history.rows.map((r: { id: number }) => r.id)).toEqual([ids[1], ids[0]]);

    const range = await run(index.loader(args(get('/deposits?tab=history&dateStart=2024-03-01&dateEnd=2024-03-06', c.cookie))));
    expect(range.body.history.rows.map((r: { id: number }) => r.id)).toEqual([ids[0]]);
    expect(range.body.range).toEqual({ dateStart: '2024-03-01', dateEnd: '2024-03-06' });
    const inclusive = await run(index.loader(args(get('/deposits?tab=history&dateStart=2024-03-07&dateEnd=2024-03-07', c.cookie))));
    expect(inclusive.body.history.rows.map((r: { id: number }) => r.id)).toEqual([ids[1]]);

    // bad pages are clamped, bad dates refused with their message: never a 500
    expect((await run(index.loader(args(get('/deposits?tab=history&page=abc', c.cookie))))).body.history.rows).toHaveLength(15);
    expect((await run(index.loader(args(get('/deposits?tab=history&page=99999999999', c.cookie))))).body.history.rows).toEqual([]);
    expect(await run(index.loader(args(get('/deposits?tab=history&dateStart=2024-02-30', c.cookie))))).toMatchObject({ status: 400, body: 'The start date must be a date between 1970-01-01 and 2100-12-31.' });
    expect(await run(index.loader(args(get('/deposits?tab=history&dateStart=2024-03-09&dateEnd=2024-03-01', c.cookie))))).toMatchObject({ status: 400, body: 'End date must be after start date' });
  });

  test('History: a declined deposit shows its reason; an approved one the balance after it', async () => {
    const c = await customer({ credit: '10' });
    const a = await staff(1);
    const d1 = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount: '40' });
    const d2 = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount: '5' });
    if (!d1.ok || !d2.ok) throw new Error('refused');
    expect((await run(admin.action(args(post('/admin/deposits', { intent: 'approve', id: String(d1.id) }, { cookie: a.cookie }))))).status).toBe(200);
    expect((await run(admin.action(args(post('/admin/deposits', { intent: 'decline', id: String(d2.id), declineReason: 'No transfer received' }, { cookie: a.cookie }))))).status).toBe(200);
    const r = await run(index.loader(args(get('/deposits?tab=history', c.cookie))));
    expect(r.body.history.rows).toEqual([
      expect.objectContaining({ id: d2.id, status: 'declined', declineReason: 'No transfer received', balanceAfter: null }),
      expect.objectContaining({ id: d1.id, status: 'approved', declineReason: null, balanceAfter: '50.00000000' }),
    ]);
  });
});

// ---------------------------------------------------------------- bank transfer page

const PNG = png(6, 4);
function bankPost(c: Customer, parts: Part[], query = '?amount=250', wallet = c.wallet) {
  return uploadRequest(parts, { cookie: c.cookie, path: `/deposits/bank/${wallet}${query}` });
}
const sentFrom = (over: Record<string, string> = {}): Part[] => Object.entries({ bank_name: 'Chase', account_name: 'Somebody Else', account_number: '12345678', clientRef: unique('ref-'), ...over })
  .map(([name, value]) => ({ name, value }));

describe('amounts typed in the page\'s language (docs/specs.md#number-input)', () => {
  const de = (c: Customer) => `${c.cookie}; lang=de`;
  test('German: \'12,50\' is accepted and the deposit stored is 12.50 exactly; \'1.000,50\' is one thousand and a half', async () => {
    const c = await customer();
    const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount: '12,50' }, { cookie: de(c) }))));
    // the bank page's link carries the canonical amount (a machine value), the deposit is stored from it
    expect(r).toMatchObject({ status: 302, location: `/deposits/bank/${c.wallet}?amount=12.50` });
    const stored = await run(bank.action(args(bankPost(c, [...sentFrom(), { name: 'proof', file: PNG, filename: 'r.png', type: 'image/png' }], '?amount=12.50'), { id: String(c.wallet) })));
    expect(stored.status).toBe(302);
    expect((await depositsOf(c.id)).map((d) => d.amount)).toEqual(['12.50']);
    const grouped = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount: '1.000,50' }, { cookie: de(c) }))));
    expect(grouped).toMatchObject({ status: 302, location: `/deposits/bank/${c.wallet}?amount=1000.50` });
  });

  test('English: \'1,000.50\' is accepted; German \'12.5\' and English \'1,5\' are refused with the message naming the example, nothing recorded', async () => {
    const c = await customer();
    const en = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount: '1,000.50' }, { cookie: `${c.cookie}; lang=en` }))));
    expect(en).toMatchObject({ status: 302, location: `/deposits/bank/${c.wallet}?amount=1000.50` });
    for (const [amount, lang] of [['12.5', 'de'], ['1,5', 'en'], ['12,5.0', 'de']]) {
      const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount }, { cookie: `${c.cookie}; lang=${lang}` }))));
      expect(r.status, `${amount} in ${lang}`).toBe(400);
      expect(r.body.result.error.amount, `${amount} in ${lang}`).toEqual(['Amount must be a number like 12.5']);
      // the field is filled again with what was typed
      expect(r.body.result.initialValue.amount).toBe(amount);
    }
    expect(await depositsOf(c.id)).toEqual([]);
  });
});

describe('bank transfer page', () => {
  test('the broker\'s bank details, the amount with its fee and the user\'s full name', async () => {
    const c = await customer();
    const r = await run(bank.loader(args(get(`/deposits/bank/${c.wallet}?amount=250`, c.cookie), { id: String(c.wallet) })));
    expect(r.status).toBe(200);
    const [g] = await sql`SELECT fee::text AS fee, key1, key2, key3, key4, key5 FROM payment_gateways WHERE name = 'bank'`;
    expect(r.body).toMatchObject({
      wallet: { id: c.wallet, currency: 'USD' }, bank: [g.key1, g.key2, g.key3, g.key4, g.key5],
      fees: depositFee('250', g.fee), fullName: `Test ${c.email.slice(0, 12)}`, kycNotice: true,
    });
    expect(r.body.clientRef).toMatch(/^[0-9a-f]{32}$/);
  });

  test("another user's wallet, a demo wallet, an unknown id: 404; a bad amount: 400 with its message", async () => {
    const c = await customer();
    const other = await customer();
    const demo = await walletFor(sql, c.id, { mode: 'demo' });
    for (const id of [String(other.wallet), String(demo), '999999999999', 'abc', '0', '1e3']) {
      const r = await run(bank.loader(args(get(`/deposits/bank/${id}?amount=10`, c.cookie), { id })));
      expect(r.status, id).toBe(404);
    }
    const amounts: [string, string][] = [['', 'Amount is required'], ['?amount=', 'Amount is required'], ['?amount=abc', 'Amount must be a number like 12.5'],
      ['?amount=0', 'Amount must be greater than 0'], ['?amount=1.001', 'Amount allows at most 2 decimal places'], ['?amount=1000000000000000', 'Amount is too large']];
    for (const [query, message] of amounts) {
      expect(await run(bank.loader(args(get(`/deposits/bank/${c.wallet}${query}`, c.cookie), { id: String(c.wallet) }))), query).toMatchObject({ status: 400, body: message });
    }
    // the action refuses the same before reading any file
    const r = await run(bank.action(args(bankPost(c, [...sentFrom(), { name: 'proof', file: PNG, filename: 'p.png' }], '?amount=10', other.wallet), { id: String(other.wallet) })));
    expect(r.status).toBe(404);
    expect(await uploadsOf(c.id)).toEqual([]);
    expect(await depositsOf(c.id)).toEqual([]);
    expect(await depositsOf(other.id)).toEqual([]);
  });

  test('submit: a pending deposit with the sender\'s details and the proof; the account name is the stored full name; a double submit is one deposit', async () => {
    const c = await customer();
    const parts = [...sentFrom(), { name: 'proof', file: PNG, filename: 'receipt.png', type: 'image/png' }];
    const r = await run(bank.action(args(bankPost(c, parts), { id: String(c.wallet) })));
    expect(r).toMatchObject({ status: 302, location: '/deposits?status=pending&amount=250.00&currency=USD' });
    const [d] = await depositsOf(c.id);
    const [up] = await uploadsOf(c.id);
    expect(up.kind).toBe('deposit_proof');
    expect(d).toMatchObject({ status: 'pending', gateway: 'bank', amount: '250.00', description: 'Chase' });
    expect(d.details).toEqual({ bankName: 'Chase', accountName: `Test ${c.email.slice(0, 12)}`, accountNumber: '12345678', proofUploadId: up.id });

    // the same form again (same clientRef): the first deposit, and the second copy of the file is not kept
    const again = await run(bank.action(args(bankPost(c, parts), { id: String(c.wallet) })));
    expect(again.status).toBe(302);
    expect(await depositsOf(c.id)).toHaveLength(1);
    expect(await uploadsOf(c.id)).toHaveLength(1);
  });

  test('refused, keeping nothing: no proof, missing fields, a proof that is not an image or a PDF', async () => {
    const c = await customer();
    const noProof = await run(bank.action(args(bankPost(c, sentFrom()), { id: String(c.wallet) })));
    expect(noProof).toMatchObject({ status: 400, body: { ok: false, toast: 'Proof is required' } });
    expect(noProof.body.result.error.proof).toEqual(['Proof is required']);

    const missing = await run(bank.action(args(bankPost(c, [...sentFrom({ bank_name: '', account_number: '  ' }), { name: 'proof', file: PNG, filename: 'p.png' }]), { id: String(c.wallet) })));
    expect(missing.status).toBe(400);
    expect(missing.body.result.error).toMatchObject({ bank_name: ['Bank name is required'], account_number: ['Account number is required'] });

    const tooLong = await run(bank.action(args(bankPost(c, [...sentFrom({ bank_name: 'x'.repeat(121) }), { name: 'proof', file: PNG, filename: 'p.png' }]), { id: String(c.wallet) })));
    expect(tooLong.body.result.error.bank_name).toEqual(['Bank name allows at most 120 characters']);

    const html = await run(bank.action(args(bankPost(c, [...sentFrom(), { name: 'proof', file: text('<html><script>alert(1)</script></html>'), filename: 'p.png' }]), { id: String(c.wallet) })));
    expect(html.status).toBe(422);
    expect(html.body.result.error.proof).toEqual([html.body.toast]);

    expect(await depositsOf(c.id)).toEqual([]);
    expect(await uploadsOf(c.id)).toEqual([]);
  });
});

// ---------------------------------------------------------------- crypto page

describe('crypto page', () => {
  test('the QR of the wallet address, the total converted at the live rate', async () => {
    const c = await customer();
    rates = { USD_BTC: '0.00002' };
    const r = await run(cryptoPage.loader(args(get(`/deposits/crypto/btc?balance=${c.wallet}&amount=100`, c.cookie), { id: 'btc' })));
    expect(r.status).toBe(200);
    const [g] = await sql`SELECT fee::text AS fee, key1 FROM payment_gateways WHERE name = 'btc'`;
    const fees = depositFee('100', g.fee);
    expect(r.body).toMatchObject({ gateway: { name: 'btc' }, address: g.key1, fees, quote: { currency: 'BTC', rate: '0.00002', price: '50000.00' } });
    // the total in BTC, rounded up to the satoshi: never less than what is owed
    expect(r.body.quote.amount).toBe((Math.ceil(Number(fees.total) * 0.00002 * 1e8) / 1e8).toFixed(8));
    const svg = Buffer.from(r.body.qr.replace('data:image/svg+xml;base64,', ''), 'base64').toString();
    expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('<path');
  });

  test('USDT without a quote of its own counts as USD; no rate at all is shown as unavailable, not an error', async () => {
    expect(await cryptoQuote('usdt', 'USD', '10.05')).toEqual({ currency: 'USDT', amount: '10.05', rate: '1', price: '1.00' });
    rates = { EUR_USD: '1.1' };
    expect(await cryptoQuote('usdt', 'EUR', '10')).toMatchObject({ currency: 'USDT', amount: '11.00' });
    rates = {};
    expect(await cryptoQuote('btc', 'USD', '10')).toEqual({ currency: 'BTC', amount: null, rate: null, price: null });
    down = true;
    const c = await customer();
    const r = await run(cryptoPage.loader(args(get(`/deposits/crypto/btc?balance=${c.wallet}&amount=100`, c.cookie), { id: 'btc' })));
    expect(r.status).toBe(200);
    expect(r.body.quote).toEqual({ currency: 'BTC', amount: null, rate: null, price: null });
  });

  test('refused: unknown or inactive gateways, another user\'s wallet, a bad amount', async () => {
    const c = await customer();
    const other = await customer();
    for (const id of ['eth', 'stripe', 'bank', 'BTC']) {
      expect((await run(cryptoPage.loader(args(get(`/deposits/crypto/${id}?balance=${c.wallet}&amount=10`, c.cookie), { id })))).status, id).toBe(404);
    }
    for (const balance of [String(other.wallet), '', 'x', '-1']) {
      expect((await run(cryptoPage.loader(args(get(`/deposits/crypto/btc?balance=${balance}&amount=10`, c.cookie), { id: 'btc' })))).status, balance).toBe(404);
    }
    expect(await run(cryptoPage.loader(args(get(`/deposits/crypto/usdt?balance=${c.wallet}&amount=-1`, c.cookie), { id: 'usdt' })))).toMatchObject({ status: 400, body: 'Amount must be greater than 0' });
    const r = await run(cryptoPage.action(args(post(`/deposits/crypto/btc?balance=${other.wallet}&amount=10`, { clientRef: unique('ref-') }, { cookie: c.cookie }), { id: 'btc' })));
    expect(r.status).toBe(404);
    expect(await depositsOf(c.id)).toEqual([]);
    expect(await depositsOf(other.id)).toEqual([]);
  });

  test('Confirm: a pending deposit with the address and the quote; a double submit is one deposit', async () => {
    const c = await customer();
    rates = { USD_BTC: '0.00002' };
    const ref = unique('ref-');
    const hash = randomBytes(32).toString('hex');
    const confirm = () => cryptoPage.action(args(post(`/deposits/crypto/btc?balance=${c.wallet}&amount=100`, { clientRef: ref, tx_hash: ` ${hash.toUpperCase()} ` }, { cookie: c.cookie }), { id: 'btc' }));
    const r = await run(confirm());
    expect(r).toMatchObject({ status: 302, location: '/deposits?status=pending&amount=100.00&currency=USD' });
    expect((await run(confirm())).status).toBe(302);
    const rows = await depositsOf(c.id);
    expect(rows).toHaveLength(1);
    const [g] = await sql`SELECT key1 FROM payment_gateways WHERE name = 'btc'`;
    expect(rows[0]).toMatchObject({ status: 'pending', gateway: 'btc', amount: '100.00', client_ref: ref });
    expect(rows[0].details).toMatchObject({ walletAddress: g.key1, quotedCurrency: 'BTC', quotedRate: '0.00002' });
    // the transaction hash is stored (trimmed, lower-case) as the deposit's reference
    expect((await sql`SELECT reference FROM deposits WHERE id = ${rows[0].id}`)[0].reference).toBe(hash);
  });

  test('the transaction hash: required, in the network\'s format, one deposit per transfer; staff see it and find it', async () => {
    const c = await customer();
    const confirm = (gateway: 'btc' | 'usdt', body: Record<string, string>) =>
      run(cryptoPage.action(args(post(`/deposits/crypto/${gateway}?balance=${c.wallet}&amount=10`, { clientRef: unique('ref-'), ...body }, { cookie: c.cookie }), { id: gateway })));
    const hash = randomBytes(32).toString('hex');
    const bad: [Record<string, string>, string][] = [
      [{}, 'Transaction hash is required'],
      [{ tx_hash: '   ' }, 'Transaction hash is required'],
      [{ tx_hash: hash.slice(2) }, 'A Bitcoin transaction hash is 64 hexadecimal characters'],
      [{ tx_hash: `0x${hash}` }, 'A Bitcoin transaction hash is 64 hexadecimal characters'],
      [{ tx_hash: `${hash.slice(1)}g` }, 'A Bitcoin transaction hash is 64 hexadecimal characters'],
    ];
    for (const [body, message] of bad) {
      const r = await confirm('btc', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.result.error.tx_hash).toEqual([message]);
    }
    expect(await depositsOf(c.id)).toEqual([]);
    // USDT: the network is told by the gateway's wallet address (ERC-20 0x…, TRC-20 T…)
    expect(cryptoNetwork('btc', 'bc1qanything')).toBe('bitcoin');
    expect(cryptoNetwork('usdt', `0x${'ab'.repeat(20)}`)).toBe('ethereum');
    expect(cryptoNetwork('usdt', 'TN3W4H6rK2ce4vX9YnFQHwKENnHjoxb3m9')).toBe('tron');
    expect(cryptoNetwork('usdt', 'somewhere')).toBe('unknown');
    const errorOf = (network: CryptoNetwork, tx_hash: string) => {
      const r = cryptoConfirmSchema(network).safeParse({ tx_hash });
      return r.success ? r.data.tx_hash : r.error.issues[0].message;
    };
    expect(errorOf('ethereum', hash)).toBe('An Ethereum transaction hash is 0x followed by 64 hexadecimal characters');
    expect(errorOf('ethereum', `0X${hash.toUpperCase()}`)).toBe(`0x${hash}`);
    expect(errorOf('tron', `0x${hash}`)).toBe('A TRON transaction hash is 64 hexadecimal characters');
    expect(errorOf('tron', hash)).toBe(hash);
    expect(errorOf('unknown', `0x${hash}`)).toBe(`0x${hash}`);
    expect(errorOf('unknown', 'abc')).toBe('A transaction hash is 64 hexadecimal characters, with or without 0x');
    expect((await confirm('usdt', { tx_hash: randomBytes(32).toString('hex') })).status).toBe(302);
    // a transfer already claimed (by this customer or another) is refused, and nothing is created
    const btcHash = randomBytes(32).toString('hex');
    expect((await confirm('btc', { tx_hash: btcHash })).status).toBe(302);
    const again = await confirm('btc', { tx_hash: btcHash.toUpperCase() });
    expect(again).toMatchObject({ status: 409, body: { toast: 'This transaction hash was already submitted' } });
    expect(again.body.result.error.tx_hash).toEqual(['This transaction hash was already submitted']);
    const other = await customer();
    const theirs = await run(cryptoPage.action(args(post(`/deposits/crypto/btc?balance=${other.wallet}&amount=10`, { clientRef: unique('ref-'), tx_hash: btcHash }, { cookie: other.cookie }), { id: 'btc' })));
    expect(theirs.status).toBe(409);
    expect(await depositsOf(other.id)).toEqual([]);
    expect((await depositsOf(c.id)).map((d) => d.gateway).sort()).toEqual(['btc', 'usdt']);
    // staff: the hash is the deposit's reference, shown in the list and found by its start
    const a = await staff(1);
    const found = await run(admin.loader(args(get(`/admin/deposits?search=${btcHash.slice(0, 20)}`, a.cookie))));
    expect(found.body.rows).toEqual([expect.objectContaining({ userId: c.id, gateway: 'btc', reference: btcHash })]);
  });

  test('uploaded QR files are referenced by upload id or path only', () => {
    expect(uploadHref('42')).toBe('/uploads/42');
    expect(uploadHref('/uploads/42')).toBe('/uploads/42');
    for (const bad of [null, '', 'https://evil.example/qr.png', '/uploads/../x', 'javascript:alert(1)', '0', '/uploads/1e3']) expect(uploadHref(bad)).toBeNull();
  });
});

// ---------------------------------------------------------------- /admin/deposits

describe('/admin/deposits', () => {
  test('customers, sales and retention agents and affiliates are refused the list and the decisions; nothing changes', async () => {
    const c = await customer();
    const d = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount: '10' });
    if (!d.ok) throw new Error(d.message);
    for (const u of [c, await staff(3), await staff(4), await staff(5), await staff(6)]) {
      expect((await run(admin.loader(args(get('/admin/deposits', u.cookie))))).status).toBe(403);
      expect((await run(admin.action(args(post('/admin/deposits', { intent: 'approve', id: String(d.id) }, { cookie: u.cookie }))))).status).toBe(403);
    }
    expect((await run(admin.action(args(post('/admin/deposits', { intent: 'approve', id: String(d.id) }))))).status).toBe(302); // signed out: to sign in
    expect((await depositsOf(c.id))[0].status).toBe('pending');
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('0.00000000');
  });

  test('a manager approves: credited once through the ledger, audited with the IP; a second decision is refused', async () => {
    const c = await customer();
    const m = await staff(2);
    const d = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'btc', amount: '200' });
    if (!d.ok) throw new Error(d.message);
    const req = post('/admin/deposits', { intent: 'approve', id: String(d.id) }, { cookie: m.cookie });
    const r = await run(admin.action(args(req, {}, { clientIp: '203.0.113.9' })));
    expect(r).toMatchObject({ status: 200, body: { ok: true, intent: 'approve', toast: 'Deposit approved successfully' } });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('200.00000000');
    expect(await sql`SELECT kind, amount::text AS amount, ref_kind, ref_id FROM ledger_entries WHERE balance_id = ${c.wallet}`)
      .toEqual([{ kind: 'deposit', amount: '200.00000000', ref_kind: 'deposit', ref_id: String(d.id) }]);
    expect(await sql`SELECT actor_id, action, host(ip) AS ip FROM audit_events WHERE target_kind = 'deposit' AND target_id = ${String(d.id)}`)
      .toEqual([{ actor_id: m.id, action: 'deposit.approve', ip: '203.0.113.9' }]);
    const again = await run(admin.action(args(post('/admin/deposits', { intent: 'decline', id: String(d.id) }, { cookie: m.cookie }))));
    expect(again).toMatchObject({ status: 409, body: { ok: false, toast: 'This deposit was already approved' } });
  });

  test('decline with an optional reason; bad ids and reasons are messages, never a 500', async () => {
    const c = await customer();
    const a = await staff(1);
    const d1 = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount: '10' });
    const d2 = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount: '20' });
    if (!d1.ok || !d2.ok) throw new Error('refused');
    const act = (form: Record<string, string>) => run(admin.action(args(post('/admin/deposits', form, { cookie: a.cookie }))));
    expect(await act({ intent: 'decline', id: String(d1.id) })).toMatchObject({ status: 200, body: { toast: 'Withdraw declined successfully' } });
    expect(await act({ intent: 'decline', id: String(d2.id), declineReason: 'x'.repeat(501) })).toMatchObject({ status: 400 });
    expect(await act({ intent: 'decline', id: String(d2.id), declineReason: '  The name does not match  ' })).toMatchObject({ status: 200 });
    expect((await depositsOf(c.id)).map((d) => d.status)).toEqual(['declined', 'declined']);
    expect((await sql`SELECT decline_reason FROM deposits WHERE id = ${d2.id}`)[0].decline_reason).toBe('The name does not match');
    expect(await act({ intent: 'approve', id: '999999999999' })).toMatchObject({ status: 404, body: { toast: 'Deposit not found' } });
    for (const id of ['abc', '-1', '', '1.5', '99999999999999999999']) expect((await act({ intent: 'approve', id })).status, id).toBe(400);
    expect((await act({ intent: 'delete', id: String(d1.id) })).status).toBe(400);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('0.00000000');
  });

  test('the list: every column, status filter, search by email, id or reference, date range, sort; bad dates refused', async () => {
    const a = await staff(1);
    const c = await customer();
    const other = await customer();
    const mine = [];
    for (const amount of ['11', '12', '13']) {
      const d = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount, description: 'Chase', details: { bankName: 'Chase', accountName: 'A', accountNumber: '1', proofUploadId: 77 } });
      if (!d.ok) throw new Error(d.message);
      mine.push(d.id);
    }
    const ref = unique('pi_test_');
    const [theirs] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, reference, created_at)
                               VALUES (${other.id}, ${other.wallet}, 'stripe', 5, 0, 5, ${ref}, '2024-01-15T10:00:00Z') RETURNING id`;
    await run(admin.action(args(post('/admin/deposits', { intent: 'decline', id: String(mine[0]), declineReason: 'No' }, { cookie: a.cookie }))));

    const list = (query: string) => run(admin.loader(args(get(`/admin/deposits${query}`, a.cookie))));
    const byEmail = await list(`?search=${encodeURIComponent(c.email.slice(0, c.email.indexOf('@')).toUpperCase())}`);
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.rows.map((r: { id: number }) => r.id)).toEqual([...mine].reverse());
    expect(byEmail.body.rows[0]).toMatchObject({
      userId: c.id, email: c.email, gateway: 'bank', gatewayTitle: 'Bank Transfer', currency: 'USD', amount: '13.00', status: 'pending', reference: null,
      details: { bankName: 'Chase', accountName: 'A', accountNumber: '1', proofUploadId: 77 }, awaitingSecond: false,
    });
    expect((await list(`?search=${encodeURIComponent(c.email)}&status=pending`)).body.rows.map((r: { id: number }) => r.id)).toEqual([mine[2], mine[1]]);
    expect((await list(`?search=${encodeURIComponent(c.email)}&status=declined`)).body.rows).toEqual([expect.objectContaining({ id: mine[0], declineReason: 'No' })]);
    expect((await list(`?search=${mine[1]}`)).body.rows.map((r: { id: number }) => r.id)).toContain(mine[1]);
    expect((await list(`?search=${c.id}`)).body.rows.map((r: { id: number }) => r.id)).toEqual(expect.arrayContaining(mine));
    expect((await list(`?search=${ref}`)).body.rows.map((r: { id: number }) => r.id)).toEqual([theirs.id]);
    expect((await list(`?search=${ref.slice(0, -2)}`)).body.rows.map((r: { id: number }) => r.id)).toEqual([theirs.id]);
    expect((await list('?search=%25_nobody%25')).body).toMatchObject({ rows: [], total: 0 });
    expect((await list(`?search=${encodeURIComponent(c.email)}&sort=created_at&dir=asc`)).body.rows.map((r: { id: number }) => r.id)).toEqual(mine);
    const dated = await list(`?search=${ref}&dateStart=2024-01-15&dateEnd=2024-01-15`);
    expect(dated.body.rows.map((r: { id: number }) => r.id)).toEqual([theirs.id]);
    expect((await list(`?search=${ref}&dateStart=2024-01-16`)).body.rows).toEqual([]);

    // a deposit found both by its customer's email and by its reference is listed and counted once
    const p = unique('both');
    const both = await createUser(sql, { email: `${p}@test.broker` });
    const bothWallet = await walletFor(sql, both.id);
    const [d1] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, reference) VALUES (${both.id}, ${bothWallet}, 'stripe', 1, 0, 1, ${p + '-a'}) RETURNING id`;
    const [d2] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, reference) VALUES (${other.id}, ${other.wallet}, 'stripe', 2, 0, 2, ${p + '-b'}) RETURNING id`;
    const [d3] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total) VALUES (${both.id}, ${bothWallet}, 'bank', 3, 0, 3) RETURNING id`;
    expect((await list(`?search=${p}`)).body).toMatchObject({ total: 3, rows: [{ id: d3.id }, { id: d2.id }, { id: d1.id }] });
    expect((await list(`?search=${p}&limit=15&page=2`)).body).toMatchObject({ total: 3, rows: [] });

    // view parameters are clamped, data filters refused with their message
    expect((await list('?status=bogus&sort=password_hash&limit=1000&page=-4')).status).toBe(200);
    expect(await list('?dateEnd=2024-13-01')).toMatchObject({ status: 400, body: 'The end date must be a date between 1970-01-01 and 2100-12-31.' });
  });
});
