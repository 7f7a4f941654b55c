// Staff trade lists and actions (docs/specs.md#admin-trades). The lists are read here, paged and
// filtered in PostgreSQL; edit, force close and delete are the engine's staff commands (the only
// writer of orders and trading P/L), sent with the staff member's id and address so the engine
// audits each one, with before and after values, in the transaction that makes the change.
import { isIP } from 'node:net';
import Decimal from 'decimal.js';
import type { Sql } from '~/shared/db.server.ts';
import type { ListQuery } from '~/components/ui/list-params.ts';
import { engine, type EngineRefusal } from '~/shared/engine.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import { parseUserRef, type TradeAction, type TradeType } from './schemas.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';

export interface TradeFilters { user: string; instrument: string; side: string; dateStart: string; dateEnd: string }
export type TradeListQuery = Pick<ListQuery, 'limit' | 'offset' | 'dir'> & TradeFilters;

export interface TradeRow {
  id: number; userId: number; email: string; mode: 'demo' | 'real'; currency: string;
  type: 'buy' | 'sell'; instrument: string; symbol: string; digits: number;
  amount: string; openRate: string; closeRate: string | null; exchangeRate: string; spread: string; marginUsed: string;
  proLoss: string | null; profit: string | null; loss: string | null; leverage: number;
  createdAt: string; closeTime: string | null; closeReason: string | null;
  /** set when it was ordered in lots; a partial close's part: the position it was cut from */
  lots?: string | null; positionId?: number | null;
  /** the trailing stop's distance, and its latest moves (newest first, at most TRAIL_MOVES_SHOWN) */
  trailing?: string | null; moves?: TrailMoveRow[];
}

/** A trailing stop's move as the staff trade view lists it (order_level_moves). */
export interface TrailMoveRow { lossFrom: string | null; lossTo: string; movedAt: string }
export const TRAIL_MOVES_SHOWN = 10;

/** The filters' user and instrument as ids (looked up first, so the planner sees the values); null: nothing can match. */
async function resolve(sql: Sql, f: TradeFilters): Promise<{ users: number[] | null; instrument: number | null } | null> {
  const user = f.user ? parseUserRef(f.user) : null;
  const [users, instrument] = await Promise.all([
    !user ? null : 'id' in user ? [user.id]
      : sql`SELECT id FROM users WHERE email = ${user.email}`.then((rs) => rs.map((r) => Number(r.id))),
    f.instrument ? sql`SELECT id FROM instruments WHERE name = ${f.instrument}`.then(([r]) => (r ? Number(r.id) : undefined)) : null,
  ]);
  if ((users && users.length === 0) || instrument === undefined) return null;
  return { users, instrument };
}

/** The list's conditions. Deleted trades (orders.deleted_at) are never listed. */
function where(sql: Sql, type: TradeType, f: TradeFilters, ids: { users: number[] | null; instrument: number | null }) {
  return sql`o.deleted_at IS NULL
    ${type === 'open' ? sql`AND o.close_time IS NULL` : type === 'closed' ? sql`AND o.close_time IS NOT NULL` : sql``}
    ${ids.users ? sql`AND o.balance_id IN (SELECT b.id FROM balances b WHERE b.user_id IN ${sql(ids.users)})` : sql``}
    ${ids.instrument !== null ? sql`AND o.instrument_id = ${ids.instrument}` : sql``}
    ${f.side ? sql`AND o.type = ${f.side}::order_side` : sql``}
    ${f.dateStart ? sql`AND o.created_at >= (${f.dateStart}::date)::timestamp AT TIME ZONE 'UTC'` : sql``}
    ${f.dateEnd ? sql`AND o.created_at < (${f.dateEnd}::date + 1)::timestamp AT TIME ZONE 'UTC'` : sql``}`;
}


/**
 * The number of trades a list holds: counted up to EXACT_COUNT_LIMIT (a count that stops there),
 * else PostgreSQL's estimate of the same query, so a list of millions costs what one of
 * thousands does.
 */
