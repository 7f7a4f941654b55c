// The withdrawal pages' loaders and actions against PostgreSQL (the rules themselves are
// money.server.ts's, tested in money.test.ts): the customer's form and history see only their
// own wallets and rows, a request holds exactly its total, bad input is a message (never a 500)
// that changes nothing; the staff lists page, search, sort and filter on the server; approve
// and decline go through decideMoney; every role that may not act is refused. The engine
// (free margin of a wallet with open positions) is mocked at the network boundary (msw).
// Fee settings are only read here: changing them is withdrawals.serial.test.ts's.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, sessionFor, walletFor, get, post, settle, unique } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { withdrawFee } from '~/modules/money/fees.ts';
import { withdrawFees } from '~/modules/money/money.server.ts';
import { WITHDRAW_TOASTS, withdrawWallets } from '~/modules/money/withdrawals.server.ts';
import { loader as clientLoader, action as clientAction } from '~/routes/_client.withdraws.tsx';
import { loader as pendingLoader, action as pendingAction } from '~/routes/_staff.admin.withdraws.pending.tsx';
import { loader as historyLoader } from '~/routes/_staff.admin.withdraws.history.tsx';
import { loader as settingsLoader, action as settingsAction } from '~/routes/_staff.admin.withdraws.settings.tsx';

const sql = testSql(6);

// ---------------------------------------------------------------- the engine (free margin with open positions)
const engineUrl = env().ENGINE_URL;
/** floating P/L the mocked engine answers per wallet; a wallet not listed: the engine is down */
const floating = new Map<number, number>();
mockServer(
  http.get(`${engineUrl}/v1/accounts/:id`, ({ params }) => {
    const id = Number(params.id);
    if (!floating.has(id)) return HttpResponse.error();
    return HttpResponse.json({ balanceId: id, currency: 'USD', balance: '0', margin: '0', floatingPnl: floating.get(id)!, equity: 0, freeMargin: 0, marginLevel: 0 });
  }),
  http.post(`${engineUrl}/v1/events`, () => HttpResponse.json({ ok: true, delivered: 0 })),
);
afterEach(() => floating.clear());
// the languages the number input test posts in (docs/specs.md#number-input)
beforeAll(async () => { await sql`INSERT INTO languages (code, name) VALUES ('en', 'English'), ('de', 'Deutsch') ON CONFLICT (code) DO NOTHING`; });
afterAll(async () => { await sql.end(); });

// ---------------------------------------------------------------- helpers

type Body = { ok: boolean; toast: string | null; result?: { error?: Record<string, string[] | null> } };
/** A loader's or action's answer: its status and body, or the Response it threw. */
async function answer(p: Promise<unknown>) {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response | Record<string, unknown>;
  if (r instanceof Response) return { status: r.status, body: null as unknown as Body, text: await r.text() };
  if (r && typeof r === 'object' && 'init' in r && 'data' in r) return { status: (r.init as { status?: number } | null)?.status ?? 200, body: r.data as Body, text: '' };
  return { status: 200, body: r as unknown as Body, text: '' };
}
const ctx = { params: {}, context: {} };
const balanceOf = async (id: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${id}`)[0].b as string;
const countOf = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ${userId}`)[0].n as number;

async function customer(credit = '1000') {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id, { credit });
  const { cookie } = await sessionFor(sql, u.id);
  return { ...u, wallet, cookie };
}
async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  const { cookie } = await sessionFor(sql, u.id);
  return { ...u, cookie };
}

const form = (o: Record<string, string> = {}) => ({
  amount: '100', bank_name: 'Chase', account_name: 'Mallory', account_number: '12345678', swift_code: 'chasus33',
  bank_country: 'United States', clientRef: unique('ref-'), ...o,
});
const withdraw = (c: { cookie: string; wallet: number }, o: Record<string, string> = {}) =>
  answer(clientAction({ request: post('/withdraws', { balance_id: String(c.wallet), ...form(o) }, { cookie: c.cookie }), ...ctx }));

