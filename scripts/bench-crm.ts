// `npm run bench:crm`: the CRM lead lists at a million leads (run it on a database holding the scale
// data, `npm run seed:scale`, same DATABASE_URL). Each case is a lead screen's loader called as the
// server calls it (session lookup, URL parsing, scope, the page and its count, the pickers), as the
// admin, a manager, the sales agent or the retention agent, BENCH_RUNS times after BENCH_WARMUP runs;
// next to its p50 / p95 stands the plain EXPLAIN ANALYZE execution time of the same page query (the
// ids of the page as pickPage first asks for them: what the indexes serve). Then a bulk move of 100,000 leads through the screen's
// action ('all' of a filtered list: one UPDATE, with the progress the page asks for), timed, against EXPLAIN ANALYZE of the same UPDATE
// in a rolled-back transaction; the leads are moved back after. Prints ONE JSON line (progress on stderr).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import postgres from 'postgres';
import { openAppDatabase } from './lib/database.ts';
import { isBackOffice, ROLE } from '../engine/src/contract/roles.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const BULK = Number(process.env.BENCH_BULK ?? 100_000);

type Loader = (args: LoaderFunctionArgs) => unknown;
type Action = (args: ActionFunctionArgs) => unknown;
type Role = 'admin' | 'manager' | 'sales' | 'retention';
interface Case { name: string; path: string; as: Role }

const log = (l: string) => process.stderr.write(`[bench:crm] ${l}\n`);
const { url, server } = await openAppDatabase(log);
process.env.DATABASE_URL = url;
const sql = postgres(url, { max: 2, onnotice: () => {} });

const ROUTE_FILES: Record<string, string> = {
  '/admin/crm/clients': '_staff.admin.crm.clients.tsx', '/admin/crm/sales/all': '_staff.admin.crm.sales.all.tsx',
  '/admin/crm/sales/live': '_staff.admin.crm.sales.live.tsx', '/admin/crm/sales/manual': '_staff.admin.crm.sales.manual.tsx',
  '/admin/leads/live': '_staff.admin.leads.live.tsx', '/admin/leads/manual': '_staff.admin.leads.manual.tsx',
  '/admin/leads/all': '_staff.admin.leads.all.tsx', '/admin/crm/archived': '_staff.admin.crm.archived.tsx',
  '/admin/crm/retention': '_staff.admin.crm.retention.tsx',
};
const SCREEN_OF: Record<string, string> = {
  '/admin/crm/clients': 'clients', '/admin/crm/sales/all': 'sales-all', '/admin/crm/sales/live': 'sales-live',
  '/admin/crm/sales/manual': 'sales-manual', '/admin/leads/live': 'leads-live', '/admin/leads/manual': 'leads-manual',
  '/admin/leads/all': 'leads-affiliate', '/admin/crm/archived': 'archived', '/admin/crm/retention': 'retention',
};
const route = async (path: string) => import(`../web/app/routes/${ROUTE_FILES[path.split('?')[0]]}`) as Promise<{ loader: Loader; action: Action }>;

