// Mass closes (engine_close_orders and the executor's batches) against real PostgreSQL: a batch
// equals closing the same orders one by one (engine_close_order) to the cent — balances,
// margins, ledger rows, P/L, write-offs; a batch racing single closes closes each order once;
// batches over the same balances in opposite orders do not deadlock; one bad order does not
// hold up the others.
import { afterAll, describe, expect, test } from 'bun:test';
import { createInstrument, createUser, cryptoEngine, db } from './helpers.ts';
import { CASES } from './trading-cases.ts';
import { exact, money, rate } from '../src/domain/index.ts';
import { EVENTS, type RealtimeEvent } from '../src/core.ts';
import { CloseExecutor } from '../src/risk/executor.ts';
import { refuse } from '../src/orders/results.ts';

const sql = db(24);
afterAll(() => sql.end());

interface Spec {
  side: 'buy' | 'sell'; amount: string; open: string; spread?: string; xr?: string; margin: string;
  bid: string; ask: string; reason?: 'tp' | 'sl' | 'stop_out' | 'zero_equity' | 'admin' | 'manual';
  /** index of the balance (of the scenario's `deposits`) the order is on */
  on: number;
}
interface Scenario { name: string; deposits: string[]; /** used margin of each balance (default: the sum of its orders') */ margins?: string[]; orders: Spec[] }

/** Builds a scenario's balances and orders; returns the order ids in spec order and the balance ids. */
async function build(s: Scenario) {
  const inst = await createInstrument(sql);
  const balances: number[] = [];
  const users: number[] = [];
  for (const d of s.deposits) {
    const u = await createUser(sql, { deposit: d });
    balances.push(u.balanceId); users.push(u.userId);
  }
  // one statement, the ids in spec order
  const rows = await sql<{ id: bigint }[]>`
    INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, spread, margin_used, leverage)
    SELECT u, b, ${inst.id}, side::order_side, 'crypto', amount, open, xr, spread, margin, 10
      FROM unnest(${s.orders.map((o) => String(users[o.on]))}::bigint[], ${s.orders.map((o) => String(balances[o.on]))}::bigint[],
                  ${s.orders.map((o) => o.side)}::text[], ${s.orders.map((o) => o.amount)}::numeric[], ${s.orders.map((o) => o.open)}::numeric[],
                  ${s.orders.map((o) => o.xr ?? '1')}::numeric[], ${s.orders.map((o) => o.spread ?? '0')}::numeric[],
                  ${s.orders.map((o) => o.margin)}::numeric[]) WITH ORDINALITY AS v (u, b, side, amount, open, xr, spread, margin, k)
     ORDER BY k
    RETURNING id`;
  const ids = rows.map((r) => String(r.id)).sort((x, y) => Number(x) - Number(y));
  for (let b = 0; b < balances.length; b++) {
    const m = s.margins?.[b] ?? s.orders.filter((o) => o.on === b).reduce((a, o) => a.plus(o.margin), money(0)).toString();
    await sql`UPDATE balances SET margin = ${m} WHERE id = ${balances[b]}`;
  }
  return { ids, balances };
}

/** Everything a close leaves behind, with order ids replaced by their index in the scenario. */
async function snapshot(ids: string[], balances: number[], answers: { status: string; balance_after: string | null }[]) {
  const index = new Map(ids.map((id, i) => [id, i]));
  const orders = await sql<{ id: bigint; close_rate: string | null; pro_loss: string | null; close_reason: string | null; open: boolean }[]>`
    SELECT id, close_rate::text, pro_loss::text, close_reason::text, close_time IS NULL AS open FROM orders WHERE id = ANY (${ids}::bigint[]) ORDER BY id`;
  const bal = await sql<{ balance: string; margin: string }[]>`
    SELECT balance::text, margin::text FROM balances WHERE id = ANY (${balances}::bigint[]) ORDER BY id`;
  const ledger = await sql<{ balance_id: bigint; kind: string; amount: string; balance_after: string; ref_kind: string; ref_id: string; memo: string | null }[]>`
    SELECT balance_id, kind::text, amount::text, balance_after::text, ref_kind, ref_id, memo
      FROM ledger_entries WHERE balance_id = ANY (${balances}::bigint[]) AND kind <> 'deposit' ORDER BY balance_id, id`;
  return {
    answers,
    orders: orders.map((o) => ({ ...o, id: index.get(String(o.id)) })),
    balances: [...bal],
    ledger: ledger.map((l) => ({ ...l, balance_id: balances.indexOf(Number(l.balance_id)), ref_id: index.get(l.ref_id) })),
  };
}

