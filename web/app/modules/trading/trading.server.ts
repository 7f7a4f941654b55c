// The client trading area's server side: what the dashboard shows (instruments, quotes,
// favorites, the active wallet, its positions one page at a time) and its commands, sent to the
// engine for the signed-in user: the engine resolves the active wallet and checks the order is theirs.
import type { Sql } from '~/utils/db.server.ts';
import { getSettings } from '~/modules/settings/settings.server.ts';
import { engine, type EngineRefusal, type MarketStatus } from './engine.server.ts';
import { activeWallet } from '~/modules/accounts/accounts.server.ts';
import { kycApprovedSql, kycGate } from '~/modules/money/money.server.ts';
import type { DashboardAction, ActionReply } from './schemas.ts';
import type { Category } from '@broker/engine/domain';
import { marketStatus } from '@broker/engine/domain';

export const POSITIONS_PAGE_SIZE = 15;

export interface InstrumentRow {
  id: number; name: string; base: string; quote: string; alias: string | null; category: Category;
  tradable: boolean; leverage: number; digits: number;
}
/** stale: the last saved price, shown but not traded on until the engine has a live one */
export interface Quote { bid: number; ask: number; prevBid: number | null; prevAsk: number | null; stale?: boolean }

export interface PositionRow {
  id: number; createdAt: string; type: 'buy' | 'sell'; amount: string; instrument: string; base: string; quote: string;
  openRate: string; closeRate: string | null; exchangeRate: string; spread: string; profit: string | null; loss: string | null;
  proLoss: string | null; closeTime: string | null; closeReason: string | null;
  /** the instrument's price digits, for showing its rates */
  digits: number;
}

/** Open positions of a wallet summed per instrument (the domain's Exposure): enough to mark the floating P/L live. */
export interface Exposure { instrument: string; long: number; short: number; offset: number; count: number }