try {
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads`;
  if (n < 100_000) throw new Error(`only ${n} leads: load the scale data first (npm run seed:scale)`);
  const people = await sql`
    SELECT DISTINCT ON (role_id) id, role_id FROM users WHERE role_id = ANY(${[ROLE.admin, ROLE.manager, ROLE.sales, ROLE.retention]}::smallint[]) AND deleted_at IS NULL AND is_active ORDER BY role_id, id`;
  const idOf = (role: number) => Number(people.find((p) => p.role_id === role)?.id);
  const { createSession } = await import('../web/app/modules/auth/session.server.ts');
  const { SESSION_COOKIE } = await import('../web/app/shared/cookies.server.ts');
  const { db } = await import('../web/app/shared/db.server.ts');
  const crm = await import('../web/app/modules/crm/leads.server.ts');
  const screens = await import('../web/app/modules/crm/screens.ts');
  const { parseListQuery } = await import('../web/app/components/ui/list-params.ts');
  const { LEAD_FILTERS } = await import('../web/app/modules/crm/schemas.ts');
  const ids: Record<Role, number> = { admin: idOf(1), manager: idOf(2), sales: idOf(5), retention: idOf(6) };
  const roleIds: Record<Role, number> = { admin: ROLE.admin, manager: ROLE.manager, sales: ROLE.sales, retention: ROLE.retention };
  const sessions: { id: number }[] = [];
  const cookies = {} as Record<Role, string>;
  for (const r of Object.keys(ids) as Role[]) {
    const s = await createSession(db(), { userId: ids[r], remember: false });
    sessions.push(s);
    cookies[r] = `${SESSION_COOKIE}=${s.token}`;
  }
  const [status] = await sql`SELECT status FROM sales_statuses ORDER BY id LIMIT 1 OFFSET 2`;
  const st = encodeURIComponent(status.status);
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

  const cases: Case[] = [
    ...Object.keys(ROUTE_FILES).map((p): Case => ({ name: `first page: ${p}`, path: p, as: 'admin' })),
    { name: 'deep page (page 600 of sales)', path: '/admin/crm/sales/all?page=600', as: 'admin' },
    { name: 'beyond the bound (page 5000: the last page within 10,000 rows)', path: '/admin/crm/sales/all?page=5000', as: 'admin' },
    { name: 'filter: status', path: `/admin/crm/sales/all?status=${st}`, as: 'admin' },
    { name: 'filter: registered in one week', path: `/admin/crm/sales/all?dateStart=${day(60)}&dateEnd=${day(53)}`, as: 'admin' },
    { name: 'filter: registered in a year', path: `/admin/crm/sales/all?dateStart=${day(365)}&dateEnd=${day(0)}`, as: 'admin' },
    { name: 'filter: agent', path: `/admin/crm/sales/all?agent=${ids.sales}`, as: 'admin' },
    { name: 'filter: status + week + agent', path: `/admin/crm/sales/all?status=${st}&agent=${ids.sales}&dateStart=${day(60)}&dateEnd=${day(53)}`, as: 'admin' },
    { name: 'filter: retention agent', path: `/admin/crm/retention?agent=${ids.retention}`, as: 'admin' },
    { name: 'sort: last name asc', path: '/admin/crm/sales/all?sort=lastName&dir=asc', as: 'admin' },
    { name: 'sort: registered at asc, page 100', path: '/admin/crm/sales/all?sort=registeredAt&dir=asc&page=100', as: 'admin' },
    { name: 'sort: deposited at desc (retention)', path: '/admin/crm/retention?sort=depositedAt&dir=desc', as: 'admin' },
    { name: 'sort: agent (by name) asc', path: '/admin/crm/sales/all?sort=agent&dir=asc', as: 'admin' },
    { name: 'sort: affiliator (by name) desc, page 300', path: '/admin/leads/all?sort=affiliator&dir=desc&page=300', as: 'admin' },
    { name: 'sort: retention agent (by name) asc, clients', path: '/admin/crm/clients?sort=retAgent&dir=asc', as: 'admin' },
    { name: 'sort: status desc + status filter', path: `/admin/crm/sales/all?sort=status&dir=desc&status=${st}`, as: 'admin' },
    { name: 'search: one email', path: '/admin/crm/sales/all?search=lead4242%40', as: 'admin' },
    { name: 'search: a common last name (1 in 11)', path: '/admin/crm/sales/all?search=garcia', as: 'admin' },
    { name: 'search: a phone fragment', path: '/admin/crm/sales/all?search=900123', as: 'admin' },
    { name: 'search: 2 characters (prefix)', path: '/admin/crm/sales/all?search=ma', as: 'admin' },
    { name: 'manager: first page of sales', path: '/admin/crm/sales/all', as: 'manager' },
    { name: 'manager: status filter', path: `/admin/crm/sales/all?status=${st}`, as: 'manager' },
    { name: 'agent: first page of sales', path: '/admin/crm/sales/all', as: 'sales' },
    { name: 'agent: deep page', path: '/admin/crm/sales/all?page=600', as: 'sales' },
    { name: 'agent: status filter', path: `/admin/crm/sales/all?status=${st}`, as: 'sales' },
    { name: 'agent: registered in one week', path: `/admin/crm/sales/all?dateStart=${day(60)}&dateEnd=${day(53)}`, as: 'sales' },
    { name: 'agent: sort by last name', path: '/admin/crm/sales/all?sort=lastName&dir=asc', as: 'sales' },
    { name: 'agent: search a name (masked: names only)', path: '/admin/crm/sales/all?search=sofia', as: 'sales' },
    { name: 'agent: live sales', path: '/admin/crm/sales/live', as: 'sales' },
    { name: 'retention agent: first page', path: '/admin/crm/retention', as: 'retention' },
    { name: 'retention agent: deep page', path: '/admin/crm/retention?page=600', as: 'retention' },
  ];

  /** The page query's plain EXPLAIN ANALYZE execution time (ms), built exactly as the loader builds it. */
  async function explainMs(c: Case): Promise<number> {
    const u = new URL(`http://bench.local${c.path}`);
    const parsed = parseListQuery(u.searchParams, { sortable: screens.SORTABLE, dates: true, extra: LEAD_FILTERS });
    if (!parsed.ok) return NaN;
    const q = parsed.query;
    const caller = { id: ids[c.as], roleId: roleIds[c.as] };
    const ctx = { caller, screen: screens.SCREENS[SCREEN_OF[u.pathname] as keyof typeof screens.SCREENS], masked: await crm.masksFor(db(), caller) };
    const scope = await crm.resolveScope(db(), caller);
    const manages = isBackOffice(caller.roleId);
    const cond = crm.leadCondition(db(), ctx, { ...q, agent: manages ? q.agent : '' }, scope!);
    const { offset } = crm.pageOffset(q);
    const count = await crm.countLeads(db(), cond);
    const small = !count.estimated && count.total <= crm.SMALL_LIST;
    const [plan] = await db()`EXPLAIN (ANALYZE, FORMAT JSON) ${crm.pageQuery(db(), cond, { sort: q.sort as never, dir: q.dir, limit: q.limit }, offset, small)}`;
    return Number((plan['QUERY PLAN'] as { 'Execution Time': number }[])[0]['Execution Time'].toFixed(1));
  }

  const q = (times: number[], p: number) => Number(times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1));
  const results = [];
  for (const c of cases) {
    const { loader } = await route(c.path);
    const times: number[] = [];
    let last: { data?: { rows?: unknown[]; total?: number; estimated?: boolean } } = {};
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const request = new Request(`http://bench.local${c.path}`, { headers: { cookie: cookies[c.as] } });
      const t = performance.now();
      last = (await loader({ request, params: {}, context: {} })) as typeof last;
      if (i >= WARMUP) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const explain: number[] = [];
    for (let i = 0; i < 5; i++) explain.push(await explainMs(c));
    explain.sort((a, b) => a - b);
    const r = {
      case: c.name, as: c.as, path: c.path, p50_ms: q(times, 0.5), p95_ms: q(times, 0.95), explain_ms: explain[2],
      rows: last.data?.rows?.length ?? null, total: last.data?.total ?? null, estimated: last.data?.estimated ?? null,
    };
    log(JSON.stringify(r));
    results.push(r);
  }

  // ---------------------------------------------------------------- bulk move of BULK leads
  // the retention screen filtered to the registration dates holding BULK of its leads: 'all' of that list
  const [edge] = await sql`
    SELECT created_at FROM leads WHERE "group" = 'retentions' AND deleted_at IS NULL ORDER BY created_at DESC, id DESC OFFSET ${BULK - 1} LIMIT 1`;
  const from = (edge.created_at as Date).toISOString().slice(0, 10);
  const listPath = `/admin/crm/retention?dateStart=${from}`;
  const [{ inList }] = await sql`
    SELECT count(*)::int AS "inList" FROM leads WHERE "group" = 'retentions' AND deleted_at IS NULL AND created_at >= ${from}::date`;
  const caller = { id: ids.admin, roleId: ROLE.admin };
  const ctx = { caller, screen: screens.SCREENS.retention, masked: false };
  const cond = crm.leadCondition(db(), ctx, { status: '', agent: '', dateStart: from, dateEnd: '', search: '' }, { kind: 'all' });
  let explainUpdate = NaN;
  await db().begin(async (tx) => {
    const [plan] = await tx`EXPLAIN (ANALYZE, FORMAT JSON) UPDATE leads l SET "group" = 'archived', updated_at = now() WHERE ${cond} AND l."group" IN ('retentions')`;
    explainUpdate = Number((plan['QUERY PLAN'] as { 'Execution Time': number }[])[0]['Execution Time'].toFixed(0));
    throw new Error('rollback');
  }).catch((e) => { if (e.message !== 'rollback') throw e; });
  // the rolled-back reference left 100,000 dead row versions and their index entries: cleared, so
  // the move meets the table as the reference did
  await sql`VACUUM leads`;
  const { action } = await route(listPath);
  const [{ before }] = await sql`SELECT clock_timestamp() AS before`;
  const t = performance.now();
  const reply = await action({
    request: new Request(`http://bench.local${listPath}`, {
      method: 'POST', body: new URLSearchParams({ intent: 'move', target: 'archived', all: '1', progress: randomUUID() }),
      headers: { cookie: cookies.admin, origin: 'http://bench.local' },
    }), params: {}, context: {},
  }) as { data: { ok: boolean; count: number | null } };
  const moveMs = performance.now() - t;
  // put them back where they were (the leads this move archived: archived since `before`)
  const t2 = performance.now();
  const restore = await sql`
    UPDATE leads SET "group" = 'retentions'
     WHERE "group" = 'archived' AND deleted_at IS NULL AND created_at >= ${from}::date AND updated_at >= ${before}`;
  const restoreMs = performance.now() - t2;
  const bulk = {
    leads: reply.data?.count ?? null, in_list: inList, ok: reply.data?.ok ?? false, path: listPath,
    ms: Number(moveMs.toFixed(0)), explain_update_ms: explainUpdate, restore_ms: Number(restoreMs.toFixed(0)), restored: restore.count,
  };
  log(JSON.stringify({ bulk }));
  await sql`VACUUM ANALYZE leads`;
  for (const s of sessions) await sql`DELETE FROM sessions WHERE id = ${s.id}`;
  const worst = Math.max(...results.map((r) => r.p95_ms));
  console.log(JSON.stringify({ bench: 'crm', leads: n, runs: RUNS, worst_p95_ms: worst, target_p95_ms: 100, cases: results, bulk_move: bulk }));
} finally {
  await sql.end();
  await server?.stop();
}
process.exit(0);
