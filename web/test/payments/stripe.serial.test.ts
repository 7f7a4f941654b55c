// Stripe through the payments pipeline (modules/payments), against the msw handlers of
// test/mocks/payments.ts (Stripe's documented formats): the Checkout Session request, the
// webhook's signature and timestamp tolerance, exactly-once credits whatever the order or number
// of deliveries, amount / currency mismatches held for review, the return URL, the expiry job.
// Serial: it switches the site-wide Stripe gateway on with test keys.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, ensureGateways, walletFor, sessionFor, get, post, BASE, answerOf } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { paymentHandlers, stripeCalls, stripeEvent, stripePay, stripeSessions, stripeSignature, type MockSession } from '../mocks/payments.ts';
import { reconcileOnce, reconcilePending, EXPIRED_REASON } from '~/modules/payments/payments.server.ts';
import * as index from '~/routes/_client.deposits._index.tsx';
import * as webhook from '~/routes/payments.webhooks.$gateway.tsx';
import * as back from '~/routes/payments.return.$depositId.tsx';
import * as staffDeposits from '~/routes/_staff.admin.deposits.tsx';

const sql = testSql(12);
const SECRET = 'whsec_test_secret_0123456789';
mockServer(...paymentHandlers, http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  await ensureGateways(sql);
  [before] = await sql`SELECT key1, key2, fee, is_active FROM payment_gateways WHERE name = 'stripe'`;
  await sql`UPDATE payment_gateways SET key1 = 'sk_test_unit0000', key2 = ${SECRET}, fee = 2.9, is_active = true WHERE name = 'stripe'`;
});
afterAll(async () => {
  if (before) await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, fee = ${before.fee as string}, is_active = ${before.is_active as boolean} WHERE name = 'stripe'`;
  await sql.end();
});

const args = (request: Request, params: Record<string, string> = {}): LoaderFunctionArgs => ({ request, params, context: {} });
const run = answerOf;

async function customer(currency = 'USD') {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id, { currency });
  return { ...u, wallet, cookie: (await sessionFor(sql, u.id)).cookie };
}

/** A customer's Stripe deposit of `amount`, started through /deposits: its id and Checkout Session. */
async function startDeposit(amount = '100') {
  const c = await customer();
  const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'stripe', amount }, { cookie: c.cookie }))));
  expect(r.status).toBe(302);
  const [d] = await sql`SELECT id, reference, status, total::text AS total FROM deposits WHERE user_id = ${c.id}`;
  const session = stripeSessions.get(d.reference)!;
  expect(r.location).toBe(session.url);
  return { c, id: Number(d.id), session, total: d.total as string };
}

function deliver(body: string, signature: string) {
  return run(webhook.action(args(new Request(`${BASE}/payments/webhooks/stripe`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body,
  }), { gateway: 'stripe' })));
}
const signed = (body: string, t?: number) => deliver(body, stripeSignature(body, SECRET, t));

const depositOf = async (id: number) => (await sql`SELECT status, decline_reason, decided_by, balance_after::text AS balance_after FROM deposits WHERE id = ${id}`)[0];
const credits = async (id: number) => (await sql`SELECT amount::text AS amount FROM ledger_entries WHERE ref_kind = 'deposit' AND ref_id = ${String(id)}`).map((r) => r.amount);
const eventsOf = (id: number) => sql`SELECT event_id, kind, state, outcome, reason, amount::text AS amount, currency FROM payment_events WHERE deposit_id = ${id} ORDER BY id`;
const balance = async (wallet: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b;

describe('Checkout Session', () => {
  test('a deposit creates a pending deposit with the fee and a session for its total, in minor units, keyed by the deposit', async () => {
    const { id, session, total } = await startDeposit('100');
    expect(total).toBe('102.90');
    const call = [...stripeCalls].reverse().find((x) => x.path === '/v1/checkout/sessions')!;
    expect(call.auth).toBe('Bearer sk_test_unit0000');
    expect(call.idempotencyKey).toBe(`deposit-${id}`);
    expect(call.form).toMatchObject({
      mode: 'payment', 'line_items[0][quantity]': '1', 'line_items[0][price_data][currency]': 'usd', 'line_items[0][price_data][unit_amount]': '10290',
      client_reference_id: String(id), 'metadata[deposit_id]': String(id), success_url: `http://127.0.0.1:3000/payments/return/${id}`,
    });
    // closed when the deposit stops waiting (created + PAYMENT_PENDING_MINUTES, at least Stripe's 30 minutes)
    expect(Number(call.form.expires_at) - Date.now() / 1000).toBeGreaterThan(29 * 60);
    expect(session.amount_total).toBe(10290);
    expect((await depositOf(id)).status).toBe('pending');
  });

  test('an inactive gateway or an unknown one starts nothing', async () => {
    const c = await customer();
    const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'moonpay', amount: '10' }, { cookie: c.cookie }))));
    expect(r.status).toBe(400);
    expect((await sql`SELECT count(*)::int AS n FROM deposits WHERE user_id = ${c.id}`)[0].n).toBe(0);
  });

  test('Stripe refusing the key declines the deposit at once with a message (no pending deposit left behind)', async () => {
    await sql`UPDATE payment_gateways SET key1 = 'bad-key' WHERE name = 'stripe'`;
    try {
      const c = await customer();
      const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'stripe', amount: '10' }, { cookie: c.cookie }))));
      expect(r.status).toBe(503);
      expect(r.body.toast).toBe('The payment provider is unavailable. Please try again in a moment.');
      const [d] = await sql`SELECT status FROM deposits WHERE user_id = ${c.id}`;
      expect(d.status).toBe('declined');
    } finally {
      await sql`UPDATE payment_gateways SET key1 = 'sk_test_unit0000' WHERE name = 'stripe'`;
    }
  });
});

