// Chargebacks, disputes, refunds and reversals of credited card / wallet deposits (issue 22 §3):
// the providers' signed notifications — Stripe charge.dispute.created / closed and charge.refunded,
// PayPal PAYMENT.CAPTURE.REFUNDED / REVERSED, Wipays chargeback_initiated / resolved — verified as
// the deposit notifications are, stored once as payment events, flag the deposit, notify roles 1–2
// and show on /admin/deposits; staff (roles 1–2) debit the disputed amount once through the ledger,
// audited, never below zero. They were dropped before. Serial: it switches site-wide gateways on.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { answerOf, BASE, createUser, ensureGateways, get, post, sessionFor, testSql, unique, walletFor } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import {
  paymentHandlers, paypalOrders, paypalRefundEvent, paypalSignatureHeaders, PAYPAL_CLIENT, stripeDisputeEvent, stripePaymentIntents, stripeSignature,
} from '../mocks/payments.ts';
import { PAYPAL_SANDBOX } from '~/modules/payments/adapters/paypal.server.ts';
import { wipaysSignature } from '~/modules/payments/adapters/wipays.server.ts';
import { decideMoney } from '~/modules/money/money.server.ts';
import { debitDispute, DISPUTE_REF_KIND } from '~/modules/payments/disputes.server.ts';
import * as webhook from '~/routes/payments.webhooks.$gateway.tsx';
import * as deposits from '~/routes/_staff.admin.deposits.tsx';

