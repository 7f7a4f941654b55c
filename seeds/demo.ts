// The demo data `npm start` loads on first start (and `npm run db:seed` on demand).
// Idempotent: every insert is keyed, so loading it twice changes nothing.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type postgres from 'postgres';
import { hashPassword } from '../web/app/modules/auth/password.server.ts';
import { settingsSchemas, settingsDefaults, type SettingsKey } from '../web/app/shared/settings-schema.ts';
import { backfillLeadPhones } from '../web/app/modules/crm/phone-backfill.server.ts';
import { demoInstruments } from './instruments.ts';
import { DEMO_PASSWORD, demoUsers, demoLanguages } from './demo-users.ts';

// any: callers connect with or without the bigint type; ids pass through as they come back
type Sql = postgres.Sql<any>;
type DemoKey = (typeof demoUsers)[number]['key'];

/** A small seeded PRNG so the demo data is the same on every machine. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)], int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

const plans = [
  { name: 'Basic', description: 'Standard leverage for new traders.', price: '0', lev: [100, 50, 50, 10, 5], stop: [50, 50, 50, 50, 50] },
  { name: 'Silver', description: 'More leverage and a lower stop-out.', price: '250', lev: [200, 100, 100, 20, 10], stop: [40, 40, 40, 40, 40] },
  { name: 'Gold', description: 'For active traders.', price: '1000', lev: [400, 200, 200, 20, 20], stop: [30, 30, 30, 30, 30] },
  { name: 'Platinum', description: 'Professional terms and priority support.', price: '5000', lev: [500, 300, 300, 25, 25], stop: [20, 20, 20, 20, 20] },
];

const salesStatuses: [string, string, boolean][] = [
  ['New', '#2f81f7', true], ['Contacted', '#a371f7', false], ['Interested', '#2ea043', false],
  ['Call Back', '#d29922', false], ['No Answer', '#8b949e', false], ['Not Interested', '#f85149', false],
  ['Wrong Number', '#6e7681', false], ['Deposited', '#3fb950', false],
];

export const demoSettings: { [K in SettingsKey]?: unknown } = {
  branding: { appName: 'Nova Markets', appUrl: '', currencies: ['USD', 'EUR', 'GBP'], demoInitialBalance: '10000', logoPath: null },
  kyc: { deposit: 'off', withdraw: 'on', trade: 'off' },
  emailVerify: { enabled: 'on' },
  pricingPlan: { enabled: 'on' },
  whatsapp: { number: '' },
  theme: { mode: 'dark' },
};

const firstNames = ['James', 'Maria', 'Liam', 'Sofia', 'Noah', 'Emma', 'Lucas', 'Mia', 'Ethan', 'Ava', 'Mateo', 'Chloe', 'Omar', 'Yuki', 'Ivan', 'Fatima', 'Chen', 'Priya', 'Jonas', 'Elena'];
const lastNames = ['Smith', 'Garcia', 'Müller', 'Rossi', 'Dubois', 'Kowalski', 'Silva', 'Nguyen', 'Khan', 'Tanaka', 'Ivanova', 'Haddad', 'Jensen', 'Novak', 'Okafor', 'Schmidt', 'Moreau', 'Costa', 'Lindqvist', 'Patel'];
const countries: [string, string][] = [['Germany', 'Berlin'], ['Spain', 'Madrid'], ['France', 'Lyon'], ['United Kingdom', 'London'], ['Italy', 'Milan'], ['Poland', 'Warsaw'], ['Brazil', 'São Paulo'], ['United Arab Emirates', 'Dubai'], ['Japan', 'Osaka'], ['Canada', 'Toronto'], ['Australia', 'Sydney'], ['Nigeria', 'Lagos']];
const funnels = ['https://promo.example/forex-start', 'https://promo.example/crypto-2026', 'https://promo.example/gold-webinar', null];

export const DEMO_LEAD_COUNT = 240;

/** The demo teams: name, code (the team-code rule of generated codes: `TM-` and 6 characters, docs/specs.md#crm-configuration), members' role. */
export const DEMO_TEAMS: readonly (readonly [string, string, 'sales' | 'retention'])[] = [['Sales Desk', 'TM-SDESK2', 'sales'], ['Retention Desk', 'TM-RDESK2', 'retention']];
const LEGACY_TEAM_CODES: Record<string, string> = { 'TM-SDESK2': 'SALES-1', 'TM-RDESK2': 'RET-1' };