async function pendingWithdrawal(c: { cookie: string; wallet: number }, amount = '100') {
  const r = await withdraw(c, { amount });
  expect(r.status).toBe(200);
  const [w] = await sql`SELECT id FROM withdrawals WHERE balance_id = ${c.wallet} ORDER BY id DESC LIMIT 1`;
  return Number(w.id);
}

// ---------------------------------------------------------------- the customer's page

describe('/withdraws: the Withdraw tab', () => {
  test("the user's real wallets with their free margin, the admin's fees, the holder's name, the countries, a fresh form id", async () => {
    const c = await customer('1234.5');
    await walletFor(sql, c.id, { mode: 'demo', credit: '10000' });
    const other = await customer();
    const r = (await clientLoader({ request: get('/withdraws', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(r.tab).toBe('withdraw');
    const f = r.form!;
    expect(f.wallets).toEqual([{ id: c.wallet, currency: 'USD', balance: '1234.50000000', freeMargin: '1234.50' }]);
    expect(f.wallets.some((w) => w.id === other.wallet)).toBe(false);
    expect(f.defaultWalletId).toBe(c.wallet);
    expect(f.fees).toEqual(await withdrawFees(sql));
    expect(f.fullName).toMatch(/^Test /);
    expect(f.countries).toContainEqual({ value: 'United States', label: 'United States' });
    expect(f.kycNotice).toBe(true);
    const again = (await clientLoader({ request: get('/withdraws', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(again.form!.clientRef).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.form!.clientRef).not.toBe(f.clientRef);
    // an approved KYC document: no notice
    await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${c.id}, 'passport', 'approved', now())`;
    const verified = (await clientLoader({ request: get('/withdraws', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(verified.form!.kycNotice).toBe(false);
  });

  test('free margin with open positions: balance − margin + the floating P/L the engine reports; unknown while the engine is down', async () => {
    const c = await customer('1000');
    await sql`UPDATE balances SET margin = 500 WHERE id = ${c.wallet}`;
    floating.set(c.wallet, -400.25);
    expect((await withdrawWallets(sql, c.id))[0].freeMargin).toBe('99.75');
    floating.clear();
    expect((await withdrawWallets(sql, c.id))[0].freeMargin).toBeNull();
  });

  test("a request holds exactly its total at once, in the holder's own name; the answer is the server's message", async () => {
    const c = await customer('1000');
    const fees = await withdrawFees(sql);
    const want = withdrawFee('250.5', fees.percentage, fees.fixed);
    const r = await withdraw(c, { amount: '250.5' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, toast: WITHDRAW_TOASTS.requested });
    expect(await balanceOf(c.wallet)).toBe(`${(1000 - Number(want.total)).toFixed(2)}000000`);
    const [w] = await sql`SELECT status, amount::text, fee::text, total::text, details, description FROM withdrawals WHERE user_id = ${c.id}`;
    expect(w).toMatchObject({ status: 'pending', amount: want.amount, fee: want.fee, total: want.total, description: 'Chase' });
    // the posted account name is ignored; the SWIFT code is kept upper-case without spaces
    expect(w.details).toMatchObject({ bankName: 'Chase', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'United States' });
    expect(w.details.accountName).toMatch(/^Test /);
  });

  test('amounts in the page\'s language (docs/specs.md#number-input): German \'12,50\' holds 12.50 exactly; English \'1,000.50\'; the other language\'s way is refused', async () => {
    const fees = await withdrawFees(sql);
    const c = await customer('5000');
    const de = await answer(clientAction({ request: post('/withdraws', { balance_id: String(c.wallet), ...form({ amount: '12,50' }) }, { cookie: `${c.cookie}; lang=de` }), ...ctx }));
    expect(de.body).toMatchObject({ ok: true });
    const en = await answer(clientAction({ request: post('/withdraws', { balance_id: String(c.wallet), ...form({ amount: '1,000.50' }) }, { cookie: `${c.cookie}; lang=en` }), ...ctx }));
    expect(en.body).toMatchObject({ ok: true });
    const rows = await sql`SELECT amount::text AS amount, fee::text AS fee, total::text AS total FROM withdrawals WHERE user_id = ${c.id} ORDER BY id`;
    const a = withdrawFee('12.50', fees.percentage, fees.fixed), b = withdrawFee('1000.50', fees.percentage, fees.fixed);
    expect(rows).toEqual([
      { amount: '12.50', fee: a.fee, total: a.total },
      { amount: '1000.50', fee: b.fee, total: b.total },
    ]);
    for (const [amount, lang] of [['12.5', 'de'], ['1,5', 'en']]) {
      const r = await answer(clientAction({ request: post('/withdraws', { balance_id: String(c.wallet), ...form({ amount }) }, { cookie: `${c.cookie}; lang=${lang}` }), ...ctx }));
      expect(r.body.result?.error?.amount, `${amount} in ${lang}`).toEqual(['Amount must be a number like 12.5']);
    }
    expect(await countOf(c.id)).toBe(2);
  });

  test('a double submit (the same form id) is one request and one hold', async () => {
    const c = await customer('1000');
    const ref = unique('dbl-');
    const [a, b] = await Promise.all([withdraw(c, { clientRef: ref, amount: '10' }), withdraw(c, { clientRef: ref, amount: '10' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await countOf(c.id)).toBe(1);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE balance_id = ${c.wallet} AND kind = 'withdrawal'`;
    expect(n).toBe(1);
  });

  test("refused with a message under the field, changing nothing: another user's wallet, a demo wallet, bad amounts, bad or too long fields", async () => {
    const c = await customer('1000');
    const other = await customer('1000');
    const demo = await walletFor(sql, c.id, { mode: 'demo', credit: '1000' });
    const cases: [Record<string, string>, string, string][] = [
      [{ balance_id: String(other.wallet) }, 'balance_id', 'Wallet is required'],
      [{ balance_id: String(demo) }, 'balance_id', 'Wallet is required'],
      [{ balance_id: '' }, 'balance_id', 'Wallet is required'],
      [{ balance_id: "1' OR 1=1" }, 'balance_id', 'Wallet is required'],
      [{ balance_id: '99999999999999999999' }, 'balance_id', 'Wallet is required'],
      [{ amount: '' }, 'amount', 'Amount is required'],
      [{ amount: '0' }, 'amount', 'Amount must be greater than 0'],
      [{ amount: '-5' }, 'amount', 'Amount must be greater than 0'],
      [{ amount: 'abc' }, 'amount', 'Amount must be a number like 12.5'],
      [{ amount: '1e3' }, 'amount', 'Amount must be a number like 12.5'],
      [{ amount: '1.005' }, 'amount', 'Amount allows at most 2 decimal places'],
      [{ amount: '9999999999999' }, 'amount', 'Amount is too large'],
      [{ amount: '2000' }, 'amount', 'The total exceeds your free margin'],
      [{ bank_name: '' }, 'bank_name', 'Bank name is required'],
      [{ bank_name: '   ' }, 'bank_name', 'Bank name is required'],
      [{ bank_name: 'x'.repeat(121) }, 'bank_name', 'Bank name allows at most 120 characters'],
      [{ account_number: '' }, 'account_number', 'Account number is required'],
      [{ account_number: '1'.repeat(65) }, 'account_number', 'Account number allows at most 64 characters'],
      [{ account_number: '12<script>' }, 'account_number', 'Account number may contain only letters, digits, spaces and dashes'],
      [{ swift_code: '' }, 'swift_code', 'Swift code is required'],
      [{ swift_code: 'CHASUS3' }, 'swift_code', 'Swift code must be 8 or 11 letters and digits'],
      [{ swift_code: 'CHASUS33XXXX' }, 'swift_code', 'Swift code must be 8 or 11 letters and digits'],
      [{ swift_code: '1HASUS33' }, 'swift_code', 'Swift code must be 8 or 11 letters and digits'],
      [{ swift_code: 'x'.repeat(5000) }, 'swift_code', 'Swift code must be 8 or 11 letters and digits'],
      [{ bank_country: '' }, 'bank_country', 'Bank country is required'],
      [{ bank_country: 'Atlantis' }, 'bank_country', 'Choose a bank country from the list'],
      [{ bank_country: 'x'.repeat(10_000) }, 'bank_country', 'Bank country is required'],
    ];
    for (const [change, field, message] of cases) {
      const body = { balance_id: String(c.wallet), ...form(change) };
      const r = await answer(clientAction({ request: post('/withdraws', body, { cookie: c.cookie }), ...ctx }));
      expect(r.status, JSON.stringify(change).slice(0, 80)).toBe(400);
      expect(r.body.ok).toBe(false);
      expect(r.body.result?.error?.[field], JSON.stringify(change).slice(0, 80)).toEqual([message]);
    }
    // a field missing altogether
    const { bank_name: _, ...missing } = { balance_id: String(c.wallet), ...form() };
    const r = await answer(clientAction({ request: post('/withdraws', missing, { cookie: c.cookie }), ...ctx }));
    expect(r.body.result?.error?.bank_name).toEqual(['Bank name is required']);
    expect(await countOf(c.id)).toBe(0);
    expect(await countOf(other.id)).toBe(0);
    expect(await balanceOf(c.wallet)).toBe('1000.00000000');
    expect(await balanceOf(other.wallet)).toBe('1000.00000000');
  });

  test('a wallet with open positions while live prices are unknown: a clear 503, nothing held', async () => {
    const c = await customer('1000');
    await sql`UPDATE balances SET margin = 10 WHERE id = ${c.wallet}`;
    const r = await withdraw(c, { amount: '10' });
    expect(r.status).toBe(503);
    expect(r.body.toast).toBe('Live prices are unavailable. Please try again in a moment.');
    floating.set(c.wallet, -985);
    const short = await withdraw(c, { amount: '10' }); // free margin 1000 − 10 − 985 = 5
    expect(short.body.result?.error?.amount).toEqual(['The total exceeds your free margin']);
    expect(await countOf(c.id)).toBe(0);
    expect(await balanceOf(c.wallet)).toBe('1000.00000000');
  });

  test('no session: sent to sign in; a cross-site post is refused', async () => {
    const c = await customer();
    const anon = await settle(clientLoader({ request: get('/withdraws'), ...ctx })) as Response;
    expect(anon.status).toBe(302);
    const cross = await answer(clientAction({ request: post('/withdraws', { balance_id: String(c.wallet), ...form() }, { cookie: c.cookie, origin: 'https://evil.example' }), ...ctx }));
    expect(cross.status).toBe(403);
    expect(await countOf(c.id)).toBe(0);
  });
});

describe('/withdraws: the History tab', () => {
  test('only the own rows, newest first, 15 a page, with the bank details, the fee, the balance after and a decline reason', async () => {
    const c = await customer('100000');
    const other = await customer('1000');
    const admin = await staff(1);
    await pendingWithdrawal(other, '5');
    const ids: number[] = [];
    for (let i = 0; i < 17; i++) ids.push(await pendingWithdrawal(c, String(10 + i)));
    const declined = ids[16];
    const d = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'decline', id: String(declined), declineReason: 'Account name mismatch' }, { cookie: admin.cookie }), ...ctx }));
    expect(d.status).toBe(200);

    const page1 = (await clientLoader({ request: get('/withdraws?tab=history', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(page1.tab).toBe('history');
    expect(page1.history!.total).toBe(17);
    expect(page1.history!.rows.map((r) => r.id)).toEqual([...ids].reverse().slice(0, 15));
    const first = page1.history!.rows[0];
    expect(first).toMatchObject({ id: declined, status: 'declined', declineReason: 'Account name mismatch', amount: '26.00', currency: 'USD', gateway: 'bank' });
    expect(first.bank).toMatchObject({ bankName: 'Chase', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'United States' });
    expect(first.balanceAfter).toMatch(/^\d+\.\d{8}$/);
    const page2 = (await clientLoader({ request: get('/withdraws?tab=history&page=2', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(page2.history!.rows.map((r) => r.id)).toEqual([ids[1], ids[0]]);
    // a page beyond the end is empty, a nonsense page is page 1, an unknown tab is the form
    const far = (await clientLoader({ request: get('/withdraws?tab=history&page=999', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(far.history!.rows).toEqual([]);
    const junk = (await clientLoader({ request: get('/withdraws?tab=history&page=-4x', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(junk.history!.rows).toHaveLength(15);
    const unknownTab = (await clientLoader({ request: get('/withdraws?tab=<x>', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(unknownTab.tab).toBe('withdraw');
  });
});

// ---------------------------------------------------------------- the staff pages

type StaffList = Awaited<ReturnType<typeof pendingLoader>>;

describe('/admin/withdraws/pending', () => {
  test('admins and managers open it; the other roles are refused', async () => {
    for (const roleId of [1, 2, 3, 4, 5, 6]) {
      const s = await staff(roleId);
      const r = await answer(pendingLoader({ request: get('/admin/withdraws/pending', s.cookie), ...ctx }));
      expect(r.status, `role ${roleId}`).toBe(roleId <= 2 ? 200 : 403);
    }
  });

  test('pending rows only, searched by the email prefix, the customer id or the withdrawal id; sorted and paged in the URL', async () => {
    const admin = await staff(1);
    const c = await customer('10000');
    const [a, b, d] = [await pendingWithdrawal(c, '30'), await pendingWithdrawal(c, '10'), await pendingWithdrawal(c, '20')];
    await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'approve', id: String(d) }, { cookie: admin.cookie }), ...ctx }));
    const list = async (qs: string) => (await pendingLoader({ request: get(`/admin/withdraws/pending?${qs}`, admin.cookie), ...ctx })) as StaffList;

    const byEmail = await list(`search=${encodeURIComponent(c.email.slice(0, 14).toUpperCase())}`);
    expect(byEmail.rows.filter((r) => r.userId === c.id).map((r) => r.id)).toEqual([b, a]);
    expect(byEmail.rows.every((r) => r.status === 'pending' && r.email.startsWith(c.email.slice(0, 14)))).toBe(true);
    const row = byEmail.rows.find((r) => r.id === a)!;
    expect(row).toMatchObject({ email: c.email, userId: c.id, gateway: 'bank', currency: 'USD', awaitingSecond: false, amount: '30.00' });
    expect(row.bank?.swiftCode).toBe('CHASUS33');

    expect((await list(`search=${c.id}`)).rows.map((r) => r.id)).toEqual([b, a]);
    expect((await list(`search=${a}`)).rows.map((r) => r.id)).toContain(a);
    expect((await list(`search=${d}`)).rows.map((r) => r.id)).not.toContain(d); // approved: not pending
    expect((await list(`search=${encodeURIComponent('%')}`)).total).toBe(0); // LIKE's wildcard is taken literally
    expect((await list(`search=${c.id}&sort=amount&dir=asc`)).rows.map((r) => r.id)).toEqual([b, a]);
    expect((await list(`search=${c.id}&sort=amount&dir=desc`)).rows.map((r) => r.id)).toEqual([a, b]);
    expect((await list(`search=${c.id}&sort=created_at&dir=asc`)).rows.map((r) => r.id)).toEqual([a, b]);
    // a sort the list does not offer falls back to id; a page size it does not offer to 15
    expect((await list(`search=${c.id}&sort=password_hash`)).rows.map((r) => r.id)).toEqual([b, a]);
    const one = await list(`search=${c.id}&limit=7&page=1`);
    expect(one.rows).toHaveLength(2);
    const all = await list('limit=25');
    expect(all.rows.length).toBeLessThanOrEqual(25);
    expect(all.rows.every((r) => r.status === 'pending')).toBe(true);
  });

  test('approve: the hold is settled (no second entry); decline: the reason is kept and the exact total comes back', async () => {
    const manager = await staff(2);
    const c = await customer('1000');
    const fees = await withdrawFees(sql);
    const w1 = await pendingWithdrawal(c, '100');
    const w2 = await pendingWithdrawal(c, '333.33');
    const afterHolds = await balanceOf(c.wallet);

    const ok = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'approve', id: String(w1) }, { cookie: manager.cookie }), ...ctx }));
    expect(ok).toMatchObject({ status: 200, body: { ok: true, toast: WITHDRAW_TOASTS.approved } });
    expect(await balanceOf(c.wallet)).toBe(afterHolds);
    const [row1] = await sql`SELECT status, decided_by FROM withdrawals WHERE id = ${w1}`;
    expect(row1).toEqual({ status: 'approved', decided_by: manager.id });

    const noReason = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'decline', id: String(w2), declineReason: '  ' }, { cookie: manager.cookie }), ...ctx }));
    expect(noReason.status).toBe(400);
    expect(noReason.body.result?.error?.declineReason).toEqual(['Decline reason is required']);
    const tooLong = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'decline', id: String(w2), declineReason: 'x'.repeat(501) }, { cookie: manager.cookie }), ...ctx }));
    expect(tooLong.body.result?.error?.declineReason).toEqual(['Decline reason allows at most 500 characters']);
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${w2}`)[0].status).toBe('pending');

    const declined = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'decline', id: String(w2), declineReason: 'IBAN does not match' }, { cookie: manager.cookie }), ...ctx }));
    expect(declined).toMatchObject({ status: 200, body: { ok: true, toast: WITHDRAW_TOASTS.declined } });
    const total2 = withdrawFee('333.33', fees.percentage, fees.fixed).total;
    expect(Number(await balanceOf(c.wallet))).toBeCloseTo(Number(afterHolds) + Number(total2), 8);
    expect(await sql`SELECT kind, amount::text FROM ledger_entries WHERE ref_kind = 'withdrawal' AND ref_id = ${String(w2)} ORDER BY id`)
      .toEqual([{ kind: 'withdrawal', amount: `-${total2}000000` }, { kind: 'withdrawal_refund', amount: `${total2}000000` }]);
    // the customer's history shows the wallet after the refund, not during the hold
    const hist = (await clientLoader({ request: get('/withdraws?tab=history', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    const declinedRow = hist.history!.rows.find((r) => r.id === w2);
    expect(Number(declinedRow?.balanceAfter)).toBeCloseTo(Number(await balanceOf(c.wallet)), 8);
    const audits = await sql`SELECT action, actor_id FROM audit_events WHERE target_kind = 'withdrawal' AND target_id IN (${String(w1)}, ${String(w2)}) ORDER BY id`;
    expect(audits).toEqual([{ action: 'withdrawal.approve', actor_id: manager.id }, { action: 'withdrawal.decline', actor_id: manager.id }]);

    // decided: a second decision is refused with the reason, nothing moves
    const again = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'approve', id: String(w2) }, { cookie: manager.cookie }), ...ctx }));
    expect(again).toMatchObject({ status: 409, body: { ok: false, toast: 'This withdrawal was already declined' } });
    const before = await balanceOf(c.wallet);
    const redecline = await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'decline', id: String(w2), declineReason: 'again' }, { cookie: manager.cookie }), ...ctx }));
    expect(redecline.status).toBe(409);
    expect(await balanceOf(c.wallet)).toBe(before);
  });

  test('bad ids and intents are messages, not 500s', async () => {
    const admin = await staff(1);
    const cases: [Record<string, string>, number, string][] = [
      [{ intent: 'approve', id: 'abc' }, 400, 'Withdrawal not found'],
      [{ intent: 'approve', id: '-1' }, 400, 'Withdrawal not found'],
      [{ intent: 'approve', id: '99999999999999999999' }, 400, 'Withdrawal not found'],
      [{ intent: 'approve', id: String(2 ** 40) }, 404, 'Withdrawal not found'],
      [{ intent: 'approve' }, 400, 'Withdrawal not found'],
      [{ intent: 'delete', id: '1' }, 400, 'Something went wrong'],
    ];
    for (const [body, status, toast] of cases) {
      const r = await answer(pendingAction({ request: post('/admin/withdraws/pending', body, { cookie: admin.cookie }), ...ctx }));
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.toast, JSON.stringify(body)).toBe(toast);
    }
  });

  test('a customer, an affiliate or an agent posting approve or decline is refused and nothing changes', async () => {
    const c = await customer('1000');
    const w = await pendingWithdrawal(c, '50');
    const before = await balanceOf(c.wallet);
    for (const roleId of [3, 4, 5, 6]) {
      const s = roleId === 3 ? c : await staff(roleId);
      for (const body of [{ intent: 'approve', id: String(w) }, { intent: 'decline', id: String(w), declineReason: 'no' }] as Record<string, string>[]) {
        const r = await answer(pendingAction({ request: post('/admin/withdraws/pending', body, { cookie: s.cookie }), ...ctx }));
        expect(r.status, `role ${roleId} ${body.intent}`).toBe(403);
      }
    }
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${w}`)[0].status).toBe('pending');
    expect(await balanceOf(c.wallet)).toBe(before);
  });
});

