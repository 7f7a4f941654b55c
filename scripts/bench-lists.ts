// `npm run bench:lists`: how long the staff lists' loaders take at a broker's size (README "List
// speed at scale"). Uses DATABASE_URL's database (or the embedded one); loads the scale data
// first when it is not there (`npm run seed:scale`: 100,000 customers, about a minute). Each list
// (customers, admin users, trades, deposits, withdrawals, KYC) is asked for its first page, a
// deep page and a filtered page, each case the page's loader called as the server calls it
// (session lookup, URL parsing, the list's queries) signed in as the first admin, BENCH_RUNS
// times after BENCH_WARMUP runs, after a VACUUM (ANALYZE) of the tables. The reference of a case is the same SQL run plainly: every
// statement the loader sent (captured from the pool, with its parameters) under `EXPLAIN
// ANALYZE`, their execution times added up. Progress goes to stderr; stdout is ONE JSON line:
//   {"runs":30,"data":{…counts},"lists":{"customers":{"first":{"path","p50_ms","p95_ms","ref_ms","ratio","rows","total"},…},…},"max_p95_ms":…}
// ratio = p50 / ref_ms: what the app adds to the database's own work (below 1 when the loader
// runs its queries side by side).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type { LoaderFunctionArgs } from '@remix-run/node';
import postgres from 'postgres';
import { openAppDatabase } from './lib/database.ts';
import { repoRoot } from './lib/postgres.ts';
import { ROLE } from '../engine/src/contract/roles.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const REF_RUNS = Number(process.env.BENCH_REF_RUNS ?? 5);
const log = (l: string) => process.stderr.write(`[bench:lists] ${l}\n`);

type Loader = (args: LoaderFunctionArgs) => unknown;
type Kind = 'first' | 'deep' | 'filtered' | string;
interface Case { list: string; kind: Kind; path: string; loader: () => Promise<Loader>; before?: () => Promise<void> }

const route = (file: string) => async () => (await import(`../web/app/routes/${file}.tsx`)).loader as Loader;
const customers = route('_staff.admin.customers.all');
const users = route('_staff.admin.users');
const trades = route('_staff.admin.trades.all');
const deposits = route('_staff.admin.deposits');
const history = route('_staff.admin.withdraws.history');
const pending = route('_staff.admin.withdraws.pending');
const kyc = route('_staff.admin.kyc');
const dashboard = route('_staff.admin._index');
const monthStart = () => new Date().toISOString().slice(0, 8) + '01';

const CASES: Case[] = [
  { list: 'admin_dashboard', kind: 'all_time', path: '/admin', loader: dashboard },
  { list: 'admin_dashboard', kind: 'this_month', path: `/admin?dateStart=${monthStart()}`, loader: dashboard },
  { list: 'admin_dashboard', kind: 'past_year', path: '/admin?dateStart=2025-01-01&dateEnd=2025-12-31', loader: dashboard },
  // each run reads the open book (every open order) afresh, as the first page of a process does
  { list: 'admin_dashboard', kind: 'open_book_afresh', path: '/admin', loader: dashboard,
    before: async () => (await import('../web/app/modules/admin-dashboard/dashboard.server.ts')).forgetOpenBook() },
  { list: 'customers', kind: 'first', path: '/admin/customers/all', loader: customers },
  { list: 'customers', kind: 'deep', path: '/admin/customers/all?page=6000', loader: customers },
  { list: 'customers', kind: 'filtered', path: '/admin/customers/all?search=customer4242', loader: customers },
  { list: 'customers', kind: 'filtered_broad', path: '/admin/customers/all?search=customer', loader: customers },
  { list: 'customers', kind: 'sorted_by_name_deep', path: '/admin/customers/all?sort=full_name&dir=asc&page=3000', loader: customers },
  { list: 'customers_inactive', kind: 'first', path: '/admin/customers/inactive', loader: route('_staff.admin.customers.inactive') },
  { list: 'admin_users', kind: 'first', path: '/admin/users', loader: users },
  { list: 'admin_users', kind: 'deep', path: '/admin/users?page=2&sort=email&dir=asc', loader: users },
  { list: 'admin_users', kind: 'filtered', path: '/admin/users?search=admin', loader: users },
  { list: 'trades', kind: 'first', path: '/admin/trades/all', loader: trades },
  { list: 'trades', kind: 'deep', path: '/admin/trades/all?page=6000', loader: trades },
  { list: 'trades', kind: 'filtered', path: '/admin/trades/all?instrument=EUR_USD&side=buy', loader: trades },
  { list: 'deposits', kind: 'first', path: '/admin/deposits', loader: deposits },
  { list: 'deposits', kind: 'deep', path: '/admin/deposits?page=10000', loader: deposits },
  { list: 'deposits', kind: 'filtered', path: '/admin/deposits?status=pending', loader: deposits },
  { list: 'deposits', kind: 'filtered_broad', path: '/admin/deposits?search=customer', loader: deposits },
  { list: 'withdrawals', kind: 'first', path: '/admin/withdraws/history', loader: history },
  { list: 'withdrawals', kind: 'deep', path: '/admin/withdraws/history?page=3900', loader: history },
  { list: 'withdrawals', kind: 'filtered', path: '/admin/withdraws/pending?search=customer', loader: pending },
  { list: 'kyc', kind: 'first', path: '/admin/kyc', loader: kyc },
  { list: 'kyc', kind: 'deep', path: '/admin/kyc?page=4000', loader: kyc },
  { list: 'kyc', kind: 'filtered', path: '/admin/kyc?search=sofia', loader: kyc },
];

