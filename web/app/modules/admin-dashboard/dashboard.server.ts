// The admin dashboard's figures (/admin; docs/specs.md#admin-dashboard). Nothing is
// paid on the trading path (migrations/1733050000000_admin-dashboard-totals.sql):
// - trades opened and closes' realised P/L and spreads: the rows the dashboard rolled up
//   (admin_rollup, per day, from the append-only orders inserts and ledger entries, up to a
//   watermark per source) plus the tail after the watermark aggregated live, in one statement, so
//   the figures are exact and current; the loader moves the watermark now and then
//   (`maybeRollup`), never on the page's path;
// - deposits, withdrawals and customers: the day totals their (low-rate) triggers keep;
// - the open exposure: live from the open orders (orders_open_idx), read at most once a
//   second per process and refreshed in the background (`openBook`).
// What is shown:
// - money (deposits, withdrawals, Profit/Loss, the bar chart) counts real wallets only, each
//   currency's sum converted to the App Currency (branding's first currency) at the engine's
//   conversion rate (GET /v1/rates, the rate the pricing plans' charges use); a currency without a
//   rate is left out and named;
// - Total Trades and Trade Engagement count every trade opened in the range, demo ones too, and
//   not the ones staff deleted;
// - Total Users counts the customers (role 3) who signed up in the range;
// - Profit/Loss is the broker's: the negative of the customers' realised P/L (closes in the range
//   by close day, with staff corrections of closed trades; their P/L already has the spread cost
//   taken off) plus the approved deposits' and withdrawals' fees. It is shown split into trading,
//   spreads and fees. Closed trades counts the closes that posted a P/L (a close at exactly 0.00000000
//   posts no ledger entry).
// - the open exposure: per instrument, the sums of the open real positions' exposure terms in the
//   App Currency, which the page values at live quotes with the domain's `exposurePnl`.
import { dec, Decimal, exact, type Category, type Side } from '@broker/engine/domain';
import type { Sql } from '~/shared/db.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { currentQuotes } from '~/modules/trading/quotes.server.ts';

/** Days of the Recent Transactions chart (§9 "Dashboard covers the last 7 days"). */
export const RECENT_DAYS = 7;
export const CATEGORIES: readonly Category[] = ['forex', 'commodity', 'index', 'stock', 'crypto'];

export interface DashboardRange { dateStart: string; dateEnd: string }

export interface Money { amount: string; count: number }
export interface ExposureRow {
  instrument: string; category: Category; positions: number;
  /** buy units − sell units (the instrument's base units) */
  netUnits: string; buyUnits: string; sellUnits: string;
  /** Σ of the positions' exposure terms in the App Currency (formulas.ts `exposure`) */
  long: string; short: string; offset: string;
  /** the broker's floating P/L at the engine's last quote (−customers'), null without one */
  brokerPnl: string | null; bid: number | null; ask: number | null;
}
export interface DashboardData {
  currency: string;
  range: DashboardRange;
  totalDeposits: Money;
  totalWithdraws: Money;
  totalTrades: number;
  totalUsers: number;
  profitLoss: { total: string; trading: string; spreads: string; fees: string; closedTrades: number };
  recent: { days: string[]; deposits: string[]; withdrawals: string[] };
  engagement: { category: Category; trades: number }[];
  exposure: ExposureRow[];
  /** wallet currencies whose figures are left out: no conversion rate to the App Currency */
  unconverted: string[];
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return dayOf(d);
}

type Rates = Map<string, Decimal | null>;

/** Rates currency → App Currency from the engine (null: none), asked once per currency. */
async function ratesTo(base: string, currencies: Iterable<string>): Promise<Rates> {
  const out: Rates = new Map([[base, dec(1)]]);
  const ask = [...new Set(currencies)].filter((c) => c !== base);
  const answers = await Promise.all(ask.map((c) => engine().rate(c, base).catch(() => null)));
  ask.forEach((c, i) => {
    const r = answers[i];
    out.set(c, r && r.ok ? dec(r.rate) : null);
  });
  return out;
}

/** Σ amount × rate over currencies; currencies without a rate are skipped (and reported by the caller). */
function convert(rows: { currency: string; amount: string }[], rates: Rates): Decimal {
  let s = dec(0);
  for (const r of rows) {
    const rate = rates.get(r.currency);
    if (rate) s = s.plus(dec(r.amount).times(rate));
  }
  return s;
}

