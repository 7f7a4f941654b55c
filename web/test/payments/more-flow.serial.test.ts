// The five more adapters wired into the payments pipeline (issue 13): registered in ADAPTERS, and
// the expiry job of the providers with no status API (Perfect Money, Wipays) expires their stale
// deposits without asking, the reason recorded in payment_events.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, createUser, walletFor } from '../helpers.ts';
import { ADAPTERS, adapterFor, reconcilePending, EXPIRED_REASON, EXPIRED_NO_STATUS_REASON } from '~/modules/payments/payments.server.ts';

const sql = testSql(4);
afterAll(async () => { await sql.end(); });

describe('more adapters', () => {
  test('all five are registered beside stripe and paypal', () => {
    for (const g of ['stripe', 'paypal', 'coinpayments', 'flutterwave', 'perfectmoney', 'moonpay', 'wipays']) {
      expect(adapterFor(g), g).toBe(ADAPTERS[g]);
      expect(adapterFor(g), g).not.toBeNull();
    }
    expect(adapterFor('globiance')).toBeNull();
  });

  test('a stale Perfect Money / Wipays deposit is expired without asking, the reason recorded; a fresh one is kept', async () => {
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id);
    const ref = `more-${u.id}`;
    const ids: Record<string, number> = {};
    for (const g of ['perfectmoney', 'wipays']) {
      const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, reference, created_at)
                            VALUES (${u.id}, ${wallet}, ${g}, 10, 0, 10, ${`${ref}-${g}`}, now() - interval '2 hours') RETURNING id`;
      ids[g] = Number(d.id);
    }
    const [fresh] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, reference)
                              VALUES (${u.id}, ${wallet}, 'wipays', 10, 0, 10, ${`${ref}-fresh`}) RETURNING id`;
    await reconcilePending(sql, { minutes: 30, limit: 10_000 });
    for (const [g, id] of Object.entries(ids)) {
      const [d] = await sql`SELECT status, decline_reason FROM deposits WHERE id = ${id}`;
      expect(d, g).toMatchObject({ status: 'declined', decline_reason: EXPIRED_REASON });
      const ev = await sql`SELECT kind, outcome, reason FROM payment_events WHERE deposit_id = ${id}`;
      expect(ev, g).toEqual([{ kind: 'expiry', outcome: 'applied', reason: EXPIRED_NO_STATUS_REASON }]);
      const [c] = await sql`SELECT count(*)::int AS n FROM payment_checks WHERE deposit_id = ${id} AND last_error IS NULL`;
      expect(c.n, g).toBe(1);
    }
    const [f] = await sql`SELECT status FROM deposits WHERE id = ${fresh.id}`;
    expect(f.status).toBe('pending');
  });
});
