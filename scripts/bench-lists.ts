// `npm run bench:lists`: how long the staff lists' loaders take at a broker's size. Run it on a
// database holding the scale data (`npm run seed:scale`, same DATABASE_URL). Each case is the
// page's loader called as the server calls it (session lookup, URL parsing, the list's queries),
// signed in as the first admin, BENCH_RUNS times after BENCH_WARMUP runs; it prints one line per
// case with p50 and p95 in ms, the rows on the page and the list's total (README "List speed at
// scale"). Other lists add their cases to CASES.
import { performance } from 'node:perf_hooks';
import type { LoaderFunctionArgs } from '@remix-run/node';
import postgres from 'postgres';
import { openAppDatabase } from './lib/database.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);

type Loader = (args: LoaderFunctionArgs) => unknown;
interface Case { name: string; path: string; loader: () => Promise<Loader>; before?: () => Promise<void> }

const kyc = async () => (await import('../web/app/routes/_staff.admin.kyc.tsx')).loader as Loader;
const pending = async () => (await import('../web/app/routes/_staff.admin.withdraws.pending.tsx')).loader as Loader;
const history = async () => (await import('../web/app/routes/_staff.admin.withdraws.history.tsx')).loader as Loader;
const dashboard = async () => (await import('../web/app/routes/_staff.admin._index.tsx')).loader as Loader;
const CASES: Case[] = [
  { name: 'Admin dashboard, all time', path: '/admin', loader: dashboard },
  { name: 'Admin dashboard, this month', path: `/admin?dateStart=${monthStart()}`, loader: dashboard },
  { name: 'Admin dashboard, a past year', path: '/admin?dateStart=2025-01-01&dateEnd=2025-12-31', loader: dashboard },
  // each run reads the open book (every open order) afresh, as the first page of a process does
  { name: 'Admin dashboard, all time, open exposure read afresh', path: '/admin', loader: dashboard, before: async () => (await import('../web/app/modules/admin-dashboard/dashboard.server.ts')).forgetOpenBook() },
  { name: 'KYC, all (page 1)', path: '/admin/kyc', loader: kyc },
  { name: 'KYC, pending', path: '/admin/kyc?status=pending', loader: kyc },
  { name: 'KYC, searched: a name shared by 1 in 8 customers', path: '/admin/kyc?search=sofia', loader: kyc },
  { name: 'KYC, searched: one customer by e-mail', path: '/admin/kyc?search=customer4242%40', loader: kyc },
  { name: 'KYC, searched: a first and last name (1 in 72)', path: '/admin/kyc?search=noah%20silva', loader: kyc },
  { name: 'KYC, searched + pending + uploaded this month', path: `/admin/kyc?search=sofia&status=pending&dateStart=${monthStart()}`, loader: kyc },
  { name: 'KYC, deep page (4,000 of 4,667)', path: '/admin/kyc?page=4000', loader: kyc },
  { name: 'KYC, pending, deep page (1,600 of 1,667)', path: '/admin/kyc?status=pending&page=1600', loader: kyc },
  { name: 'KYC, sorted by upload date, oldest first, page 100', path: '/admin/kyc?sort=created_at&dir=asc&page=100', loader: kyc },
  { name: 'Pending withdraws (page 1)', path: '/admin/withdraws/pending', loader: pending },
  { name: 'Pending withdraws, searched: one customer by e-mail', path: '/admin/withdraws/pending?search=customer13%40', loader: pending },
  { name: 'Pending withdraws, searched: every customer (customer…)', path: '/admin/withdraws/pending?search=customer', loader: pending },
  { name: 'Pending withdraws, searched: a customer or withdrawal id', path: '/admin/withdraws/pending?search=20', loader: pending },
  { name: 'Pending withdraws, sorted by amount', path: '/admin/withdraws/pending?sort=amount&dir=desc', loader: pending },
  { name: 'Pending withdraws, deep page (400 of 408)', path: '/admin/withdraws/pending?page=400', loader: pending },
  { name: 'Withdraw history, all (page 1)', path: '/admin/withdraws/history', loader: history },
  { name: 'Withdraw history, declined', path: '/admin/withdraws/history?status=declined', loader: history },
  { name: 'Withdraw history, requested this month', path: `/admin/withdraws/history?dateStart=${monthStart()}`, loader: history },
  { name: 'Withdraw history, approved, sorted by amount', path: '/admin/withdraws/history?status=approved&sort=amount&dir=asc', loader: history },
  { name: 'Withdraw history, deep page (3,900 of 4,000)', path: '/admin/withdraws/history?page=3900', loader: history },
  { name: 'Withdraw history, deep page at 50 a page (1,100 of 1,200)', path: '/admin/withdraws/history?page=1100&limit=50', loader: history },
];

function monthStart(): string {
  const d = new Date();
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

const { url, server } = await openAppDatabase((l) => console.log(`[bench:lists] ${l}`));
process.env.DATABASE_URL = url;
const sql = postgres(url, { max: 2, onnotice: () => {} });
try {
  const [admin] = await sql`SELECT id FROM users WHERE role_id = 1 AND deleted_at IS NULL AND is_active ORDER BY id LIMIT 1`;
  if (!admin) throw new Error('no admin: load the demo data first (npm start, or npm run seed:scale)');
  const { createSession, SESSION_COOKIE } = await import('../web/app/modules/auth/session.server.ts');
  const { db } = await import('../web/app/utils/db.server.ts');
  const session = await createSession(db(), { userId: Number(admin.id), remember: false });
  const cookie = `${SESSION_COOKIE}=${session.token}`;
  const [{ n, w }] = await sql`SELECT (SELECT count(*) FROM kyc_documents)::int AS n, (SELECT count(*) FROM withdrawals)::int AS w`;
  console.log(`[bench:lists] ${n} KYC documents, ${w} withdrawals; ${RUNS} runs per case after ${WARMUP} warm-up runs`);
  // BENCH_CASES: only the cases whose name contains it
  for (const c of CASES.filter((x) => !process.env.BENCH_CASES || x.name.includes(process.env.BENCH_CASES))) {
    const loader = await c.loader();
    const times: number[] = [];
    let last: { rows?: unknown[]; total?: number } = {};
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const request = new Request(`http://bench.local${c.path}`, { headers: { cookie } });
      await c.before?.();
      const t = performance.now();
      last = (await loader({ request, params: {}, context: {} })) as typeof last;
      if (i >= WARMUP) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
    console.log(JSON.stringify({ case: c.name, path: c.path, p50_ms: Number(q(0.5)), p95_ms: Number(q(0.95)), rows: last.rows?.length ?? null, total: last.total ?? null }));
  }
  await sql`DELETE FROM sessions WHERE id = ${session.id}`;
} finally {
  await sql.end();
  await server?.stop();
}
// the web pool and its cache listener (utils/db.server.ts) are not meant to be closed: leave
process.exit(0);