export async function listPositions(sql: Sql, balanceId: number, opts: { openOnly: boolean; page: number; limit?: number }) {
  const limit = opts.limit ?? POSITIONS_PAGE_SIZE;
  const offset = (Math.max(1, opts.page) - 1) * limit;
  const open = opts.openOnly ? sql`AND o.close_time IS NULL` : sql``;
  const [rows, [count]] = await Promise.all([
    sql`
      SELECT o.id, o.created_at, o.type, o.trade_amount::text AS amount, i.name AS instrument, i.base, i.quote,
             o.open_rate::text AS open_rate, o.close_rate::text AS close_rate, o.exchange_rate::text AS exchange_rate,
             o.spread::text AS spread, o.profit::text AS profit, o.loss::text AS loss, o.pro_loss::text AS pro_loss,
             o.close_time, o.close_reason, i.digits
        FROM orders o JOIN instruments i ON i.id = o.instrument_id
       WHERE o.balance_id = ${balanceId} AND o.deleted_at IS NULL ${open}
       ORDER BY o.id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql`SELECT count(*)::int AS n FROM orders o WHERE o.balance_id = ${balanceId} AND o.deleted_at IS NULL ${open}`,
  ]);
  return {
    total: count.n as number,
    rows: rows.map((r): PositionRow => ({
      id: Number(r.id), createdAt: (r.created_at as Date).toISOString(), type: r.type, amount: r.amount, instrument: r.instrument,
      base: r.base, quote: r.quote, openRate: r.open_rate, closeRate: r.close_rate, exchangeRate: r.exchange_rate, spread: r.spread,
      profit: r.profit, loss: r.loss, proLoss: r.pro_loss, closeTime: r.close_time ? (r.close_time as Date).toISOString() : null,
      closeReason: r.close_reason, digits: Number(r.digits),
    })),
  };
}

export async function openExposure(sql: Sql, balanceId: number): Promise<Exposure[]> {
  const rows = await sql`
    SELECT i.name, sum(e.long_units)::float8 AS long, sum(e.short_units)::float8 AS short, sum(e.pnl_offset)::float8 AS offset, count(*)::int AS n
      FROM orders o JOIN instruments i ON i.id = o.instrument_id
     CROSS JOIN LATERAL order_exposure(o.type, o.trade_amount, o.open_rate, o.spread, o.exchange_rate) e
     WHERE o.balance_id = ${balanceId} AND o.close_time IS NULL AND o.deleted_at IS NULL
     GROUP BY i.name`;
  return rows.map((r) => ({ instrument: r.name, long: r.long, short: r.short, offset: r.offset, count: r.n }));
}

export async function loadDashboard(sql: Sql, userId: number, opts: { openOnly: boolean; page: number; limit: number }) {
  const balance = await activeWallet(sql, userId);
  const [instruments, favorites, spreads, [extra], settings, quotes, positions, exposure] = await Promise.all([
    sql`SELECT id, name, base, quote, alias, category, tradable, leverage, digits, bids::float8 AS bids, asks::float8 AS asks
          FROM instruments ORDER BY category, name`,
    sql`SELECT instrument_id FROM favorites WHERE user_id = ${userId} ORDER BY created_at`,
    sql`SELECT category, value::text AS value FROM spreads`,
    sql`SELECT to_jsonb(p) AS plan, ${kycApprovedSql(sql, userId)} AS kyc_ok
          FROM users u LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id WHERE u.id = ${userId}`,
    getSettings(sql, ['kyc'] as const),
    engine().quotes(),
    balance ? listPositions(sql, balance.id, opts) : Promise.resolve({ total: 0, rows: [] as PositionRow[] }),
    balance ? openExposure(sql, balance.id) : Promise.resolve([] as Exposure[]),
  ]);
  const live = quotes.ok ? new Map(quotes.quotes.map((q) => [q.name, q])) : new Map();
  const quoteMap: Record<string, Quote> = {};
  const list: InstrumentRow[] = instruments.map((i) => {
    const q = live.get(i.name);
    const bid = q?.bids ?? i.bids, ask = q?.asks ?? i.asks;
    if (bid && ask) quoteMap[i.name] = { bid, ask, prevBid: q?.prevBids ?? null, prevAsk: q?.prevAsks ?? null, ...(!q?.bids || q.stale ? { stale: true } : {}) };
    return {
      id: Number(i.id), name: i.name, base: i.base, quote: i.quote, alias: i.alias, category: i.category,
      tradable: i.tradable, leverage: i.leverage, digits: i.digits,
    };
  });
  const plan = extra?.plan as Record<string, unknown> | null;
  return {
    balance,
    instruments: list,
    quotes: quoteMap,
    status: (quotes.ok ? quotes.status : marketStatus(new Date())) as MarketStatus,
    favorites: favorites.map((f) => Number(f.instrument_id)),
    spreads: Object.fromEntries(spreads.map((s) => [s.category, s.value])) as Partial<Record<Category, string>>,
    plan: plan ? { id: Number(plan.id), name: String(plan.name), values: plan } : null,
    isKyc: Boolean(extra?.kyc_ok),
    kycTrade: settings.kyc.trade === 'on',
    /** the 'verify KYC to trade' notice: only while the KYC trade switch makes trading wait for it */
    kycNotice: kycGate(settings.kyc, 'trade', extra?.kyc_ok === true),
    positions: { ...positions, page: opts.page, openOnly: opts.openOnly, pageSize: opts.limit },
    exposure,
  };
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
    case 'close': {
      const r = await engine().closeOrder(a.orderId, userId);
      return r.ok ? { ok: true, intent: a.intent, toast: 'Order Closed Successfully', status: 200 } : refused(a.intent, r);
    }
    case 'modify': {
      const r = await engine().modifyOrder(a.orderId, { userId, [a.field]: a.value });
      const done = a.field === 'profit' ? 'Take Profit Set Successfully' : 'Stop Loss Set Successfully';
      if (r.ok) return { ok: true, intent: a.intent, toast: done, status: 200 };
      // a refused level says why (wrong side of the open rate or of the live price); the rest stays generic (§8)
      const said = r.code === 'bad_take_profit' || r.code === 'bad_stop_loss';
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
