// The client trading area's server side: what the dashboard shows (instruments, quotes,
// favorites, the active wallet, its positions one page at a time) and its commands, sent to the
// engine for the signed-in user: the engine resolves the active wallet and checks the order is theirs.
// A dashboard request reads from PostgreSQL only what is the user's (the session, the wallets, and
// in one query the plan, KYC, favorites, a page of positions and the open exposure): the
// instruments and spreads are the process's copies, the prices the engine's (docs/architecture.md).
import type { Sql } from '~/shared/db.server.ts';
import { getSettings } from '~/shared/settings.server.ts';
import { cached } from '~/shared/live-cache.server.ts';
import { engine, type EngineRefusal, type MarketStatus } from '~/shared/engine.server.ts';
import { currentQuotes } from './quotes.server.ts';
import { accountSummary } from '~/modules/accounts/accounts.server.ts';
import { kycApprovedSql, kycGate } from '~/modules/kyc/kyc-gate.server.ts';
import { FIRST_CATEGORY, type DashboardAction, type ActionReply } from './schemas.ts';
import type { Category } from '@broker/engine/domain';
import { marketStatus } from '@broker/engine/domain';

export const POSITIONS_PAGE_SIZE = 15;

export interface InstrumentRow {
  id: number; name: string; base: string; quote: string; alias: string | null; category: Category;
  tradable: boolean; leverage: number; digits: number;
  /** a pending order's minimum distance from the live price (instruments.pending_min_distance) */
  minDistance: number;
}
/** stale: the last saved price, shown but not traded on until the engine has a live one */
export interface Quote { bid: number; ask: number; prevBid: number | null; prevAsk: number | null; stale?: boolean }

export interface PositionRow {
  id: number; createdAt: string; type: 'buy' | 'sell'; amount: string; /** set when it was ordered in lots */ lots: string | null; instrument: string; base: string; quote: string;
  openRate: string; closeRate: string | null; exchangeRate: string; spread: string; profit: string | null; loss: string | null;
  proLoss: string | null; closeTime: string | null; closeReason: string | null;
  /** the instrument's price digits, for showing its rates */
  digits: number;
  /** a partial close's part: the position it was cut from (docs/specs.md#partial-close) */
  positionId?: number | null;
  /** the trailing stop's distance (price units), null: none; the instrument's category (its pip size) */
  trailing?: string | null; category?: Category;
  /** the instrument's smallest trailing distance; null: 10 pips */
  trailingMin?: string | null;
}

/** A live pending order of the wallet (docs/specs.md#pending-orders): the positions area's Pending tab. */
export interface PendingRow {
  id: number; createdAt: string; type: 'buy' | 'sell'; orderType: 'limit' | 'stop'; price: string; amount: string; lots: string | null;
  instrument: string; base: string; quote: string; category: Category; profit: string | null; loss: string | null;
  expiry: 'gtc' | 'day' | 'at'; expiresAt: string | null; digits: number; minDistance: number; leverage: number;
}

