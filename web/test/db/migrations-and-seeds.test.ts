// Every migration applies to an empty database; the demo seeds load twice without
// errors or duplicates and satisfy what the issues ask of them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import postgres from 'postgres';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createDatabase, dropDatabase, EMBEDDED_PASSWORD, migrate, withDatabase } from '../../../scripts/lib/postgres.ts';
import { APP_DATABASE, EMBEDDED_PG_PORT } from '../../../scripts/lib/database.ts';
import { loadDemoData, DEMO_LEAD_COUNT, demoSettings } from '../../../seeds/demo.ts';
import { demoLanguages, demoUsers } from '../../../seeds/demo-users.ts';
import { settingsSchemas, type SettingsKey } from '~/shared/settings-schema.ts';

const adminUrl = process.env.TEST_ADMIN_DATABASE_URL!;
const name = `broker_seedtest_${process.pid}_${Date.now().toString(36)}`;
let sql: postgres.Sql;

beforeAll(async () => {
  await createDatabase(adminUrl, name, { dropFirst: true });
  sql = postgres(withDatabase(adminUrl, name), { max: 4, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await dropDatabase(adminUrl, name);
});

const counts = () => sql`
  SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM balances)::int AS balances,
         (SELECT count(*) FROM ledger_entries)::int AS ledger, (SELECT count(*) FROM instruments)::int AS instruments,
         (SELECT count(*) FROM leads)::int AS leads, (SELECT count(*) FROM notes)::int AS notes,
         (SELECT count(*) FROM orders)::int AS orders, (SELECT count(*) FROM deposits)::int AS deposits,
         (SELECT count(*) FROM translations)::int AS translations, (SELECT count(*) FROM pricing_plans)::int AS plans,
         (SELECT count(*) FROM site_settings)::int AS settings, (SELECT count(*) FROM teams)::int AS teams,
         (SELECT count(*) FROM payment_gateways)::int AS gateways`.then((r) => r[0]);

describe('migrations', () => {
  test('apply to an empty database, roll back and apply again', async () => {
    const url = withDatabase(adminUrl, name);
    const up = await migrate(url);
    expect(up.length).toBeGreaterThan(0);
    while ((await migrate(url, 'down')).length > 0) { /* one migration at a time, newest first */ }
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'users'`;
    expect(n).toBe(0);
    await migrate(url);
    expect(await migrate(url)).toEqual([]); // nothing left to apply
  });

  test('every foreign key column is indexed or leads a key', async () => {
    // a list filtered by a foreign key (user_id, balance_id, agent_id, ...) needs an index; the
    // allowed ones record who did something (decided_by, actor_id) and are never a list's filter
    const unindexed = await sql`
      SELECT c.conrelid::regclass::text AS tbl, a.attname AS col
      FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1
        AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])`;
    const allowed = new Set(['users.active_balance_id', 'ledger_entries.actor_id', 'deposits.decided_by', 'withdrawals.decided_by', 'deposits.first_approved_by', 'withdrawals.first_approved_by',
      'kyc_documents.decided_by', 'orders.closed_by', 'orders.instrument_id', 'pending_orders.cancelled_by', 'site_settings.updated_by', 'api_settings.updated_by',
      'sessions.impersonator_id', 'sessions.parent_id', 'notes.user_id', 'users.promo_code_id', 'favorites.instrument_id']);
    expect(unindexed.map((r) => `${r.tbl}.${r.col}`).filter((k) => !allowed.has(k))).toEqual([]);
  });
});

describe('demo seeds', () => {
  test('load twice without error or duplicates', async () => {
    await loadDemoData(sql);
    const first = await counts();
    await loadDemoData(sql);
    expect(await counts()).toEqual(first);
  });

  test('hold what the platform needs', async () => {
    const c = await counts();
    expect(c.users).toBe(demoUsers.length);
    expect(c.instruments).toBeGreaterThanOrEqual(60);
    expect(c.plans).toBeGreaterThanOrEqual(3);
    expect(c.leads).toBeGreaterThanOrEqual(200);
    expect(c.leads).toBeGreaterThanOrEqual(DEMO_LEAD_COUNT);
    const roles = await sql`SELECT DISTINCT role_id FROM users ORDER BY role_id`;
    expect(roles.map((r) => r.role_id)).toEqual([1, 2, 3, 4, 5, 6]);
    const cats = await sql`SELECT category, count(*)::int AS n FROM instruments GROUP BY 1`;
    expect(cats).toHaveLength(5);
    const [cnh] = await sql`SELECT bids, asks FROM instruments WHERE name = 'USD_CNH'`;
    expect(Number(cnh.asks)).toBeGreaterThan(Number(cnh.bids));
    const groups = await sql`SELECT DISTINCT "group"::text AS g FROM leads ORDER BY 1`;
    expect(groups.map((r) => r.g)).toEqual(['archived', 'retentions', 'sales']);
    const gw = await sql`SELECT name::text FROM payment_gateways WHERE is_active ORDER BY 1`;
    expect(gw.map((r) => r.name)).toEqual(['bank', 'btc', 'usdt']);
    expect((await sql`SELECT count(*)::int AS n FROM sales_statuses WHERE is_default`)[0].n).toBe(1);
    expect((await sql`SELECT count(*)::int AS n FROM languages`)[0].n).toBeGreaterThanOrEqual(3);
  });

  test('every customer has a demo and a real wallet, and balances equal their ledger', async () => {
    const wallets = await sql`
      SELECT u.email, array_agg(b.mode::text ORDER BY b.mode) AS modes
      FROM users u JOIN balances b ON b.user_id = u.id WHERE u.role_id = 3 GROUP BY u.email`;
    expect(wallets).toHaveLength(2);
    for (const w of wallets) expect(w.modes).toEqual(['demo', 'real']);
    const drift = await sql`
      SELECT b.id FROM balances b LEFT JOIN ledger_entries l ON l.balance_id = b.id
      GROUP BY b.id, b.balance HAVING b.balance <> coalesce(sum(l.amount), 0)`;
    expect(drift).toEqual([]);
  });

  test('README tells the demo wallets as they are, and how to reach the embedded database', async () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8').replace(/\s+/g, ' ');
    const wallets = await sql`SELECT u.email, b.mode::text AS mode, b.balance::text AS balance
                                FROM users u JOIN balances b ON b.user_id = u.id WHERE u.role_id = 3 ORDER BY 1, 2`;
    const of = (email: string, mode: string) => Number(wallets.find((w) => w.email === email && w.mode === mode)?.balance);
    const demo = Number((demoSettings.branding as { demoInitialBalance: string }).demoInitialBalance);
    expect(of('bob@demo.broker', 'real')).toBe(0);
    expect(readme).toContain("Bob's real wallet is empty (0: he has deposited nothing)");
    expect(of('bob@demo.broker', 'demo')).toBe(demo);
    expect(readme).toContain('Both demo wallets hold the demo starting balance');
    expect(of('alice@demo.broker', 'real')).toBeGreaterThan(0);
    expect(readme).toContain(`psql postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${EMBEDDED_PG_PORT}/${APP_DATABASE}`);
  });

  test('every stored setting parses with its schema', async () => {
    const rows = await sql`SELECT key, value FROM site_settings`;
    expect(rows.map((r) => r.key).sort()).toEqual(Object.keys(settingsSchemas).sort());
    for (const r of rows) expect(() => settingsSchemas[r.key as SettingsKey].parse(r.value)).not.toThrow();
  });

  test('every language has a translation for every key English has', async () => {
    const missing = await sql`
      SELECT l.code, e.key FROM languages l CROSS JOIN translations e
      WHERE e.language_code = 'en'
        AND NOT EXISTS (SELECT 1 FROM translations t WHERE t.language_code = l.code AND t.key = e.key)`;
    expect(missing).toEqual([]);
    expect(demoLanguages.length).toBeGreaterThanOrEqual(3);
  });
});