async function oneByOne(s: Scenario) {
  const { ids, balances } = await build(s);
  const answers = [];
  for (const [i, o] of s.orders.entries()) {
    const [r] = await sql<{ status: string; balance_after: string | null }[]>`
      SELECT status, balance_after::text FROM engine_close_order(${ids[i]}, NULL, ${o.bid}, ${o.ask}, ${o.reason ?? 'sl'}, NULL, NULL)`;
    answers.push(r);
  }
  return snapshot(ids, balances, answers);
}

async function batch(s: Scenario) {
  const { ids, balances } = await build(s);
  const rows = await sql<{ order_id: bigint; status: string; balance_after: string | null }[]>`
    SELECT order_id, status, balance_after::text FROM engine_close_orders(${ids}::bigint[], ${s.orders.map((o) => o.bid)}::numeric[],
      ${s.orders.map((o) => o.ask)}::numeric[], ${s.orders.map((o) => o.reason ?? 'sl')}::close_reason[])`;
  expect(rows.map((r) => String(r.order_id))).toEqual(ids);
  return snapshot(ids, balances, rows.map(({ status, balance_after }) => ({ status, balance_after })));
}

/** The trading cases of the parity test, each an order opened and closed as they say. */
const fromCases: Spec[] = CASES.map((c, i) => {
  const units = exact.lotsToUnits(c.category, c.lots);
  const open = rate(exact.markRate(c.side, c.open.bid, c.open.ask));
  return {
    side: c.side, amount: units.toString(), open: open.toString(), xr: c.xr, on: i % 3,
    spread: money(exact.spreadCost(c.open.bid, c.open.ask, c.spreadSetting, units)).toString(),
    margin: money(exact.marginRequired(open, units, c.leverage, c.xr)).toString(), bid: c.now.bid, ask: c.now.ask,
  };
});

const SCENARIOS: Scenario[] = [
  { name: 'the trading cases, over three balances', deposits: ['1000000', '50000', '20000'], orders: fromCases },
  { name: 'the trading cases on balances too small for their losses (write-offs)', deposits: ['50', '1', '0.5'], orders: fromCases },
  {
    name: 'a loss past the balance, then a profit, then a loss (write-off in the middle)', deposits: ['100'],
    orders: [
      { side: 'buy', amount: '1', open: '200', margin: '20', bid: '49', ask: '50', on: 0 },        // −150: −50, written off
      { side: 'sell', amount: '1', open: '90', margin: '9', bid: '50', ask: '51', reason: 'tp', on: 0 }, // +40
      { side: 'buy', amount: '1', open: '80', margin: '8', bid: '49', ask: '50', on: 0 },          // −30
      { side: 'buy', amount: '2', open: '60', margin: '12', bid: '49', ask: '50', reason: 'stop_out', on: 0 }, // −20: exactly 0
      { side: 'buy', amount: '1', open: '51', margin: '5', bid: '49', ask: '50', reason: 'zero_equity', on: 0 }, // −1: written off
    ],
  },
  {
    name: 'several balances interleaved, a zero P/L, an exact wipe-out and rounding to 8 decimals', deposits: ['10', '25.5', '7'],
    orders: [
      { side: 'buy', amount: '3.33333333', open: '1.2345678', xr: '1.2345678', spread: '0.00012345', margin: '0.41152260', bid: '1.10000001', ask: '1.10000003', on: 0 },
      { side: 'sell', amount: '1', open: '100', margin: '10', bid: '100', ask: '100.5', on: 1 },        // P/L 0: no ledger row
      { side: 'buy', amount: '1', open: '107', margin: '10.7', bid: '99.5', ask: '100', on: 2 },         // −7: exactly 0
      { side: 'sell', amount: '0.7', open: '20', spread: '0.01', margin: '1.4', bid: '60', ask: '61', on: 1 }, // −28.01: write-off
      { side: 'buy', amount: '5', open: '10', margin: '5', bid: '12', ask: '12.3', reason: 'tp', on: 0 },
      { side: 'sell', amount: '2', open: '30', xr: '0.85', margin: '6', bid: '29.99', ask: '30', reason: 'tp', on: 2 },
      { side: 'buy', amount: '1', open: '50', margin: '5', bid: '10', ask: '10.5', on: 1 },
    ],
  },
  {
    name: 'a balance whose used margin is less than its orders\' (release stops at 0)', deposits: ['1000'], margins: ['12'],
    orders: [
      { side: 'buy', amount: '1', open: '100', margin: '10', bid: '99', ask: '99.5', on: 0 },
      { side: 'buy', amount: '1', open: '100', margin: '10', bid: '101', ask: '101.5', on: 0 },
    ],
  },
];