const money = (d: Decimal) => d.toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed(8);

/**
 * Everything the page shows for the range (inclusive UTC days; '' is unbounded). The bar chart
 * shows the 7 days that end on the range's end day (today without one).
 */
export async function dashboardData(sql: Sql, range: DashboardRange, opts: { today?: string; quotes?: boolean; exposureMaxAgeMs?: number; rollupEveryMs?: number } = {}): Promise<DashboardData> {
  const base = (await getSetting(sql, 'branding')).currencies[0] ?? 'USD';
  const from = range.dateStart || '-infinity';
  const to = range.dateEnd || 'infinity';
  const lastDay = range.dateEnd || opts.today || dayOf(new Date());
  const firstDay = addDays(lastDay, -(RECENT_DAYS - 1));

  const [moneyRows, countRows, rolledRows, recentRows, exposureRows] = await Promise.all([
    sql<{ metric: string; currency: string; n: string; amount: string; fee: string }[]>`
      SELECT metric, currency, sum(n)::text AS n, sum(amount)::text AS amount, sum(fee)::text AS fee
        FROM admin_daily_totals
       WHERE metric IN ('deposit', 'withdrawal') AND day BETWEEN ${from}::text::date AND ${to}::text::date AND mode = 'real'
       GROUP BY metric, currency`,
    sql<{ metric: string; category: string; n: string }[]>`
      SELECT metric, '' AS category, sum(n)::text AS n
        FROM admin_daily_totals
       WHERE metric = 'customer' AND day BETWEEN ${from}::text::date AND ${to}::text::date
       GROUP BY metric`,
    sql<{ metric: string; mode: string; currency: string; category: string; n: string; amount: string; fee: string }[]>`
      SELECT metric, mode, currency, category, sum(n)::text AS n, sum(amount)::text AS amount, sum(fee)::text AS fee
        FROM (${rolledUp(sql, from, to)}) r
       GROUP BY metric, mode, currency, category`,
    sql<{ metric: string; day: string; currency: string; amount: string }[]>`
      SELECT metric, day::text AS day, currency, sum(amount)::text AS amount
        FROM admin_daily_totals
       WHERE metric IN ('deposit', 'withdrawal') AND day BETWEEN ${firstDay}::text::date AND ${lastDay}::text::date AND mode = 'real'
       GROUP BY metric, day, currency`,
    openBook(sql, opts.exposureMaxAgeMs ?? 0),
  ]);
  maybeRollup(sql, opts.rollupEveryMs);

  const closed = rolledRows.filter((r) => r.metric === 'closed' && r.mode === 'real');
  const rates = await ratesTo(base, [...moneyRows, ...closed, ...recentRows, ...exposureRows].map((r) => r.currency));
  const unconverted = [...rates].filter(([, r]) => r === null).map(([c]) => c).sort();

  const of = (metric: string) => moneyRows.filter((r) => r.metric === metric);
  const count = (rows: { n: string }[]) => rows.reduce((s, r) => s + Number(r.n), 0);
  const deposits = of('deposit'), withdrawals = of('withdrawal');
  const fees = convert([...deposits, ...withdrawals].map((r) => ({ currency: r.currency, amount: r.fee })), rates);
  const customersPnl = convert(closed, rates);
  const spreads = convert(closed.map((r) => ({ currency: r.currency, amount: r.fee })), rates);
  // the customers' P/L already has the spread taken off: the broker's trading result is the rest
  const trading = customersPnl.neg().minus(spreads);

  const days = Array.from({ length: RECENT_DAYS }, (_, i) => addDays(firstDay, i));
  const perDay = (metric: string) => days.map((d) => money(convert(recentRows.filter((r) => r.metric === metric && r.day === d), rates)));

  const trades = rolledRows.filter((r) => r.metric === 'trade');
  const engagement = CATEGORIES.map((category) => ({ category, trades: count(trades.filter((r) => r.category === category)) }));

  return {
    currency: base,
    range,
    totalDeposits: { amount: money(convert(deposits, rates)), count: count(deposits) },
    totalWithdraws: { amount: money(convert(withdrawals, rates)), count: count(withdrawals) },
    totalTrades: count(trades),
    totalUsers: count(countRows.filter((r) => r.metric === 'customer')),
    profitLoss: { total: money(trading.plus(spreads).plus(fees)), trading: money(trading), spreads: money(spreads), fees: money(fees), closedTrades: count(closed) },
    recent: { days, deposits: perDay('deposit'), withdrawals: perDay('withdrawal') },
    engagement,
    exposure: await exposureOf(exposureRows, rates, opts.quotes !== false),
    unconverted,
  };
}