describe('/admin/withdraws/history', () => {
  test('every status, filtered by status and date in the URL; no search; bad filters are refused with a message', async () => {
    const admin = await staff(1);
    const c = await customer('10000');
    const [a, b, d] = [await pendingWithdrawal(c, '11'), await pendingWithdrawal(c, '12'), await pendingWithdrawal(c, '13')];
    await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'approve', id: String(a) }, { cookie: admin.cookie }), ...ctx }));
    await answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'decline', id: String(b), declineReason: 'Wrong SWIFT' }, { cookie: admin.cookie }), ...ctx }));
    await sql`UPDATE withdrawals SET created_at = '2023-05-10T12:00:00Z' WHERE id = ${d}`;
    const list = async (qs: string) => (await historyLoader({ request: get(`/admin/withdraws/history?${qs}`, admin.cookie), ...ctx })) as Awaited<ReturnType<typeof historyLoader>>;
    const mine = (l: { rows: { id: number; userId: number }[] }) => l.rows.filter((r) => r.userId === c.id).map((r) => r.id);

    const everything = await list('limit=50');
    expect(everything.filters).toEqual({ status: '', dateStart: '', dateEnd: '' });
    expect(mine(everything)).toEqual(expect.arrayContaining([a, b]));
    const declined = await list('status=declined&limit=50');
    expect(declined.rows.every((r) => r.status === 'declined')).toBe(true);
    expect(declined.rows.find((r) => r.id === b)?.declineReason).toBe('Wrong SWIFT');
    expect(mine(await list('status=approved&limit=50'))).toContain(a);
    // one day, inclusive
    const may = await list('dateStart=2023-05-10&dateEnd=2023-05-10&limit=50');
    expect(mine(may)).toEqual([d]);
    expect(may.rows.every((r) => r.createdAt.startsWith('2023-05-10'))).toBe(true);
    expect(mine(await list('dateStart=2023-05-11&dateEnd=2023-05-11'))).toEqual([]);
    // no search on this list: the parameter does not filter
    expect((await list(`search=${c.id}&limit=15`)).total).toBe((await list('limit=15')).total);
    // a filter that selects data is refused, never silently dropped
    for (const [qs, message] of [['status=lost', 'Choose a status from the list'], ['dateStart=2023-02-30', 'The start date must be a date between 1970-01-01 and 2100-12-31.'],
      ['dateStart=2023-05-11&dateEnd=2023-05-10', 'End date must be after start date']] as const) {
      const r = await answer(historyLoader({ request: get(`/admin/withdraws/history?${qs}`, admin.cookie), ...ctx }));
      expect(r.status, qs).toBe(400);
      expect(r.text).toBe(message);
    }
  });

  test('admins and managers open it; the other roles are refused', async () => {
    for (const roleId of [1, 2, 3, 4, 5, 6]) {
      const s = await staff(roleId);
      const r = await answer(historyLoader({ request: get('/admin/withdraws/history', s.cookie), ...ctx }));
      expect(r.status, `role ${roleId}`).toBe(roleId <= 2 ? 200 : 403);
    }
  });
});