describe('a batch close equals one-by-one closes', () => {
  test.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_, s) => {
    const one = await oneByOne(s);
    const many = await batch(s);
    expect(many).toEqual(one);
    // the scenario did what its name says: every order closed, the ledger equals the balances
    expect(many.orders.every((o) => !o.open)).toBe(true);
  }, 30_000);

  test('the write-off cases do write off, and each balance is the sum of its ledger', async () => {
    const s = SCENARIOS[2];
    const many = await batch(s);
    expect(many.ledger.map((l) => [l.kind, l.amount, l.balance_after])).toEqual([
      ['trade_pnl', '-150.00000000', '-50.00000000'], ['write_off', '50.00000000', '0.00000000'],
      ['trade_pnl', '40.00000000', '40.00000000'], ['trade_pnl', '-30.00000000', '10.00000000'],
      ['trade_pnl', '-20.00000000', '-10.00000000'], ['write_off', '10.00000000', '0.00000000'],
      ['trade_pnl', '-1.00000000', '-1.00000000'], ['write_off', '1.00000000', '0.00000000'],
    ]);
    expect(many.balances).toEqual([{ balance: '0.00000000', margin: '0.00000000' }]);
  });

  test('each posting of a batch is announced on balance_changed as post_ledger does, in order', async () => {
    const s: Scenario = { name: 'notify', deposits: ['100', '50'], orders: [
      { side: 'buy', amount: '1', open: '100', margin: '10', bid: '89', ask: '90', on: 0 },
      { side: 'buy', amount: '1', open: '100', margin: '10', bid: '104', ask: '105', on: 1 },
      { side: 'buy', amount: '2', open: '100', margin: '20', bid: '94', ask: '95', on: 0 },
    ] };
    const { ids, balances } = await build(s);
    const heard: { balanceId: number; balance: string }[] = [];
    const listener = await sql.listen('balance_changed', (p) => {
      const m = JSON.parse(p);
      if (balances.includes(Number(m.balanceId))) heard.push({ balanceId: Number(m.balanceId), balance: m.balance });
    });
    try {
      await sql`SELECT * FROM engine_close_orders(${ids}::bigint[], ${s.orders.map((o) => o.bid)}::numeric[],
        ${s.orders.map((o) => o.ask)}::numeric[], '{sl,tp,sl}')`;
      const end = Date.now() + 3000;
      while (heard.length < 3 && Date.now() < end) await Bun.sleep(10);
      await Bun.sleep(50);
      // 100 − 10 = 90, − 10 = 80; 50 + 5 = 55
      expect(heard.filter((h) => h.balanceId === balances[0])).toEqual([
        { balanceId: balances[0], balance: '90.00000000' }, { balanceId: balances[0], balance: '80.00000000' },
      ]);
      expect(heard.filter((h) => h.balanceId === balances[1])).toEqual([{ balanceId: balances[1], balance: '55.00000000' }]);
    } finally {
      await listener.unlisten();
    }
  });

  test('an order already closed or unknown answers as a single close would, and closes nothing twice', async () => {
    const s: Scenario = { name: 'twice', deposits: ['100'], orders: [
      { side: 'buy', amount: '1', open: '100', margin: '10', bid: '90', ask: '91', on: 0 },
      { side: 'buy', amount: '1', open: '100', margin: '10', bid: '90', ask: '91', on: 0 },
    ] };
    const { ids, balances } = await build(s);
    await sql`UPDATE orders SET deleted_at = now() WHERE id = ${ids[1]}`;
    const call = () => sql<{ status: string }[]>`
      SELECT status FROM engine_close_orders(${[ids[0], ids[1], '999999999999']}::bigint[], '{90,90,90}', '{91,91,91}', '{sl,sl,sl}')`;
    expect((await call()).map((r) => r.status)).toEqual(['ok', 'not_found', 'not_found']);
    expect((await call()).map((r) => r.status)).toEqual(['already_closed', 'not_found', 'not_found']);
    const snap = await snapshot(ids, balances, []);
    expect(snap.ledger.map((l) => [l.kind, l.amount])).toEqual([['trade_pnl', '-9.00000000']]);
    expect(snap.balances).toEqual([{ balance: '91.00000000', margin: '10.00000000' }]);
  });

  test('a repeated id or arrays of different lengths are refused before anything changes', async () => {
    await expect(sql`SELECT * FROM engine_close_orders('{1,1}', '{1,1}', '{1,1}', '{sl,sl}')`).rejects.toThrow(/repeated/);
    await expect(sql`SELECT * FROM engine_close_orders('{1,2}', '{1}', '{1,1}', '{sl,sl}')`).rejects.toThrow(/different lengths/);
  });
});