const sql = testSql(8);
const STRIPE_SECRET = 'whsec_disputes_0123456789';
const WEBHOOK_ID = 'WH0DISPUTES0001';
const WIPAYS_SECRET = 'wp-secret-disputes';
mockServer(...paymentHandlers, http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
const saved: Record<string, Record<string, unknown>> = {};
let admin: { id: number; cookie: string };
let manager: { id: number };
let agent: { id: number };

beforeAll(async () => {
  await ensureGateways(sql);
  await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES ('paypal', 'PayPal', false, 0, false), ('wipays', 'WiPays', false, 0, false)
            ON CONFLICT (name) DO NOTHING`;
  for (const g of ['stripe', 'paypal', 'wipays']) {
    [saved[g]] = await sql`SELECT key1, key2, key3, key4, fee, is_active FROM payment_gateways WHERE name = ${g}`;
  }
  await sql`UPDATE payment_gateways SET key1 = 'sk_test_disputes', key2 = ${STRIPE_SECRET}, is_active = true WHERE name = 'stripe'`;
  await sql`UPDATE payment_gateways SET key1 = ${PAYPAL_CLIENT.id}, key2 = ${PAYPAL_CLIENT.secret}, key3 = 'sandbox', key4 = ${WEBHOOK_ID}, is_active = true WHERE name = 'paypal'`;
  await sql`UPDATE payment_gateways SET key1 = 'wp-public-test', key2 = ${WIPAYS_SECRET}, is_active = true WHERE name = 'wipays'`;
  const a = await createUser(sql, { roleId: 1 });
  admin = { id: a.id, cookie: (await sessionFor(sql, a.id)).cookie };
  manager = await createUser(sql, { roleId: 2 });
  agent = await createUser(sql, { roleId: 4 });
});
afterAll(async () => {
  for (const [g, b] of Object.entries(saved)) {
    await sql`UPDATE payment_gateways SET key1 = ${b.key1 as string | null}, key2 = ${b.key2 as string | null}, key3 = ${b.key3 as string | null},
                key4 = ${b.key4 as string | null}, fee = ${b.fee as string}, is_active = ${b.is_active as boolean} WHERE name = ${g}`;
  }
  await sql.end();
});

const args = (request: Request, params: Record<string, string> = {}): LoaderFunctionArgs => ({ request, params, context: {} });

/** A credited deposit of `gateway` (the provider's payment id as its reference), in a fresh USD wallet. */
async function credited(gateway: string, amount = '100.00', opts: { approve?: boolean } = {}) {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id);
  const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, reference)
                        VALUES (${u.id}, ${wallet}, ${gateway}, ${amount}, 0, ${amount}, ${unique(`${gateway}-`)}) RETURNING id`;
  const id = Number(d.id);
  // Wipays' identifier is the deposit's reference, dep-<id> (depositRef)
  const reference = gateway === 'wipays' ? `dep-${id}` : unique('ORDER').toUpperCase();
  await sql`UPDATE deposits SET reference = ${reference} WHERE id = ${id}`;
  if (opts.approve !== false) expect((await decideMoney(sql, { kind: 'deposit', id, actorId: null, decision: 'approve' })).ok).toBe(true);
  return { id, wallet, reference, userId: u.id };
}

function deliver(gateway: string, body: string, headers: Record<string, string>) {
  return answerOf(webhook.action(args(new Request(`${BASE}/payments/webhooks/${gateway}`, { method: 'POST', headers, body }), { gateway })));
}
const stripeDeliver = (body: string, secret = STRIPE_SECRET) => deliver('stripe', body, { 'stripe-signature': stripeSignature(body, secret), 'content-type': 'application/json' });

const flagOf = async (id: number) => (await sql`
  SELECT disputed_at IS NOT NULL AS flagged, dispute_kind, dispute_amount::text AS dispute_amount, dispute_currency, dispute_state, dispute_debited_at IS NOT NULL AS debited
    FROM deposits WHERE id = ${id}`)[0];
const eventsOf = (id: number) => sql`SELECT kind, state, outcome, amount::text AS amount, currency FROM payment_events WHERE deposit_id = ${id} ORDER BY id`;
const noticesOf = (userId: number, depositId: number) =>
  sql`SELECT data FROM notifications WHERE user_id = ${userId} AND data->>'kind' = 'deposit.disputed' AND (data->>'id')::bigint = ${depositId}`;
const balanceOf = async (wallet: number) => (await sql`SELECT balance::text AS balance FROM balances WHERE id = ${wallet}`)[0].balance as string;

/** A Stripe deposit's PaymentIntent, its metadata naming the deposit (what createPayment sets). */
function stripeIntent(depositId: number) {
  const pi = unique('pi_');
  stripePaymentIntents.set(pi, { id: pi, object: 'payment_intent', metadata: { deposit_id: String(depositId) }, amount: 10000, currency: 'usd', status: 'succeeded' });
  return pi;
}

/** A captured PayPal order of a deposit, as the mock PayPal holds it after the capture. */
function paypalCaptured(depositId: number, orderId: string, value = '100.00') {
  const amount = { currency_code: 'USD', value };
  const captureId = `CAP${orderId.slice(-10).toUpperCase()}`;
  paypalOrders.set(orderId, {
    id: orderId, status: 'COMPLETED', intent: 'CAPTURE', links: [], returnUrl: '', base: PAYPAL_SANDBOX,
    purchase_units: [{ custom_id: String(depositId), amount, payments: { captures: [{ id: captureId, status: 'COMPLETED', amount, custom_id: String(depositId), supplementary_data: { related_ids: { order_id: orderId } } }] } }],
  });
  return { captureId, amount };
}

function wipaysIpn(identifier: string, type: string, o: { amount?: string; secret?: string; ts?: number } = {}) {
  const timestamp = String(o.ts ?? Math.floor(Date.now() / 1000));
  return JSON.stringify({
    identifier, status: 'success', timestamp, signature: wipaysSignature(identifier, timestamp, o.secret ?? WIPAYS_SECRET),
    data: { trx: unique('WPTRX'), amount: o.amount ?? '100.00', currency: 'USD', type, timestamp: '2026-11-27 12:00:00' },
  });
}

describe('Stripe', () => {
  test('charge.dispute.created: stored once, the deposit flagged, admins and managers notified; a replay changes nothing', async () => {
    const d = await credited('stripe');
    const body = stripeDisputeEvent({ paymentIntent: stripeIntent(d.id), amount: 10000, currency: 'usd' });
    expect((await stripeDeliver(body)).status).toBe(200);
    expect(await flagOf(d.id)).toEqual({ flagged: true, dispute_kind: 'dispute', dispute_amount: '100.00000000', dispute_currency: 'USD', dispute_state: 'open', debited: false });
    expect(await eventsOf(d.id)).toEqual([{ kind: 'webhook', state: 'dispute', outcome: 'applied', amount: '100.00000000', currency: 'USD' }]);
    expect(await noticesOf(admin.id, d.id)).toHaveLength(1);
    expect(await noticesOf(manager.id, d.id)).toHaveLength(1);
    expect(await noticesOf(agent.id, d.id)).toHaveLength(0);
    expect((await noticesOf(admin.id, d.id))[0].data).toMatchObject({ kind: 'deposit.disputed', id: d.id, dispute: 'dispute', phase: 'opened', amount: '100.00', currency: 'USD' });
    expect((await stripeDeliver(body)).status).toBe(200);
    expect(await eventsOf(d.id)).toHaveLength(1);
    expect(await noticesOf(admin.id, d.id)).toHaveLength(1);
  });

  test('a forged dispute is refused and changes nothing; the end of a dispute (won) and a refund are recorded', async () => {
    const d = await credited('stripe');
    const pi = stripeIntent(d.id);
    const body = stripeDisputeEvent({ paymentIntent: pi, amount: 10000, currency: 'usd' });
    expect((await stripeDeliver(body, 'whsec_someone_else')).status).toBe(400);
    expect((await flagOf(d.id)).flagged).toBe(false);
    expect(await eventsOf(d.id)).toHaveLength(0);
    expect((await stripeDeliver(body)).status).toBe(200);
    expect((await stripeDeliver(stripeDisputeEvent({ paymentIntent: pi, amount: 10000, currency: 'usd', type: 'charge.dispute.closed', status: 'won' }))).status).toBe(200);
    expect(await flagOf(d.id)).toMatchObject({ flagged: true, dispute_kind: 'dispute', dispute_state: 'won' });
    expect((await eventsOf(d.id)).map((e) => e.state)).toEqual(['dispute', 'resolved']);

    const r = await credited('stripe', '50.00');
    expect((await stripeDeliver(stripeDisputeEvent({ paymentIntent: stripeIntent(r.id), amount: 2000, currency: 'usd', type: 'charge.refunded' }))).status).toBe(200);
    expect(await flagOf(r.id)).toMatchObject({ flagged: true, dispute_kind: 'refund', dispute_amount: '20.00000000', dispute_state: 'open' });
  });

  test('a dispute of a payment Stripe does not trace to a deposit of ours is recorded as unknown, nothing flagged', async () => {
    const body = stripeDisputeEvent({ paymentIntent: unique('pi_unknown'), amount: 10000, currency: 'usd' });
    expect((await stripeDeliver(body)).status).toBe(200);
    const [ev] = await sql`SELECT outcome, reason, deposit_id FROM payment_events WHERE gateway = 'stripe' AND event_id = ${JSON.parse(body).id}`;
    expect(ev).toMatchObject({ outcome: 'rejected', reason: 'Unknown payment', deposit_id: null });
  });

  test('a dispute of a deposit that was never credited is recorded, not flagged', async () => {
    const d = await credited('stripe', '100.00', { approve: false });
    expect((await stripeDeliver(stripeDisputeEvent({ paymentIntent: stripeIntent(d.id), amount: 10000, currency: 'usd' }))).status).toBe(200);
    expect((await flagOf(d.id)).flagged).toBe(false);
    expect(await eventsOf(d.id)).toEqual([expect.objectContaining({ state: 'dispute', outcome: 'verified' })]);
    expect(await noticesOf(admin.id, d.id)).toHaveLength(0);
  });
});

describe('PayPal', () => {
  test('PAYMENT.CAPTURE.REVERSED and REFUNDED: verified by PayPal, the capture read back, the deposit flagged', async () => {
    const d = await credited('paypal');
    const { captureId } = paypalCaptured(d.id, d.reference);
    const body = paypalRefundEvent(captureId, { currency_code: 'USD', value: '100.00' }, 'PAYMENT.CAPTURE.REVERSED');
    // a body PayPal did not sign
    expect((await deliver('paypal', body, paypalSignatureHeaders(body.replace('100.00', '1.00'), WEBHOOK_ID))).status).toBe(400);
    expect((await flagOf(d.id)).flagged).toBe(false);
    expect((await deliver('paypal', body, paypalSignatureHeaders(body, WEBHOOK_ID))).status).toBe(200);
    expect(await flagOf(d.id)).toMatchObject({ flagged: true, dispute_kind: 'reversal', dispute_amount: '100.00000000', dispute_currency: 'USD', dispute_state: 'open' });
    expect(await noticesOf(admin.id, d.id)).toHaveLength(1);

    const r = await credited('paypal', '80.00');
    const c = paypalCaptured(r.id, r.reference, '80.00');
    const refund = paypalRefundEvent(c.captureId, { currency_code: 'USD', value: '30.00' });
    expect((await deliver('paypal', refund, paypalSignatureHeaders(refund, WEBHOOK_ID))).status).toBe(200);
    expect(await flagOf(r.id)).toMatchObject({ flagged: true, dispute_kind: 'refund', dispute_amount: '30.00000000' });
  });

  test('a refund of a capture PayPal does not know of another order: recorded as unknown, nothing flagged', async () => {
    const d = await credited('paypal');
    // the capture names this deposit but another order than the deposit's
    const { captureId } = paypalCaptured(d.id, unique('OTHER').toUpperCase());
    const body = paypalRefundEvent(captureId, { currency_code: 'USD', value: '100.00' });
    expect((await deliver('paypal', body, paypalSignatureHeaders(body, WEBHOOK_ID))).status).toBe(200);
    expect((await flagOf(d.id)).flagged).toBe(false);
    const [ev] = await sql`SELECT outcome, reason, deposit_id FROM payment_events WHERE gateway = 'paypal' AND event_id = ${JSON.parse(body).id}`;
    expect(ev).toMatchObject({ outcome: 'rejected', reason: 'Unknown payment', deposit_id: null });
    // a capture PayPal does not know at all (404): recorded as unknown too, not retried forever
    const lost = paypalRefundEvent('CAPNOTKNOWN00', { currency_code: 'USD', value: '5.00' });
    expect((await deliver('paypal', lost, paypalSignatureHeaders(lost, WEBHOOK_ID))).status).toBe(200);
    const [ev2] = await sql`SELECT outcome, deposit_id FROM payment_events WHERE gateway = 'paypal' AND event_id = ${JSON.parse(lost).id}`;
    expect(ev2).toMatchObject({ outcome: 'rejected', deposit_id: null });
  });
});

describe('Wipays', () => {
  test('chargeback_initiated: signed as every IPN, flagged; chargeback_resolved ends it; a forged one is refused', async () => {
    const d = await credited('wipays');
    const forged = wipaysIpn(d.reference, 'chargeback_initiated', { secret: 'not-the-secret' });
    expect((await deliver('wipays', forged, { 'content-type': 'application/json' })).status).toBe(400);
    expect((await flagOf(d.id)).flagged).toBe(false);
    const ts = Math.floor(Date.now() / 1000);
    expect((await deliver('wipays', wipaysIpn(d.reference, 'chargeback_initiated', { ts }), { 'content-type': 'application/json' })).status).toBe(200);
    expect(await flagOf(d.id)).toMatchObject({ flagged: true, dispute_kind: 'chargeback', dispute_amount: '100.00000000', dispute_state: 'open' });
    expect((await deliver('wipays', wipaysIpn(d.reference, 'chargeback_resolved', { ts: ts + 1 }), { 'content-type': 'application/json' })).status).toBe(200);
    expect(await flagOf(d.id)).toMatchObject({ flagged: true, dispute_state: 'closed' });
    expect((await eventsOf(d.id)).map((e) => e.state)).toEqual(['chargeback', 'resolved']);
  });
});

describe('Deposits page and the debit', () => {
  test('the flag and the event show on /admin/deposits; staff debit the amount once, audited', async () => {
    const d = await credited('wipays', '100.00');
    // a chargeback IPN claiming more than was credited: the debit takes at most the deposit's amount
    expect((await deliver('wipays', wipaysIpn(d.reference, 'chargeback_initiated', { amount: '150.00' }), { 'content-type': 'application/json' })).status).toBe(200);
    const page = await answerOf(deposits.loader(args(get(`/admin/deposits?search=${d.id}`, admin.cookie))));
    const row = page.body.rows.find((r: { id: number }) => r.id === d.id);
    expect(row.dispute).toMatchObject({ kind: 'chargeback', state: 'open', amount: '150.00000000', currency: 'USD', debit: '100.00', debitedAt: null });
    expect(row.paymentEvents).toEqual([expect.objectContaining({ state: 'chargeback', outcome: 'applied', amount: '150.00000000' })]);

    const debit = () => answerOf(deposits.action(args(post('/admin/deposits', { intent: 'debitDispute', id: String(d.id) }, { cookie: admin.cookie }))));
    const first = await debit();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ok: true, toast: 'Disputed amount debited' });
    expect(await balanceOf(d.wallet)).toBe('0.00000000');
    const again = await debit();
    expect(again.status).toBe(409);
    expect(again.body.toast).toBe('The disputed amount was already debited');
    const entries = await sql`SELECT kind, amount::text AS amount, actor_id FROM ledger_entries WHERE ref_kind = ${DISPUTE_REF_KIND} AND ref_id = ${String(d.id)}`;
    expect(entries.map((e) => ({ ...e, actor_id: Number(e.actor_id) }))).toEqual([{ kind: 'reversal', amount: '-100.00000000', actor_id: admin.id }]);
    const [a] = await sql`SELECT actor_id, after FROM audit_events WHERE action = 'deposit.dispute_debit' AND target_id = ${String(d.id)}`;
    expect({ ...a, actor_id: Number(a.actor_id) }).toMatchObject({ actor_id: admin.id, after: { debited: '100.00', currency: 'USD', balance: '0.00000000' } });
    expect((await flagOf(d.id)).debited).toBe(true);
  });

  test('below zero is refused (the customer spent it) and nothing changes; roles other than 1–2 are refused', async () => {
    const d = await credited('wipays', '100.00');
    expect((await deliver('wipays', wipaysIpn(d.reference, 'chargeback_initiated', { amount: '40.00' }), { 'content-type': 'application/json' })).status).toBe(200);
    await sql`SELECT * FROM post_ledger(${d.wallet}, -80::numeric, 'adjustment', 'test', ${`spent-${d.id}`})`;
    const r = await debitDispute(sql, { id: admin.id, roleId: 1, ip: null }, d.id);
    expect(r).toMatchObject({ ok: false, status: 400, message: 'The balance cannot go below zero' });
    expect(await balanceOf(d.wallet)).toBe('20.00000000');
    expect((await flagOf(d.id)).debited).toBe(false);
    expect(await debitDispute(sql, { id: agent.id, roleId: 4, ip: null }, d.id)).toMatchObject({ ok: false, status: 403 });
    // money back in the wallet: the reported amount (in the wallet's currency, under the deposit's), by a manager
    await sql`SELECT * FROM post_ledger(${d.wallet}, 30::numeric, 'adjustment', 'test', ${`topup-${d.id}`})`;
    const ok = await debitDispute(sql, { id: manager.id, roleId: 2, ip: null }, d.id);
    expect(ok).toMatchObject({ ok: true, amount: '40.00', currency: 'USD', balance: '10.00000000' });
  });

  test('a deposit without a chargeback has nothing to debit', async () => {
    const d = await credited('stripe');
    expect(await debitDispute(sql, { id: admin.id, roleId: 1, ip: null }, d.id)).toMatchObject({ ok: false, status: 409 });
  });
});