export async function loadDemoData(sql: Sql, log: (l: string) => void = () => {}) {
  await sql.begin(async (tx) => {
    // Serialise concurrent seeders (two starts at once) on one advisory lock.
    await tx`SELECT pg_advisory_xact_lock(hashtext('broker.demo-seed'))`;

    // --- pricing plans
    for (const p of plans) {
      await tx`
        INSERT INTO pricing_plans (name, description, price,
          forex_leverage, commodity_leverage, index_leverage, stock_leverage, crypto_leverage,
          forex_stopout, commodity_stopout, index_stopout, stock_stopout, crypto_stopout)
        VALUES (${p.name}, ${p.description}, ${p.price}, ${p.lev[0]}, ${p.lev[1]}, ${p.lev[2]}, ${p.lev[3]}, ${p.lev[4]},
          ${p.stop[0]}, ${p.stop[1]}, ${p.stop[2]}, ${p.stop[3]}, ${p.stop[4]})
        ON CONFLICT ((lower(name))) DO NOTHING`;
    }
    const planIds = Object.fromEntries((await tx`SELECT id, name FROM pricing_plans`).map((r) => [r.name, r.id]));

    // --- users, one per role
    const hash = await hashPassword(DEMO_PASSWORD);
    const ids = {} as Record<DemoKey, bigint>;
    for (const u of demoUsers) {
      const [row] = await tx`
        INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified)
        VALUES (${u.email}, ${hash}, ${u.fullName}, ${u.roleId}, true, true)
        ON CONFLICT (email) WHERE deleted_at IS NULL DO UPDATE SET email = EXCLUDED.email
        RETURNING id`;
      ids[u.key] = row.id;
    }
    const profiles: Record<DemoKey, [string, string, string, string, string, string]> = {
      admin: ['+44 20 7946 0001', '1980-02-11', 'United Kingdom', 'London', '1 Bank Street', 'E14 5AB'],
      manager: ['+44 20 7946 0002', '1984-06-03', 'United Kingdom', 'London', '2 Bank Street', 'E14 5AB'],
      affiliate: ['+49 30 901820', '1990-09-21', 'Germany', 'Berlin', 'Torstraße 12', '10119'],
      sales: ['+34 91 123 4567', '1993-01-15', 'Spain', 'Madrid', 'Calle Mayor 4', '28013'],
      retention: ['+33 1 4020 5050', '1991-11-30', 'France', 'Paris', '8 Rue de Rivoli', '75004'],
      alice: ['+1 212 555 0142', '1988-04-17', 'United States', 'New York', '350 5th Ave', '10118'],
      bob: ['+61 2 9374 4000', '1979-12-05', 'Australia', 'Sydney', '1 Macquarie St', '2000'],
    };
    for (const [key, [phone, birth, country, city, address, postal]] of Object.entries(profiles) as [DemoKey, string[]][]) {
      await tx`
        INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
        VALUES (${ids[key]}, ${phone}, ${birth}, ${country}, ${city}, ${address}, ${postal})
        ON CONFLICT (user_id) DO NOTHING`;
    }
    // Managers of the customers and agents; Alice is on the Silver plan, Bob has none yet
    // (so he sees the choose-a-plan prompt).
    await tx`UPDATE users SET manager_id = ${ids.manager} WHERE id IN ${tx([ids.sales, ids.retention, ids.alice, ids.bob])} AND manager_id IS NULL`;
    await tx`UPDATE users SET pricing_plan_id = ${planIds.Silver} WHERE id = ${ids.alice} AND pricing_plan_id IS NULL`;

    // --- balances: a demo and a real wallet per customer, funded through the ledger
    const [branding] = [demoSettings.branding as { demoInitialBalance: string }];
    for (const key of ['alice', 'bob'] as const) {
      for (const mode of ['demo', 'real'] as const) {
        await tx`INSERT INTO balances (user_id, mode, currency) VALUES (${ids[key]}, ${mode}, 'USD') ON CONFLICT DO NOTHING`;
      }
      const [demo] = await tx`SELECT id FROM balances WHERE user_id = ${ids[key]} AND mode = 'demo' AND currency = 'USD'`;
      await tx`SELECT * FROM post_ledger(${demo.id}, ${branding.demoInitialBalance}, 'demo_credit', 'signup', ${String(ids[key])})`;
      await tx`UPDATE users SET active_balance_id = ${demo.id} WHERE id = ${ids[key]} AND active_balance_id IS NULL`;
    }

    // --- instruments, spreads, lots
    for (const i of demoInstruments) {
      await tx`
        INSERT INTO instruments (name, base, quote, alias, category, tradable, tradingview, leverage, digits, bids, asks)
        VALUES (${i.name}, ${i.base}, ${i.quote}, ${i.alias}, ${i.category}, true, ${i.tradingview}, ${i.leverage}, ${i.digits}, ${i.bids}, ${i.asks})
        ON CONFLICT (name) DO NOTHING`;
    }
    for (const category of ['forex', 'commodity', 'index', 'stock', 'crypto']) {
      await tx`INSERT INTO spreads (category, value) VALUES (${category}, 1) ON CONFLICT DO NOTHING`;
      await tx`INSERT INTO lot_settings (category, state) VALUES (${category}, ${category === 'forex' ? 'lot' : 'amount'}) ON CONFLICT DO NOTHING`;
    }
    for (const [position, [label, value]] of ([['Micro (0.01)', 1000], ['Mini (0.1)', 10000], ['Standard (1)', 100000]] as const).entries()) {
      await tx`INSERT INTO lot_selector (label, value, position) VALUES (${label}, ${value}, ${position}) ON CONFLICT (value) DO NOTHING`;
    }

    // --- deposits and closed trades for Alice, so her histories and statement are not empty
    const [aliceReal] = await tx`SELECT id FROM balances WHERE user_id = ${ids.alice} AND mode = 'real' AND currency = 'USD'`;
    const deposits: [string, string, string, 'approved' | 'pending'][] = [
      ['demo-dep-1', 'bank', '5000.00', 'approved'],
      ['demo-dep-2', 'btc', '2500.00', 'approved'],
      ['demo-dep-3', 'bank', '1000.00', 'pending'],
    ];
    for (const [reference, gateway, amount, status] of deposits) {
      const [dep] = await tx`
        INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, status, description, reference, decided_by, decided_at)
        VALUES (${ids.alice}, ${aliceReal.id}, ${gateway}, ${amount}, 0, ${amount}, ${status},
                ${gateway === 'bank' ? 'Bank transfer' : 'Bitcoin transfer'}, ${reference},
                ${status === 'approved' ? ids.admin : null}, ${status === 'approved' ? sql`now()` : null})
        ON CONFLICT (gateway, reference) WHERE reference IS NOT NULL DO UPDATE SET reference = EXCLUDED.reference
        RETURNING id, status`;
      if (dep.status === 'approved') {
        const [posted] = await tx`SELECT * FROM post_ledger(${aliceReal.id}, ${amount}, 'deposit', 'deposit', ${String(dep.id)}, ${ids.admin})`;
        await tx`UPDATE deposits SET balance_after = ${posted.balance_after} WHERE id = ${dep.id}`;
      }
    }
    const closedTrades: [string, 'buy' | 'sell', string, string, string][] = [
      ['EUR_USD', 'buy', '10000', '1.08410', '1.08705'],
      ['XAU_USD', 'sell', '2', '2362.10', '2349.80'],
      ['BTC_USD', 'buy', '0.05', '66210.00', '65540.00'],
      ['AAPL_USD', 'buy', '20', '187.40', '191.15'],
      ['GBP_USD', 'sell', '5000', '1.26800', '1.27150'],
    ];
    // the same history on her demo wallet (active by default), so her statement shows trades
    const [aliceDemo] = await tx`SELECT id FROM balances WHERE user_id = ${ids.alice} AND mode = 'demo' AND currency = 'USD'`;
    const wallets = [[aliceReal.id, 'demo-order'], [aliceDemo.id, 'demo-order-demo']] as const;
    for (const [walletId, keyPrefix] of wallets) {
      for (const [n, [name, type, amount, open, close]] of closedTrades.entries()) {
        const [inst] = await tx`SELECT id, category, leverage FROM instruments WHERE name = ${name}`;
        // the formulas' SQL copies (migrations/*_trading-formulas.sql, pinned to the domain by engine/test/parity.test.ts)
        const pnl = tx`round(order_pnl(${type}::order_side, ${amount}::numeric, ${open}::numeric, ${close}::numeric, 0, 1), 8)`;
        const [order] = await tx`
          INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, close_rate, exchange_rate,
                              spread, pro_loss, margin_used, leverage, close_time, close_reason, idempotency_key, created_at)
          VALUES (${ids.alice}, ${walletId}, ${inst.id}, ${type}, ${inst.category}, ${amount}, ${open}, ${close}, 1,
                  0, ${pnl}, round(margin_required(${open}::numeric, ${amount}::numeric, ${inst.leverage}, 1), 8), ${inst.leverage},
                  now() - ${`${10 - n * 2} days`}::interval + interval '3 hours', 'manual', ${`${keyPrefix}-${n + 1}`},
                  now() - ${`${10 - n * 2} days`}::interval)
          ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO UPDATE SET updated_at = orders.updated_at
          RETURNING id, pro_loss`;
        if (Number(order.pro_loss) !== 0) {
          await tx`SELECT * FROM post_ledger(${walletId}, ${order.pro_loss}, 'trade_pnl', 'order', ${String(order.id)})`;
        }
      }
    }
    await tx`
      INSERT INTO kyc_documents (user_id, type, status, decided_by, decided_at)
      SELECT ${ids.alice}, 'passport', 'approved', ${ids.admin}, now()
      WHERE NOT EXISTS (SELECT 1 FROM kyc_documents WHERE user_id = ${ids.alice})`;

    // --- languages and translations
    for (const [position, l] of demoLanguages.entries()) {
      await tx`INSERT INTO languages (code, name, position) VALUES (${l.code}, ${l.name}, ${position}) ON CONFLICT (code) DO NOTHING`;
    }
    const dir = path.join(import.meta.dirname, 'translations');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const code = file.replace(/\.json$/, '');
      const entries = Object.entries(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, string>);
      if (!entries.length) continue;
      await tx`
        INSERT INTO translations (language_code, key, value)
        SELECT ${code}, k, v FROM unnest(${entries.map((e) => e[0])}::text[], ${entries.map((e) => e[1])}::text[]) AS t(k, v)
        ON CONFLICT (language_code, key) DO NOTHING`;
    }

    // --- settings (each validated by its key's schema), gateways, providers, fees
    for (const key of Object.keys(settingsSchemas) as SettingsKey[]) {
      const value = settingsSchemas[key].parse(demoSettings[key] ?? settingsDefaults[key]);
      await tx`INSERT INTO site_settings (key, value) VALUES (${key}, ${tx.json(value as postgres.JSONValue)}) ON CONFLICT (key) DO NOTHING`;
    }
    const gateways: [string, string, boolean, (string | null)[], string, boolean][] = [
      ['bank', 'Bank Transfer', true, ['Barclays Bank PLC', 'Nova Markets Ltd', 'GB33BUKB20201555555555', 'BUKBGB22', 'United Kingdom'], '0', true],
      ['btc', 'Bitcoin', true, ['bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh', null, null, null, null], '0.5', true],
      ['usdt', 'USDT (TRC-20)', true, ['TQrZ8tKfjLmN5cW7bQq8m4xJ3yR9vFvUoP', null, null, null, null], '0.5', true],
      ['flutterwave', 'Flutterwave', false, [], '2.9', false],
      ['coinpayments', 'CoinPayments', false, [], '1', false],
      ['paypal', 'PayPal', false, [null, null, 'sandbox'], '3.4', false],
      ['stripe', 'Stripe', false, [], '2.9', false],
      ['prmoney', 'PRMoney', false, [], '0', false],
      ['wipays', 'WiPays', false, [], '2', false],
      ['perfectmoney', 'Perfect Money', false, [], '1.5', false],
      ['globiance', 'Globiance', false, [], '1', false],
      ['moonpay', 'MoonPay', false, [], '4.5', false],
    ];
    for (const [name, title, manual, keys, fee, active] of gateways) {
      await tx`
        INSERT INTO payment_gateways (name, title, is_manual, key1, key2, key3, key4, key5, fee, is_active)
        VALUES (${name}, ${title}, ${manual}, ${keys[0] ?? null}, ${keys[1] ?? null}, ${keys[2] ?? null}, ${keys[3] ?? null}, ${keys[4] ?? null}, ${fee}, ${active})
        ON CONFLICT (name) DO NOTHING`;
    }
    for (const key of ['polygonAPI', 'eodAPI', 'oandaAPI', 'currencyAPI', 'voiso']) {
      await tx`INSERT INTO api_settings (key, value3) VALUES (${key}, ${key === 'oandaAPI' ? 'fxpractice' : key === 'currencyAPI' ? '300' : null}) ON CONFLICT DO NOTHING`;
    }
    await tx`UPDATE withdraw_fee_settings SET fee_percentage = 1, fee_fixed = 2 WHERE fee_percentage = 0 AND fee_fixed = 0`;

    // --- CRM: sales statuses, teams, promo codes, leads and notes
    for (const [status, color, isDefault] of salesStatuses) {
      await tx`INSERT INTO sales_statuses (status, color, is_default) VALUES (${status}, ${color}, ${isDefault}) ON CONFLICT ((lower(status))) DO NOTHING`;
    }
    const teams: [string, string, bigint[]][] = DEMO_TEAMS.map(([name, code, role]) => [name, code, [role === 'sales' ? ids.sales : ids.retention]]);
    for (const [name, code, members] of teams) {
      // databases seeded before the codes followed the team-code rule keep their teams, renamed
      const legacy = LEGACY_TEAM_CODES[code];
      if (legacy) await tx`UPDATE teams SET code = ${code} WHERE code = ${legacy} AND NOT EXISTS (SELECT 1 FROM teams WHERE code = ${code})`;
      const [team] = await tx`
        INSERT INTO teams (name, code, manager_id) VALUES (${name}, ${code}, ${ids.manager})
        ON CONFLICT (code) DO UPDATE SET code = EXCLUDED.code RETURNING id`;
      for (const m of members) await tx`INSERT INTO team_members (team_id, user_id) VALUES (${team.id}, ${m}) ON CONFLICT DO NOTHING`;
    }
    for (const [code, owner] of [['NOVA2026', ids.sales], ['AFFWELCOME', ids.affiliate]] as const) {
      await tx`INSERT INTO promo_codes (code, owner_id) VALUES (${code}, ${owner}) ON CONFLICT (code) DO NOTHING`;
    }

    const [{ n: existingLeads }] = await tx`SELECT count(*)::int AS n FROM leads WHERE lead_source_id LIKE 'demo-%'`;
    if (existingLeads < DEMO_LEAD_COUNT) {
      const rnd = prng(20261123);
      const statuses = salesStatuses.map((s) => s[0]);
      const rows = [];
      for (let i = 1; i <= DEMO_LEAD_COUNT; i++) {
        const first = rnd.pick(firstNames), last = rnd.pick(lastNames), [country, city] = rnd.pick(countries);
        const group = i % 6 === 0 ? 'archived' : i % 3 === 0 ? 'retentions' : 'sales';
        const daysAgo = rnd.int(0, 120);
        const deposited = group === 'retentions' && rnd.next() < 0.7;
        rows.push({
          source: `demo-${i}`,
          first, last,
          email: `${first}.${last}.${i}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, ''),
          phone: `+${rnd.int(1, 99)} ${rnd.int(100, 999)} ${rnd.int(100000, 999999)}`,
          country, city,
          funnel: rnd.pick(funnels),
          reference: i % 4 === 0 ? `AFF-${1000 + i}` : null,
          status: group === 'retentions' && deposited ? 'Deposited' : rnd.pick(statuses),
          group,
          agent: group === 'sales' && rnd.next() < 0.6 ? ids.sales : null,
          ret: group === 'retentions' ? ids.retention : null,
          manager: ids.manager,
          affiliate: i % 4 === 0 ? ids.affiliate : null,
          live: i % 5 === 0,
          createdDaysAgo: daysAgo,
          deposited,
        });
      }
      await tx`
        INSERT INTO leads (lead_source_id, first_name, last_name, email, phone, country, city, funnel_link, reference,
                           lead_status, "group", agent_id, ret_id, manager_id, affiliate_id, is_live, created_at,
                           deposited_at, ftd_at, last_access)
        SELECT r.source, r.first, r.last, r.email, r.phone, r.country, r.city, r.funnel, r.reference, r.status,
               r."group"::lead_group, r.agent, r.ret, r.manager, r.affiliate, r.live,
               now() - make_interval(days => r."createdDaysAgo"),
               CASE WHEN r.deposited THEN now() - make_interval(days => r."createdDaysAgo" / 2) END,
               CASE WHEN r.deposited THEN now() - make_interval(days => r."createdDaysAgo" / 2) END,
               now() - make_interval(days => r."createdDaysAgo" / 3)
        FROM jsonb_to_recordset(${tx.json(JSON.parse(JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? String(v) : v))))})
          AS r(source text, first text, last text, email text, phone text, country text, city text, funnel text,
               reference text, status text, "group" text, agent bigint, ret bigint, manager bigint, affiliate bigint,
               live boolean, "createdDaysAgo" int, deposited boolean)
        WHERE NOT EXISTS (SELECT 1 FROM leads l WHERE l.lead_source_id = r.source)`;
      // the two demo customers are clients: leads linked to their users
      for (const key of ['alice', 'bob'] as const) {
        const u = demoUsers.find((d) => d.key === key)!;
        const [first, last] = u.fullName.split(' ');
        await tx`
          INSERT INTO leads (lead_source_id, first_name, last_name, email, phone, country, city, lead_status, "group", user_id, manager_id, ret_id, created_at, deposited_at, ftd_at)
          SELECT ${`demo-client-${key}`}, ${first}, ${last}, ${u.email}, p.phone, p.country, p.city,
                 ${key === 'alice' ? 'Deposited' : 'New'}, ${key === 'alice' ? 'retentions' : 'sales'}, ${ids[key]}, ${ids.manager},
                 ${key === 'alice' ? ids.retention : null}, now() - interval '30 days',
                 ${key === 'alice' ? sql`now() - interval '12 days'` : null}, ${key === 'alice' ? sql`now() - interval '12 days'` : null}
          FROM profiles p WHERE p.user_id = ${ids[key]}
          ON CONFLICT (user_id) WHERE user_id IS NOT NULL DO NOTHING`;
      }
      const noteTexts = ['Called, asked to call back tomorrow.', 'Interested in gold and indices.', 'Sent the platform walkthrough by email.', 'Prefers WhatsApp contact.', 'Asked about withdrawal times.'];
      await tx`
        INSERT INTO notes (lead_id, user_id, content, created_at)
        SELECT l.id, ${ids.sales}, (${noteTexts}::text[])[1 + (l.id % ${noteTexts.length})], l.created_at + interval '1 day'
        FROM leads l
        WHERE l.lead_source_id LIKE 'demo-%' AND l.id % 3 = 0
          AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.lead_id = l.id)`;
    }
  });
  // the leads' phone_e164, by the app's rule (the seed's SQL writes none): only the leads after the job's mark
  await backfillLeadPhones(sql, { wait: true });
  log('demo data loaded');
}
