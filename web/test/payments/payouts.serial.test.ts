// PayPal payouts of withdrawals (modules/payments/payouts.server.ts, adapters/paypal-payout.server.ts)
// against the msw handlers of PayPal Payouts v1 (mocks/providers/paypal-payouts.ts) and PayPal's
// OAuth / Orders / verify-webhook-signature mocks (mocks/payments.ts):
// - the adapter: request building (OAuth bearer, sender_batch_id and PayPal-Request-Id = our
//   withdrawal reference, PAYPAL_ID receiver, exact amount), success, a refusal, a lost answer, a
//   duplicate sender_batch_id leading back to the first payout, the notifications it reads;
// - the pipeline through the Pending Withdraws route: the choice offered only where PayPal can pay
//   (the payer id stored from the customer's own verified capture), four-eyes (nothing sent before
//   the final approval), exactly one payout under concurrent approvals and retries, the signed
//   notifications (paid, failed, replayed, paid after failed), a failure returning the total
//   through the ledger once, audited, permissions and bad choices refused with nothing changed.
// Serial: it switches the site-wide PayPal gateway on with test keys and sets the four-eyes threshold.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, ensureGateways, walletFor, sessionFor, get, post, settle, BASE, unique } from '../helpers.ts';
import { db } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { setSetting } from '~/shared/settings.server.ts';
import { paymentHandlers, paypalApprove, paypalSignatureHeaders, PAYPAL_CLIENT, MOCK_PAYER_ID } from '../mocks/payments.ts';
import { payoutMock, payoutItemEvent } from '../mocks/providers/paypal-payouts.ts';
import { createDeposit, requestWithdrawal } from '~/modules/money/money.server.ts';
import { capturePaypal, startPayment } from '~/modules/payments/payments.server.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { paypalPayouts, paypalValue, PayoutRefused } from '~/modules/payments/adapters/paypal-payout.server.ts';
import { payoutPass, sendPayout } from '~/modules/payments/payouts.server.ts';
import { loader as pendingLoader, action as pendingAction } from '~/routes/_staff.admin.withdraws.pending.tsx';
import { loader as historyLoader, action as historyAction } from '~/routes/_staff.admin.withdraws.history.tsx';
import * as webhook from '~/routes/payments.webhooks.$gateway.tsx';

const sql = testSql(12);
const WEBHOOK_ID = 'WH0PAYOUTS000001';
mockServer(...paymentHandlers, http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  await ensureGateways(sql);
  await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES ('paypal', 'PayPal', false, 0, false) ON CONFLICT (name) DO NOTHING`;
  [before] = await sql`SELECT key1, key2, key3, key4, fee, is_active FROM payment_gateways WHERE name = 'paypal'`;
  await sql`UPDATE payment_gateways SET key1 = ${PAYPAL_CLIENT.id}, key2 = ${PAYPAL_CLIENT.secret}, key3 = 'sandbox', key4 = ${WEBHOOK_ID}, fee = 0, is_active = true WHERE name = 'paypal'`;
  await sql`UPDATE withdraw_fee_settings SET fee_percentage = 0, fee_fixed = 1 WHERE id = 1`;
});
afterAll(async () => {
  if (before) {
    await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, key3 = ${before.key3 as string | null},
                key4 = ${before.key4 as string | null}, fee = ${before.fee as string}, is_active = ${before.is_active as boolean} WHERE name = 'paypal'`;
  }
  await sql`UPDATE withdraw_fee_settings SET fee_percentage = 0, fee_fixed = 0 WHERE id = 1`;
  await sql`DELETE FROM site_settings WHERE key = 'approvals'`;
  await sql.end();
});
beforeEach(() => { payoutMock.loseAnswers = 0; payoutMock.failBefore = 0; });

const ctx = { params: {}, context: { clientIp: '203.0.113.7' } };
type Body = { ok: boolean; toast: string | null; result?: { error?: Record<string, string[] | null> } };
async function answer(p: Promise<unknown>) {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null as unknown as Body };
  return { status: r.init?.status ?? 200, body: r.data as Body };
}
async function staff(roleId = 1) {
  const u = await createUser(sql, { roleId });
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}
const BANK = { bankName: 'Chase', accountName: '', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'France' };

