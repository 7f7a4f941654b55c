// Flutterwave bank payouts of withdrawals (modules/payments/payouts.server.ts,
// adapters/flutterwave-payout.server.ts) against the msw handlers of Flutterwave v3
// (mocks/providers/flutterwave.ts: banks, accounts/resolve, transfers create / get, the
// transfer.completed webhook):
// - the adapter: the bank list (sorted, cached), the resolved holder's name, request building
//   (account_bank, account_number, amount, currency, debit_currency, reference = our withdrawal
//   reference, narration, beneficiary_name), success, a refusal, a reused reference (never failed),
//   the notifications it reads;
// - the pipeline through the Pending Withdraws route: offered for a Nigerian account in naira only,
//   the approver's bank list and resolved name (changing nothing), a bank code outside Flutterwave's
//   list refused with nothing changed, one transfer under concurrent approvals, the webhook verified
//   by verif-hash and re-read by GET (paid; failed → the total back through the ledger once; replayed;
//   forged), Check status.
// Serial: it switches the site-wide Flutterwave gateway on with test keys.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, ensureGateways, walletFor, sessionFor, get, post, settle, BASE, unique } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { flutterwaveHandlers, flutterwaveMock, transferEvent } from '../mocks/providers/flutterwave.ts';
import { requestWithdrawal } from '~/modules/money/money.server.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { clearBankCache, flutterwaveAccountName, flutterwaveAmount, flutterwaveBanks, flutterwavePayouts } from '~/modules/payments/adapters/flutterwave-payout.server.ts';
import { PayoutRefused } from '~/modules/payments/adapters/paypal-payout.server.ts';
import { MAX_SEND_ATTEMPTS, sendPayout } from '~/modules/payments/payouts.server.ts';
import { loader as pendingLoader, action as pendingAction } from '~/routes/_staff.admin.withdraws.pending.tsx';
import { action as historyAction } from '~/routes/_staff.admin.withdraws.history.tsx';
import * as webhook from '~/routes/payments.webhooks.$gateway.tsx';

const sql = testSql(12);
const HASH = 'flw-test-secret-hash';
const SECRET = [...flutterwaveMock.secretKeys][0];
mockServer(...flutterwaveHandlers, http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  await ensureGateways(sql);
  await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES ('flutterwave', 'Flutterwave', false, 0, false) ON CONFLICT (name) DO NOTHING`;
  [before] = await sql`SELECT key1, key2, key3, is_active FROM payment_gateways WHERE name = 'flutterwave'`;
  await sql`UPDATE payment_gateways SET key1 = 'FLWPUBK_TEST-mock-X', key2 = ${SECRET}, key3 = ${HASH}, is_active = true WHERE name = 'flutterwave'`;
  await sql`UPDATE withdraw_fee_settings SET fee_percentage = 0, fee_fixed = 1 WHERE id = 1`;
});
afterAll(async () => {
  if (before) {
    await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, key3 = ${before.key3 as string | null},
                is_active = ${before.is_active as boolean} WHERE name = 'flutterwave'`;
  }
  await sql`UPDATE withdraw_fee_settings SET fee_percentage = 0, fee_fixed = 0 WHERE id = 1`;
  await sql.end();
});
beforeEach(() => { flutterwaveMock.loseAnswers = 0; flutterwaveMock.createAnswers.length = 0; });

const ctx = { params: {}, context: { clientIp: '203.0.113.9' } };
type Body = { ok: boolean; toast: string | null; banks?: { code: string; name: string }[]; typed?: Record<string, string>; canResolve?: boolean; accountName?: string | null; result?: { error?: Record<string, string[] | null> } };
async function answer(p: Promise<unknown>) {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null as unknown as Body };
  return { status: r.init?.status ?? 200, body: r.data as Body };
}
async function staff(roleId = 1) {
  const u = await createUser(sql, { roleId });
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}

