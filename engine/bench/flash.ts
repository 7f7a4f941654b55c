// bench:flash — a flash crash: 10,000 positions on one instrument over 2,000 balances, all
// with their stop-loss at one level; one tick crosses them all. Measures the time from that
// tick until the last close is committed with the engine's batch closes (engine_close_orders,
// CLOSE_BATCH_SIZE), and, as the reference in the same run on the same database, the same
// crash on a second instrument settled with one close per statement (engine_close_order, the
// path before batching: batch size 1, 8 at once). Each run is an in-process core (the
// production Core, risk evaluator and executor) with an in-memory bus on a throw-away database.
// The pending case: 10,000 Buy Limits at 95 on a third instrument over the same balances; one
// tick (ask 94.01) reaches them all; the time until the last fill is committed with the batch
// activations (engine_activate_pendings, 1,000 a statement), and the reference on a fourth
// instrument with one fill per statement (batch size 1, 8 at once).
// Prints one JSON line.
import { freshDatabase } from './support.ts';
import { connect } from '../src/db.ts';
import { MemoryBus } from '../src/bus/index.ts';
import { Core } from '../src/core.ts';

const POSITIONS = Number(process.env.BENCH_POSITIONS ?? 10_000);
const BALANCES = Number(process.env.BENCH_BALANCES ?? 2_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 4);

const db = await freshDatabase(`bench_flash_${process.pid}`);
const { sql: seed } = db;

// 2,000 customers with a real balance each, funded through the ledger
await seed`INSERT INTO users (email, password_hash, full_name, role_id)
           SELECT 'flash' || g || '@bench.local', 'x', 'Flash', 3 FROM generate_series(1, ${BALANCES}) g`;
await seed`INSERT INTO balances (user_id, mode, currency) SELECT id, 'real', 'USD' FROM users WHERE email LIKE 'flash%'`;
await seed`SELECT post_ledger(b.id, 1000000, 'deposit', 'bench', 'flash-' || b.id) FROM balances b`;
// two instruments, each with POSITIONS buys opened at 100 (stop-loss 95) spread over the balances
for (const name of ['FLASHA_USD', 'FLASHB_USD']) {
  await seed`INSERT INTO instruments (name, base, quote, category, leverage) VALUES (${name}, ${name.slice(0, 6)}, 'USD', 'crypto', 10)`;
  await seed`
    INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, spread, margin_used, leverage, loss)
    SELECT b.user_id, b.id, i.id, 'buy', 'crypto', 1 + g % 7, 100, 0.01, margin_required(100, 1 + g % 7, 10, 1), 10, 95
      FROM generate_series(0, ${POSITIONS - 1}) g
      JOIN (SELECT id, user_id, row_number() OVER (ORDER BY id) - 1 AS n FROM balances) b ON b.n = g % ${BALANCES}
      CROSS JOIN (SELECT id FROM instruments WHERE name = ${name}) i`;
}
// POSITIONS Buy Limits at 95 on each of two more instruments (no margin reserved while pending)
for (const name of ['FLASHC_USD', 'FLASHD_USD']) {
  await seed`INSERT INTO instruments (name, base, quote, category, leverage) VALUES (${name}, ${name.slice(0, 6)}, 'USD', 'crypto', 10)`;
  await seed`
    INSERT INTO pending_orders (user_id, balance_id, instrument_id, type, order_type, price, trade_amount)
    SELECT b.user_id, b.id, i.id, 'buy', 'limit', 95, 1 + g % 7
      FROM generate_series(0, ${POSITIONS - 1}) g
      JOIN (SELECT id, user_id, row_number() OVER (ORDER BY id) - 1 AS n FROM balances) b ON b.n = g % ${BALANCES}
      CROSS JOIN (SELECT id FROM instruments WHERE name = ${name}) i`;
}
await seed`UPDATE balances b SET margin = o.m FROM (SELECT balance_id, sum(margin_used) AS m FROM orders GROUP BY balance_id) o WHERE o.balance_id = b.id`;
await seed`VACUUM ANALYZE`;

/** One crash on `symbol` with a core whose executor settles `batchSize` closes per statement. */
async function crash(symbol: string, batchSize: number, batchConcurrency = CONCURRENCY) {
  const sql = connect(db.url, { max: 20 });
  const bus = new MemoryBus();
  const core = new Core({ sql, bus, flushMs: 0, closeBatchSize: batchSize, closeBatchConcurrency: batchConcurrency });
  await core.start();
  core.ingest({ symbol, bid: 100, ask: 100.01, ts: Date.now() });   // a fresh price above every level
  await core.executor.idle();
  const t0 = performance.now();
  core.ingest({ symbol, bid: 90, ask: 90.01, ts: Date.now() });     // the crash: every stop-loss crossed
  await core.executor.idle();
  const ms = performance.now() - t0;
  const [{ closed }] = await sql<{ closed: bigint }[]>`
    SELECT count(*) AS closed FROM orders o JOIN instruments i ON i.id = o.instrument_id
     WHERE i.name = ${symbol} AND o.close_time IS NOT NULL`;
  // the customers' notifications are written after the closes commit: let them land first
  await core.notesIdle();
  const [{ notes }] = await sql<{ notes: bigint }[]>`SELECT count(*) AS notes FROM notifications WHERE data->>'instrument' = ${symbol.replace('_', '/')}`;
  const stats = { ms, closed: Number(closed), notes: Number(notes), batches: core.executor.batches, batchFailures: core.executor.batchFailures, failures: core.executor.failures };
  await core.stop();
  await bus.close();
  await sql.end();
  return stats;
}

