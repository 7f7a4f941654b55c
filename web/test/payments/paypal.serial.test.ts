// PayPal through the payments pipeline, against the msw handlers of test/mocks/payments.ts
// (PayPal's documented OAuth, Orders v2 and verify-webhook-signature APIs; the mock PayPal signs
// its notifications with its own RSA key as PayPal does): the wallet payment page, the order
// request, the capture at /payments/paypal/capture/{orderId}, the signed webhook, exactly once.
// Serial: it switches the site-wide PayPal gateway on with test keys.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, ensureGateways, walletFor, sessionFor, get, post, BASE, answerOf } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import {
  paymentHandlers, paypalApprove, paypalCalls, paypalCaptureEvent, paypalOrders, paypalSignatureHeaders, PAYPAL_CLIENT,
} from '../mocks/payments.ts';
import { reconcilePending, EXPIRED_REASON } from '~/modules/payments/payments.server.ts';
import * as index from '~/routes/_client.deposits._index.tsx';
import * as payPage from '~/routes/_client.deposits.paypal.$txRef.tsx';
import * as capture from '~/routes/payments.paypal.capture.$orderId.tsx';
import * as captureReturn from '~/routes/payments.paypal.capture._index.tsx';
import * as webhook from '~/routes/payments.webhooks.$gateway.tsx';

const sql = testSql(12);
const WEBHOOK_ID = 'WH0TEST00000001';
mockServer(...paymentHandlers, http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  await ensureGateways(sql);
  await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES ('paypal', 'PayPal', false, 0, false) ON CONFLICT (name) DO NOTHING`;
  [before] = await sql`SELECT key1, key2, key3, key4, fee, is_active FROM payment_gateways WHERE name = 'paypal'`;
  await sql`UPDATE payment_gateways SET key1 = ${PAYPAL_CLIENT.id}, key2 = ${PAYPAL_CLIENT.secret}, key3 = 'sandbox', key4 = ${WEBHOOK_ID}, fee = 0, is_active = true WHERE name = 'paypal'`;
});
afterAll(async () => {
  if (before) {
    await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, key3 = ${before.key3 as string | null},
                key4 = ${before.key4 as string | null}, fee = ${before.fee as string}, is_active = ${before.is_active as boolean} WHERE name = 'paypal'`;
  }
  await sql.end();
});

const args = (request: Request, params: Record<string, string> = {}): LoaderFunctionArgs => ({ request, params, context: {} });
const run = answerOf;

async function customer() {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id);
  return { ...u, wallet, cookie: (await sessionFor(sql, u.id)).cookie };
}

/** A PayPal deposit through /deposits and its wallet payment page: the deposit and its order. */
async function startDeposit(amount = '100') {
  const c = await customer();
  const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'paypal', amount }, { cookie: c.cookie }))));
  const [d] = await sql`SELECT id FROM deposits WHERE user_id = ${c.id}`;
  const id = Number(d.id);
  expect(r.location).toBe(`/deposits/paypal/${id}`);
  const page = await run(payPage.loader(args(get(`/deposits/paypal/${id}`, c.cookie), { txRef: String(id) })));
  expect(page.body.deposit).toMatchObject({ id, amount: `${Number(amount).toFixed(2)}`, currency: 'USD', status: 'pending' });
  const go = await run(payPage.action(args(post(`/deposits/paypal/${id}`, {}, { cookie: c.cookie }), { txRef: String(id) })));
  expect(go.status).toBe(302);
  const [{ reference }] = await sql`SELECT reference FROM deposits WHERE id = ${id}`;
  expect(go.location).toBe(`http://127.0.0.1:3000/payments/mock/paypal/${reference}`);
  return { c, id, orderId: reference as string };
}

function deliver(body: string, headers: Record<string, string>) {
  return run(webhook.action(args(new Request(`${BASE}/payments/webhooks/paypal`, { method: 'POST', headers, body }), { gateway: 'paypal' })));
}
const credits = async (id: number) => (await sql`SELECT amount::text AS amount FROM ledger_entries WHERE ref_kind = 'deposit' AND ref_id = ${String(id)}`).map((r) => r.amount);
const statusOf = async (id: number) => (await sql`SELECT status, decline_reason FROM deposits WHERE id = ${id}`)[0];
const eventsOf = (id: number) => sql`SELECT kind, outcome, reason FROM payment_events WHERE deposit_id = ${id} ORDER BY id`;

