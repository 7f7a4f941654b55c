// How fast the audit trail (/admin/audit) is at a million rows: builds a scratch database from the
// migrations on DATABASE_URL's server, fills audit_events with AUDIT_ROWS rows (default 1,000,000:
// 200 staff, 20 actions, 8 kinds of target over two years), then times each filter's page, a deep
// keyset page, the filters' choices and a full CSV export of one target kind.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres TSX_TSCONFIG_PATH=web/tsconfig.json \
//     node --import tsx scripts/bench-audit.ts
// The scratch database is dropped at the end unless KEEP=1.
import { performance } from 'node:perf_hooks';
import { createDatabase, dropDatabase, migrate, withDatabase } from './lib/postgres.ts';
import { connect } from '../web/app/shared/db.server.ts';
import { auditChoices, auditCsv, listAudit, type AuditQuery } from '../web/app/modules/audit/audit-list.server.ts';

const admin = process.env.DATABASE_URL;
if (!admin) throw new Error('DATABASE_URL (a server to create the scratch database on) is required');
const ROWS = Number(process.env.AUDIT_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const NAME = 'scratch_audit_bench';
const url = withDatabase(admin, NAME);

await createDatabase(admin, NAME, { dropFirst: true });
await migrate(url);
const sql = connect(url, 4);
try {
  let t0 = performance.now();
  await sql`INSERT INTO users (email, password_hash, full_name, role_id)
            SELECT 'staff' || i || '@bench.test', 'x', 'Staff ' || i, 1 + (i % 2) FROM generate_series(1, 200) i`;
  const [{ first }] = await sql`SELECT min(id)::int AS first FROM users`;
  await sql`
    INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip, created_at)
    SELECT ${first} + (i % 200),
           (ARRAY['order.edit','order.force_close','order.delete','deposit.approve','deposit.decline','withdrawal.approve',
                  'withdrawal.decline','user.update','balance.adjust','auth.login_as','plan.update','instrument.update',
                  'kyc.approve','kyc.decline','profile.update','spreads.update','lots.update','translation.update',
                  'language.update','security.password_change'])[1 + (i * 7 % 20)],
           (ARRAY['order','order','order','order','deposit','user','withdrawal','plan'])[1 + (i % 8)],
           (i % 50000)::text,
           jsonb_build_object('status', 'pending', 'amount', (i % 1000)::text),
           jsonb_build_object('status', 'approved', 'amount', (i % 1000)::text),
           '10.0.0.1'::inet,
           now() - make_interval(secs => (${ROWS} - i) * (63072000.0 / ${ROWS}))
      FROM generate_series(1, ${ROWS}) i`;
  await sql`VACUUM ANALYZE audit_events`;
  console.log(`filled ${ROWS.toLocaleString('en')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const base: AuditQuery = { limit: 15, dateStart: '', dateEnd: '', actor: '', action: '', targetKind: '', targetId: '', after: null, before: null };
  const year = new Date().getUTCFullYear() - 1;
  const [{ deep }] = await sql`SELECT id::int AS deep FROM audit_events ORDER BY created_at DESC, id DESC OFFSET 600000 LIMIT 1`;
  const cases: [string, Partial<AuditQuery>][] = [
    ['everything, first page', {}],
    ['everything, a keyset page 600,000 rows deep', { after: deep }],
    ['one actor (5,000 rows)', { actor: String(first + 17) }],
    ['one actor by email', { actor: 'staff18@bench.test' }],
    ['one action (50,000 rows)', { action: 'deposit.approve' }],
    ['one target kind: every deposit (125,000 rows)', { targetKind: 'deposit' }],
    ['one target: order 4242 (its 20 rows)', { targetKind: 'order', targetId: '4242' }],
    [`a date range: March ${year}`, { dateStart: `${year}-03-01`, dateEnd: `${year}-03-31` }],
    ['one actor and one action', { actor: String(first + 17), action: 'order.edit' }],
    ['one target kind in a date range', { targetKind: 'deposit', dateStart: `${year}-03-01`, dateEnd: `${year}-03-31` }],
    ['an action nobody did', { action: 'nothing.here' }],
  ];
  const time = async (fn: () => Promise<unknown>) => {
    const ms: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      t0 = performance.now();
      await fn();
      if (i >= 2) ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    return { p50: ms[Math.floor(ms.length / 2)], p95: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))] };
  };
  console.log(`\n${'case'.padEnd(52)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}  rows  count`);
  for (const [name, q] of cases) {
    const page = await listAudit(sql, { ...base, ...q });
    const t = await time(() => listAudit(sql, { ...base, ...q }));
    console.log(`${name.padEnd(52)} ${t.p50.toFixed(1).padStart(8)} ${t.p95.toFixed(1).padStart(8)}  ${String(page.rows.length).padStart(4)}  ${page.countCapped ? '>' : ''}${page.count}`);
  }
  const c = await time(() => auditChoices(sql));
  console.log(`${'the filters\' choices (distinct actions and kinds)'.padEnd(52)} ${c.p50.toFixed(1).padStart(8)} ${c.p95.toFixed(1).padStart(8)}`);

  t0 = performance.now();
  let bytes = 0, lines = 0;
  const reader = auditCsv(sql, { ...base, targetKind: 'deposit' }).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (const b of value) if (b === 10) lines++;
  }
  const s = (performance.now() - t0) / 1000;
  console.log(`\nCSV export of every deposit row: ${(lines - 1).toLocaleString('en')} rows, ${(bytes / 1e6).toFixed(1)} MB in ${s.toFixed(1)} s, memory ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB RSS`);

  const plan = await sql`EXPLAIN (ANALYZE, BUFFERS) SELECT a.id FROM audit_events a WHERE a.target_kind = 'deposit'
    AND (a.created_at, a.id) < (SELECT c.created_at, c.id FROM audit_events c WHERE c.id = ${deep}) ORDER BY a.created_at DESC, a.id DESC LIMIT 16`;
  console.log('\nplan of a keyset page of one target kind:\n' + plan.map((r) => r['QUERY PLAN']).join('\n'));
} finally {
  await sql.end();
  if (process.env.KEEP !== '1') await dropDatabase(admin, NAME);
}