/** One tick on `symbol` reaching every Buy Limit, with a core whose activator fills `batchSize` per statement. */
async function fills(symbol: string, batchSize: number, concurrency: number) {
  const sql = connect(db.url, { max: 20 });
  const bus = new MemoryBus();
  const core = new Core({ sql, bus, flushMs: 0, activateBatchSize: batchSize, activateConcurrency: concurrency });
  await core.start();
  core.ingest({ symbol, bid: 100, ask: 100.01, ts: Date.now() });   // a fresh price above every order's
  await core.pendingIdle();
  const t0 = performance.now();
  core.ingest({ symbol, bid: 94, ask: 94.01, ts: Date.now() });     // every Buy Limit at 95 reached
  await core.pendingIdle();
  const ms = performance.now() - t0;
  const [{ filled, opened }] = await sql<{ filled: bigint; opened: bigint }[]>`
    SELECT count(*) FILTER (WHERE x.status = 'filled') AS filled,
           (SELECT count(*) FROM orders o WHERE o.instrument_id = i.id AND o.open_rate = 94.01) AS opened
      FROM pending_orders x JOIN instruments i ON i.id = x.instrument_id WHERE i.name = ${symbol} GROUP BY i.id`;
  const stats = { ms, filled: Number(filled), opened: Number(opened), batches: core.activator.batches, failures: core.activator.failures };
  await core.executor.idle();
  await core.stop();
  await bus.close();
  await sql.end();
  return stats;
}

type Run = Awaited<ReturnType<typeof crash>>;
type Fill = Awaited<ReturnType<typeof fills>>;
let ref: Run, batch: Run, ledgerOk, pendRef: Fill, pendBatch: Fill;
try {
  ref = process.env.BENCH_REF === '0' ? { ms: NaN, closed: 0, notes: 0, batches: 0, batchFailures: 0, failures: 0 } : await crash('FLASHB_USD', 1);
  batch = await crash('FLASHA_USD', BATCH);
  pendRef = process.env.BENCH_REF === '0' ? { ms: NaN, filled: 0, opened: 0, batches: 0, failures: 0 } : await fills('FLASHD_USD', 1, 8);
  pendBatch = await fills('FLASHC_USD', BATCH, CONCURRENCY);
  // every balance equals its ledger, margins are back to 0
  const [chk] = await seed<{ bad: bigint; margin: string }[]>`
    SELECT count(*) FILTER (WHERE b.balance <> coalesce(l.sum, 0)) AS bad, sum(b.margin)::text AS margin
      FROM balances b LEFT JOIN (SELECT balance_id, sum(amount) AS sum
                                   FROM ledger_entries GROUP BY balance_id) l ON l.balance_id = b.id`;
  // the filled positions hold their margin (the crash's positions released theirs)
  const [held] = await seed<{ m: string }[]>`SELECT coalesce(sum(margin_used), 0)::text AS m FROM orders WHERE close_time IS NULL`;
  ledgerOk = Number(chk.bad) === 0 && Number(chk.margin) === Number(held.m);
} finally {
  await seed.end();
  await db.drop();
}

const perS = (r: { ms: number; closed: number }) => Math.round(r.closed / (r.ms / 1000));
console.log(JSON.stringify({
  bench: 'flash', positions: POSITIONS, balances: BALANCES, batch_size: BATCH, batch_concurrency: CONCURRENCY,
  closed: batch.closed, ms_to_last_close: Math.round(batch.ms), closes_per_s: perS(batch), batches: batch.batches, batch_failures: batch.batchFailures,
  // the reference: the same crash, one close per statement
  ref_closed: ref.closed, ref_ms_to_last_close: Math.round(ref.ms), ref_closes_per_s: perS(ref),
  ratio: +(perS(batch) / perS(ref)).toFixed(1), notifications: batch.notes + ref.notes, ledger_equals_balances: ledgerOk,
  target: { ratio: 10, ms_to_last_close: 1000 },
  // one tick reaching 10,000 pending orders: filled in batches, against one fill per statement
  pending: {
    filled: pendBatch.filled, opened: pendBatch.opened, ms_to_last_fill: Math.round(pendBatch.ms), fills_per_s: Math.round(pendBatch.filled / (pendBatch.ms / 1000)),
    batches: pendBatch.batches, failures: pendBatch.failures,
    ref_filled: pendRef.filled, ref_ms_to_last_fill: Math.round(pendRef.ms), ref_fills_per_s: Math.round(pendRef.filled / (pendRef.ms / 1000)),
    ratio: +((pendBatch.filled / pendBatch.ms) / (pendRef.filled / pendRef.ms)).toFixed(1),
    target: { ratio: 10, ms_to_last_fill: 1000 },
  },
}));
process.exit(0);