/** A customer with 100000 NGN asking to withdraw `amount` (+1 fee) to a Nigerian bank account. */
async function nigerianCustomer(amount = '5000', { accountNumber = '0690000032', country = 'Nigeria', currency = 'NGN' } = {}) {
  const u = await createUser(sql, { roleId: 3 });
  const wallet = await walletFor(sql, u.id, { credit: '100000', currency });
  const bank = { bankName: 'access bank plc', accountName: '', accountNumber, swiftCode: 'ABNGNGLA', bankCountry: country };
  const w = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount, bank, clientRef: unique('ref-') }, async () => 0);
  if (!w.ok) throw new Error(w.message);
  return { ...u, wallet, withdrawalId: w.id };
}
const act = (cookie: string, fields: Record<string, string>) => answer(pendingAction({ request: post('/admin/withdraws/pending', fields, { cookie }), ...ctx }));
const approve = (cookie: string, id: number, bankCode?: string) => act(cookie, { intent: 'approve', id: String(id), payout: 'flutterwave', ...(bankCode !== undefined ? { bankCode } : {}) });
const payoutOf = async (id: number) => (await sql`SELECT * FROM withdrawal_payouts WHERE withdrawal_id = ${id}`)[0];
const creates = (id: number) => flutterwaveMock.calls.filter((c) => c.method === 'POST' && c.url.endsWith('/v3/transfers') && c.body.includes(`"withdrawal-${id}-`));
const balanceOf = async (wallet: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b as string;
const refunds = (id: number) => sql`SELECT amount::text AS amount FROM ledger_entries WHERE ref_kind = 'withdrawal' AND ref_id = ${String(id)} AND kind = 'withdrawal_refund'`;
function deliver(body: string, hash = HASH) {
  const request = new Request(`${BASE}/payments/webhooks/flutterwave`, { method: 'POST', headers: { 'content-type': 'application/json', 'verif-hash': hash }, body });
  return settle(webhook.action({ request, params: { gateway: 'flutterwave' }, context: {} } as LoaderFunctionArgs)) as Promise<Response>;
}

// ---------------------------------------------------------------- the adapter

describe('Flutterwave transfers adapter', () => {
  test('amounts at two decimals; only naira', () => {
    expect(flutterwaveAmount('5000.00000000')).toBe(5000);
    expect(flutterwaveAmount('12.5')).toBe(12.5);
    expect(flutterwaveAmount('12.505')).toBeNull();
    expect(flutterwavePayouts.check({ withdrawalId: 1, amount: '10', currency: 'USD' })).toMatch(/not offered in USD/);
    expect(flutterwavePayouts.check({ withdrawalId: 1, amount: '10', currency: 'NGN' })).toBeNull();
  });

  test('banks: GET /v3/banks/NG with the secret key, sorted, cached; resolve: the holder\'s name or null', async () => {
    clearBankCache();
    const config = (await gatewayConfig(sql, 'flutterwave'))!;
    const n = flutterwaveMock.calls.length;
    const banks = await flutterwaveBanks(config, 'NG');
    expect(banks.map((b) => b.name)).toEqual(['Access Bank', 'First Bank of Nigeria', 'Guaranty Trust Bank', 'Zenith Bank']);
    expect(flutterwaveMock.calls.at(-1)).toMatchObject({ method: 'GET', url: 'https://api.flutterwave.com/v3/banks/NG', authorization: `Bearer ${SECRET}` });
    await flutterwaveBanks(config, 'NG');
    expect(flutterwaveMock.calls.length).toBe(n + 1);
    expect(await flutterwaveAccountName(config, { accountNumber: '0690000032', bankCode: '044' })).toBe('Pastor Bright');
    expect(JSON.parse(flutterwaveMock.calls.at(-1)!.body)).toEqual({ account_number: '0690000032', account_bank: '044' });
    expect(await flutterwaveAccountName(config, { accountNumber: '0690000032', bankCode: '058' })).toBeNull();
    await expect(flutterwaveBanks({ ...config, key2: 'FLWSECK_TEST-wrong' }, 'GH')).rejects.toThrow(/HTTP 401/);
  });

  test('request building, NEW then SUCCESSFUL; a refusal is PayoutRefused; a reused reference is not', async () => {
    const config = (await gatewayConfig(sql, 'flutterwave'))!;
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const ref = `withdrawal-${id}-f1a2b3`;
    const destination = { bankCode: '044', bankName: 'Access Bank', accountNumber: '0690000032', accountName: 'Pastor Bright', country: 'NG' };
    const st = await flutterwavePayouts.createPayout(config, { withdrawalId: id, reference: ref, amount: '2500.50000000', currency: 'NGN', receiver: '0690000032', destination });
    expect(JSON.parse(creates(id)[0].body)).toEqual({
      account_bank: '044', account_number: '0690000032', amount: 2500.5, currency: 'NGN', debit_currency: 'NGN',
      narration: `Withdrawal #${id}`, reference: ref, beneficiary_name: 'Pastor Bright', meta: { withdrawal_id: id },
    });
    expect(creates(id)[0].authorization).toBe(`Bearer ${SECRET}`);
    expect(st).toMatchObject({ state: 'pending', providerStatus: 'NEW', withdrawalId: id, reference: ref });
    expect(await flutterwavePayouts.fetchPayout(config, st.providerRef)).toMatchObject({ state: 'paid', providerStatus: 'SUCCESSFUL', providerRef: st.providerRef });
    // the same reference again (a lost answer retried): never taken as a refusal, nothing paid twice
    const again = await flutterwavePayouts.createPayout(config, { withdrawalId: id, reference: ref, amount: '2500.5', currency: 'NGN', receiver: '0690000032', destination }).catch((e) => e);
    expect(again).toBeInstanceOf(Error);
    expect(again).not.toBeInstanceOf(PayoutRefused);
    expect([...flutterwaveMock.transfers.values()].filter((t) => t.reference === ref)).toHaveLength(1);
    // an account Flutterwave cannot pay: refused
    const other = { withdrawalId: id + 1, reference: `withdrawal-${id + 1}-f1`, amount: '10', currency: 'NGN', receiver: '1111111111', destination: { ...destination, accountNumber: '1111111111' } };
    await expect(flutterwavePayouts.createPayout(config, other)).rejects.toBeInstanceOf(PayoutRefused);
    await expect(flutterwavePayouts.createPayout({ ...config, key2: 'FLWSECK_TEST-wrong' }, { ...other, reference: `withdrawal-${id + 1}-f2` })).rejects.not.toBeInstanceOf(PayoutRefused);
  });

  test('notifications: transfer.completed names the transfer (no state taken from it); anything else is not a payout event', () => {
    const body = JSON.stringify({ event: 'transfer.completed', 'event.type': 'Transfer', data: { id: 408136, status: 'SUCCESSFUL', reference: 'withdrawal-7-abc123', amount: 100, currency: 'NGN' } });
    expect(flutterwavePayouts.readNotification(body)).toEqual({
      eventId: 'transfer.completed:408136:SUCCESSFUL', eventType: 'transfer.completed', providerRef: '408136', status: null, reference: 'withdrawal-7-abc123', amount: '100', currency: 'NGN',
    });
    expect(flutterwavePayouts.readNotification(JSON.stringify({ event: 'charge.completed', data: { id: 1 } }))).toBeNull();
    expect(flutterwavePayouts.readNotification(JSON.stringify({ event: 'transfer.completed', data: { id: 'x' } }))).toBeNull();
    expect(flutterwavePayouts.readNotification('nope')).toBeNull();
  });
});

// ---------------------------------------------------------------- the pipeline

describe('paying a withdrawal out through Flutterwave', () => {
  test('offered for a Nigerian account in naira only; the approver gets the banks next to the typed one, and the resolved name', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('5000');
    const usd = await nigerianCustomer('50', { currency: 'USD' });
    const fr = await nigerianCustomer('50', { country: 'France' });
    for (const [c, expected] of [[a, ['flutterwave']], [usd, []], [fr, []]] as const) {
      const list = await pendingLoader({ request: get(`/admin/withdraws/pending?search=${c.withdrawalId}`, admin.cookie), ...ctx });
      expect(list.rows.find((r) => r.id === c.withdrawalId)?.payoutOptions).toEqual(expected);
    }
    const banks = await act(admin.cookie, { intent: 'payout_banks', id: String(a.withdrawalId), gateway: 'flutterwave' });
    expect(banks).toMatchObject({ status: 200, body: { ok: true, canResolve: true, typed: { bankName: 'access bank plc', accountNumber: '0690000032', country: 'Nigeria' } } });
    expect(banks.body.banks?.map((b) => b.code)).toEqual(['044', '011', '058', '057']);
    expect(banks.body.typed?.accountName).toBe((await sql`SELECT full_name FROM users WHERE id = ${a.id}`)[0].full_name);
    expect(await act(admin.cookie, { intent: 'payout_account', id: String(a.withdrawalId), gateway: 'flutterwave', bankCode: '044' })).toMatchObject({ status: 200, body: { accountName: 'Pastor Bright' } });
    expect(await act(admin.cookie, { intent: 'payout_account', id: String(a.withdrawalId), gateway: 'flutterwave', bankCode: '057' })).toMatchObject({ status: 200, body: { accountName: null } });
    expect((await act(admin.cookie, { intent: 'payout_account', id: String(a.withdrawalId), gateway: 'flutterwave', bankCode: '999' })).status).toBe(400);
    expect((await act(admin.cookie, { intent: 'payout_banks', id: String(usd.withdrawalId), gateway: 'flutterwave' })).status).toBe(400);
    expect((await act(admin.cookie, { intent: 'payout_banks', id: String(a.withdrawalId), gateway: 'paypal' })).status).toBe(400);
    const agent = await staff(4);
    expect((await act(agent.cookie, { intent: 'payout_banks', id: String(a.withdrawalId), gateway: 'flutterwave' })).status).toBe(403);
    // looking changed nothing
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].status).toBe('pending');
    expect(await payoutOf(a.withdrawalId)).toBeUndefined();
  });

  test('a bank code outside Flutterwave\'s list, or none, or a country it does not pay: refused, nothing changed', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('300');
    const held = await balanceOf(a.wallet);
    for (const code of ['999', undefined, '', 'DROP TABLE']) {
      const r = await approve(admin.cookie, a.withdrawalId, code);
      expect(r.status, String(code)).toBe(400);
      expect(r.body.ok).toBe(false);
    }
    expect((await approve(admin.cookie, a.withdrawalId, '999')).body.toast).toBe("Choose the customer's bank from the gateway's list");
    const usd = await nigerianCustomer('50', { currency: 'USD' });
    expect(await approve(admin.cookie, usd.withdrawalId, '044')).toMatchObject({ status: 400, body: { toast: 'This withdrawal cannot be paid out through this gateway' } });
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].status).toBe('pending');
    expect(await payoutOf(a.withdrawalId)).toBeUndefined();
    expect(creates(a.withdrawalId)).toHaveLength(0);
    expect(await balanceOf(a.wallet)).toBe(held);
  });

  test('approved: one transfer to the chosen bank, audited; transfer.completed (verified, re-read by GET) marks it paid once', async () => {
    const admin = await staff(2);
    const a = await nigerianCustomer('5000');
    const r = await approve(admin.cookie, a.withdrawalId, '044');
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Withdraw approved and sent for payout' } });
    const p = await payoutOf(a.withdrawalId);
    expect(p).toMatchObject({ gateway: 'flutterwave', status: 'sent', receiver: '0690000032', provider_status: 'NEW', requested_by: admin.id, attempts: 1,
      destination: { bankCode: '044', bankName: 'Access Bank', accountNumber: '0690000032', country: 'NG' } });
    expect(creates(a.withdrawalId)).toHaveLength(1);
    expect(JSON.parse(creates(a.withdrawalId)[0].body)).toMatchObject({ account_bank: '044', account_number: '0690000032', amount: 5000, currency: 'NGN', reference: p.reference });
    const [au] = await sql`SELECT after FROM audit_events WHERE action = 'withdrawal.payout_request' AND target_id = ${String(a.withdrawalId)}`;
    expect(au.after).toMatchObject({ gateway: 'flutterwave', destination: { bankCode: '044' } });
    const [told] = await sql`SELECT description FROM notifications WHERE user_id = ${a.id} AND title = ${`Withdrawal #${a.withdrawalId} approved`}`;
    expect(told.description).toMatch(/your account at Access Bank/);

    flutterwaveMock.settleTransfer(Number(p.provider_ref), 'SUCCESSFUL');
    const body = transferEvent(Number(p.provider_ref));
    expect((await deliver(body)).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_status: 'SUCCESSFUL' });
    // replayed; a forged one (wrong verif-hash) saying FAILED: nothing more
    expect((await deliver(body)).status).toBe(200);
    expect((await deliver(body.replace('SUCCESSFUL', 'FAILED'), 'not-the-hash')).status).toBe(400);
    const events = await sql`SELECT kind, state, outcome FROM payout_events WHERE withdrawal_id = ${a.withdrawalId} ORDER BY id`;
    expect(events.map((e) => `${e.kind}:${e.state}:${e.outcome}`)).toEqual(['create:pending:verified', 'webhook:paid:applied']);
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].status).toBe('approved');
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
  });

  test('a webhook\'s word is not trusted: FAILED in the body while Flutterwave says SUCCESSFUL → paid', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('700');
    await approve(admin.cookie, a.withdrawalId, '044');
    const p = await payoutOf(a.withdrawalId);
    flutterwaveMock.settleTransfer(Number(p.provider_ref), 'SUCCESSFUL');
    expect((await deliver(transferEvent(Number(p.provider_ref), { status: 'FAILED' }))).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid' });
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
  });

  test('reported failed: the total back through the ledger once, declined, notified; a replay changes nothing', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('2000', { accountNumber: '0123456789' });
    flutterwaveMock.outcome.set('0123456789', { status: 'FAILED', message: 'DISBURSE FAILED: Account does not exist' });
    await approve(admin.cookie, a.withdrawalId, '058');
    const held = await balanceOf(a.wallet);
    const p = await payoutOf(a.withdrawalId);
    flutterwaveMock.settleTransfer(Number(p.provider_ref), 'FAILED', 'DISBURSE FAILED: Account does not exist');
    const body = transferEvent(Number(p.provider_ref));
    expect((await deliver(body)).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'failed', reason: 'Payout failed: DISBURSE FAILED: Account does not exist' });
    expect((await sql`SELECT status, decline_reason FROM withdrawals WHERE id = ${a.withdrawalId}`)[0]).toMatchObject({ status: 'declined' });
    expect(await balanceOf(a.wallet)).toBe((Number(held) + 2001).toFixed(8));
    expect((await deliver(body)).status).toBe(200);
    expect(await refunds(a.withdrawalId)).toEqual([{ amount: '2001.00000000' }]);
    const [n] = await sql`SELECT title FROM notifications WHERE user_id = ${a.id} ORDER BY id DESC LIMIT 1`;
    expect(n.title).toBe(`Withdrawal #${a.withdrawalId} could not be paid`);
  });

  test('refused by Flutterwave at once: failed at approval, the money back', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('40', { accountNumber: '5555555555' });
    const held = await balanceOf(a.wallet);
    expect(await approve(admin.cookie, a.withdrawalId, '044')).toMatchObject({ status: 200, body: { toast: 'Withdraw approved, but the payout failed: the total is back in the wallet' } });
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'failed', reason: 'Payout failed: Account resolve failed' });
    expect(await balanceOf(a.wallet)).toBe((Number(held) + 41).toFixed(8));
    expect(await refunds(a.withdrawalId)).toHaveLength(1);
  });

  test('concurrent approvals and sends: one approval, one transfer', async () => {
    const admins = await Promise.all([staff(1), staff(1), staff(2), staff(2)]);
    const a = await nigerianCustomer('900');
    const results = await Promise.all(admins.map((s) => approve(s.cookie, a.withdrawalId, '044')));
    expect(results.filter((x) => x.status === 200)).toHaveLength(1);
    expect(results.filter((x) => x.status === 409)).toHaveLength(3);
    await Promise.all([sendPayout(sql, a.withdrawalId), sendPayout(sql, a.withdrawalId)]);
    expect(creates(a.withdrawalId)).toHaveLength(1);
    expect((await sql`SELECT count(*)::int AS n FROM withdrawal_payouts WHERE withdrawal_id = ${a.withdrawalId}`)[0].n).toBe(1);
  });

  test('a lost answer: left requested; the webhook finds it by our reference and it is re-read by id; paid once', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('60');
    flutterwaveMock.loseAnswers = 1;
    expect(await approve(admin.cookie, a.withdrawalId, '044')).toMatchObject({ status: 200, body: { toast: 'Withdraw approved: the payout will be sent again shortly' } });
    const requested = await payoutOf(a.withdrawalId);
    expect(requested).toMatchObject({ status: 'requested', provider_ref: null });
    const [t] = [...flutterwaveMock.transfers.values()].filter((x) => x.reference === requested.reference);
    // the webhook arrives before we know Flutterwave's id: found by our reference, then read by GET
    flutterwaveMock.settleTransfer(t.id, 'SUCCESSFUL');
    expect((await deliver(transferEvent(t.id))).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_ref: String(t.id) });
    const check = await answer(historyAction({ request: post('/admin/withdraws/history', { intent: 'payout_check', id: String(a.withdrawalId) }, { cookie: admin.cookie }), ...ctx }));
    expect(check.status).toBe(409);
    expect(creates(a.withdrawalId)).toHaveLength(1);
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
  });

  // ---------------------------------------------------------------- issue 22: retries never refund on an ambiguous answer

  /** The claim of a requested payout expired, as the job finds it a few minutes later. */
  const expireClaim = (id: number) => sql`UPDATE withdrawal_payouts SET claimed_at = now() - interval '1 hour' WHERE withdrawal_id = ${id}`;
  const reviewNotices = (userId: number, id: number) => sql`SELECT title FROM notifications WHERE user_id = ${userId} AND data->>'kind' = 'payout.review' AND (data->>'id')::bigint = ${id}`;

  test('a retry refused by Flutterwave after a lost answer: Needs review, nothing refunded, staff notified; the transfer it made settles it once', async () => {
    const admin = await staff(1);
    const manager = await staff(2);
    const agent = await staff(4);
    const a = await nigerianCustomer('70');
    flutterwaveMock.loseAnswers = 1; // the first create made the transfer; its answer was lost
    expect(await approve(admin.cookie, a.withdrawalId, '044')).toMatchObject({ status: 200 });
    const held = await balanceOf(a.wallet);
    await expireClaim(a.withdrawalId);
    // the retry gets a 400 that says nothing about the first transfer (before the fix: failed, refunded → paid twice)
    flutterwaveMock.createAnswers.push({ status: 400, message: 'Insufficient funds in your NGN balance' });
    expect(await sendPayout(sql, a.withdrawalId)).toBe('review');
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'review', reason: expect.stringMatching(/first request with this reference may have paid/) });
    expect(await balanceOf(a.wallet)).toBe(held);
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].status).toBe('approved');
    expect(await reviewNotices(admin.id, a.withdrawalId)).toHaveLength(1);
    expect(await reviewNotices(manager.id, a.withdrawalId)).toHaveLength(1);
    expect(await reviewNotices(agent.id, a.withdrawalId)).toHaveLength(0);
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'withdrawal.payout_review' AND target_id = ${String(a.withdrawalId)}`)[0].n).toBe(1);
    // the job leaves it alone: never resent, never refunded automatically
    await sql`UPDATE withdrawal_payouts SET updated_at = now() - interval '1 hour' WHERE withdrawal_id = ${a.withdrawalId}`;
    const sent = creates(a.withdrawalId).length;
    const { payoutPass } = await import('~/modules/payments/payouts.server.ts');
    await payoutPass(sql, { quietMinutes: 0, limit: 10_000 });
    expect(creates(a.withdrawalId)).toHaveLength(sent);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'review' });
    // Flutterwave's own word settles it: the first transfer, paid
    const [t] = [...flutterwaveMock.transfers.values()].filter((x) => x.narration === `Withdrawal #${a.withdrawalId}`);
    flutterwaveMock.settleTransfer(t!.id, 'SUCCESSFUL');
    expect((await deliver(transferEvent(t!.id))).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_ref: String(t!.id) });
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
  });

  test('a resend answered "reference already exists": Needs review at once; Check status on it never refunds, a confirmed failure does', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('80');
    flutterwaveMock.loseAnswers = 1;
    await approve(admin.cookie, a.withdrawalId, '044');
    await expireClaim(a.withdrawalId);
    expect(await sendPayout(sql, a.withdrawalId)).toBe('review');
    expect((await payoutOf(a.withdrawalId)).reason).toMatch(/reference already exists/);
    // Check status: resent with the same reference, refused the same way: still under review, nothing refunded
    const check = await answer(historyAction({ request: post('/admin/withdraws/history', { intent: 'payout_check', id: String(a.withdrawalId) }, { cookie: admin.cookie }), ...ctx }));
    expect(check.status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'review' });
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
    // Flutterwave reports the transfer FAILED (its word, re-read by GET): now the money comes back, once
    const [t] = [...flutterwaveMock.transfers.values()].filter((x) => x.narration === `Withdrawal #${a.withdrawalId}`);
    flutterwaveMock.settleTransfer(t!.id, 'FAILED', 'Account is dormant');
    expect((await deliver(transferEvent(t!.id))).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'failed' });
    expect(await refunds(a.withdrawalId)).toHaveLength(1);
  });

  test('no answer after MAX_SEND_ATTEMPTS tries: Needs review, not resent, nothing refunded', async () => {
    const admin = await staff(1);
    const a = await nigerianCustomer('90');
    for (let i = 0; i < MAX_SEND_ATTEMPTS; i++) flutterwaveMock.createAnswers.push({ status: 503, message: 'Service unavailable' });
    await approve(admin.cookie, a.withdrawalId, '044');
    for (let i = 1; i < MAX_SEND_ATTEMPTS; i++) {
      expect((await payoutOf(a.withdrawalId)).status).toBe('requested');
      await expireClaim(a.withdrawalId);
      await sendPayout(sql, a.withdrawalId);
    }
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'review', attempts: MAX_SEND_ATTEMPTS });
    expect(await refunds(a.withdrawalId)).toHaveLength(0);
  });
});
