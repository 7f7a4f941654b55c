// The back-office instrument pages /admin/instruments/{forex|commodity|index|crypto|stock}
// (docs/specs.md#trading-configuration): one implementation for the five categories.
// The category is the page's (the URL's third segment): a row of another category is
// 'Instrument not found' there. Every change is audited in its transaction; the engine follows
// through the engine_cache notification of the instruments table (migrations/…_engine-cache-notify.sql:
// name, currency, category, tradable, leverage or digits), so no restart is needed. The engine's
// own writes of the last quote (bids, asks, every few seconds) notify nothing.
import type { Category } from '@broker/engine/domain';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { invalidateCached } from '~/shared/live-cache.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { searchInstruments } from '~/shared/instrument-search.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { pgCode, refuse, replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { CATALOG_PARSE, INSTRUMENT_ACTIONS, type InstrumentInput } from './schemas.ts';
import { numberReader } from '~/components/ui/number-input.ts';

export const INSTRUMENT_SORTS = ['id', 'name', 'base', 'quote', 'tradingview', 'alias', 'leverage', 'tradable'] as const;
type Sort = (typeof INSTRUMENT_SORTS)[number];

export interface InstrumentAdminRow {
  id: number; name: string; base: string; quote: string; alias: string | null; tradingview: string;
  leverage: number; digits: number; swap: string; bids: string | null; asks: string | null; tradable: boolean;
  /** the smallest trailing stop distance (price units); null: 10 pips (docs/specs.md#trailing-stop) */
  trailingMin?: string | null;
  /** a pending order's minimum distance from the live price (docs/specs.md#pending-orders) */
  pendingMinDistance: string;
  /** open positions on it now (deleting it, or making it untradable, depends on them) */
  openPositions: number;
}

/**
 * One page of a category's instruments, searched by name, base, quote or alias with the one
 * instrument search (shared/instrument-search.ts, as the dashboard's): the category's symbols are
 * few, so they are ranked here and the page read by id; the default sort is then the ranking.
 */
export async function listInstruments(sql: Sql, category: Category, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>) {
  const term = q.search.trim();
  let matches: string[] | null = null;
  if (term) {
    const all = await sql<{ id: string; name: string; base: string; quote: string; alias: string | null }[]>`
      SELECT id::text AS id, name, base, quote, alias FROM instruments WHERE category = ${category}::instrument_category`;
    matches = searchInstruments(all, term).map((i) => i.id);
  }
  const where = sql`category = ${category}::instrument_category ${matches ? sql`AND id = ANY(${matches}::bigint[])` : sql``}`;
  const sort: Sort = (INSTRUMENT_SORTS as readonly string[]).includes(q.sort) ? (q.sort as Sort) : 'id';
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const order = matches && sort === 'id' ? sql`array_position(${matches}::bigint[], id)` : sql`${sql(sort)} ${dir} NULLS LAST, id ${dir}`;
  const [rows, [count]] = await Promise.all([
    sql`SELECT id, name, base, quote, alias, tradingview, leverage, digits, swap::text AS swap, bids::text AS bids, asks::text AS asks, tradable,
               trailing_min_distance::text AS trailing_min, pending_min_distance::text AS pending_min_distance
          FROM instruments WHERE ${where}
         ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM instruments WHERE ${where}`,
  ]);
  const ids = rows.map((r) => Number(r.id));
  const open = ids.length ? await openPositionCounts(sql, ids) : new Map<number, number>();
  return {
    total: count.n as number,
    rows: rows.map((r): InstrumentAdminRow => ({
      id: Number(r.id), name: r.name, base: r.base, quote: r.quote, alias: r.alias, tradingview: r.tradingview,
      leverage: r.leverage, digits: r.digits, swap: r.swap, bids: r.bids, asks: r.asks, tradable: r.tradable, trailingMin: r.trailing_min,
      pendingMinDistance: r.pending_min_distance,
      openPositions: open.get(Number(r.id)) ?? 0,
    })),
  };
}

/** Open positions per instrument (the open-orders index: open positions are few next to the history). */
async function openPositionCounts(sql: Sql, ids: number[]): Promise<Map<number, number>> {
  const rows = await sql`SELECT instrument_id, count(*)::int AS n FROM orders
                          WHERE close_time IS NULL AND deleted_at IS NULL AND instrument_id IN ${sql(ids)} GROUP BY instrument_id`;
  return new Map(rows.map((r) => [Number(r.instrument_id), r.n as number]));
}

const openCount = async (sql: Db, id: number) =>
  (await sql`SELECT count(*)::int AS n FROM orders WHERE instrument_id = ${id} AND close_time IS NULL AND deleted_at IS NULL`)[0].n as number;

/** What the audit trail keeps of an instrument. */
function snapshot(r: Record<string, unknown>) {
  return {
    name: r.name, base: r.base, quote: r.quote, alias: r.alias, category: r.category, tradingview: r.tradingview,
    leverage: r.leverage, digits: r.digits, swap: r.swap, bids: r.bids, asks: r.asks, tradable: r.tradable,
    ...(r.trailing_min_distance != null ? { trailing_min_distance: r.trailing_min_distance } : {}),
    pending_min_distance: r.pending_min_distance,
  };
}

const CONFIRM_OPEN = { message: 'Confirm that the open positions stay open' };
const CLOSE_FIRST = { message: 'Close its open positions first' };
const duplicate = () => refuse(409, 'An instrument with this name already exists', 'name');
const notFound = () => refuse(404, 'Instrument not found');

/**
 * After a change is committed, this process's copy of the instruments (the dashboards') is
 * dropped at once; the trigger's NOTIFY drops every process's moments later (live-cache).
 */
function dropKeptInstruments<O extends { ok: boolean }>(sql: Sql, out: O): O {
  if (out.ok) invalidateCached(sql, 'instruments');
  return out;
}

/** Create (no id) or update (id) an instrument of `category`. */
export async function saveInstrument(sql: Sql, category: Category, input: InstrumentInput, who: Actor): Promise<Outcome<{ id: number }>> {
  try {
    return dropKeptInstruments(sql, await sql.begin(async (tx): Promise<Outcome<{ id: number }>> => {
      const [clash] = await tx`SELECT id FROM instruments WHERE lower(name) = lower(${input.name}) AND id IS DISTINCT FROM ${input.id ?? null}::bigint`;
      if (clash) return duplicate();
      const fields = {
        name: input.name, base: input.base, quote: input.quote, alias: input.alias, tradingview: input.tradingview,
        leverage: input.leverage, digits: input.digits, swap: input.swap, tradable: input.tradable,
        trailing_min_distance: input.trailingMin,
        pending_min_distance: input.pendingMinDistance,
      };
      if (input.id === undefined) {
        const [row] = await tx`
          INSERT INTO instruments ${tx({ ...fields, category, bids: input.bids, asks: input.asks })}
          RETURNING *`;
        await audit(tx, { actorId: who.actorId, action: 'instrument.create', targetKind: 'instrument', targetId: row.id, after: snapshot(row), ip: who.ip });
        return { ok: true, toast: 'Instrument added successfully', id: Number(row.id) };
      }
      const [before] = await tx`
        SELECT * FROM instruments
         WHERE id = ${input.id} AND category = ${category}::instrument_category FOR UPDATE`;
      if (!before) return notFound();
      const closing = before.tradable && !input.tradable;
      // the symbol and currencies of open positions stay as they were opened: a renamed symbol is
      // one the feed may not quote (the position could not be closed), and a new quote currency
      // would change what their exchange rate converts
      const identity = before.name !== input.name || before.base !== input.base || before.quote !== input.quote;
      const n = closing || identity ? await openCount(tx, input.id) : 0;
      if (identity && n > 0) {
        return refuse(409, 'Open positions on this instrument: {{count}}. Its name, base and quote cannot change until they are closed.',
          'name', { count: n }, CLOSE_FIRST.message);
      }
      if (n > 0 && !input.confirmOpen) {
        // docs/specs.md#trading-configuration: they stay open, can be closed, their levels and
        // stop-out still act; no new order can be placed
        return refuse(409, 'Open positions on this instrument: {{count}}. They stay open and can still be closed, and their take-profit, stop-loss and stop-out still apply, but no new orders can be placed. Confirm to make it untradable.',
          'confirmOpen', { count: n }, CONFIRM_OPEN.message);
      }
      // empty bids / asks on an edit keep the quote the engine saved (it rewrites them every few seconds)
      const quote = input.bids !== null && input.asks !== null ? { bids: input.bids, asks: input.asks } : {};
      const [after] = await tx`
        UPDATE instruments SET ${tx({ ...fields, ...quote })}, updated_at = now() WHERE id = ${input.id}
        RETURNING *`;
      await audit(tx, { actorId: who.actorId, action: 'instrument.update', targetKind: 'instrument', targetId: input.id, before: snapshot(before), after: { ...snapshot(after), ...(closing ? { openPositions: n } : {}) }, ip: who.ip });
      return { ok: true, toast: 'Instrument updated successfully', id: input.id };
    }));
  } catch (e) {
    if (pgCode(e) === '23505') return duplicate(); // a concurrent save of the same name won
    throw e;
  }
}

/** Delete an instrument of `category`: never one with open positions, nor one with trades in its history. */
export async function deleteInstrument(sql: Sql, category: Category, id: number, who: Actor): Promise<Outcome> {
  try {
    return dropKeptInstruments(sql, await sql.begin(async (tx): Promise<Outcome> => {
      // the row lock holds off a new order on it (an order's key share waits for it) until the end
      const [before] = await tx`
        SELECT * FROM instruments
         WHERE id = ${id} AND category = ${category}::instrument_category FOR UPDATE`;
      if (!before) return notFound();
      const n = await openCount(tx, id);
      if (n > 0) return refuse(409, 'Open positions on this instrument: {{count}}. Close them before deleting it.', undefined, { count: n });
      const [used] = await tx`SELECT EXISTS (SELECT 1 FROM orders WHERE instrument_id = ${id}) AS used`;
      if (used.used) return refuse(409, 'This instrument has trades in its history, so it cannot be deleted. Make it untradable instead.');
      await tx`DELETE FROM instruments WHERE id = ${id}`;
      await audit(tx, { actorId: who.actorId, action: 'instrument.delete', targetKind: 'instrument', targetId: id, before: snapshot(before), ip: who.ip });
      return { ok: true, toast: 'Instrument deleted successfully' };
    }));
  } catch (e) {
    if (pgCode(e) === '23503') return refuse(409, 'This instrument has trades in its history, so it cannot be deleted. Make it untradable instead.');
    throw e;
  }
}

// ---------------------------------------------------------------- the five routes' loader and action
// (each route checks access and reads the URL and the form; the category is the route's)

export async function instrumentsLoader(sql: Sql, category: Category, search: URLSearchParams) {
  return { category, ...(await listInstruments(sql, category, listQuery(search, INSTRUMENT_SORTS))) };
}

export async function instrumentsAction(sql: Sql, category: Category, form: FormData, who: Actor, locale: string) {
  const { intent, submission } = parseIntent(form, INSTRUMENT_ACTIONS, { ...CATALOG_PARSE, numbers: numberReader(locale) });
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const v = submission.value;
  const r = intent === 'delete'
    ? await deleteInstrument(sql, category, (v as { id: number }).id, who)
    : await saveInstrument(sql, category, v as InstrumentInput, who);
  return replyOutcome(submission, r, intent);
}
