// bench:orders — 32 clients place and close market orders over HTTP against PostgreSQL for
// 20 s; pgbench runs a comparable three-statement transaction (lock the balance row, insert an
// order, update the balance) on the same server in the same run, as the reference: on the
// platform's own balances and orders tables (the ratio), and on bare tables (ratio_bare).
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, startEngine, seedAccounts, SECRET } from './support.ts';
import { percentile } from './stats.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PORT = Number(process.env.BENCH_PORT ?? 4311);

const db = await freshDatabase(`bench_orders_${process.pid}`);
const { sql } = db;
await sql`INSERT INTO instruments (name, base, quote, category, leverage) VALUES ('BENCH_USD', 'BENCH', 'USD', 'crypto', 10)`;
const accounts = await seedAccounts(sql, CLIENTS);

const engine = await startEngine({ DATABASE_URL: db.url, ENGINE_ROLE: 'core', DATABASE_POOL: process.env.BENCH_POOL ?? String(CLIENTS + 8) }, PORT);
const base = `http://127.0.0.1:${PORT}/v1`;
const headers = { 'content-type': 'application/json', 'x-engine-secret': SECRET };
await fetch(`${base}/test/quotes`, { method: 'POST', headers, body: JSON.stringify({ symbol: 'BENCH_USD', bid: 100, ask: 100.01 }) });

const lat: number[] = [];
let places = 0, closes = 0, errors = 0;
const deadline = performance.now() + SECONDS * 1000;
async function client(a: { userId: number; balanceId: number }) {
  while (performance.now() < deadline) {
    let t = performance.now();
    const r = await fetch(`${base}/orders`, { method: 'POST', headers, body: JSON.stringify({ userId: a.userId, type: places % 2 ? 'sell' : 'buy', instrument: 'BENCH_USD', amount: 1 }) });
    const body = await r.json() as { order?: { id: number } };
    lat.push(performance.now() - t);
    if (r.status !== 201 || !body.order) { if (errors++ < 3) console.error(r.status, JSON.stringify(body)); continue; }
    places++;
    t = performance.now();
    const c = await fetch(`${base}/orders/${body.order.id}/close`, { method: 'POST', headers, body: JSON.stringify({ userId: a.userId }) });
    const text = await c.text();
    lat.push(performance.now() - t);
    if (c.status === 200) closes++; else if (errors++ < 3) console.error(c.status, text);
  }
}
const t0 = performance.now();
try {
  await Promise.all(accounts.map(client));
} finally {
  engine.kill('SIGTERM');
}
const elapsed = (performance.now() - t0) / 1000;
engine.kill('SIGTERM');

// reference: pgbench, same server, same number of clients
const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbench-'));
await sql`CREATE TABLE bench_balances (id int PRIMARY KEY, balance numeric(24,8) NOT NULL, margin numeric(24,8) NOT NULL DEFAULT 0)`;
await sql`CREATE TABLE bench_orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, balance_id int NOT NULL, amount numeric(24,8) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`;
await sql`INSERT INTO bench_balances (id, balance) SELECT g, 1000000 FROM generate_series(1, ${CLIENTS}) g`;
const script = path.join(dir, 'order.sql');
writeFileSync(script, [
  '\\set bid :client_id + 1',
  'BEGIN;',
  'SELECT balance, margin FROM bench_balances WHERE id = :bid FOR UPDATE;',
  'INSERT INTO bench_orders (balance_id, amount) VALUES (:bid, 1);',
  'UPDATE bench_balances SET margin = margin + 1 WHERE id = :bid;',
  'END;',
].join('\n'));
// The same three statements on the platform's own tables (its indexes, keys and the balance
// guard trigger): what PostgreSQL alone does for the smallest place, on this schema.
const [{ iid }] = await sql`SELECT id AS iid FROM instruments WHERE name = 'BENCH_USD'`;
const first = accounts[0];
if (!accounts.every((a, i) => a.balanceId === first.balanceId + i && a.userId === first.userId + i)) throw new Error('bench accounts are not consecutive');
const platformScript = path.join(dir, 'platform-order.sql');
writeFileSync(platformScript, [
  `\\set bid :client_id + ${first.balanceId}`,
  `\\set uid :client_id + ${first.userId}`,
  'BEGIN;',
  'SELECT balance, margin FROM balances WHERE id = :bid FOR UPDATE;',
  `INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, margin_used, leverage) VALUES (:uid, :bid, ${iid}, 'buy', 'crypto', 1, 100.01, 10.001, 10);`,
  'UPDATE balances SET margin = margin + 10.001 WHERE id = :bid;',
  'END;',
].join('\n'));

const u = new URL(db.url);
const pgbench = (file: string) => {
  const r = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', String(CLIENTS), '-j', '4', '-T', String(Math.min(SECONDS, 10)), '-f', file,
    '-h', u.hostname, '-p', u.port || '5432', '-U', u.username || 'postgres', u.pathname.slice(1)], { encoding: 'utf8' });
  const v = Number(/tps = ([\d.]+)/.exec(r.stdout)?.[1] ?? NaN);
  if (!Number.isFinite(v)) console.error(r.stdout, r.stderr);
  return v;
};
const tps = pgbench(script);
const platformTps = pgbench(platformScript);

await sql.end();
await db.drop();
lat.sort((a, b) => a - b);
const ordersPerS = (places + closes) / elapsed;
console.log(JSON.stringify({
  bench: 'orders', clients: CLIENTS, seconds: +elapsed.toFixed(1),
  orders_per_s: Math.round(ordersPerS), places_per_s: Math.round(places / elapsed), closes_per_s: Math.round(closes / elapsed),
  p50_ms: +percentile(lat, 50).toFixed(2), p99_ms: +percentile(lat, 99).toFixed(2), errors,
  // the reference: the same three-statement place on the platform's own tables
  pgbench_tps: Math.round(platformTps), ratio: +(ordersPerS / platformTps).toFixed(2),
  // and on bare tables (no secondary indexes, keys or triggers), for scale
  pgbench_bare_tps: Math.round(tps), ratio_bare: +(ordersPerS / tps).toFixed(2),
  target: { ratio: 0.5 },
}));
process.exit(0);
