// The balance-posting function of docs/specs.md#ledger, against real PostgreSQL.
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { connect } from '~/shared/db.server.ts';

const sql = connect(process.env.DATABASE_URL!, 30);
afterAll(() => sql.end());

let balanceId: bigint;
let userId: bigint;
const uniq = () => `${Date.now()}-${Math.random().toString(36).slice(2)}`;

beforeEach(async () => {
  const [u] = await sql`
    INSERT INTO users (email, password_hash, full_name, role_id)
    VALUES (${`ledger-${uniq()}@test.local`}, 'x', 'Ledger Test', 3) RETURNING id`;
  userId = u.id;
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, 'real', 'USD') RETURNING id`;
  balanceId = b.id;
});

const post = (amount: string, ref: string, kind = 'adjustment', writeOff = false) =>
  sql`SELECT * FROM post_ledger(${balanceId}, ${amount}, ${kind}, 'test', ${`${balanceId}-${ref}`}, NULL, NULL, ${writeOff})`.then((r) => r[0]);
const balance = () => sql`SELECT balance::text FROM balances WHERE id = ${balanceId}`.then((r) => r[0].balance as string);
const entries = () => sql`SELECT kind, amount::text, balance_after::text FROM ledger_entries WHERE balance_id = ${balanceId} ORDER BY id`;

describe('post_ledger', () => {
  test('credits exactly, to the cent and below', async () => {
    await post('100.10', 'a');
    await post('0.20', 'b');
    await post('-0.30000001', 'c');
    expect(await balance()).toBe('99.99999999');
  });

  test('an idempotent credit applied twice credits once', async () => {
    const first = await post('250.00', 'dep-1', 'deposit');
    const second = await post('250.00', 'dep-1', 'deposit');
    expect(first.applied).toBe(true);
    expect(second.applied).toBe(false);
    expect(second.entry_id).toBe(first.entry_id);
    expect(await balance()).toBe('250.00000000');
    expect(await entries()).toHaveLength(1);
  });

  test('a debit past zero is refused and changes nothing', async () => {
    await post('50.00', 'seed');
    await expect(post('-50.01', 'too-much')).rejects.toMatchObject({ code: 'BAL01' });
    expect(await balance()).toBe('50.00000000');
    expect(await entries()).toHaveLength(1);
  });

  test('20 concurrent debits never overdraw the balance', async () => {
    await post('100.00', 'seed');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => sql.begin((tx) => tx`SELECT * FROM post_ledger(${balanceId}, -15, 'adjustment', 'test', ${`${balanceId}-debit-${i}`})`)),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toBe(6); // 6 × 15 = 90 fits in 100; the 7th would go below zero
    expect(refused).toHaveLength(14);
    for (const r of refused) expect((r as PromiseRejectedResult).reason.code).toBe('BAL01');
    expect(await balance()).toBe('10.00000000');
    const [{ sum }] = await sql`SELECT sum(amount)::text AS sum FROM ledger_entries WHERE balance_id = ${balanceId}`;
    expect(sum).toBe('10.00000000');
  });

  test('the same credit raced 10 times credits once', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => sql`SELECT * FROM post_ledger(${balanceId}, 75, 'deposit', 'test', ${`${balanceId}-raced`})`),
    );
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(await balance()).toBe('75.00000000');
    expect(await entries()).toHaveLength(1);
  });

  test('a loss past zero with write-off ends at exactly 0 and records the shortfall', async () => {
    await post('100.00', 'seed');
    const r = await post('-120.50', 'order-1', 'trade_pnl', true);
    expect(r.balance_after).toBe('0.00000000');
    expect(await balance()).toBe('0.00000000');
    expect((await entries()).slice(1)).toEqual([
      { kind: 'trade_pnl', amount: '-120.50000000', balance_after: '-20.50000000' },
      { kind: 'write_off', amount: '20.50000000', balance_after: '0.00000000' },
    ]);
  });

  test('refuses a reference already posted to another balance or for another amount', async () => {
    await post('10.00', 'shared');
    await expect(post('11.00', 'shared')).rejects.toMatchObject({ code: 'BAL05' });
    const [other] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, 'demo', 'USD') RETURNING id`;
    await expect(sql`SELECT * FROM post_ledger(${other.id}, 10, 'adjustment', 'test', ${`${balanceId}-shared`})`).rejects.toMatchObject({ code: 'BAL05' });
    expect(await balance()).toBe('10.00000000');
  });

  test('refuses a zero amount and an unknown balance', async () => {
    await expect(post('0', 'zero')).rejects.toMatchObject({ code: 'BAL03' });
    await expect(sql`SELECT * FROM post_ledger(-1, 5, 'deposit', 'test', 'nobody')`).rejects.toMatchObject({ code: 'BAL04' });
  });

  test('notifies balance_changed with the new balance', async () => {
    let resolve!: (msg: any) => void;
    const got = new Promise<any>((r) => { resolve = r; });
    // resolves once LISTEN is in force
    await sql.listen('balance_changed', (payload) => {
      const msg = JSON.parse(payload);
      if (String(msg.balanceId) === String(balanceId)) resolve(msg);
    });
    await post('42.00', 'notify');
    expect(await got).toMatchObject({ balance: '42.00000000', userId: Number(userId) });
  });
});

describe('ledger guarantees', () => {
  test('a balance cannot be changed outside post_ledger', async () => {
    await expect(sql`UPDATE balances SET balance = 1000 WHERE id = ${balanceId}`).rejects.toMatchObject({ code: 'BAL02' });
    await expect(sql`INSERT INTO balances (user_id, mode, currency, balance) VALUES (${userId}, 'demo', 'EUR', 5)`).rejects.toMatchObject({ code: 'BAL02' });
  });

  test('used margin can still be reserved directly', async () => {
    await sql`UPDATE balances SET margin = 12.5 WHERE id = ${balanceId}`;
    const [row] = await sql`SELECT margin::text FROM balances WHERE id = ${balanceId}`;
    expect(row.margin).toBe('12.50000000');
  });

  test('ledger entries are append-only', async () => {
    const { entry_id } = await post('10.00', 'immutable');
    await expect(sql`UPDATE ledger_entries SET amount = 1 WHERE id = ${entry_id}`).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM ledger_entries WHERE id = ${entry_id}`).rejects.toThrow(/append-only/);
    await expect(sql`TRUNCATE ledger_entries CASCADE`).rejects.toThrow(/append-only/);
  });

  test('audit events are append-only', async () => {
    const [a] = await sql`INSERT INTO audit_events (actor_id, action, target_kind, target_id) VALUES (${userId}, 'test.action', 'user', '1') RETURNING id`;
    await expect(sql`UPDATE audit_events SET action = 'x' WHERE id = ${a.id}`).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM audit_events WHERE id = ${a.id}`).rejects.toThrow(/append-only/);
  });
});