describe('order and capture', () => {
  test('the order is created with an OAuth token, for the total in the wallet currency, keyed by the deposit', async () => {
    const { id, orderId } = await startDeposit('100');
    const token = paypalCalls.filter((x) => x.path === '/v1/oauth2/token').at(-1)!;
    expect(token.auth).toBe(`Basic ${Buffer.from(`${PAYPAL_CLIENT.id}:${PAYPAL_CLIENT.secret}`).toString('base64')}`);
    expect(token.body).toEqual({ grant_type: 'client_credentials' });
    const create = paypalCalls.filter((x) => x.path === '/v2/checkout/orders').at(-1)!;
    expect(create.requestId).toBe(`deposit-${id}`);
    expect(create.auth).toMatch(/^Bearer A21AA/);
    expect(create.body).toMatchObject({
      intent: 'CAPTURE',
      purchase_units: [{ custom_id: String(id), amount: { currency_code: 'USD', value: '100.00' } }],
      payment_source: { paypal: { experience_context: { return_url: 'http://127.0.0.1:3000/payments/paypal/capture', cancel_url: `http://127.0.0.1:3000/payments/return/${id}?cancelled=1` } } },
    });
    expect(paypalOrders.get(orderId)?.status).toBe('PAYER_ACTION_REQUIRED');
  });

  test('approved, back at the capture page: captured once, credited once, Deposit Successful; again: nothing more', async () => {
    const { c, id, orderId } = await startDeposit('100');
    const ret = await run(Promise.resolve().then(() => captureReturn.loader(args(get(`/payments/paypal/capture?token=${orderId}&PayerID=X`, c.cookie)))));
    expect(ret.location).toBe(`/payments/paypal/capture/${orderId}`);
    paypalApprove(orderId);
    const r = await run(capture.loader(args(get(`/payments/paypal/capture/${orderId}`, c.cookie), { orderId })));
    expect(r.location).toBe('/deposits?status=success&amount=100.00&currency=USD');
    expect(await credits(id)).toEqual(['100.00000000']);
    const again = await run(capture.loader(args(get(`/payments/paypal/capture/${orderId}`, c.cookie), { orderId })));
    expect(again.location).toBe('/deposits?status=success&amount=100.00&currency=USD');
    expect(await credits(id)).toHaveLength(1);
    // PayPal's PAYMENT.CAPTURE.COMPLETED arriving afterwards: verified, changes nothing
    const o = paypalOrders.get(orderId)!;
    const body = paypalCaptureEvent({ id: orderId, amount: o.purchase_units[0].amount, customId: String(id) });
    expect((await deliver(body, paypalSignatureHeaders(body, WEBHOOK_ID))).status).toBe(200);
    expect(await credits(id)).toHaveLength(1);
    expect((await eventsOf(id)).map((e) => e.outcome)).toEqual(['applied', 'verified']);
    // another customer, or a made-up order: 404
    const other = await customer();
    expect((await run(capture.loader(args(get(`/payments/paypal/capture/${orderId}`, other.cookie), { orderId })))).status).toBe(404);
    expect((await run(capture.loader(args(get('/payments/paypal/capture/x', c.cookie), { orderId: 'x' })))).status).toBe(404);
  });

  test('not approved at PayPal: nothing captured, the deposit stays pending (Deposit Submitted)', async () => {
    const { c, id, orderId } = await startDeposit('12');
    const r = await run(capture.loader(args(get(`/payments/paypal/capture/${orderId}`, c.cookie), { orderId })));
    expect(r.location).toBe('/deposits?status=pending&amount=12.00&currency=USD');
    expect(await statusOf(id)).toMatchObject({ status: 'pending' });
  });
});