const { url, server } = await openAppDatabase(log);
process.env.DATABASE_URL = url;
const sql = postgres(url, { max: 2, onnotice: () => {} });

// the scale data: reused when there, else loaded (seeds/scale.ts, the same database)
const [{ scale }] = await sql`SELECT count(*)::int AS scale FROM users WHERE email LIKE '%@scale.broker'`;
if (scale === 0) {
  log('no scale data: running npm run seed:scale (about a minute)');
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'seeds', 'scale.ts')], { stdio: ['ignore', 2, 2], env: process.env });
  if (r.status !== 0) throw new Error('seed:scale failed');
} else {
  // same migrations as the code under test (new indexes)
  const { migrate } = await import('./lib/postgres.ts');
  await migrate(url);
}
// the tables as autovacuum keeps them in production: visibility maps set (index-only scans read
// no rows from the heap) and fresh statistics, whatever was changed since the seed
log('VACUUM (ANALYZE) of the listed tables');
await sql`VACUUM (ANALYZE) users, profiles, sessions, balances, orders, deposits, withdrawals, kyc_documents`;

// The web pool, made here so every statement the loaders send is seen (with its parameters).
let captured: { query: string; params: unknown[] }[] | null = null;
const { enableLiveCache } = await import('../web/app/shared/live-cache.server.ts');
globalThis.__brokerSql = postgres(url, {
  max: 10, onnotice: () => {},
  types: { bigint: { to: 20, from: [20], parse: (x: string) => (Number.isSafeInteger(Number(x)) ? Number(x) : x), serialize: (x: unknown) => String(x) } },
  debug: (_conn, query, params) => { captured?.push({ query, params: params as unknown[] }); },
}) as never;
void enableLiveCache(globalThis.__brokerSql!, { app: true });

/** The summed execution time of the statements under EXPLAIN ANALYZE (the database's own work). */
async function reference(statements: { query: string; params: unknown[] }[]): Promise<number> {
  let total = 0;
  for (const s of statements) {
    const q = s.query.trim();
    if (!/^(SELECT|WITH)\b/i.test(q) || /\b(UPDATE|INSERT|DELETE)\b/i.test(q.slice(0, 200))) continue;
    const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${q}`, s.params as never[], { prepare: false });
    total += Number((row['QUERY PLAN'] as { 'Execution Time': number }[])[0]['Execution Time']);
  }
  return total;
}

const pct = (xs: number[], p: number) => Number([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1));

try {
  const [admin] = await sql`SELECT id FROM users WHERE role_id = ${ROLE.admin} AND deleted_at IS NULL AND is_active ORDER BY id LIMIT 1`;
  if (!admin) throw new Error('no admin: load the demo data first (npm start, or npm run seed:scale)');
  const { createSession } = await import('../web/app/modules/auth/session.server.ts');
  const { SESSION_COOKIE } = await import('../web/app/shared/cookies.server.ts');
  const { db } = await import('../web/app/shared/db.server.ts');
  const session = await createSession(db(), { userId: Number(admin.id), remember: false });
  const cookie = `${SESSION_COOKIE}=${session.token}`;
  const [data] = await sql`SELECT (SELECT count(*) FROM users WHERE role_id = ${ROLE.customer})::int AS customers, (SELECT count(*) FROM users WHERE role_id <> ${ROLE.customer})::int AS staff,
                                  (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM deposits)::int AS deposits,
                                  (SELECT count(*) FROM withdrawals)::int AS withdrawals, (SELECT count(*) FROM kyc_documents)::int AS kyc`;
  log(`${JSON.stringify(data)}; ${RUNS} runs per case after ${WARMUP} warm-up runs`);
  const lists: Record<string, Record<string, unknown>> = {};
  let maxP95 = 0;
  // BENCH_CASES: only the lists whose name contains it
  for (const c of CASES.filter((x) => !process.env.BENCH_CASES || x.list.includes(process.env.BENCH_CASES))) {
    const loader = await c.loader();
    const call = async () => {
      await c.before?.();
      const request = new Request(`http://bench.local${c.path}`, { headers: { cookie } });
      const r = await loader({ request, params: {}, context: {} });
      const d = (r && typeof r === 'object' && 'data' in r ? (r as { data: unknown }).data : r) as { rows?: unknown[]; total?: number };
      return d;
    };
    const times: number[] = [];
    let last: { rows?: unknown[]; total?: number } = {};
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const t = performance.now();
      last = await call();
      if (i >= WARMUP) times.push(performance.now() - t);
    }
    captured = [];
    await call();
    const statements = captured;
    captured = null;
    const refs: number[] = [];
    for (let i = 0; i < REF_RUNS; i++) refs.push(await reference(statements));
    const p50 = pct(times, 0.5), p95 = pct(times, 0.95), ref = pct(refs, 0.5);
    maxP95 = Math.max(maxP95, p95);
    (lists[c.list] ??= {})[c.kind] = {
      path: c.path, p50_ms: p50, p95_ms: p95, ref_ms: ref, ratio: ref > 0 ? Number((p50 / ref).toFixed(2)) : null,
      rows: last.rows?.length ?? null, total: last.total ?? null,
    };
    log(`${c.list} ${c.kind}: p50 ${p50} ms, p95 ${p95} ms, EXPLAIN ANALYZE ${ref} ms (${statements.length} statements)`);
  }
  await sql`DELETE FROM sessions WHERE id = ${session.id}`;
  console.log(JSON.stringify({ runs: RUNS, warmup: WARMUP, data, lists, max_p95_ms: maxP95 }));
} finally {
  await sql.end();
  await server?.stop();
}
// the web pool and its cache listener are not meant to be closed: leave
process.exit(0);