/** n orders spread over `balances` fresh balances (deposit large enough for no write-off). */
async function crowd(nBalances: number, perBalance: number) {
  const s: Scenario = { name: 'crowd', deposits: Array(nBalances).fill('100000'), orders: [] };
  for (let k = 0; k < perBalance; k++) {
    for (let b = 0; b < nBalances; b++) {
      s.orders.push({ side: k % 2 ? 'sell' : 'buy', amount: String(1 + ((k + b) % 5)), open: '100', spread: '0.01', margin: '10', bid: '95', ask: '95.5', on: b });
    }
  }
  return { s, ...(await build(s)) };
}

async function exactlyOnce(ids: string[], balances: number[]) {
  // one trade_pnl row per order, and every balance equals its ledger with no margin left
  const [l] = await sql<{ n: bigint; distinct: bigint }[]>`
    SELECT count(*) AS n, count(DISTINCT ref_id) AS distinct FROM ledger_entries WHERE ref_kind = 'order' AND ref_id = ANY (${ids}::text[])`;
  expect(Number(l.n)).toBe(ids.length);
  expect(Number(l.distinct)).toBe(ids.length);
  const bad = await sql`
    SELECT b.id FROM balances b JOIN (SELECT balance_id, sum(amount) AS s FROM ledger_entries GROUP BY balance_id) l ON l.balance_id = b.id
     WHERE b.id = ANY (${balances}::bigint[]) AND (b.balance <> l.s OR b.margin <> 0)`;
  expect(bad.length).toBe(0);
  const [{ open }] = await sql<{ open: bigint }[]>`SELECT count(*) AS open FROM orders WHERE id = ANY (${ids}::bigint[]) AND close_time IS NULL`;
  expect(Number(open)).toBe(0);
}