/** A customer with 1000 USD who paid a PayPal deposit of 50 (captured: PayPal named the payer), and a withdrawal of `amount` (+1 fee). */
async function paypalCustomer(amount = '100', { paypal = true } = {}) {
  const u = await createUser(sql, { roleId: 3 });
  const wallet = await walletFor(sql, u.id, { credit: '1000' });
  if (paypal) {
    const d = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'paypal', amount: '50' });
    if (!d.ok) throw new Error(d.message);
    const s = await startPayment(sql, { depositId: d.id, gateway: 'paypal', origin: BASE });
    if (!s.ok) throw new Error(s.message);
    paypalApprove(s.start.providerRef);
    await capturePaypal(sql, u.id, s.start.providerRef);
  }
  const w = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount, bank: BANK, clientRef: unique('ref-') }, async () => 0);
  if (!w.ok) throw new Error(w.message);
  return { ...u, wallet, withdrawalId: w.id };
}
const approve = (cookie: string, id: number, payout?: string) =>
  answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'approve', id: String(id), ...(payout ? { payout } : {}) }, { cookie }), ...ctx }));
const payoutOf = async (id: number) => (await sql`SELECT * FROM withdrawal_payouts WHERE withdrawal_id = ${id}`)[0];
const creates = (id: number) => payoutMock.calls.filter((c) => c.method === 'POST' && (c.body as { sender_batch_header?: { sender_batch_id?: string } })?.sender_batch_header?.sender_batch_id?.startsWith(`withdrawal-${id}-`));
const balanceOf = async (wallet: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b as string;
const refunds = (id: number) => sql`SELECT amount::text AS amount, memo FROM ledger_entries WHERE ref_kind = 'withdrawal' AND ref_id = ${String(id)} AND kind = 'withdrawal_refund'`;
function deliver(body: string, headers: Record<string, string>) {
  return settle(webhook.action({ request: new Request(`${BASE}/payments/webhooks/paypal`, { method: 'POST', headers, body }), params: { gateway: 'paypal' }, context: {} } as LoaderFunctionArgs)) as Promise<Response>;
}
const signed = (body: string) => deliver(body, paypalSignatureHeaders(body, WEBHOOK_ID));

// ---------------------------------------------------------------- the adapter

describe('PayPal Payouts adapter', () => {
  test('amounts: exact at the currency precision, or refused', () => {
    expect(paypalValue('100.00000000', 'USD')).toBe('100.00');
    expect(paypalValue('99.5', 'EUR')).toBe('99.50');
    expect(paypalValue('100.001', 'USD')).toBeNull();
    expect(paypalValue('1500.00', 'JPY')).toBe('1500');
    expect(paypalValue('1500.50', 'JPY')).toBeNull();
    expect(paypalPayouts.check({ withdrawalId: 1, amount: '10', currency: 'NGN' })).toMatch(/does not pay out NGN/);
  });

  test('request building: OAuth bearer, sender_batch_id and PayPal-Request-Id = the withdrawal, PAYPAL_ID receiver, exact amount; PENDING, then SUCCESS', async () => {
    const config = (await gatewayConfig(sql, 'paypal'))!;
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const ref = `withdrawal-${id}-a1b2c3`;
    const st = await paypalPayouts.createPayout(config, { withdrawalId: id, reference: ref, amount: '25.50000000', currency: 'USD', receiver: MOCK_PAYER_ID });
    const call = creates(id)[0];
    expect(call.requestId).toBe(ref);
    expect(call.body).toMatchObject({
      sender_batch_header: { sender_batch_id: ref, recipient_type: 'PAYPAL_ID' },
      items: [{ recipient_type: 'PAYPAL_ID', receiver: MOCK_PAYER_ID, amount: { value: '25.50', currency: 'USD' }, sender_item_id: ref }],
    });
    expect(st).toMatchObject({ state: 'pending', providerStatus: 'PENDING', withdrawalId: id });
    expect(await paypalPayouts.fetchPayout(config, st.providerRef)).toMatchObject({ state: 'paid', providerStatus: 'SUCCESS', withdrawalId: id, providerRef: st.providerRef });
    // the same sender_batch_id again (another request id, say after 30 minutes): PayPal refuses it
    // and links the first payout, which is the answer: nothing is paid twice
    payoutMock.byRequestId.delete(ref); // PayPal no longer remembers the request id
    const again = await paypalPayouts.createPayout(config, { withdrawalId: id, reference: ref, amount: '25.5', currency: 'USD', receiver: MOCK_PAYER_ID });
    expect(again.providerRef).toBe(st.providerRef);
    expect([...payoutMock.payouts.values()].filter((p) => p.sender_batch_header.sender_batch_id === ref)).toHaveLength(1);
  });

  test('a refusal (422) is PayoutRefused; a 500 is not (retried later); a bad token is not either', async () => {
    const config = (await gatewayConfig(sql, 'paypal'))!;
    const n = 800_000_000 + Math.floor(Math.random() * 1_000_000);
    const r = { withdrawalId: n, reference: `withdrawal-${n}-x1`, amount: '10', currency: 'USD', receiver: 'REFUSEDPAYER01' };
    await expect(paypalPayouts.createPayout(config, r)).rejects.toBeInstanceOf(PayoutRefused);
    payoutMock.failBefore = 1;
    const e = await paypalPayouts.createPayout(config, { ...r, withdrawalId: n + 1, reference: `withdrawal-${n + 1}-x1`, receiver: MOCK_PAYER_ID }).catch((x) => x);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(PayoutRefused);
    const wrong = { ...config, key2: 'wrong-secret', key1: `other-${unique()}` };
    await expect(paypalPayouts.createPayout(wrong, { ...r, receiver: MOCK_PAYER_ID })).rejects.not.toBeInstanceOf(PayoutRefused);
  });

  test('notifications: item events carry their state, batch events none, anything else is not a payout event', () => {
    const item = (type: string, extra: Record<string, unknown> = {}) => JSON.stringify({
      id: 'WH-1', event_type: type, resource: { payout_item_id: 'ITEM1', transaction_status: type.endsWith('SUCCEEDED') ? 'SUCCESS' : 'FAILED', payout_batch_id: 'BATCH1', payout_item: { sender_item_id: 'withdrawal-7-abc123', amount: { value: '5.00', currency: 'USD' } }, ...extra },
    });
    expect(paypalPayouts.readNotification(item('PAYMENT.PAYOUTS-ITEM.SUCCEEDED'))).toMatchObject({ providerRef: 'BATCH1', status: { state: 'paid', withdrawalId: 7, itemId: 'ITEM1' }, amount: '5.00', currency: 'USD' });
    expect(paypalPayouts.readNotification(item('PAYMENT.PAYOUTS-ITEM.FAILED', { errors: { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' } })))
      .toMatchObject({ status: { state: 'failed', reason: 'RECEIVER_UNREGISTERED: Receiver is unregistered' } });
    expect(paypalPayouts.readNotification(item('PAYMENT.PAYOUTS-ITEM.UNCLAIMED', { transaction_status: 'UNCLAIMED' }))).toMatchObject({ status: { state: 'pending' } });
    expect(paypalPayouts.readNotification(JSON.stringify({ id: 'WH-2', event_type: 'PAYMENT.PAYOUTSBATCH.SUCCESS', resource: { batch_header: { payout_batch_id: 'BATCH1', batch_status: 'SUCCESS' } } })))
      .toMatchObject({ providerRef: 'BATCH1', status: null });
    expect(paypalPayouts.readNotification(JSON.stringify({ id: 'WH-3', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: {} }))).toBeNull();
    expect(paypalPayouts.readNotification('not json')).toBeNull();
  });
});

// ---------------------------------------------------------------- the pipeline

describe('paying a withdrawal out through PayPal', () => {
  test('offered only where PayPal can pay: the payer id comes from the customer\'s own verified capture', async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('100');
    const b = await paypalCustomer('100', { paypal: false });
    const [ev] = await sql`SELECT pe.raw->>'payerAccount' AS payer FROM payment_events pe JOIN deposits d ON d.id = pe.deposit_id WHERE d.user_id = ${a.id} AND pe.outcome = 'applied'`;
    expect(ev.payer).toBe(MOCK_PAYER_ID);
    const list = await pendingLoader({ request: get(`/admin/withdraws/pending?search=${a.withdrawalId}`, admin.cookie), ...ctx });
    expect(list.rows.find((r) => r.id === a.withdrawalId)).toMatchObject({ payoutOptions: ['paypal'], payout: null });
    const other = await pendingLoader({ request: get(`/admin/withdraws/pending?search=${b.withdrawalId}`, admin.cookie), ...ctx });
    expect(other.rows.find((r) => r.id === b.withdrawalId)).toMatchObject({ payoutOptions: [] });
    // chosen anyway (a forged form): refused, nothing changed
    const r = await approve(admin.cookie, b.withdrawalId, 'paypal');
    expect(r).toMatchObject({ status: 400, body: { ok: false, toast: 'This withdrawal cannot be paid out through this gateway' } });
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${b.withdrawalId}`)[0].status).toBe('pending');
    expect(await payoutOf(b.withdrawalId)).toBeUndefined();
    // a gateway that does not pay out, or junk
    expect((await approve(admin.cookie, a.withdrawalId, 'stripe')).status).toBe(400);
    expect((await approve(admin.cookie, a.withdrawalId, 'Pay<all>')).status).toBe(400);
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].status).toBe('pending');
  });

  test('roles other than 1 and 2 are refused, nothing sent', async () => {
    const a = await paypalCustomer('20');
    for (const roleId of [3, 4, 5]) {
      const s = await staff(roleId);
      const r = await approve(s.cookie, a.withdrawalId, 'paypal');
      expect(r.status, `role ${roleId}`).toBe(403);
    }
    expect(await payoutOf(a.withdrawalId)).toBeUndefined();
    expect(creates(a.withdrawalId)).toHaveLength(0);
  });

  test('approved with PayPal: one payout sent, audited; the signed SUCCEEDED notification marks it paid once; history shows it', async () => {
    const admin = await staff(2);
    const a = await paypalCustomer('100');
    const r = await approve(admin.cookie, a.withdrawalId, 'paypal');
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Withdraw approved and sent for payout' } });
    const p = await payoutOf(a.withdrawalId);
    expect(p).toMatchObject({ gateway: 'paypal', status: 'sent', receiver: MOCK_PAYER_ID, provider_status: 'PENDING', requested_by: admin.id, attempts: 1 });
    expect(creates(a.withdrawalId)).toHaveLength(1);
    expect(creates(a.withdrawalId)[0].body).toMatchObject({ items: [{ amount: { value: '100.00', currency: 'USD' } }] });
    const audits = await sql`SELECT action, actor_id, ip FROM audit_events WHERE target_kind = 'withdrawal' AND target_id = ${String(a.withdrawalId)} ORDER BY id`;
    expect(audits.map((x) => x.action)).toEqual(['withdrawal.approve', 'withdrawal.payout_request']);
    expect(audits[1]).toMatchObject({ actor_id: admin.id, ip: '203.0.113.7' });
    const [told] = await sql`SELECT description FROM notifications WHERE user_id = ${a.id} AND title = ${`Withdrawal #${a.withdrawalId} approved`}`;
    expect(told.description).toBe('100.00 USD is on its way to your PayPal account.');

    payoutMock.settle(p.provider_ref, 'SUCCESS');
    const body = payoutItemEvent(p.provider_ref, 'SUCCEEDED');
    expect((await signed(body)).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_status: 'SUCCESS' });
    // replayed, and a forged copy with a bad signature: nothing more
    expect((await signed(body)).status).toBe(200);
    const forged = await deliver(body.replace('SUCCEEDED', 'FAILED'), paypalSignatureHeaders(body, WEBHOOK_ID));
    expect(forged.status).toBe(400);
    const events = await sql`SELECT kind, state, outcome FROM payout_events WHERE withdrawal_id = ${a.withdrawalId} ORDER BY id`;
    expect(events.map((e) => `${e.kind}:${e.state}:${e.outcome}`)).toEqual(['create:pending:verified', 'webhook:paid:applied']);
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'withdrawal.payout_paid' AND target_id = ${String(a.withdrawalId)}`)[0].n).toBe(1);
    expect((await sql`SELECT status FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].status).toBe('approved');
    expect(await balanceOf(a.wallet)).toBe('949.00000000'); // 1000 + 50 deposit - 101 held

    const hist = await historyLoader({ request: get(`/admin/withdraws/history?status=approved`, admin.cookie), ...ctx });
    expect(hist.rows.find((x) => x.id === a.withdrawalId)?.payout).toMatchObject({
      gateway: 'paypal', status: 'paid', providerRef: p.provider_ref,
      events: [{ kind: 'create', state: 'pending', outcome: 'verified' }, { kind: 'webhook', state: 'paid', outcome: 'applied' }],
    });
  });

  test('concurrent approvals and sends: one approval, one payout, one PayPal call', async () => {
    const admins = await Promise.all([staff(1), staff(1), staff(2), staff(2)]);
    const a = await paypalCustomer('40');
    const results = await Promise.all(admins.map((s) => approve(s.cookie, a.withdrawalId, 'paypal')));
    expect(results.filter((x) => x.status === 200)).toHaveLength(1);
    expect(results.filter((x) => x.status === 409)).toHaveLength(3);
    await Promise.all([sendPayout(sql, a.withdrawalId), sendPayout(sql, a.withdrawalId), sendPayout(db(), a.withdrawalId)]);
    expect(creates(a.withdrawalId)).toHaveLength(1);
    expect((await sql`SELECT count(*)::int AS n FROM withdrawal_payouts WHERE withdrawal_id = ${a.withdrawalId}`)[0].n).toBe(1);
  });

  test('four-eyes: the first approval sends nothing; the second one pays out', async () => {
    await setSetting(db(), 'approvals', { secondApprovalAbove: '500' });
    try {
      const [first, second] = [await staff(1), await staff(2)];
      const a = await paypalCustomer('600');
      expect(await approve(first.cookie, a.withdrawalId, 'paypal')).toMatchObject({ status: 200, body: { toast: 'Awaiting second approval' } });
      expect(await payoutOf(a.withdrawalId)).toBeUndefined();
      expect(creates(a.withdrawalId)).toHaveLength(0);
      expect((await approve(first.cookie, a.withdrawalId, 'paypal')).status).toBe(409);
      expect(await approve(second.cookie, a.withdrawalId, 'paypal')).toMatchObject({ status: 200, body: { toast: 'Withdraw approved and sent for payout' } });
      expect(creates(a.withdrawalId)).toHaveLength(1);
    } finally {
      await setSetting(db(), 'approvals', { secondApprovalAbove: '' });
    }
  });

  test('issue 22: a resend refused by PayPal after a lost answer is Needs review: nothing refunded (the first payout may exist)', async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('35');
    payoutMock.loseAnswers = 1;
    await approve(admin.cookie, a.withdrawalId, 'paypal');
    const held = (await sql`SELECT balance::text AS b FROM balances WHERE id = ${a.wallet}`)[0].b as string;
    await sql`UPDATE withdrawal_payouts SET claimed_at = now() - interval '10 minutes' WHERE withdrawal_id = ${a.withdrawalId}`;
    payoutMock.createAnswers.push({ status: 422, name: 'UNPROCESSABLE_ENTITY', message: 'Insufficient funds' });
    expect(await sendPayout(sql, a.withdrawalId)).toBe('review');
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'review' });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${a.wallet}`)[0].b).toBe(held);
    expect((await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE ref_kind = 'withdrawal' AND ref_id = ${String(a.withdrawalId)} AND kind = 'withdrawal_refund'`)[0].n).toBe(0);
  });

  test('a lost answer: left requested, retried after the claim with the same reference, paid once', async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('30');
    payoutMock.loseAnswers = 1;
    expect(await approve(admin.cookie, a.withdrawalId, 'paypal')).toMatchObject({ status: 200, body: { toast: 'Withdraw approved: the payout will be sent again shortly' } });
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'requested', attempts: 1, last_error: expect.stringMatching(/HTTP 500/) });
    // the claim is still live: nothing is sent again
    expect(await sendPayout(sql, a.withdrawalId)).toBe('requested');
    expect(creates(a.withdrawalId)).toHaveLength(1);
    // the job, once the claim expired: the same sender_batch_id and request id answer the first payout
    await sql`UPDATE withdrawal_payouts SET claimed_at = now() - interval '10 minutes', updated_at = now() - interval '10 minutes' WHERE withdrawal_id = ${a.withdrawalId}`;
    expect(await payoutPass(sql, { quietMinutes: 5, limit: 1000 })).toMatchObject({ sent: expect.any(Number) });
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
    expect(creates(a.withdrawalId)).toHaveLength(2);
    const { reference } = await payoutOf(a.withdrawalId);
    expect(reference).toMatch(new RegExp(`^withdrawal-${a.withdrawalId}-[0-9a-f]{10}$`));
    expect(new Set(creates(a.withdrawalId).map((c) => c.requestId))).toEqual(new Set([reference]));
    expect([...payoutMock.payouts.values()].filter((p) => p.sender_batch_header.sender_batch_id === reference)).toHaveLength(1);
    // no notification: the job asks PayPal (GET), which says SUCCESS
    await sql`UPDATE withdrawal_payouts SET updated_at = now() - interval '10 minutes' WHERE withdrawal_id = ${a.withdrawalId}`;
    await payoutPass(sql, { quietMinutes: 5, limit: 1000 });
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_status: 'SUCCESS' });
  });

  test("a notification before we stored PayPal's payout id (the answer was lost): matched by our reference, applied once; nothing sent again", async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('33');
    payoutMock.loseAnswers = 1;
    await approve(admin.cookie, a.withdrawalId, 'paypal');
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'requested', provider_ref: null });
    const { reference } = await payoutOf(a.withdrawalId);
    const made = [...payoutMock.payouts.values()].find((x) => x.sender_batch_header.sender_batch_id === reference)!;
    payoutMock.settle(made.id, 'SUCCESS');
    expect((await signed(payoutItemEvent(made.id, 'SUCCEEDED'))).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_ref: made.id });
    await sql`UPDATE withdrawal_payouts SET claimed_at = now() - interval '10 minutes' WHERE withdrawal_id = ${a.withdrawalId}`;
    expect(await sendPayout(sql, a.withdrawalId)).toBe('paid');
    expect(creates(a.withdrawalId)).toHaveLength(1);
  });

  test('a failed payout: the total back through the ledger once, the withdrawal declined with the reason, audited, the customer told; paid after that is held for review', async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('100');
    const held = await balanceOf(a.wallet);
    await approve(admin.cookie, a.withdrawalId, 'paypal');
    const p = await payoutOf(a.withdrawalId);
    payoutMock.settle(p.provider_ref, 'FAILED', { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' });
    const failed = payoutItemEvent(p.provider_ref, 'FAILED');
    expect((await signed(failed)).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'failed', reason: 'Payout failed: RECEIVER_UNREGISTERED: Receiver is unregistered' });
    expect(await sql`SELECT status, decline_reason FROM withdrawals WHERE id = ${a.withdrawalId}`).toEqual([{ status: 'declined', decline_reason: 'Payout failed: RECEIVER_UNREGISTERED: Receiver is unregistered' }]);
    expect(await refunds(a.withdrawalId)).toEqual([{ amount: '101.00000000', memo: 'payout failed: total returned' }]);
    expect(await balanceOf(a.wallet)).toBe((Number(held) + 101).toFixed(8));
    // its history shows the wallet once the total came back, not during the hold
    expect((await sql`SELECT balance_after::text AS b FROM withdrawals WHERE id = ${a.withdrawalId}`)[0].b).toBe(await balanceOf(a.wallet));
    // the same failure again, another failure (RETURNED) and a status check: still one refund
    expect((await signed(failed)).status).toBe(200);
    payoutMock.settle(p.provider_ref, 'RETURNED');
    expect((await signed(payoutItemEvent(p.provider_ref, 'RETURNED'))).status).toBe(200);
    expect(await refunds(a.withdrawalId)).toHaveLength(1);
    // PayPal later says SUCCEEDED: never applied, held for a person
    expect((await signed(payoutItemEvent(p.provider_ref, 'SUCCEEDED'))).status).toBe(200);
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'failed' });
    const [late] = await sql`SELECT outcome, reason FROM payout_events WHERE withdrawal_id = ${a.withdrawalId} AND state = 'paid'`;
    expect(late).toMatchObject({ outcome: 'rejected', reason: expect.stringMatching(/to be reviewed/) });
    const [audit] = await sql`SELECT actor_id, before, after FROM audit_events WHERE action = 'withdrawal.payout_failed' AND target_id = ${String(a.withdrawalId)}`;
    expect(audit).toMatchObject({ actor_id: null, before: { status: 'approved', payout: 'sent' }, after: { status: 'declined', payout: 'failed', refunded: '101.00', currency: 'USD' } });
    const [n] = await sql`SELECT title, description FROM notifications WHERE user_id = ${a.id} ORDER BY id DESC LIMIT 1`;
    expect(n).toMatchObject({ title: `Withdrawal #${a.withdrawalId} could not be paid` });
  });

  test('refused by PayPal at once: failed at approval, the money back, the toast says so', async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('10');
    await sql`UPDATE payment_events SET raw = jsonb_set(raw, '{payerAccount}', '"REFUSEDPAYER01"')
               WHERE deposit_id IN (SELECT id FROM deposits WHERE user_id = ${a.id})`;
    const held = await balanceOf(a.wallet);
    expect(await approve(admin.cookie, a.withdrawalId, 'paypal')).toMatchObject({ status: 200, body: { toast: 'Withdraw approved, but the payout failed: the total is back in the wallet' } });
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^Payout failed: UNPROCESSABLE_ENTITY/) });
    expect(await balanceOf(a.wallet)).toBe((Number(held) + 11).toFixed(8));
    expect(await refunds(a.withdrawalId)).toHaveLength(1);
  });

  test('an unknown payout or another withdrawal\'s item: rejected, nothing changed', async () => {
    const body = JSON.stringify({ id: `WH-${unique()}`, event_type: 'PAYMENT.PAYOUTS-ITEM.FAILED', resource: { payout_item_id: 'X', transaction_status: 'FAILED', payout_batch_id: 'NOSUCHBATCH', payout_item: { sender_item_id: 'withdrawal-1-ab' } } });
    expect((await signed(body)).status).toBe(200);
    const [e] = await sql`SELECT outcome, reason FROM payout_events WHERE event_id = ${JSON.parse(body).id}`;
    expect(e).toMatchObject({ outcome: 'rejected', reason: 'Unknown payout' });
  });

  test("Withdraw History's 'Check status': a sent payout is asked about now (paid), audited; settled ones and other roles refused", async () => {
    const admin = await staff(2);
    const a = await paypalCustomer('12');
    await approve(admin.cookie, a.withdrawalId, 'paypal');
    const check = (cookie: string, id: number) => answer(historyAction({ request: post('/admin/withdraws/history', { intent: 'payout_check', id: String(id) }, { cookie }), ...ctx }));
    expect(await check(admin.cookie, a.withdrawalId)).toMatchObject({ status: 200, body: { ok: true, toast: 'The payout is paid' } });
    expect(await payoutOf(a.withdrawalId)).toMatchObject({ status: 'paid', provider_status: 'SUCCESS' });
    const [au] = await sql`SELECT actor_id, before, after, ip FROM audit_events WHERE action = 'withdrawal.payout_check' AND target_id = ${String(a.withdrawalId)}`;
    expect(au).toMatchObject({ actor_id: admin.id, ip: '203.0.113.7', before: { payout: 'sent' }, after: { payout: 'paid', providerStatus: 'SUCCESS' } });
    expect(await check(admin.cookie, a.withdrawalId)).toMatchObject({ status: 409, body: { ok: false, toast: 'This payout is already settled' } });
    expect((await check(admin.cookie, 987654321)).status).toBe(404);
    const agent = await staff(4);
    expect((await check(agent.cookie, a.withdrawalId)).status).toBe(403);
  });

  test('manual approval stays as it was: no payout, no PayPal call', async () => {
    const admin = await staff(1);
    const a = await paypalCustomer('15');
    expect(await approve(admin.cookie, a.withdrawalId)).toMatchObject({ status: 200, body: { toast: 'Withdraw approved successfully' } });
    expect(await payoutOf(a.withdrawalId)).toBeUndefined();
    expect(await approve(admin.cookie, (await paypalCustomer('16')).withdrawalId, 'manual')).toMatchObject({ status: 200 });
  });
});
