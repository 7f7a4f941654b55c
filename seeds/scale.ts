// `npm run seed:scale`: 1,000,000 leads, 100,000 customers (demo + real wallets funded
// through the ledger), 100,000 open orders and about 60,000 withdrawals (scale-withdrawals.ts),
// all set-based SQL, for the benchmarks and for trying the lists at a broker's size. Prints how
// long each part took.
import postgres from 'postgres';
import { migrate } from '../scripts/lib/postgres.ts';
import { openAppDatabase } from '../scripts/lib/database.ts';
import { hashPassword } from '../web/app/modules/auth/password.server.ts';
import { loadDemoData } from './demo.ts';
import { DEMO_PASSWORD } from './demo-users.ts';
import { seedWithdrawals } from './scale-withdrawals.ts';

const CUSTOMERS = Number(process.env.SCALE_CUSTOMERS ?? 100_000);
const LEADS = Number(process.env.SCALE_LEADS ?? 1_000_000);
const ORDERS = Number(process.env.SCALE_ORDERS ?? 100_000);

const started = Date.now();
const timings: Record<string, number> = {};
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  const r = await fn();
  timings[name] = (Date.now() - t) / 1000;
  console.log(`[seed:scale] ${name}: ${timings[name].toFixed(1)} s`);
  return r;
}