describe('concurrency', () => {
  test('a batch racing single manual closes of the same orders closes each exactly once', async () => {
    for (let round = 0; round < 3; round++) {
      const { ids, balances } = await crowd(6, 10);
      const batchRun = sql<{ order_id: bigint; status: string }[]>`
        SELECT order_id, status FROM engine_close_orders(${ids}::bigint[], ${ids.map(() => '95')}::numeric[],
          ${ids.map(() => '95.5')}::numeric[], ${ids.map(() => 'sl')}::close_reason[])`;
      // the singles in reverse, so they meet the batch from the other end
      const singles = [...ids].reverse().map((id) => sql<{ status: string }[]>`
        SELECT status FROM engine_close_order(${id}, (SELECT user_id FROM orders WHERE id = ${id}), 95, 95.5, 'manual', NULL, NULL)`
        .then(([r]) => [id, r.status] as const));
      const [b, single] = await Promise.all([batchRun, Promise.all(singles)]);
      const byBatch = new Map(b.map((r) => [String(r.order_id), r.status]));
      for (const [id, st] of single) {
        // exactly one of the two closed it; the other learnt 'already_closed'
        expect([st, byBatch.get(id)].sort()).toEqual(['already_closed', 'ok']);
      }
      await exactlyOnce(ids, balances);
    }
  }, 60_000);

  test('two batches over the same balances in opposite orders (and singles) do not deadlock', async () => {
    for (let round = 0; round < 3; round++) {
      const { ids, balances } = await crowd(8, 12);
      const half = Math.floor(ids.length / 2);
      // orders of the same balances in both, listed in opposite balance orders
      const a = ids.filter((_, i) => i % 2 === 0);
      const b = ids.filter((_, i) => i % 2 === 1).reverse();
      const run = (list: string[]) => sql`
        SELECT status FROM engine_close_orders(${list}::bigint[], ${list.map(() => '95')}::numeric[],
          ${list.map(() => '95.5')}::numeric[], ${list.map(() => 'sl')}::close_reason[])`;
      const singles = ids.slice(0, half).map((id) => sql`SELECT status FROM engine_close_order(${id}, NULL, 95, 95.5, 'sl', NULL, NULL)`);
      await Promise.all([run(a), run(b), run([...a].reverse()), ...singles]);
      await exactlyOnce(ids, balances);
    }
  }, 60_000);
});

describe('the executor', () => {
  test('closes a tick\'s crossings in batches, publishes each close, and one bad order does not block the rest', async () => {
    const { E, BTC } = await cryptoEngine(sql);
    try {
      const users = await Promise.all([0, 1, 2].map(() => createUser(sql, { deposit: '100000' })));
      const ids: number[] = [];
      for (let k = 0; k < 12; k++) {
        const u = users[k % 3];
        const r = await E.call('POST', '/orders', { userId: u.userId, type: 'buy', instrument: BTC.name, amount: 1 + (k % 4), loss: 97 });
        expect(r.status).toBe(201);
        ids.push(r.body.order.id);
      }
      // the bad one: its close's ledger reference is already taken with other terms (post_ledger
      // refuses it, BAL05), so its batch fails as a whole and is then closed one by one
      const bad = ids[5];
      const [o] = await sql<{ balance_id: bigint }[]>`SELECT balance_id FROM orders WHERE id = ${bad}`;
      await sql`INSERT INTO ledger_entries (balance_id, kind, amount, balance_after, ref_kind, ref_id, memo)
                VALUES (${String(o.balance_id)}, 'trade_pnl', 1, 0, 'order', ${String(bad)}, 'test: taken')`;
      const closedEvents: number[] = [];
      const stop = E.bus.subscribe<RealtimeEvent>(EVENTS, (m) => { if (m.data.event === 'order.closed') closedEvents.push((m.data.data as { id: number }).id); });
      const before = { batches: E.core.executor.batches, failed: E.core.executor.batchFailures };
      const logged = console.error;
      console.error = () => {};
      try {
        await E.quote(BTC.name, 90, 90.5);
      } finally { console.error = logged; }
      expect(E.core.executor.batches).toBeGreaterThan(before.batches);
      expect(E.core.executor.batchFailures).toBe(before.failed + 1);
      const rows = await sql<{ id: bigint; close_reason: string | null; close_rate: string | null }[]>`
        SELECT id, close_reason::text, close_rate::text FROM orders WHERE id = ANY (${ids.map(String)}::bigint[]) ORDER BY id`;
      for (const r of rows) {
        if (Number(r.id) === bad) expect(r.close_reason).toBeNull();
        else expect([r.close_reason, r.close_rate]).toEqual(['sl', '90.5000000000']);
      }
      await Bun.sleep(20);
      stop();
      expect(closedEvents.sort((x, y) => x - y)).toEqual(ids.filter((id) => id !== bad));
      // each closed position left its customer a notification
      await E.core.notesIdle();
      const [{ n }] = await sql<{ n: bigint }[]>`SELECT count(*) AS n FROM notifications WHERE (data->>'id')::bigint = ANY (${ids.map(String)}::bigint[])`;
      expect(Number(n)).toBe(ids.length - 1);
    } finally {
      await E.stop();
    }
  }, 30_000);
});