describe('/admin/withdraws/settings (refusals only: saving is withdrawals.serial.test.ts)', () => {
  test('only the admin opens it or posts to it; a manager may approve but not change the fees', async () => {
    const before = await withdrawFees(sql);
    for (const roleId of [1, 2, 3, 4, 5, 6]) {
      const s = await staff(roleId);
      const r = await answer(settingsLoader({ request: get('/admin/withdraws/settings', s.cookie), ...ctx }));
      expect(r.status, `role ${roleId}`).toBe(roleId === 1 ? 200 : 403);
      if (roleId === 1) expect(r.body).toEqual({ fees: before });
      if (roleId === 1) continue;
      const p = await answer(settingsAction({ request: post('/admin/withdraws/settings', { feePercentage: '50', feeFixed: '99' }, { cookie: s.cookie }), ...ctx }));
      expect(p.status, `role ${roleId}`).toBe(403);
    }
    expect(await withdrawFees(sql)).toEqual(before);
  });

  test("the spec's messages for missing fees; the bounds of the columns; nothing saved", async () => {
    const admin = await staff(1);
    const before = await withdrawFees(sql);
    const cases: [Record<string, string>, string, string][] = [
      [{ feePercentage: '', feeFixed: '1' }, 'feePercentage', 'Forex spread is required'],
      [{ feeFixed: '1' }, 'feePercentage', 'Forex spread is required'],
      [{ feePercentage: '1', feeFixed: ' ' }, 'feeFixed', 'Commodity spread is required'],
      [{ feePercentage: '100.0001', feeFixed: '1' }, 'feePercentage', 'Fee (%) must be at most 100'],
      [{ feePercentage: '1000', feeFixed: '1' }, 'feePercentage', 'Fee (%) must be at most 100'],
      [{ feePercentage: '-1', feeFixed: '1' }, 'feePercentage', 'The fee cannot be negative'],
      [{ feePercentage: '1.23456', feeFixed: '1' }, 'feePercentage', 'Fee (%) allows at most 4 decimal places'],
      [{ feePercentage: 'abc', feeFixed: '1' }, 'feePercentage', 'The fee must be a number like 12.5'],
      [{ feePercentage: '1e2', feeFixed: '1' }, 'feePercentage', 'The fee must be a number like 12.5'],
      [{ feePercentage: '1', feeFixed: '-0.01' }, 'feeFixed', 'The fee cannot be negative'],
      [{ feePercentage: '1', feeFixed: '1.234' }, 'feeFixed', 'Fee (Fixed) allows at most 2 decimal places'],
      [{ feePercentage: '1', feeFixed: '9'.repeat(13) }, 'feeFixed', 'Fee (Fixed) is too large'],
      [{ feePercentage: '1', feeFixed: 'NaN' }, 'feeFixed', 'The fee must be a number like 12.5'],
    ];
    for (const [body, field, message] of cases) {
      const r = await answer(settingsAction({ request: post('/admin/withdraws/settings', body, { cookie: admin.cookie }), ...ctx }));
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.result?.error?.[field], JSON.stringify(body)).toEqual([message]);
    }
    expect(await withdrawFees(sql)).toEqual(before);
  });
});

describe('translations', () => {
  test('every toast and message these pages answer is in the four languages', () => {
    const dir = path.resolve(import.meta.dirname, '../../../seeds/translations');
    const messages = [
      ...Object.values(WITHDRAW_TOASTS),
      'Amount must be greater than 0', 'Amount must be a number like 12.5', 'Amount is too large', 'Amount allows at most 2 decimal places',
      'Live prices are unavailable. Please try again in a moment.', 'The total exceeds your free margin', 'Wallet is required',
    ];
    for (const lng of ['en', 'es', 'fr', 'de']) {
      const file = JSON.parse(readFileSync(path.join(dir, `${lng}.json`), 'utf8')) as Record<string, string>;
      expect(messages.filter((m) => !file[m]), lng).toEqual([]);
    }
  });
});