/**
 * The open exposure alone, read afresh (GET /admin/exposure): what the dashboard asks for when the
 * stream says a position opened or closed (the staff topic `exposure`), so a new instrument's row
 * appears and an emptied one goes without a reload. The read it makes becomes the dashboard's
 * cached one. The page asks at most once a second (dashboard-page.tsx).
 */
export async function exposureNow(sql: Sql): Promise<{ currency: string; exposure: ExposureRow[] }> {
  const base = (await getSetting(sql, 'branding')).currencies[0] ?? 'USD';
  const rows = await openBook(sql, 0);
  const rates = await ratesTo(base, rows.map((r) => r.currency));
  return { currency: base, exposure: await exposureOf(rows, rates, true) };
}

/**
 * The rows of trades ('trade': day, category, n) and closes ('closed': day, mode, currency, n,
 * amount = Σ P/L, fee = Σ spread cost) from `from` to `to` (UTC days): the rolled-up rows, the
 * tail after the watermarks aggregated live, less the staff-deleted trades that were rolled up.
 * One statement: the marks, the rollup and the tail are read in one snapshot, so a rollup step
 * committing meanwhile is counted once.
 */
function rolledUp(sql: Sql, from: string, to: string) {
  return sql`
    WITH m AS (SELECT (SELECT last_id FROM admin_rollup_mark WHERE source = 'orders') AS o,
                      (SELECT last_id FROM admin_rollup_mark WHERE source = 'ledger') AS l)
    SELECT r.metric, r.day, r.mode, r.currency, r.category, r.n, r.amount, r.fee
      FROM admin_rollup r WHERE r.day BETWEEN ${from}::text::date AND ${to}::text::date
    UNION ALL
    SELECT f.* FROM m, admin_trade_facts(m.o, NULL, true) f WHERE f.day BETWEEN ${from}::text::date AND ${to}::text::date
    UNION ALL
    SELECT f.* FROM m, admin_closed_facts(m.l, NULL) f WHERE f.day BETWEEN ${from}::text::date AND ${to}::text::date
    UNION ALL
    SELECT 'trade', admin_utc_day(o.created_at), '', '', o.kind::text, -count(*), 0, 0
      FROM m, orders o
     WHERE o.deleted_at IS NOT NULL AND o.id <= m.o
       AND o.created_at >= ${from}::text::date::timestamp AT TIME ZONE 'UTC'
       AND o.created_at < (${to}::text::date + 1)::timestamp AT TIME ZONE 'UTC'
     GROUP BY 2, 5`;
}

let lastRollup = 0;
let rolling: Promise<unknown> | null = null;

/**
 * One rollup step (admin_rollup_step: moves the watermarks over the rows that can no longer be
 * joined by a lower id committing late; a step already running elsewhere makes it a no-op).
 */
export function rollupNow(sql: Sql, opts: { marginSeconds?: number; maxIds?: number } = {}): Promise<{ source: string; last_id: string }[]> {
  return sql<{ source: string; last_id: string }[]>`
    SELECT source, last_id::text AS last_id
      FROM admin_rollup_step(make_interval(secs => ${opts.marginSeconds ?? 5}), ${opts.maxIds ?? 500_000})`.then((r) => [...r]);
}

/** At most one step per process every `everyMs` (default 30 s), in the background: the page never waits for it. */
export function maybeRollup(sql: Sql, everyMs = 30_000) {
  const now = Date.now();
  if (rolling || now - lastRollup < everyMs) return;
  lastRollup = now;
  rolling = rollupNow(sql).catch((e) => console.error('admin dashboard rollup:', e)).finally(() => { rolling = null; });
}

interface BookRow { name: string; category: Category; side: Side; currency: string; n: string; units: string; units_xr: string; notional_xr: string; spread_xr: string }
let book: { at: number; rows: Promise<BookRow[]> } | null = null;
let refreshing: Promise<BookRow[]> | null = null;

/** Forget the open book read last (the next page reads it afresh). */
export function forgetOpenBook() { book = null; }