describe('webhook', () => {
  async function captured(amount = '25') {
    const d = await startDeposit(amount);
    paypalApprove(d.orderId);
    const o = paypalOrders.get(d.orderId)!;
    o.status = 'COMPLETED'; // captured at PayPal (say, by another tab): only the webhook tells us
    return { ...d, money: o.purchase_units[0].amount };
  }

  test('a signed PAYMENT.CAPTURE.COMPLETED credits once; 10 parallel deliveries and a replay change nothing more', async () => {
    const { c, id, orderId, money } = await captured('25');
    const body = paypalCaptureEvent({ id: orderId, amount: money, customId: String(id) });
    const results = await Promise.all(Array.from({ length: 10 }, () => deliver(body, paypalSignatureHeaders(body, WEBHOOK_ID))));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await credits(id)).toEqual(['25.00000000']);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('25.00000000');
    expect(await eventsOf(id)).toEqual([expect.objectContaining({ kind: 'webhook', outcome: 'applied' })]);
    // the verification call carried the raw body as webhook_event and the configured webhook id
    const verify = paypalCalls.filter((x) => x.path === '/v1/notifications/verify-webhook-signature').at(-1)!;
    expect(String(verify.body)).toContain(`"webhook_id":"${WEBHOOK_ID}"`);
    expect(String(verify.body).endsWith(`"webhook_event":${body}}`)).toBe(true);
  });

  test('a changed body, another webhook id, missing headers, an old transmission: 400, nothing credited', async () => {
    const { id, orderId, money } = await captured('26');
    const body = paypalCaptureEvent({ id: orderId, amount: money, customId: String(id) });
    const headers = paypalSignatureHeaders(body, WEBHOOK_ID);
    expect((await deliver(body.replace('26.00', '26.0'), headers)).status).toBe(400);
    expect((await deliver(body, paypalSignatureHeaders(body, 'OTHERWEBHOOK01'))).status).toBe(400);
    const { 'paypal-transmission-sig': _sig, ...unsigned } = headers;
    expect((await deliver(body, unsigned)).status).toBe(400);
    const old = await deliver(body, paypalSignatureHeaders(body, WEBHOOK_ID, new Date(Date.now() - 3600_000)));
    expect(old).toMatchObject({ status: 400, body: { error: 'stale_timestamp' } });
    expect(await credits(id)).toEqual([]);
    expect(await eventsOf(id)).toEqual([]);
  });

  test('a wrong amount or currency is rejected and held; a denied capture declines the deposit', async () => {
    const { id, orderId } = await captured('27');
    for (const amount of [{ currency_code: 'USD', value: '26.99' }, { currency_code: 'EUR', value: '27.00' }]) {
      const body = paypalCaptureEvent({ id: orderId, amount, customId: String(id) });
      expect((await deliver(body, paypalSignatureHeaders(body, WEBHOOK_ID))).status).toBe(200);
    }
    expect(await credits(id)).toEqual([]);
    expect((await eventsOf(id)).map((e) => e.reason)).toEqual(['Amount mismatch: paid 26.99 USD, expected 27.00 USD', 'Currency mismatch: paid EUR, expected USD']);
    expect(await statusOf(id)).toMatchObject({ status: 'pending' });
    const denied = paypalCaptureEvent({ id: orderId, amount: { currency_code: 'USD', value: '27.00' }, customId: String(id) }, 'PAYMENT.CAPTURE.DENIED');
    expect((await deliver(denied, paypalSignatureHeaders(denied, WEBHOOK_ID))).status).toBe(200);
    expect(await statusOf(id)).toMatchObject({ status: 'declined', decline_reason: 'Payment failed' });
  });
});

describe('expiry job', () => {
  test('an order never approved is expired after its time; a captured one is settled from the order status', async () => {
    const stale = await startDeposit('30');
    const paid = await startDeposit('31');
    paypalApprove(paid.orderId);
    const o = paypalOrders.get(paid.orderId)!;
    o.status = 'COMPLETED';
    o.purchase_units = [{ ...o.purchase_units[0], payments: { captures: [{ id: 'CAPX', status: 'COMPLETED', amount: o.purchase_units[0].amount, custom_id: String(paid.id) }] } }];
    await sql`UPDATE deposits SET created_at = now() - interval '2 hours' WHERE id IN ${sql([stale.id, paid.id])}`;
    await reconcilePending(sql, { minutes: 30, limit: 1000 });
    expect(await statusOf(stale.id)).toMatchObject({ status: 'declined', decline_reason: EXPIRED_REASON });
    expect(await statusOf(paid.id)).toMatchObject({ status: 'approved' });
    expect(await credits(paid.id)).toEqual(['31.00000000']);
  });
});