async function countTrades(sql: Sql, cond: ReturnType<typeof where>, limit: number): Promise<{ total: number; estimated: boolean }> {
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM orders o WHERE ${cond} LIMIT ${limit + 1}) x`;
  if (n <= limit) return { total: n, estimated: false };
  const [plan] = await sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM orders o WHERE ${cond}`;
  const rows = Number((plan['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0]?.Plan?.['Plan Rows']);
  return { total: Math.max(n, Number.isFinite(rows) ? Math.round(rows) : 0), estimated: true };
}

/**
 * One page of a trade list, by id (newest first unless asked otherwise; ascending gives the
 * oldest first). The page's ids are picked from the list indexes alone (index-only scans:
 * orders_list_idx, orders_instrument_list_idx, orders_open_list_idx, orders_balance_idx), then only
 * those rows are read with their user, wallet and instrument: no N+1, and a deep page costs
 * what walking the index to it costs.
 */
export async function listTrades(sql: Sql, type: TradeType, q: TradeListQuery, opts: { exactCountLimit?: number } = {}): Promise<{ rows: TradeRow[]; total: number; estimated: boolean }> {
  const ids = await resolve(sql, q);
  if (!ids) return { rows: [], total: 0, estimated: false };
  const cond = where(sql, type, q, ids);
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const [rows, count] = await Promise.all([
    sql`
      SELECT o.id, o.user_id, u.email, b.mode, b.currency, o.type, i.name AS symbol, i.base || '/' || i.quote AS instrument, i.digits,
             o.trade_amount::text AS amount, o.open_rate::text AS open_rate, o.close_rate::text AS close_rate,
             o.exchange_rate::text AS exchange_rate, o.spread::text AS spread, o.margin_used::text AS margin_used,
             o.pro_loss::text AS pro_loss, o.profit::text AS profit, o.loss::text AS loss, o.leverage,
             o.created_at, o.close_time, o.close_reason, o.lots::text AS lots, o.position_id, o.trailing_distance::text AS trailing,
             (SELECT coalesce(json_agg(json_build_object('lossFrom', m.loss_from::text, 'lossTo', m.loss_to::text, 'movedAt', m.moved_at) ORDER BY m.id DESC), '[]'::json)
                FROM (SELECT x.id, x.loss_from, x.loss_to, x.moved_at FROM order_level_moves x
                       WHERE x.order_id = o.id ORDER BY x.id DESC LIMIT ${TRAIL_MOVES_SHOWN}) m) AS moves
        FROM (SELECT o.id FROM orders o WHERE ${cond} ORDER BY o.id ${dir} LIMIT ${q.limit} OFFSET ${q.offset}) p
        JOIN orders o ON o.id = p.id
        JOIN instruments i ON i.id = o.instrument_id
        JOIN users u ON u.id = o.user_id
        JOIN balances b ON b.id = o.balance_id
       ORDER BY o.id ${dir}`,
    countTrades(sql, cond, opts.exactCountLimit ?? EXACT_COUNT_LIMIT),
  ]);
  // an estimate never hides a page that has rows: a full page offers the next one
  const seen = q.offset + rows.length + (count.estimated && rows.length === q.limit ? 1 : 0);
  const total = count.estimated ? Math.max(count.total, seen) : count.total;
  return {
    total, estimated: count.estimated,
    rows: rows.map((r): TradeRow => ({
      id: Number(r.id), userId: Number(r.user_id), email: r.email, mode: r.mode, currency: r.currency.trim(),
      type: r.type, instrument: r.instrument, symbol: r.symbol, digits: Number(r.digits),
      amount: r.amount, openRate: r.open_rate, closeRate: r.close_rate, exchangeRate: r.exchange_rate, spread: r.spread,
      marginUsed: r.margin_used, proLoss: r.pro_loss, profit: r.profit, loss: r.loss, leverage: Number(r.leverage),
      createdAt: (r.created_at as Date).toISOString(), closeTime: r.close_time ? (r.close_time as Date).toISOString() : null,
      closeReason: r.close_reason, lots: r.lots ?? null, positionId: r.position_id === null ? null : Number(r.position_id),
      trailing: r.trailing ?? null,
      moves: (r.moves as { lossFrom: string | null; lossTo: string; movedAt: string }[]).map((m) => ({ ...m, movedAt: new Date(m.movedAt).toISOString() })),
    })),
  };
}

/** The instruments of the filter's list. */
export async function instrumentChoices(sql: Sql) {
  const rows = await sql`SELECT name, base || '/' || quote AS label FROM instruments ORDER BY category, name`;
  return rows.map((r) => ({ value: r.name as string, label: r.label as string }));
}


const DONE: Record<TradeAction['intent'], string> = {
  edit: 'Order updated successfully',
  close: 'Order closed successfully',
  delete: 'Order deleted successfully',
};

/** The edit form's fields by the label the engine's decimal parser names them with. */
const FIELD_LABELS: [string, string][] = [
  ['Open rate', 'openRate'], ['Close rate', 'closeRate'], ['Spread', 'spread'], ['Take profit', 'profit'], ['Stop loss', 'loss'],
  ['Open trades cannot have the close rate', 'closeRate'], ['Invalid open time', 'openTime'], ['Open time must be before', 'openTime'],
];

/**
 * The engine's refusal as the page shows it: its own message (a missing price names the
 * instrument through the translated key), its 4xx status; an engine fault is a 502, never a 500.
 */
function refusal(r: EngineRefusal, symbol?: string): Outcome {
  const status = r.status >= 500 && r.status !== 503 ? 502 : r.status;
  if (r.code === 'no_price' && symbol) return { ok: false, status, message: 'No price for {{symbol}} yet', values: { symbol } };
  const field = FIELD_LABELS.find(([label]) => r.message.startsWith(label))?.[1];
  return { ok: false, status, message: r.message || 'Something went wrong', field };
}

/** A client address the audit's inet column takes, else none. */
export function auditIp(ip: string | null | undefined): string | null {
  return ip && ip.length <= 64 && isIP(ip) ? ip : null;
}

/** A form value against the stored one: the same number (or both unset) is no change. */
function changed(sent: string | null | undefined, stored: string | null): boolean {
  if (sent === undefined) return false;
  if (sent === null || stored === null) return sent !== stored;
  return !new Decimal(sent).eq(stored);
}

/**
 * One staff command on a trade. The order is read first to answer the form's own rules with a
 * field error (the close rate of an open trade, an open time after the close) and to send the
 * engine only what the staff member changed: the form comes filled with the stored values, and
 * an untouched open time (shown to the minute) must not lose its seconds. The engine checks
 * again under its locks and is the one that writes, posts the P/L difference and audits.
 */
export async function runTradeAction(sql: Sql, actor: { id: number; ip: string | null }, a: TradeAction): Promise<Outcome> {
  const [o] = await sql`
    SELECT o.id, o.close_time, o.deleted_at, o.created_at, o.open_rate::text AS open_rate, o.close_rate::text AS close_rate,
           o.spread::text AS spread, o.profit::text AS profit, o.loss::text AS loss, i.name AS symbol
      FROM orders o JOIN instruments i ON i.id = o.instrument_id WHERE o.id = ${a.id}`;
  if (!o || o.deleted_at) return refuse(404, 'Order not found');
  const ip = auditIp(actor.ip);
  switch (a.intent) {
    case 'edit': {
      if (a.closeRate !== undefined && !o.close_time) return refuse(400, 'Open trades cannot have the close rate edited', 'closeRate');
      if (a.openTime !== undefined && o.close_time && Date.parse(a.openTime) > (o.close_time as Date).getTime()) {
        return refuse(400, 'Open time must be before the close time', 'openTime');
      }
      const edit = {
        openRate: changed(a.openRate, o.open_rate) ? a.openRate : undefined,
        closeRate: changed(a.closeRate, o.close_rate) ? a.closeRate : undefined,
        spread: changed(a.spread, o.spread) ? a.spread : undefined,
        profit: changed(a.profit, o.profit) ? a.profit : undefined,
        loss: changed(a.loss, o.loss) ? a.loss : undefined,
        openTime: a.openTime !== undefined && a.openTime.slice(0, 16) !== (o.created_at as Date).toISOString().slice(0, 16) ? a.openTime : undefined,
      };
      if (Object.values(edit).every((v) => v === undefined)) return { ok: true, toast: 'Nothing was changed' };
      const r = await engine().adminEditOrder(a.id, { actorId: actor.id, ip, ...edit });
      return r.ok ? { ok: true, toast: DONE.edit } : refusal(r, o.symbol);
    }
    case 'close': {
      if (o.close_time) return refuse(409, 'Order is already closed');
      // a quantity: part of the trade (docs/specs.md#partial-close), audited by the engine
      const r = await engine().adminCloseOrder(a.id, { actorId: actor.id, ip, ...(a.quantity ? { quantity: a.quantity } : {}) });
      if (!r.ok) return refusal(r, o.symbol);
      if (a.quantity) return { ok: true, toast: 'Part of the order closed successfully' };
      return { ok: true, toast: DONE.close };
    }
    case 'delete': {
      const r = await engine().adminDeleteOrder(a.id, ip ? { actorId: actor.id, ip } : { actorId: actor.id });
      return r.ok ? { ok: true, toast: DONE.delete } : refusal(r, o.symbol);
    }
  }
}
