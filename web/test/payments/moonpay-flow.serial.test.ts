// MoonPay through the payments pipeline (issue 22, "3. Payments"): a signed notification or a status
// answer credits a deposit only when the buy transaction went into the gateway's wallet, in its
// crypto, for the deposit's own customer. Before the fix, a customer who stripped walletAddress and
// signature from the widget URL and bought into their own wallet had the signed 'completed'
// notification for dep-N credit the deposit.
// Serial: it switches the site-wide MoonPay gateway on with test keys.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, walletFor } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { handleWebhook, reconcilePending } from '~/modules/payments/payments.server.ts';
import { moonpayHandlers, moonpayMock } from '../mocks/providers/moonpay.ts';

const sql = testSql(6);
const WALLET = '0xc216eD2D6c295579718dbd4a797845CdA70B3C36';
const KEYS = { key1: 'pk_test_mock', key2: 'sk_test_flow', key3: 'wk_test_flow', key4: WALLET, key5: 'usdc' };
mockServer(...moonpayHandlers, http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES ('moonpay', 'MoonPay', false, 0, false) ON CONFLICT (name) DO NOTHING`;
  [before] = await sql`SELECT key1, key2, key3, key4, key5, is_active FROM payment_gateways WHERE name = 'moonpay'`;
  await sql`UPDATE payment_gateways SET key1 = ${KEYS.key1}, key2 = ${KEYS.key2}, key3 = ${KEYS.key3}, key4 = ${KEYS.key4}, key5 = ${KEYS.key5}, is_active = true WHERE name = 'moonpay'`;
});
afterAll(async () => {
  if (before) {
    await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, key3 = ${before.key3 as string | null},
                key4 = ${before.key4 as string | null}, key5 = ${before.key5 as string | null}, is_active = ${before.is_active as boolean} WHERE name = 'moonpay'`;
  }
  await sql.end();
});

/** A customer's pending MoonPay deposit of 100.00 USD (reference dep-N, as startPayment writes it). */
async function pendingDeposit(createdAgo = '0 minutes') {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id);
  const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, created_at)
                        VALUES (${u.id}, ${wallet}, 'moonpay', 100, 0, 100, now() - ${createdAgo}::interval) RETURNING id`;
  await sql`UPDATE deposits SET reference = ${`dep-${d.id}`} WHERE id = ${d.id}`;
  return { userId: u.id, wallet, id: Number(d.id), ref: `dep-${d.id}` };
}

/** 100.00 paid: baseCurrencyAmount 95.45 + fees 3.99 + 0.56, as MoonPay reports it. */
const paid = (ref: string, o: Parameters<typeof moonpayMock.transaction>[1] = {}) =>
  moonpayMock.transaction(ref, { baseCurrencyAmount: 95.45, feeAmount: 3.99, networkFeeAmount: 0.56, id: crypto.randomUUID(), ...o });

function deliver(data: unknown) {
  const body = JSON.stringify({ type: 'transaction_updated', data });
  const t = String(Math.floor(Date.now() / 1000));
  const s = createHmac('sha256', KEYS.key3).update(`${t}.${body}`).digest('hex');
  return handleWebhook(sql, 'moonpay', new Request('http://app.test/payments/webhooks/moonpay', {
    method: 'POST', headers: { 'content-type': 'application/json', 'moonpay-signature-v2': `t=${t},s=${s}` }, body,
  }));
}

async function stateOf(d: { id: number; wallet: number }) {
  const [dep] = await sql`SELECT status FROM deposits WHERE id = ${d.id}`;
  const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${d.wallet}`;
  const events = await sql`SELECT outcome, reason FROM payment_events WHERE deposit_id = ${d.id} ORDER BY id`;
  return { status: dep.status as string, balance: b.balance as string, events: events.map((e) => ({ outcome: e.outcome, reason: e.reason })) };
}

describe('moonpay: only a purchase into the gateway wallet, in its crypto, by the deposit customer credits', () => {
  test('a signed completed notification of a purchase into the customer own wallet credits nothing', async () => {
    const d = await pendingDeposit();
    const r = await deliver(paid(d.ref, { walletAddress: '0x1111111111111111111111111111111111111111', externalCustomerId: String(d.userId) }));
    expect(r.status).toBe(200);
    const s = await stateOf(d);
    expect(s.status).toBe('pending');
    expect(Number(s.balance)).toBe(0);
    expect(s.events).toEqual([{ outcome: 'rejected', reason: expect.stringMatching(/^Wallet mismatch/) }]);
  });

  test('another crypto, or another customer, or no customer echoed: nothing credited, nothing declined', async () => {
    const d = await pendingDeposit();
    const other = await createUser(sql);
    await deliver(paid(d.ref, { cryptoCode: 'eth', externalCustomerId: String(d.userId) }));
    await deliver(paid(d.ref, { externalCustomerId: String(other.id) }));
    await deliver(paid(d.ref, { externalCustomerId: null }));
    // a failed purchase someone else started with our id does not decline the customer's deposit either
    await deliver(paid(d.ref, { status: 'failed', externalCustomerId: String(other.id) }));
    const s = await stateOf(d);
    expect(s.status).toBe('pending');
    expect(Number(s.balance)).toBe(0);
    expect(s.events.map((e) => e.outcome)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(s.events[0]!.reason).toMatch(/^Crypto mismatch/);
    expect(s.events[1]!.reason).toMatch(/^Customer mismatch/);
    expect(s.events[2]!.reason).toMatch(/^Customer mismatch/);
  });

  test('the genuine purchase (checksum casing of the wallet aside) credits the deposit once', async () => {
    const d = await pendingDeposit();
    await deliver(paid(d.ref, { walletAddress: WALLET.toLowerCase(), externalCustomerId: String(d.userId) }));
    const s = await stateOf(d);
    expect(s.status).toBe('approved');
    expect(Number(s.balance)).toBe(100);
  });

  test('the status job applies the same checks: a completed purchase into another wallet is held, never credited', async () => {
    moonpayMock.reset();
    const held = await pendingDeposit('2 hours');
    moonpayMock.txs.push(paid(held.ref, { walletAddress: '0x2222222222222222222222222222222222222222', externalCustomerId: String(held.userId) }));
    const good = await pendingDeposit('2 hours');
    // a failed attempt into another wallet beside the customer's completed one: the completed one into our wallet settles it
    moonpayMock.txs.push(paid(good.ref, { status: 'failed', walletAddress: '0x3333333333333333333333333333333333333333' }), paid(good.ref, { externalCustomerId: String(good.userId) }));
    await reconcilePending(sql, { minutes: 30, limit: 10_000 });
    const h = await stateOf(held);
    expect(h.status).toBe('pending');
    expect(Number(h.balance)).toBe(0);
    expect(h.events).toEqual([{ outcome: 'rejected', reason: expect.stringMatching(/^Wallet mismatch/) }]);
    const g = await stateOf(good);
    expect(g.status).toBe('approved');
    expect(Number(g.balance)).toBe(100);
    // the customer then buys into our wallet: the next run credits it (not a replay of the refused answer)
    moonpayMock.txs.push(paid(held.ref, { externalCustomerId: String(held.userId) }));
    await reconcilePending(sql, { minutes: 30, limit: 10_000 });
    expect(await stateOf(held)).toMatchObject({ status: 'approved', balance: '100.00000000' });
  });
});