describe('webhook', () => {
  test('a valid checkout.session.completed credits the amount once, through the ledger; a replay changes nothing', async () => {
    const { c, id, session } = await startDeposit('100');
    const body = stripeEvent(stripePay(session.id)!);
    expect(await signed(body)).toMatchObject({ status: 200 });
    expect(await depositOf(id)).toMatchObject({ status: 'approved', decided_by: null, balance_after: '100.00000000' });
    expect(await credits(id)).toEqual(['100.00000000']);
    expect(await balance(c.wallet)).toBe('100.00000000');
    expect(await eventsOf(id)).toEqual([expect.objectContaining({ state: 'paid', outcome: 'applied', amount: '102.90000000', currency: 'USD' })]);
    // the same delivery again, freshly signed: nothing
    expect(await signed(body)).toMatchObject({ status: 200 });
    expect(await credits(id)).toHaveLength(1);
    expect(await eventsOf(id)).toHaveLength(1);
    const [a] = await sql`SELECT actor_id, after FROM audit_events WHERE target_kind = 'deposit' AND target_id = ${String(id)} AND action = 'deposit.approve'`;
    expect(a.actor_id).toBeNull();
  });

  test('a bad signature, a missing one, a body changed after signing: 400, nothing stored, nothing credited', async () => {
    const { id, session } = await startDeposit('10');
    const body = stripeEvent(stripePay(session.id)!);
    expect((await deliver(body, stripeSignature(body, 'whsec_someone_else'))).status).toBe(400);
    expect((await deliver(body, '')).status).toBe(400);
    expect((await deliver(body.replace('"paid"', '"paid" '), stripeSignature(body, SECRET))).status).toBe(400);
    expect(await depositOf(id)).toMatchObject({ status: 'pending' });
    expect(await credits(id)).toEqual([]);
    expect(await eventsOf(id)).toEqual([]);
  });

  test('a timestamp outside the tolerance (old or from the future) is refused', async () => {
    const { id, session } = await startDeposit('10');
    const body = stripeEvent(stripePay(session.id)!);
    const now = Math.floor(Date.now() / 1000);
    const old = await signed(body, now - 301);
    expect(old).toMatchObject({ status: 400, body: { error: 'stale_timestamp' } });
    expect((await signed(body, now + 400)).status).toBe(400);
    expect(await credits(id)).toEqual([]);
    expect(await signed(body, now - 200)).toMatchObject({ status: 200 });
    expect(await credits(id)).toHaveLength(1);
  });

  test('a wrong amount or a wrong currency is held for review: rejected with its reason, the deposit pending, nothing credited', async () => {
    const { id, session } = await startDeposit('100');
    const paid = stripePay(session.id)!;
    const less: MockSession = { ...paid, amount_total: 10289 };
    expect((await signed(stripeEvent(less))).status).toBe(200);
    const eur: MockSession = { ...paid, currency: 'eur' };
    expect((await signed(stripeEvent(eur))).status).toBe(200);
    expect(await depositOf(id)).toMatchObject({ status: 'pending' });
    expect(await credits(id)).toEqual([]);
    const events = await eventsOf(id);
    expect(events.map((e) => [e.outcome, e.reason])).toEqual([
      ['rejected', 'Amount mismatch: paid 102.89 USD, expected 102.90 USD'],
      ['rejected', 'Currency mismatch: paid EUR, expected USD'],
    ]);
  });

  test('10 parallel deliveries of the same event, and other events of the same payment in any order: one credit', async () => {
    const { c, id, session } = await startDeposit('55.55');
    const paid = stripePay(session.id)!;
    const body = stripeEvent(paid);
    const async = stripeEvent(paid, 'checkout.session.async_payment_succeeded');
    const results = await Promise.all([...Array.from({ length: 10 }, () => signed(body)), signed(async)]);
    expect(results.map((r) => r.status)).toEqual(Array(11).fill(200));
    expect(await credits(id)).toEqual(['55.55000000']);
    expect(await balance(c.wallet)).toBe('55.55000000');
    const events = await eventsOf(id);
    expect(events).toHaveLength(2);
    expect(events.filter((e) => e.outcome === 'applied')).toHaveLength(1);
    // a late 'expired' of the same session declines nothing once it is paid
    expect((await signed(stripeEvent({ ...paid, status: 'expired' }, 'checkout.session.expired'))).status).toBe(200);
    expect(await depositOf(id)).toMatchObject({ status: 'approved' });
  });

  test('an event of a session for another deposit, or of an unknown session, credits nothing', async () => {
    const a = await startDeposit('10');
    const b = await startDeposit('10');
    const paidA = stripePay(a.session.id)!;
    // a's session claiming to be b's deposit: the deposit was created with another session
    expect((await signed(stripeEvent({ ...paidA, metadata: { deposit_id: String(b.id) }, client_reference_id: String(b.id) }))).status).toBe(200);
    expect(await credits(b.id)).toEqual([]);
    expect((await signed(stripeEvent({ ...paidA, id: 'cs_test_unknown', metadata: {}, client_reference_id: null }))).status).toBe(200);
    expect(await credits(a.id)).toEqual([]);
  });

  test('an event kind we do not act on is acknowledged; an unknown gateway is 404', async () => {
    const body = JSON.stringify({ id: 'evt_other', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer' } } });
    expect(await signed(body)).toMatchObject({ status: 200 });
    const r = await run(webhook.action(args(new Request(`${BASE}/payments/webhooks/nope`, { method: 'POST', body: '{}' }), { gateway: 'nope' })));
    expect(r.status).toBe(404);
  });
});

describe('return URL and admin', () => {
  test('back from Checkout before the webhook: the session is asked, credited once, and the page says Deposit Successful', async () => {
    const { c, id, session } = await startDeposit('100');
    stripePay(session.id);
    const r = await run(back.loader(args(get(`/payments/return/${id}`, c.cookie), { depositId: String(id) })));
    expect(r.status).toBe(302);
    expect(r.location).toBe('/deposits?status=success&amount=100.00&currency=USD');
    expect(await credits(id)).toHaveLength(1);
    // the webhook arriving afterwards changes nothing
    expect((await signed(stripeEvent(stripeSessions.get(session.id)!))).status).toBe(200);
    expect(await credits(id)).toHaveLength(1);
    // another customer's deposit: 404
    const other = await customer();
    expect((await run(back.loader(args(get(`/payments/return/${id}`, other.cookie), { depositId: String(id) })))).status).toBe(404);
    expect((await run(back.loader(args(get('/payments/return/x', c.cookie), { depositId: 'x' })))).status).toBe(404);
  });

  test('cancelled at Checkout: the session is expired at Stripe at once, the deposit declined and the page says Deposit Failed', async () => {
    const { c, id, session } = await startDeposit('20');
    const r = await run(back.loader(args(get(`/payments/return/${id}?cancelled=1`, c.cookie), { depositId: String(id) })));
    expect(r.location).toBe('/deposits?status=failed&amount=20.00&currency=USD');
    expect(stripeCalls.some((x) => x.method === 'POST' && x.path === `/v1/checkout/sessions/${session.id}/expire`)).toBe(true);
    expect(stripeSessions.get(session.id)!.status).toBe('expired');
    expect(await depositOf(id)).toMatchObject({ status: 'declined', decline_reason: 'Payment failed' });
    expect(await credits(id)).toHaveLength(0);
    // the session's expired event arriving afterwards changes nothing
    expect((await signed(stripeEvent(stripeSessions.get(session.id)!, 'checkout.session.expired'))).status).toBe(200);
    expect((await depositOf(id)).status).toBe('declined');
  });

  test('back by the cancel URL after paying (the session no longer open): Stripe refuses the expiry, the payment is credited', async () => {
    const { c, id, session } = await startDeposit('25');
    stripePay(session.id);
    const r = await run(back.loader(args(get(`/payments/return/${id}?cancelled=1`, c.cookie), { depositId: String(id) })));
    expect(r.location).toBe('/deposits?status=success&amount=25.00&currency=USD');
    expect(await credits(id)).toHaveLength(1);
  });

  test("the admin deposit list carries each deposit's payment events", async () => {
    const { id, session } = await startDeposit('30');
    await signed(stripeEvent({ ...stripePay(session.id)!, amount_total: 1 }));
    await signed(stripeEvent(stripeSessions.get(session.id)!));
    const admin = await createUser(sql, { roleId: 1 });
    const cookie = (await sessionFor(sql, admin.id)).cookie;
    const r = await run(staffDeposits.loader(args(get(`/admin/deposits?search=${id}`, cookie))));
    const row = r.body.rows.find((x: { id: number }) => x.id === id);
    expect(row.paymentEvents.map((e: { outcome: string }) => e.outcome)).toEqual(['rejected', 'applied']);
    expect(row.paymentEvents[0].reason).toMatch(/^Amount mismatch/);
  });
});

describe('expiry job', () => {
  test('a card deposit pending past its time is asked: paid is credited, unpaid is declined Payment expired', async () => {
    const paid = await startDeposit('40');
    const unpaid = await startDeposit('41');
    const fresh = await startDeposit('42');
    stripePay(paid.session.id);
    await sql`UPDATE deposits SET created_at = now() - interval '31 minutes' WHERE id IN ${sql([paid.id, unpaid.id])}`;
    const r = await reconcilePending(sql, { minutes: 30, limit: 1000 });
    expect(r.settled).toBeGreaterThanOrEqual(1);
    expect(r.expired).toBeGreaterThanOrEqual(1);
    expect(await depositOf(paid.id)).toMatchObject({ status: 'approved' });
    expect(await credits(paid.id)).toEqual(['40.00000000']);
    expect(await depositOf(unpaid.id)).toMatchObject({ status: 'declined', decline_reason: EXPIRED_REASON });
    expect(await credits(unpaid.id)).toEqual([]);
    expect((await eventsOf(unpaid.id)).map((e) => [e.kind, e.outcome, e.reason])).toEqual([['expiry', 'applied', EXPIRED_REASON]]);
    expect(await depositOf(fresh.id)).toMatchObject({ status: 'pending' });
    // the webhook of the paid one arriving late: nothing more
    await signed(stripeEvent(stripeSessions.get(paid.session.id)!));
    expect(await credits(paid.id)).toHaveLength(1);
  });

  test('one process at a time: while another holds the job lock, a run does nothing', async () => {
    const held = sql.reserve();
    const conn = await held;
    try {
      await conn`SELECT pg_advisory_lock(hashtextextended('broker.payments.reconcile', 0))`;
      expect(await reconcileOnce(sql)).toBeNull();
      await conn`SELECT pg_advisory_unlock(hashtextextended('broker.payments.reconcile', 0))`;
      expect(await reconcileOnce(sql)).not.toBeNull();
    } finally {
      conn.release();
    }
  });
});