/** A page of the wallet's live pending orders, newest first, and how many there are (pending_orders_live_idx, _balance_idx). */
async function readPending(sql: Sql, balanceId: number | null, page: number, limit: number): Promise<{ total: number; rows: PendingRow[] }> {
  if (balanceId === null) return { total: 0, rows: [] };
  const offset = (Math.max(1, page) - 1) * limit;
  const [rows, [{ n }]] = await Promise.all([
    sql`SELECT x.id, x.created_at, x.type, x.order_type, x.price::text AS price, x.trade_amount::text AS amount, x.lots::text AS lots,
               i.name AS instrument, i.base, i.quote, i.category, x.profit::text AS profit, x.loss::text AS loss, x.expiry, x.expires_at,
               i.digits, i.pending_min_distance::float8 AS min_distance, i.leverage
          FROM pending_orders x JOIN instruments i ON i.id = x.instrument_id
         WHERE x.balance_id = ${balanceId} AND x.status = 'pending'
         ORDER BY x.id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql`SELECT count(*)::int AS n FROM pending_orders WHERE balance_id = ${balanceId} AND status = 'pending'`,
  ]);
  return {
    total: n as number,
    rows: rows.map((r) => ({
      id: Number(r.id), createdAt: new Date(r.created_at as Date).toISOString(), type: r.type, orderType: r.order_type, price: r.price,
      amount: r.amount, lots: r.lots, instrument: r.instrument, base: r.base, quote: r.quote, category: r.category, profit: r.profit,
      loss: r.loss, expiry: r.expiry, expiresAt: r.expires_at ? new Date(r.expires_at as Date).toISOString() : null, digits: Number(r.digits),
      minDistance: Number(r.min_distance ?? 0), leverage: Number(r.leverage),
    })),
  };
}

/** Open positions of a wallet summed per instrument (the domain's Exposure): enough to mark the floating P/L live. */
export interface Exposure { instrument: string; long: number; short: number; offset: number; count: number }

/**
 * What the dashboard reads of the user's own, in one query: the plan, whether a KYC document is
 * approved, the favorites, and for the active wallet (none: nothing) one page of positions (newest
 * first), how many there are, and the open positions summed per instrument. One round trip, where
 * each of these was one (every query is a write to PostgreSQL's socket and a wait for its answer).
 */
async function readUserDashboard(sql: Sql, userId: number, balanceId: number | null, opts: { openOnly: boolean; closedOnly?: boolean; page: number; limit: number }) {
  const offset = (Math.max(1, opts.page) - 1) * opts.limit;
  const open = () => (opts.openOnly ? sql`AND o.close_time IS NULL` : opts.closedOnly ? sql`AND o.close_time IS NOT NULL` : sql``);
  const [row] = await sql`
    SELECT to_jsonb(p) AS plan,
           ${kycApprovedSql(sql, userId)} AS kyc_ok,
           ARRAY(SELECT f.instrument_id::int FROM favorites f WHERE f.user_id = u.id ORDER BY f.created_at) AS favorites,
           (SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]'::json) FROM (
              SELECT o.id, o.created_at, o.type, o.trade_amount::text AS amount, o.lots::text AS lots, i.name AS instrument, i.base, i.quote,
                     o.open_rate::text AS open_rate, o.close_rate::text AS close_rate, o.exchange_rate::text AS exchange_rate,
                     o.spread::text AS spread, o.profit::text AS profit, o.loss::text AS loss, o.pro_loss::text AS pro_loss,
                     o.close_time, o.close_reason, i.digits, o.position_id, o.trailing_distance::text AS trailing, i.category,
                     i.trailing_min_distance::text AS trailing_min
                FROM orders o JOIN instruments i ON i.id = o.instrument_id
               WHERE o.balance_id = ${balanceId}::bigint AND o.deleted_at IS NULL ${open()}
               ORDER BY o.id DESC LIMIT ${opts.limit} OFFSET ${offset}) x) AS positions,
           (SELECT count(*)::int FROM orders o WHERE o.balance_id = ${balanceId}::bigint AND o.deleted_at IS NULL ${open()}) AS total,
           (SELECT coalesce(json_agg(e), '[]'::json) FROM (
              SELECT i.name AS instrument, sum(e.long_units)::float8 AS long, sum(e.short_units)::float8 AS short,
                     sum(e.pnl_offset)::float8 AS "offset", count(*)::int AS count
                FROM orders o JOIN instruments i ON i.id = o.instrument_id
               CROSS JOIN LATERAL order_exposure(o.type, o.trade_amount, o.open_rate, o.spread, o.exchange_rate) e
               WHERE o.balance_id = ${balanceId}::bigint AND o.close_time IS NULL AND o.deleted_at IS NULL
               GROUP BY i.name) e) AS exposure
      FROM users u LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
     WHERE u.id = ${userId}`;
  const positions = ((row?.positions ?? []) as Record<string, unknown>[]).map((r): PositionRow => ({
    id: Number(r.id), createdAt: new Date(r.created_at as string).toISOString(), type: r.type as PositionRow['type'], amount: r.amount as string, lots: r.lots as string | null,
    instrument: r.instrument as string, base: r.base as string, quote: r.quote as string, openRate: r.open_rate as string,
    closeRate: r.close_rate as string | null, exchangeRate: r.exchange_rate as string, spread: r.spread as string,
    profit: r.profit as string | null, loss: r.loss as string | null, proLoss: r.pro_loss as string | null,
    closeTime: r.close_time ? new Date(r.close_time as string).toISOString() : null, closeReason: r.close_reason as string | null,
    digits: Number(r.digits),
    positionId: r.position_id === null || r.position_id === undefined ? null : Number(r.position_id),
    trailing: (r.trailing ?? null) as string | null, category: r.category as Category, trailingMin: (r.trailing_min ?? null) as string | null,
  }));
  return {
    plan: (row?.plan ?? null) as Record<string, unknown> | null,
    kycOk: Boolean(row?.kyc_ok),
    favorites: (row?.favorites ?? []) as number[],
    positions: { total: (row?.total ?? 0) as number, rows: positions },
    exposure: (row?.exposure ?? []) as Exposure[],
  };
}

/**
 * Every instrument, by category and name (frozen: the copy is shared by every request of the
 * process until an instrument changes; live-cache). No prices: those come from the engine.
 */
export function listInstruments(sql: Sql): Promise<readonly InstrumentRow[]> {
  return cached(sql, 'instruments', 'list', async () => {
    const rows = await sql`SELECT id, name, base, quote, alias, category, tradable, leverage, digits, pending_min_distance::float8 AS min_distance
                             FROM instruments ORDER BY category, name`;
    return Object.freeze(rows.map((i) => Object.freeze({
      id: Number(i.id), name: i.name as string, base: i.base as string, quote: i.quote as string, alias: i.alias as string | null,
      category: i.category as Category, tradable: i.tradable as boolean, leverage: i.leverage as number, digits: i.digits as number,
      minDistance: Number(i.min_distance ?? 0),
    })));
  });
}

/** The spread setting of each category (kept like the instruments). */
export function categorySpreads(sql: Sql): Promise<Readonly<Partial<Record<Category, string>>>> {
  return cached(sql, 'spreads', 'all', async () => {
    const rows = await sql`SELECT category, value::text AS value FROM spreads`;
    return Object.freeze(Object.fromEntries(rows.map((s) => [s.category, s.value])));
  });
}

/**
 * The prices a page shows first for these instruments: the engine's quotes (quotes.server.ts);
 * the price an instrument last had is read from the database only for one the engine has no
 * price for (the engine down, or never priced), marked stale.
 */
async function firstQuotes(sql: Sql, instruments: readonly InstrumentRow[], quotes: Awaited<ReturnType<typeof currentQuotes>>): Promise<Record<string, Quote>> {
  const live = new Map(quotes.ok ? quotes.quotes.map((q) => [q.name, q]) : []);
  const unpriced = instruments.some((i) => !live.get(i.name)?.bids || !live.get(i.name)?.asks);
  const saved = unpriced
    ? new Map((await sql`SELECT name, bids::float8 AS bids, asks::float8 AS asks FROM instruments WHERE bids IS NOT NULL AND asks IS NOT NULL`)
      .map((r) => [r.name as string, { bids: r.bids as number, asks: r.asks as number }]))
    : new Map<string, { bids: number; asks: number }>();
  const quoteMap: Record<string, Quote> = {};
  for (const i of instruments) {
    const q = live.get(i.name);
    const bid = q?.bids ?? saved.get(i.name)?.bids, ask = q?.asks ?? saved.get(i.name)?.asks;
    if (bid && ask) quoteMap[i.name] = { bid, ask, prevBid: q?.prevBids ?? null, prevAsk: q?.prevAsks ?? null, ...(!q?.bids || q.stale ? { stale: true } : {}) };
  }
  return quoteMap;
}

/**
 * The dashboard of a user: the wallet comes from the request's account summary (the layout reads
 * the same one), the instruments and spreads from the process's copies, the prices from the
 * engine's quotes (firstQuotes). The page comes with the instruments of the tab it opens on
 * (FIRST_CATEGORY) and the user's favorites, and the prices of those and of the instruments of
 * the positions it shows and holds open; the other tabs' instruments are loaded by the browser
 * right after (allInstruments, GET /dashboard/instruments): a third of the instruments, where the
 * whole list and its prices were most of the page's own data.
 */
export async function loadDashboard(sql: Sql, userId: number, opts: { openOnly: boolean; closedOnly?: boolean; pendingTab?: boolean; page: number; limit: number; request?: Request }) {
  const balance = (await accountSummary(sql, userId, opts.request)).active;
  const [instruments, mine, spreads, settings, quotes, pending] = await Promise.all([
    listInstruments(sql),
    readUserDashboard(sql, userId, balance?.id ?? null, opts.pendingTab ? { ...opts, page: 1 } : opts),
    categorySpreads(sql),
    getSettings(sql, ['kyc'] as const),
    currentQuotes(),
    readPending(sql, balance?.id ?? null, opts.pendingTab ? opts.page : 1, opts.pendingTab ? opts.limit : 0),
  ]);
  const favorites = new Set(mine.favorites);
  const shown = instruments.filter((i) => i.category === FIRST_CATEGORY || favorites.has(i.id));
  const priced = new Set([...mine.exposure.map((e) => e.instrument), ...mine.positions.rows.filter((r) => !r.closeTime).map((r) => r.instrument),
    ...pending.rows.map((r) => r.instrument)]);
  const quoteMap = await firstQuotes(sql, instruments.filter((i) => i.category === FIRST_CATEGORY || favorites.has(i.id) || priced.has(i.name)), quotes);
  const plan = mine.plan;
  return {
    balance,
    instruments: shown as InstrumentRow[],
    /** every instrument is in `instruments` (else the browser loads the rest) */
    allInstruments: shown.length === instruments.length,
    quotes: quoteMap,
    status: (quotes.ok ? quotes.status : marketStatus(new Date())) as MarketStatus,
    favorites: mine.favorites,
    spreads: spreads as Partial<Record<Category, string>>,
    plan: plan ? { id: Number(plan.id), name: String(plan.name), values: plan } : null,
    isKyc: mine.kycOk,
    kycTrade: settings.kyc.trade === 'on',
    /** the 'verify KYC to trade' notice: only while the KYC trade switch makes trading wait for it */
    kycNotice: kycGate(settings.kyc, 'trade', mine.kycOk),
    positions: { ...mine.positions, page: opts.page, openOnly: opts.openOnly, closedOnly: !!opts.closedOnly, pageSize: opts.limit },
    /** the live pending orders: a page of them on the Pending tab, their count always (the tab's label) */
    pending: { ...pending, tab: !!opts.pendingTab },
    exposure: mine.exposure,
  };
}

/** Every instrument and its first price (GET /dashboard/instruments): the same for every user. */
export async function allInstruments(sql: Sql): Promise<{ instruments: InstrumentRow[]; quotes: Record<string, Quote> }> {
  const [instruments, quotes] = await Promise.all([listInstruments(sql), currentQuotes()]);
  return { instruments: instruments as InstrumentRow[], quotes: await firstQuotes(sql, instruments, quotes) };
}
export type DashboardData = Awaited<ReturnType<typeof loadDashboard>>;

/** Lot state of a category and the lot selector (GET /dashboard/lot-state/{category}). */
export async function lotState(sql: Sql, category: string) {
  const [[s], selector] = await Promise.all([
    sql`SELECT state FROM lot_settings WHERE category = ${category}::instrument_category`,
    sql`SELECT label, value::text AS value FROM lot_selector ORDER BY position, value`,
  ]);
  return { lotState: (s?.state ?? 'amount') as 'amount' | 'lot', lotSelector: selector.map((r) => ({ label: r.label as string, value: r.value as string })) };
}

const refused = (intent: string, r: EngineRefusal): ActionReply & { status: number } =>
  ({ ok: false, intent, toast: r.message || 'Something went wrong', status: r.status });

/**
 * One dashboard command for the signed-in user. The engine owns the rest: it places on the
 * user's active wallet, closes and modifies only the user's own orders (else 'not found'), and
 * enforces the trading rules (margin, bounds, market hours, KYC).
 */
export async function runDashboardAction(sql: Sql, userId: number, a: DashboardAction): Promise<ActionReply & { status: number }> {
  switch (a.intent) {
    case 'place': {
      const { intent, ...order } = a;
      const r = await engine().placeOrder({ userId, ...order });
      return r.ok ? { ok: true, intent, toast: 'Order Placed Successfully', status: 200 } : refused(intent, r);
    }
    case 'place-pending': {
      const { intent, ...order } = a;
      const r = await engine().placePending({ userId, ...order, expiresAt: order.expiry === 'at' ? order.expiresAt ?? null : null });
      return r.ok ? { ok: true, intent, toast: 'Pending Order Placed Successfully', status: 200 } : refused(intent, r);
    }
    case 'modify-pending': {
      const { intent, pendingId, ...changes } = a;
      const r = await engine().modifyPending(pendingId, { userId, ...changes, expiresAt: changes.expiry === 'at' ? changes.expiresAt ?? null : null });
      return r.ok ? { ok: true, intent, toast: 'Pending Order Modified Successfully', status: 200 } : refused(intent, r);
    }
    case 'cancel-pending': {
      const r = await engine().cancelPending(a.pendingId, userId);
      return r.ok ? { ok: true, intent: a.intent, toast: 'Pending Order Cancelled Successfully', status: 200 } : refused(a.intent, r);
    }
    case 'close': {
      // a quantity: part of the position (docs/specs.md#partial-close); its refusal says why
      const r = await engine().closeOrder(a.orderId, userId, a.quantity ?? undefined);
      if (!r.ok) return refused(a.intent, r);
      if (a.quantity) return { ok: true, intent: a.intent, toast: 'Position Partially Closed', status: 200 };
      return { ok: true, intent: a.intent, toast: 'Order Closed Successfully', status: 200 };
    }
    case 'modify': {
      const r = await engine().modifyOrder(a.orderId, {
        userId, ...(a.value === undefined ? {} : { [a.field]: a.value }), ...(a.trailing === undefined ? {} : { trailing: a.trailing }),
      });
      // a level switched off (null) was removed, not set: the toast says so
      if (r.ok && a.trailing) return { ok: true, intent: a.intent, toast: 'Trailing Stop Set Successfully', status: 200 };
      const done = a.value === null || a.value === undefined
        ? (a.field === 'profit' ? 'Take Profit Removed Successfully' : 'Stop Loss Removed Successfully')
        : (a.field === 'profit' ? 'Take Profit Set Successfully' : 'Stop Loss Set Successfully');
      if (r.ok) return { ok: true, intent: a.intent, toast: done, status: 200 };
      // a refused level says why (wrong side of the open rate or of the live price); the rest stays generic (§8)
      const said = r.code === 'bad_take_profit' || r.code === 'bad_stop_loss' || r.code === 'bad_trailing';
      return { ...refused(a.intent, r), toast: said ? r.message : 'Something went wrong' };
    }
    case 'favorite-add':
    case 'favorite-remove': {
      const rows = a.intent === 'favorite-add'
        ? await sql`INSERT INTO favorites (user_id, instrument_id) SELECT ${userId}, id FROM instruments WHERE id = ${a.id}
                    ON CONFLICT DO NOTHING RETURNING 1`
        : await sql`DELETE FROM favorites WHERE user_id = ${userId} AND instrument_id = ${a.id} RETURNING 1`;
      const [exists] = await sql`SELECT 1 FROM instruments WHERE id = ${a.id}`;
      if (!exists) return { ok: false, intent: a.intent, toast: 'Something went wrong', status: 404 };
      void rows;
      return { ok: true, intent: a.intent, toast: a.intent === 'favorite-add' ? 'Added to favorites' : 'Removed from favorites', status: 200 };
    }
  }
}
