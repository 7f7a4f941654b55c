// Wipays through the payments pipeline (issue 22, "3. Payments"): its IPN signs only identifier +
// timestamp and it has no API to read a payment back, so only the deposit's own figures are
// credited, and a signed IPN whose unsigned amount or currency are not exactly those is refused
// (recorded with that reason, nothing credited or declined); a copy of a signed IPN with other
// unsigned fields is a replay and changes nothing.
// Serial: it switches the site-wide Wipays gateway on with test keys.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, walletFor } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { handleWebhook } from '~/modules/payments/payments.server.ts';

const sql = testSql(6);
const SECRET = 'wp-secret-flow';
mockServer(http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true })));
let before: Record<string, unknown> | undefined;

beforeAll(async () => {
  await sql`INSERT INTO payment_gateways (name, title, is_manual, fee, is_active) VALUES ('wipays', 'WiPays', false, 0, false) ON CONFLICT (name) DO NOTHING`;
  [before] = await sql`SELECT key1, key2, is_active FROM payment_gateways WHERE name = 'wipays'`;
  await sql`UPDATE payment_gateways SET key1 = 'wp-public-flow', key2 = ${SECRET}, is_active = true WHERE name = 'wipays'`;
});
afterAll(async () => {
  if (before) await sql`UPDATE payment_gateways SET key1 = ${before.key1 as string | null}, key2 = ${before.key2 as string | null}, is_active = ${before.is_active as boolean} WHERE name = 'wipays'`;
  await sql.end();
});

/** A customer's pending Wipays deposit of 100.50 (total), in `currency`, created as startPayment leaves it. */
async function pendingDeposit(currency = 'USD') {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id, { currency });
  const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total) VALUES (${u.id}, ${wallet}, 'wipays', 100.50, 0, 100.50) RETURNING id`;
  await sql`UPDATE deposits SET reference = ${`dep-${d.id}`} WHERE id = ${d.id}`;
  return { id: Number(d.id), wallet, ref: `dep-${d.id}` };
}

let lastTs = 0;
/**
 * A signed IPN (the signature over identifier + timestamp only, as Wipays signs it). Each one gets
 * its own timestamp (one more than the last, a minute behind the clock at most): two IPNs with the
 * same identifier and timestamp are one signed event, the second a replay — two that straddled a
 * second boundary once collided and the second was never recorded.
 */
function ipn(identifier: string, o: { status?: string; amount?: string; currency?: string; ts?: number } = {}) {
  lastTs = Math.max(lastTs + 1, Math.floor(Date.now() / 1000) - 60);
  const timestamp = o.ts ?? lastTs;
  const signature = createHmac('sha256', SECRET).update(`${identifier}${timestamp}`).digest('hex').toUpperCase();
  return {
    timestamp,
    body: JSON.stringify({ identifier, status: o.status ?? 'success', signature, timestamp, data: { trx: 'WPTRX1', amount: o.amount ?? '100.50', currency: o.currency ?? 'USD', type: 'checkout', timestamp: '2026-11-27 10:00:00' } }),
  };
}
const deliver = (body: string) => handleWebhook(sql, 'wipays', new Request('http://app.test/payments/webhooks/wipays', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));

async function stateOf(d: { id: number; wallet: number }) {
  const [dep] = await sql`SELECT status FROM deposits WHERE id = ${d.id}`;
  const [b] = await sql`SELECT balance::text AS balance FROM balances WHERE id = ${d.wallet}`;
  const events = await sql`SELECT outcome, reason FROM payment_events WHERE deposit_id = ${d.id} ORDER BY id`;
  return { status: dep.status as string, balance: Number(b.balance), events: events.map((e) => ({ outcome: e.outcome, reason: e.reason as string | null })) };
}

describe('wipays: only the deposit\'s own figures are credited', () => {
  test('a signed IPN whose unsigned amount or currency is not the deposit\'s is refused: nothing credited, nothing declined', async () => {
    const d = await pendingDeposit();
    expect((await deliver(ipn(d.ref, { amount: '10.50' }).body)).status).toBe(200);
    expect((await deliver(ipn(d.ref, { currency: 'EUR' }).body)).status).toBe(200);
    const s = await stateOf(d);
    expect(s).toMatchObject({ status: 'pending', balance: 0 });
    expect(s.events).toEqual([
      { outcome: 'rejected', reason: "Refused: the notification's unsigned amount 10.50 USD is not the deposit's 100.50 USD; only the deposit's own figures are credited" },
      { outcome: 'rejected', reason: "Refused: the notification's unsigned amount 100.50 EUR is not the deposit's 100.50 USD; only the deposit's own figures are credited" },
    ]);
  });

  test('the deposit\'s own figures credit its amount once; a copy of the signed IPN with other unsigned fields is a replay', async () => {
    const d = await pendingDeposit();
    const first = ipn(d.ref, { amount: '100.5' });
    await deliver(first.body);
    expect(await stateOf(d)).toMatchObject({ status: 'approved', balance: 100.5 });
    // the same signed identifier + timestamp with a bigger amount / another status: changes nothing
    const copy = JSON.parse(first.body) as Record<string, unknown>;
    await deliver(JSON.stringify({ ...copy, status: 'failed', data: { ...(copy.data as object), amount: '99999' } }));
    const s = await stateOf(d);
    expect(s).toMatchObject({ status: 'approved', balance: 100.5 });
    expect(s.events).toEqual([{ outcome: 'applied', reason: null }]);
  });
});