const { url, server } = await openAppDatabase((l) => console.log(`[seed:scale] ${l}`));
const sql = postgres(url, { max: 4, onnotice: () => {} });
try {
  await migrate(url);
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM users`;
  if (n === 0) await loadDemoData(sql);
  const [{ already }] = await sql`SELECT count(*)::int AS already FROM users WHERE email LIKE '%@scale.broker'`;
  if (already > 0) {
    console.log(`[seed:scale] scale data is already loaded (${already} customers); run npm run db:reset first to load it again`);
    process.exit(0);
  }
  const hash = await hashPassword(DEMO_PASSWORD);
  const [agents] = await sql`
    SELECT array_agg(id) FILTER (WHERE role_id = 5) AS sales, array_agg(id) FILTER (WHERE role_id = 6) AS ret,
           array_agg(id) FILTER (WHERE role_id = 2) AS managers, array_agg(id) FILTER (WHERE role_id = 4) AS affiliates
    FROM users WHERE deleted_at IS NULL`;
  const [{ first_user_id }] = await sql`SELECT coalesce(max(id), 0) + 1 AS first_user_id FROM users`;

  await step('customers', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    await tx`
      INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified, manager_id, created_at)
      SELECT 'customer' || g || '@scale.broker', ${hash},
             (ARRAY['James','Maria','Liam','Sofia','Noah','Emma','Lucas','Mia'])[1 + g % 8] || ' ' ||
             (ARRAY['Smith','Garcia','Müller','Rossi','Dubois','Silva','Nguyen','Khan','Tanaka'])[1 + g % 9] || ' ' || g,
             3, g % 50 <> 0, true, ${agents.managers[0]}, now() - make_interval(mins => g)
      FROM generate_series(1, ${CUSTOMERS}) AS g`;
    await tx`
      INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
      SELECT u.id, '+1 555 ' || lpad((u.id % 10000000)::text, 7, '0'), date '1960-01-01' + (u.id % 15000)::int,
             (ARRAY['Germany','Spain','France','United Kingdom','Italy','Brazil','Japan','Canada'])[1 + u.id % 8],
             (ARRAY['Berlin','Madrid','Lyon','London','Milan','São Paulo','Osaka','Toronto'])[1 + u.id % 8],
             u.id || ' Market Street', lpad((u.id % 99999)::text, 5, '0')
      FROM users u WHERE u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'`;
    await tx`
      INSERT INTO balances (user_id, mode, currency)
      SELECT u.id, m.mode, 'USD' FROM users u CROSS JOIN (VALUES ('demo'::balance_mode), ('real'::balance_mode)) AS m(mode)
      WHERE u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'`;
    await tx`
      UPDATE users u SET active_balance_id = b.id FROM balances b
      WHERE b.user_id = u.id AND b.mode = 'real' AND u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'`;
  }));

  // Every credit goes through post_ledger, as in production.
  await step('wallet funding through the ledger', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    await tx`
      SELECT count(p.entry_id) FROM balances b
      JOIN users u ON u.id = b.user_id AND u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker',
      LATERAL post_ledger(b.id, CASE WHEN b.mode = 'demo' THEN 10000 ELSE 1000 + (b.id % 50) * 100 END,
                          CASE WHEN b.mode = 'demo' THEN 'demo_credit' ELSE 'adjustment' END::ledger_kind,
                          'scale-seed', b.id::text) AS p`;
  }));

  await step('open orders', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    // one open position per real wallet, on a spread of instruments; half with TP/SL
    await tx`
      WITH inst AS (SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, category, leverage, bids, asks FROM instruments WHERE bids IS NOT NULL),
           cnt AS (SELECT count(*) AS c FROM inst),
           w AS (
             SELECT b.id AS balance_id, b.user_id, row_number() OVER (ORDER BY b.id) AS r
             FROM balances b JOIN users u ON u.id = b.user_id
             WHERE b.mode = 'real' AND u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'
             LIMIT ${ORDERS})
      INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, spread,
                          profit, loss, margin_used, leverage, created_at)
      SELECT w.user_id, w.balance_id, i.id, s.side, i.category, s.amount, s.rate, 1, 0,
             CASE WHEN w.r % 2 = 0 THEN round(s.rate * CASE WHEN s.side = 'buy' THEN 1.01 ELSE 0.99 END, 6) END,
             CASE WHEN w.r % 2 = 0 THEN round(s.rate * CASE WHEN s.side = 'buy' THEN 0.99 ELSE 1.01 END, 6) END,
             round(margin_required(s.rate, s.amount, i.leverage, 1), 8), i.leverage, now() - make_interval(mins => w.r::int)
      FROM w CROSS JOIN cnt
      JOIN inst i ON i.k = w.r % cnt.c
      CROSS JOIN LATERAL (SELECT CASE WHEN w.r % 3 = 0 THEN 'sell' ELSE 'buy' END::order_side AS side,
                                 CASE WHEN w.r % 3 = 0 THEN i.bids ELSE i.asks END AS rate,
                                 -- a notional of about 2,000 USD
                                 greatest(round(2000 / i.asks, 2), 0.01) AS amount) AS s`;
    await tx`
      UPDATE balances b SET margin = o.m, updated_at = now()
      FROM (SELECT balance_id, sum(margin_used) AS m FROM orders WHERE close_time IS NULL GROUP BY balance_id) o
      WHERE o.balance_id = b.id AND b.margin <> o.m`;
  }));

  await step('leads', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    const statuses = (await tx`SELECT status FROM sales_statuses ORDER BY id`).map((r) => r.status);
    await tx`
      INSERT INTO leads (first_name, last_name, email, phone, country, city, funnel_link, reference, lead_source_id,
                         lead_status, "group", manager_id, agent_id, ret_id, affiliate_id, is_live, created_at,
                         deposited_at, ftd_at, last_access)
      SELECT (ARRAY['James','Maria','Liam','Sofia','Noah','Emma','Lucas','Mia','Ethan','Ava'])[1 + g % 10],
             (ARRAY['Smith','Garcia','Müller','Rossi','Dubois','Kowalski','Silva','Nguyen','Khan','Tanaka','Patel'])[1 + g % 11],
             'lead' || g || '@scale.example', '+44 7700 ' || lpad((g % 1000000)::text, 6, '0'),
             (ARRAY['Germany','Spain','France','United Kingdom','Italy','Poland','Brazil','Japan','Canada','Australia'])[1 + g % 10],
             (ARRAY['Berlin','Madrid','Lyon','London','Milan','Warsaw','São Paulo','Osaka','Toronto','Sydney'])[1 + g % 10],
             CASE WHEN g % 3 = 0 THEN 'https://promo.example/landing-' || (g % 7) END,
             CASE WHEN g % 4 = 0 THEN 'AFF-' || g END,
             'scale-' || g,
             (${statuses}::text[])[1 + g % ${statuses.length}],
             (ARRAY['sales','sales','sales','retentions','archived'])[1 + g % 5]::lead_group,
             ${agents.managers[0]},
             CASE WHEN g % 2 = 0 THEN (${agents.sales}::bigint[])[1 + g % ${agents.sales.length}] END,
             CASE WHEN g % 5 = 3 THEN (${agents.ret}::bigint[])[1 + g % ${agents.ret.length}] END,
             CASE WHEN g % 4 = 0 THEN (${agents.affiliates}::bigint[])[1 + g % ${agents.affiliates.length}] END,
             g % 5 = 0,
             now() - make_interval(mins => g),
             CASE WHEN g % 5 = 3 THEN now() - make_interval(mins => g / 2) END,
             CASE WHEN g % 5 = 3 THEN now() - make_interval(mins => g / 2) END,
             now() - make_interval(mins => g / 3)
      FROM generate_series(1, ${LEADS - CUSTOMERS}) AS g`;
    // the customers are clients: one lead each, linked to the user
    await tx`
      INSERT INTO leads (first_name, last_name, email, phone, country, city, lead_status, "group", user_id, manager_id, ret_id, created_at, deposited_at, ftd_at)
      SELECT split_part(u.full_name, ' ', 1), split_part(u.full_name, ' ', 2), u.email, p.phone, p.country, p.city,
             'Deposited', 'retentions', u.id, u.manager_id, (${agents.ret}::bigint[])[1 + u.id % ${agents.ret.length}],
             u.created_at, u.created_at + interval '1 day', u.created_at + interval '1 day'
      FROM users u JOIN profiles p ON p.user_id = u.id
      WHERE u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'`;
  }));

  await step('withdrawals', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    const n = await seedWithdrawals(tx, first_user_id);
    console.log(`[seed:scale] ${n.withdrawals} withdrawals, ${n.pending} pending`);
  }));

  await step('analyze', () => sql`ANALYZE`);
  const total = (Date.now() - started) / 1000;
  const [c] = await sql`
    SELECT (SELECT count(*) FROM leads)::int AS leads, (SELECT count(*) FROM users WHERE role_id = 3)::int AS customers,
           (SELECT count(*) FROM orders WHERE close_time IS NULL)::int AS open_orders,
           (SELECT count(*) FROM withdrawals)::int AS withdrawals,
           (SELECT count(*) FROM ledger_entries)::int AS ledger_entries`;
  console.log(JSON.stringify({ seconds: Number(total.toFixed(1)), ...c, steps: timings }));
} finally {
  await sql.end();
  await server?.stop();
}
