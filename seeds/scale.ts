// `npm run seed:scale`: 1,000,000 leads, 100,000 customers (demo + real wallets funded
// through the ledger), 100,000 open orders, 70,000 KYC documents (60 % of the customers) and
// about 60,000 withdrawals (scale-withdrawals.ts), all set-based SQL, for the benchmarks and for
// trying the lists at a broker's size. Prints how long each part took.
import postgres from 'postgres';
import { migrate } from '../scripts/lib/postgres.ts';
import { openAppDatabase } from '../scripts/lib/database.ts';
import { hashPassword } from '../web/app/modules/auth/password.server.ts';
import { loadDemoData } from './demo.ts';
import { DEMO_PASSWORD } from './demo-users.ts';
import { seedWithdrawals } from './scale-withdrawals.ts';
import { seedScaleTeams } from './scale-teams.ts';
import { ROLE } from '../engine/src/contract/roles.ts';

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
  // CRM staff in teams (seeds/scale-teams.ts) first, so the leads below are spread over their agents
  await step('sales staff and teams', () => sql.begin((tx) => seedScaleTeams(tx, hash)));
  const [agents] = await sql`
    SELECT array_agg(id) FILTER (WHERE role_id = ${ROLE.sales}) AS sales, array_agg(id) FILTER (WHERE role_id = ${ROLE.retention}) AS ret,
           array_agg(id) FILTER (WHERE role_id = ${ROLE.manager}) AS managers, array_agg(id) FILTER (WHERE role_id = ${ROLE.affiliate}) AS affiliates
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

  // Deposits (docs/specs.md#money): 1 to 3 per real wallet (about 200,000), 60 % approved, 20 %
  // pending (some awaiting a second approval), 20 % declined; bank, BTC, USDT and an older card
  // gateway with the provider's reference. Each approved one is credited through post_ledger
  // with the deposit as its reference, in id order, and keeps the balance after it.
  await step('deposits', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    const [staff] = await tx`SELECT min(id) FILTER (WHERE role_id = ${ROLE.admin}) AS admin, min(id) FILTER (WHERE role_id = ${ROLE.manager}) AS manager FROM users WHERE deleted_at IS NULL`;
    await tx`
      WITH w AS (
        SELECT b.id AS balance_id, b.user_id, u.created_at, u.full_name FROM balances b JOIN users u ON u.id = b.user_id
         WHERE b.mode = 'real' AND u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'),
      d AS (
        SELECT w.*, k, (w.balance_id + k) % 10 AS s, (w.balance_id * 7 + k * 3) % 20 AS g,
               100 + ((w.balance_id * 7 + k * 13) % 50) * 50 AS amount
          FROM w CROSS JOIN LATERAL generate_series(0, (w.balance_id % 3)::int) AS k),
      x AS (
        SELECT d.*, CASE WHEN g < 10 THEN 'bank' WHEN g < 15 THEN 'btc' WHEN g < 18 THEN 'usdt' ELSE 'stripe' END AS gateway,
               CASE WHEN s < 6 THEN 'approved' WHEN s < 8 AND g < 18 THEN 'pending' WHEN s < 8 THEN 'approved' ELSE 'declined' END::money_status AS status,
               d.created_at + (now() - d.created_at) * ((k + 1) / 4.0) AS at
          FROM d)
      INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, status, description, details, reference,
                            decline_reason, decided_by, decided_at, first_approved_by, first_approved_at, created_at)
      SELECT x.user_id, x.balance_id, x.gateway, x.amount, f.fee, x.amount + f.fee, x.status,
             CASE x.gateway WHEN 'bank' THEN 'Scale Bank ' || (x.balance_id % 40) WHEN 'btc' THEN 'Bitcoin' WHEN 'usdt' THEN 'USDT (TRC-20)' ELSE 'Stripe' END,
             CASE WHEN x.gateway = 'bank' THEN jsonb_build_object('bankName', 'Scale Bank ' || (x.balance_id % 40), 'accountName', x.full_name,
                                                                  'accountNumber', lpad((x.balance_id * 97 % 100000000)::text, 8, '0'))
                  ELSE '{}'::jsonb END,
             CASE WHEN x.gateway = 'stripe' THEN 'pi_scale_' || x.balance_id || '_' || x.k END,
             CASE WHEN x.status = 'declined' THEN (ARRAY['No transfer received', 'The sender is not the account holder', 'The proof is not readable'])[1 + (x.balance_id % 3)::int] END,
             CASE WHEN x.status <> 'pending' THEN ${staff.admin}::bigint END,
             CASE WHEN x.status <> 'pending' THEN x.at + interval '1 hour' END,
             CASE WHEN x.status = 'pending' AND x.amount > 2000 THEN ${staff.manager}::bigint END,
             CASE WHEN x.status = 'pending' AND x.amount > 2000 THEN x.at + interval '30 minutes' END,
             x.at
        FROM x CROSS JOIN LATERAL (SELECT round(x.amount * CASE x.gateway WHEN 'bank' THEN 0 WHEN 'stripe' THEN 2.9 ELSE 0.5 END / 100, 2) AS fee) f
       ORDER BY x.at, x.balance_id, x.k`;
    await tx`
      WITH posted AS (
        SELECT d.id, p.balance_after
          FROM (SELECT id, balance_id, amount FROM deposits WHERE status = 'approved' AND user_id >= ${first_user_id} ORDER BY id) d,
          LATERAL post_ledger(d.balance_id, d.amount, 'deposit', 'deposit', d.id::text, ${staff.admin}::bigint, 'deposit approved') p)
      UPDATE deposits SET balance_after = posted.balance_after FROM posted WHERE deposits.id = posted.id`;
    const [n] = await tx`SELECT count(*)::int AS deposits, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM deposits`;
    console.log(`[seed:scale] ${n.deposits} deposits, ${n.pending} pending`);
  }));

  await step('leads', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    const statuses = (await tx`SELECT status FROM sales_statuses ORDER BY id`).map((r) => r.status);
    await tx`
      INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, funnel_link, reference, lead_source_id,
                         lead_status, "group", manager_id, agent_id, ret_id, affiliate_id, is_live, created_at,
                         deposited_at, ftd_at, last_access)
      SELECT (ARRAY['James','Maria','Liam','Sofia','Noah','Emma','Lucas','Mia','Ethan','Ava'])[1 + g % 10],
             (ARRAY['Smith','Garcia','Müller','Rossi','Dubois','Kowalski','Silva','Nguyen','Khan','Tanaka','Patel'])[1 + g % 11],
             'lead' || g || '@scale.example', '+44 7700 ' || lpad((g % 1000000)::text, 6, '0'),
             '+447700' || lpad((g % 1000000)::text, 6, '0'), -- what contact.server.ts makes of it (the backfill job checks)
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
      INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, lead_status, "group", user_id, manager_id, ret_id, created_at, deposited_at, ftd_at)
      SELECT split_part(u.full_name, ' ', 1), split_part(u.full_name, ' ', 2), u.email, p.phone,
             '+' || regexp_replace(p.phone, '[^0-9]', '', 'g'), p.country, p.city,
             'Deposited', 'retentions', u.id, u.manager_id, (${agents.ret}::bigint[])[1 + u.id % ${agents.ret.length}],
             u.created_at, u.created_at + interval '1 day', u.created_at + interval '1 day'
      FROM users u JOIN profiles p ON p.user_id = u.id
      WHERE u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker'`;
  }));

  // KYC (docs/specs.md#kyc): 60 % of the customers sent documents. By u.id % 20: 0-4 approved,
  // 5-7 pending, 8-9 declined, 10-11 declined and then sent again (a second, pending document):
  // 70,000 documents for 100,000 customers. Each has a front upload, ID cards and licences a back,
  // one in three a proof of address (a PDF). The uploads rows carry no file on disk: the lists and
  // their joins are measured at size, and the viewer shows such a file as missing.
  await step('kyc documents', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    const admin = (await tx`SELECT id FROM users WHERE role_id = ${ROLE.admin} AND deleted_at IS NULL ORDER BY id LIMIT 1`)[0].id;
    await tx`
      WITH c AS (
        SELECT u.id AS user_id, u.id % 20 AS k, u.created_at FROM users u
         WHERE u.id >= ${first_user_id} AND u.email LIKE '%@scale.broker' AND u.id % 20 < 12),
      docs AS (
        SELECT user_id, k, 1 AS n, created_at + interval '20 seconds' AS at,
               CASE WHEN k < 5 THEN 'approved' WHEN k < 8 THEN 'pending' ELSE 'declined' END::kyc_status AS status
          FROM c
        UNION ALL
        SELECT user_id, k, 2, created_at + interval '40 seconds', 'pending'::kyc_status FROM c WHERE k >= 10)
      INSERT INTO kyc_documents (user_id, type, status, decline_reason, decided_by, decided_at, created_at)
      SELECT user_id, (ARRAY['national_id', 'passport', 'driver_license'])[1 + (user_id % 3)::int]::kyc_doc_type, status,
             CASE WHEN status = 'declined' THEN (ARRAY['The document is not readable', 'The document has expired', 'The name does not match your profile'])[1 + (user_id % 3)::int] END,
             CASE WHEN status <> 'pending' THEN ${admin}::bigint END,
             CASE WHEN status <> 'pending' THEN at + interval '1 day' END,
             at
        FROM docs ORDER BY at, n`;
    for (const [side, kind, filter, ext, mime] of [
      ['front', 'kyc_front', tx`TRUE`, 'jpg', 'image/jpeg'],
      ['back', 'kyc_back', tx`k.type <> 'passport'`, 'jpg', 'image/jpeg'],
      ['address', 'kyc_address', tx`k.id % 3 = 0`, 'pdf', 'application/pdf'],
    ] as const) {
      const stored = () => tx`md5(${'kyc-' + side + '-'}::text || k.id::text) || ${'.' + ext}::text`;
      await tx`
        INSERT INTO uploads (owner_id, kind, original_name, stored_name, mime, size, sha256, created_at)
        SELECT k.user_id, ${kind}, ${side + '.' + ext}, ${stored()}, ${mime},
               50000 + k.id % 900000, encode(sha256(convert_to(${side}::text || k.id::text, 'UTF8')), 'hex'), k.created_at
          FROM kyc_documents k
         WHERE k.user_id >= ${first_user_id} AND ${filter}`;
      await tx`
        UPDATE kyc_documents k SET ${tx(side + '_upload_id')} = f.id
          FROM uploads f
         WHERE f.stored_name = ${stored()} AND k.user_id >= ${first_user_id}`;
    }
  }));

  // the lists read these through index-only scans once the visibility map is set (autovacuum
  // would get there soon after a load this size; the measurements should not wait for it)
  await step('vacuum (users, kyc documents, uploads)', () => sql`VACUUM (ANALYZE) users, kyc_documents, uploads`);

  await step('withdrawals', () => sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    const n = await seedWithdrawals(tx, first_user_id);
    console.log(`[seed:scale] ${n.withdrawals} withdrawals, ${n.pending} pending`);
  }));
  // the staff lists page through index-only scans once the visibility map is set
  await step('vacuum (withdrawals)', () => sql`VACUUM (ANALYZE) withdrawals`);

  await step('analyze', () => sql`ANALYZE`);
  const total = (Date.now() - started) / 1000;
  const [c] = await sql`
    SELECT (SELECT count(*) FROM leads)::int AS leads, (SELECT count(*) FROM users WHERE role_id = ${ROLE.customer})::int AS customers,
           (SELECT count(*) FROM orders WHERE close_time IS NULL)::int AS open_orders,
           (SELECT count(*) FROM withdrawals)::int AS withdrawals,
           (SELECT count(*) FROM kyc_documents)::int AS kyc_documents,
           (SELECT count(*) FROM ledger_entries)::int AS ledger_entries`;
  console.log(JSON.stringify({ seconds: Number(total.toFixed(1)), ...c, steps: timings }));
} finally {
  await sql.end();
  await server?.stop();
}