describe('the executor\'s batches (no database)', () => {
  const tick = { bid: 95, ask: 95.5, ts: 0 }; // the quote the triggers fired on (unused here)
  test('at most batchSize each, a balance\'s closes together and in order, a failed batch retried one by one', async () => {
    const batches: number[][] = [];
    const singles: number[] = [];
    const released: number[] = [];
    const BAD = 1234;
    const ex = new CloseExecutor({
      close: async (r) => { singles.push(r.positionId); return r.positionId === BAD ? refuse('invalid', 'bad') : { ok: true, balanceAfter: null }; },
      closeMany: async (rs) => {
        batches.push(rs.map((r) => r.positionId));
        await Bun.sleep(1);
        if (rs.some((r) => r.positionId === BAD)) throw new Error('one bad order');
        return rs.map(() => ({ ok: true as const, balanceAfter: null }));
      },
      forget: () => {},
      release: (id) => released.push(id),
    }, { batchSize: 100, batchConcurrency: 3 });
    // 1,000 closes over 70 balances, arriving interleaved
    const reqs = Array.from({ length: 1000 }, (_, i) => ({ positionId: i, accountId: (i * 7) % 70, instrumentId: 1, reason: 'sl' as const, tick }));
    ex.submit(reqs);
    await ex.idle();
    const account = (id: number) => (id * 7) % 70;
    expect(batches.every((b) => b.length <= 100)).toBe(true);
    const seen = new Map<number, number>();
    batches.forEach((b, k) => b.forEach((id) => {
      // no balance in two batches, and its closes in the order asked
      expect(seen.get(account(id)) ?? k).toBe(k);
      seen.set(account(id), k);
    }));
    for (const b of batches) {
      for (const a of new Set(b.map(account))) {
        const mine = b.filter((id) => account(id) === a);
        expect(mine).toEqual([...mine].sort((x, y) => x - y));
      }
    }
    expect(batches.flat().sort((x, y) => x - y)).toEqual(reqs.map((r) => r.positionId));
    expect(ex.closesByReason.sl).toBe(1000);
    expect(singles).toEqual([]);
    // now one bad order in a batch: the batch fails, its orders are closed one by one, only the bad one fails
    const logged = console.error;
    console.error = () => {};
    try {
      ex.submit(Array.from({ length: 50 }, (_, i) => ({ positionId: 1200 + i, accountId: i % 5, instrumentId: 1, reason: 'sl' as const, tick })));
      await ex.idle();
    } finally { console.error = logged; }
    expect(ex.batchFailures).toBe(1);
    expect(singles.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => 1200 + i));
    expect(ex.closesByReason.sl).toBe(1049);
    expect(ex.failures).toBe(1);
    await Bun.sleep(1100);
    expect(released).toEqual([BAD]);
  });
});