/**
 * The open real positions' exposure terms per instrument, side and wallet currency, summed live
 * over the open orders. A read younger than `maxAgeMs` is
 * reused; one up to 10 s old is shown while a fresh read runs in the background (the page
 * does not wait for it); an older one, or none, is awaited.
 */
function openBook(sql: Sql, maxAgeMs: number): Promise<BookRow[]> {
  const age = book ? Date.now() - book.at : Infinity;
  if (book && age < maxAgeMs) return book.rows;
  const read = () => {
    const at = Date.now();
    const rows = readOpenBook(sql);
    refreshing = rows;
    rows.then(() => { if (!book || book.at < at) book = { at, rows }; }, () => {}).finally(() => { if (refreshing === rows) refreshing = null; });
    return rows;
  };
  if (book && maxAgeMs > 0 && age < 10_000) {
    if (!refreshing) read();
    return book.rows;
  }
  return refreshing && maxAgeMs > 0 ? refreshing : read();
}

function readOpenBook(sql: Sql): Promise<BookRow[]> {
  return sql<BookRow[]>`
    SELECT i.name, i.category, e.side, e.currency, e.n::text AS n, e.units::text AS units, e.units_xr::text AS units_xr,
           e.notional_xr::text AS notional_xr, e.spread_xr::text AS spread_xr
      FROM (SELECT o.instrument_id, o.type AS side, b.currency::text AS currency, count(*) AS n, sum(o.trade_amount) AS units,
                   sum(o.trade_amount / o.exchange_rate) AS units_xr, sum(o.trade_amount * o.open_rate / o.exchange_rate) AS notional_xr,
                   sum(o.spread / o.exchange_rate) AS spread_xr
              FROM orders o JOIN balances b ON b.id = o.balance_id
             WHERE o.close_time IS NULL AND o.deleted_at IS NULL AND b.mode = 'real'
             GROUP BY o.instrument_id, o.type, b.currency) e
      JOIN instruments i ON i.id = e.instrument_id
     ORDER BY i.name, e.side, e.currency`.then((r) => [...r]);
}

/**
 * Per instrument: the sums of its open real positions' exposure terms in the App Currency. A
 * group of positions (one side, one wallet currency) is handed to the domain's `exposure` as one
 * position: its units per exchange rate, its average open rate and its spread, at the rate
 * currency → App Currency; being linear, the sum of the groups is the sum of the positions.
 */
async function exposureOf(rows: BookRow[], rates: Rates, withQuotes: boolean): Promise<ExposureRow[]> {
  const by = new Map<string, { category: Category; n: number; buy: Decimal; sell: Decimal; long: Decimal; short: Decimal; offset: Decimal }>();
  for (const r of rows) {
    const rate = rates.get(r.currency);
    if (!rate) continue;
    const x = exact.exposure(r.side, r.units_xr, dec(r.notional_xr).div(r.units_xr), r.spread_xr, dec(1).div(rate));
    const e = by.get(r.name) ?? { category: r.category, n: 0, buy: dec(0), sell: dec(0), long: dec(0), short: dec(0), offset: dec(0) };
    e.n += Number(r.n);
    if (r.side === 'buy') e.buy = e.buy.plus(r.units); else e.sell = e.sell.plus(r.units);
    e.long = e.long.plus(x.long); e.short = e.short.plus(x.short); e.offset = e.offset.plus(x.offset);
    by.set(r.name, e);
  }
  const live = withQuotes && by.size ? await currentQuotes().catch(() => null) : null;
  const quotes = new Map(live?.ok ? live.quotes.filter((q) => !q.stale && q.bids && q.asks).map((q) => [q.name, q]) : []);
  return [...by].map(([instrument, e]) => {
    const q = quotes.get(instrument);
    const pnl = q ? exact.exposurePnl({ long: e.long, short: e.short, offset: e.offset }, dec(q.bids!), dec(q.asks!)).neg() : null;
    return {
      instrument, category: e.category, positions: e.n,
      netUnits: e.buy.minus(e.sell).toFixed(), buyUnits: e.buy.toFixed(), sellUnits: e.sell.toFixed(),
      long: e.long.toSignificantDigits(20).toFixed(), short: e.short.toSignificantDigits(20).toFixed(), offset: e.offset.toSignificantDigits(20).toFixed(),
      brokerPnl: pnl ? money(pnl) : null, bid: q?.bids ?? null, ask: q?.asks ?? null,
    };
  });
}
