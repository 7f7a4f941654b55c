// Place, close, modify and staff edit/delete of orders. Every command that writes is one
// PostgreSQL transaction (place and close: one autocommit statement, engine_place_order /
// engine_close_order) that locks the balance row first (then the order row), so commands on
// one balance serialize and two engines racing to close an order close it once. Realised P/L
// is posted through post_ledger() in the same transaction.
import type { Sql } from '../db.ts';
import type { Book } from '../book/book.ts';
import {
  DEFAULT_STOPOUT, MIN_LOTS, exact, checkDialogLevels, checkLevelsNotTriggered, checkModifyLevels, dec, effectiveLeverage,
  levelOrNull, marginRequired, markRate, minTrailingDistance, money, moneyStr, orderPnl, parseDecimal, parseLevel, planValue, rate, spreadCost, trailedStop,
  type Category, type CloseReason, type DecimalField,
} from '../domain/index.ts';
import { refuse, type RefusalCode, type Result } from './results.ts';
import { orderView, type OrderRow, type OrderView } from './view.ts';
import type { AdminEditInput as ContractAdminEditInput, ModifyOrderInput, PlaceOrderInput } from '../contract/orders.ts';

/** What the rest of the engine learns after a command commits. */
export interface OrderHooks {
  opened?(o: OrderView, stopout: number, balance: string): void;
  closed?(o: OrderView, balanceAfter: string | null): void;
  modified?(o: OrderView): void;
  deleted?(o: OrderView): void;
  /** a partial close (orders/partial.ts): the closed part, the position left open */
  partial?(part: OrderView, position: OrderView, balanceAfter: string | null): void;
}

export interface OrderDeps {
  sql: Sql; book: Book; hooks?: OrderHooks;
  /** the instrument of an open position this engine holds (saves a read when closing) */
  instrumentOf?(orderId: number): number | undefined;
  /** the instruments of a balance's open positions this engine holds (prices sent with a place) */
  instrumentsOf?(balanceId: number): Iterable<number>;
  placeCache?: PlaceContextCache;
  /** the stop-loss of an open position as this engine's evaluator has trailed it (a trailing stop) */
  stopOf?(orderId: number): number | null | undefined;
}

/** The body of POST /v1/orders (contract/orders.ts), as callers inside the engine may also pass it (numbers or strings). */
export type PlaceInput = PlaceOrderInput;

/** The refusal while an instrument has no fresh price (Book.tradable): nothing is filled or closed. */
export const noPrice = (symbol?: string) => `No price for ${symbol ?? 'this instrument'} yet`;

/** numeric(24, 8): below 10^16 */
const MONEY_LIMIT = dec(10).pow(16);

const num = (v: unknown) => (v === null || v === undefined ? undefined : dec(v as string));

/** The refusal code of a bad number, per field (the order dialog's codes, 422); else 'invalid' (400). */
const NUMBER_CODE: Partial<Record<DecimalField, RefusalCode>> = {
  amount: 'invalid_amount', lots: 'invalid_amount', profit: 'bad_take_profit', loss: 'bad_stop_loss', trailing: 'bad_trailing', price: 'bad_price',
};
export const numberRefusal = (f: DecimalField): RefusalCode => NUMBER_CODE[f] ?? 'invalid';

/**
 * The numbers of a command, each through the one decimal parser (domain/decimal-input.ts):
 * canonical strings, or the refusal naming the first bad field. `levels` may be null (not set).
 */
export function parseNumbers<T extends object>(input: T, quantities: (keyof T & DecimalField)[], levels: (keyof T & DecimalField)[]):
  { ok: true; input: T } | ReturnType<typeof refuse> {
  const out = { ...input } as Record<string, unknown>;
  for (const f of quantities) {
    if (out[f] === undefined || out[f] === null) continue; // absent: the command says what that means
    const r = parseDecimal(out[f], f);
    if (!r.ok) return refuse(numberRefusal(f), r.message);
    out[f] = r.value;
  }
  for (const f of levels) {
    if (out[f] === undefined) continue;
    const r = parseLevel(out[f], f);
    if (!r.ok) return refuse(numberRefusal(f), r.message);
    out[f] = r.value;
  }
  return { ok: true, input: out as T };
}

export async function placeOrder(deps: OrderDeps, raw: PlaceInput): Promise<Result<{ order: OrderView; replayed: boolean }>> {
  const parsed = parseNumbers(raw, ['amount', 'lots'], ['profit', 'loss']);
  if (!parsed.ok) return parsed;
  const input = parsed.input;
  try {
    return await placeOnce(deps, input);
  } catch (e) {
    // the same key raced in on another of the user's balances: answer with the order it placed
    if ((e as { code?: string; constraint_name?: string }).code === '23505' && input.idempotencyKey) {
      const [row] = await deps.sql<(OrderRow & { name: string })[]>`
        SELECT o.*, i.name FROM orders o JOIN instruments i ON i.id = o.instrument_id
         WHERE o.user_id = ${input.userId} AND o.idempotency_key = ${input.idempotencyKey}`;
      if (row) return replayOf(row, row.name, input);
    }
    throw e;
  }
}

export type PlaceCtx = {
  instrument_id: bigint; name: string; quote: string; category: Category; tradable: boolean; leverage: number;
  spread_setting: string | null; lot_state: 'amount' | 'lot' | null; is_active: boolean; deleted_at: Date | null;
  plan: Record<string, unknown> | null; kyc_trade: string | null; kyc_ok: boolean;
  balance_id: bigint; balance_user_id: bigint; currency: string; fp: string;
};

type PlaceOut = {
  status: 'ok' | 'stale' | 'duplicate' | 'insufficient_balance' | 'insufficient_free_margin' | 'prices';
  balance: string | null; missing: string[] | null;
} & OrderRow;

/** Recent place contexts by user, balance and instrument (see engine_place_context). */
export class PlaceContextCache {
  private map = new Map<string, PlaceCtx>();
  constructor(private max = 10_000) {}
  get(key: string) { return this.map.get(key); }
  set(key: string, ctx: PlaceCtx) {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, ctx);
  }
  delete(key: string) { this.map.delete(key); }
  clear() { this.map.clear(); }
}

async function placeOnce(deps: OrderDeps, input: PlaceInput, attempt = 0): Promise<Result<{ order: OrderView; replayed: boolean }>> {
  const { sql, book } = deps;
  const key = `${input.userId}:${input.balanceId ?? ''}:${input.instrument}`;
  // 1. The context: from the cache when a recent place on the same key read it (the place
  //    statement re-checks its fingerprint under the lock), else one plain read (no
  //    transaction, no lock). Nothing read here decides the margin checks: those run in SQL
  //    under the balance lock (step 2).
  let ctx = attempt === 0 ? deps.placeCache?.get(key) : undefined;
  const cached = !!ctx;
  if (!ctx) {
    const [c] = await sql<(PlaceCtx & { dup: string | null })[]>`
      SELECT c.*, (SELECT d.id::text FROM orders d WHERE d.user_id = ${input.userId} AND d.idempotency_key = ${input.idempotencyKey ?? null}) AS dup
        FROM engine_place_context(${input.userId}, ${input.balanceId ?? null}, ${input.instrument}) c`;
    if (!c) {
      const [i] = await sql`SELECT 1 FROM instruments WHERE name = ${input.instrument}`;
      return refuse('not_found', i ? 'Balance not found' : 'Instrument not found');
    }
    if (c.dup) return replay(sql, c.dup, c.name, input);
    ctx = c;
  }
  const checked = checkPlace(deps, input, ctx);
  if (!checked.ok) {
    // a refusal is never decided on a cached context
    if (cached) { deps.placeCache?.delete(key); return placeOnce(deps, input, attempt + 1); }
    return checked;
  }
  if (!cached) deps.placeCache?.set(key, ctx);
  const { amount, lots, tp, sl, leverage, stopout, openRate, spread, exchangeRate, margin } = checked;

  // 2. One atomic statement: lock the balance, re-check the context's fingerprint, replay a
  //    used idempotency key, check balance and free margin (balance + floating P/L at the live
  //    prices passed in − used margin) in SQL numeric, reserve the margin and insert the order.
  //    Free margin counts every position committed before the lock; a position on an
  //    instrument we passed no price for is answered 'prices' and the statement is repeated
  //    once with those prices.
  const ids = new Set<number>(deps.instrumentsOf?.(Number(ctx.balance_id)) ?? []);
  let complete = false;
  for (;;) {
    const pids: string[] = [], bids: string[] = [], asks: string[] = [];
    for (const id of ids) {
      const inst = book.byId.get(id);
      const oq = inst && book.tradable(inst.name);
      if (!oq) continue; // no fresh price: counts 0
      pids.push(String(id)); bids.push(String(oq.bid)); asks.push(String(oq.ask));
    }
    const [r] = await sql<PlaceOut[]>`
      SELECT f.status, f.balance, f.missing::text[] AS missing, (f.o).*
        FROM engine_place_order(${input.userId}, ${String(ctx.balance_id)}, ${String(ctx.instrument_id)}, ${input.type}, ${ctx.category},
             ${amount}, ${lots}, ${openRate}, ${exchangeRate}, ${spread}, ${tp}, ${sl}, ${margin}, ${leverage},
             ${input.idempotencyKey ?? null}, ${pids}::bigint[], ${bids}::numeric[], ${asks}::numeric[], ${complete},
             ${input.instrument}, ${input.balanceId ?? null}, ${ctx.fp}) f`;
    switch (r.status) {
      case 'prices':
        for (const id of r.missing ?? []) ids.add(Number(id));
        complete = true;
        continue;
      case 'stale':
        deps.placeCache?.delete(key);
        if (attempt >= 3) throw new Error('place: context kept changing');
        return placeOnce(deps, input, attempt + 1);
      case 'duplicate':
        return replayOf(r, ctx.name, input);
      case 'insufficient_balance': return refuse('insufficient_balance', 'Insufficient Balance!');
      case 'insufficient_free_margin': return refuse('insufficient_free_margin', 'Insufficient Free Margin!');
    }
    const order = orderView(r, ctx.name);
    deps.hooks?.opened?.(order, stopout, r.balance!);
    return { ok: true, order, replayed: false };
  }
}

/**
 * How a pending order is checked and priced (orders/pending.ts): placing or modifying one, its
 * take-profit and stop-loss are bounded by its price (`levels`, as a market order's by the live
 * quote) and its margin is the one it will need at that price; activating one, the figures are
 * those of its fill (`rate`, at its trigger tick `bid`/`ask`) and its levels are not checked again.
 */
export interface PlaceAt { rate: string; bid: number; ask: number; levels: boolean }

/** The checks that need no lock, and the order's figures, from a context and live prices (or a pending order's, `at`). */
export function checkPlace(deps: OrderDeps, input: PlaceInput, ctx: PlaceCtx, at?: PlaceAt) {
  const { book } = deps;
  if (Number(ctx.balance_user_id) !== input.userId) return refuse('not_found', 'Balance not found');
  if (!ctx.is_active || ctx.deleted_at) return refuse('inactive', 'Account is inactive');

  // by amount or by lots, per the category's lot state
  let amount = num(input.amount);
  let lots = num(input.lots);
  if ((ctx.lot_state ?? 'amount') === 'lot') {
    if (!lots) return refuse('invalid_amount', 'Lots is required');
    if (!lots.isFinite() || lots.lte(0)) return refuse('invalid_amount', 'Lots must be greater than 0');
    if (lots.lt(MIN_LOTS[ctx.category])) return refuse('invalid_amount', `Lots must be at least ${MIN_LOTS[ctx.category]}`);
    amount = exact.lotsToUnits(ctx.category, lots);
    const fits = parseDecimal(amount.toFixed(), 'amount'); // lots × contract size must fit trade_amount too
    if (!fits.ok) return refuse('invalid_amount', fits.message.replace('Amount', 'Lots × contract size'));
  } else lots = undefined;
  if (!amount) return refuse('invalid_amount', 'Amount is required');
  if (!amount.isFinite() || amount.lte(0)) return refuse('invalid_amount', 'Amount must be greater than 0');

  if (!ctx.tradable) return refuse('not_tradable', 'This instrument is not tradable');
  if (!at && !book.isOpen(ctx.category)) return refuse('market_closed', 'Market is closed');
  if (ctx.kyc_trade === 'on' && !ctx.kyc_ok) return refuse('kyc_required', 'Please verify KYC to enable trading.');

  const q = at ?? book.tradable(ctx.name);
  if (!q) return refuse('no_price', noPrice(ctx.name));
  const bid = dec(q.bid), ask = dec(q.ask);
  const tp = levelOrNull(input.profit as string), sl = levelOrNull(input.loss as string);
  if (!at || at.levels) {
    // a pending order's levels are bounded by its price, as a market order's by the quote
    const [lb, la] = at ? [dec(at.rate), dec(at.rate)] : [bid, ask];
    const [tb, ta] = at ? [at.rate, at.rate] : [String(q.bid), String(q.ask)];
    const what = at ? ['the order price', 'the order price'] : ['the ask', 'the bid'];
    const bad = checkDialogLevels(input.type, lb, la, tp, sl);
    if (bad === 'bad_take_profit') return refuse(bad, input.type === 'buy' ? `Take profit must be at or above ${what[0]} (${ta})` : `Take profit must be between 0 and ${what[1]} (${tb})`);
    if (bad === 'bad_stop_loss') return refuse(bad, input.type === 'buy' ? `Stop loss must be between 0 and ${what[0]} (${ta})` : `Stop loss must be at or above ${what[1]} (${tb})`);
    const now = checkLevelsNotTriggered(input.type, lb, la, tp, sl);
    if (now) return refuse(now.code, at ? now.message.replace('the current price', 'the order price') : now.message);
  }

  const leverage = effectiveLeverage(planValue(ctx.plan, ctx.category, 'leverage'), ctx.leverage);
  const stopout = planValue(ctx.plan, ctx.category, 'stopout') ?? DEFAULT_STOPOUT;
  const openRate = rate(at ? at.rate : markRate(input.type, bid, ask));
  const spread = money(spreadCost(bid, ask, ctx.spread_setting ?? 0, amount));
  const xr = book.rate(ctx.currency, ctx.quote);
  if (!xr) return refuse('no_rate', `No conversion rate from ${ctx.currency} to ${ctx.quote}`);
  const exchangeRate = rate(xr);
  const margin = money(marginRequired(openRate, amount, leverage, exchangeRate));
  // what the order stores must fit its numeric(24, 8) columns: a huge amount is refused, not an overflow
  if (margin.abs().gte(MONEY_LIMIT) || spread.abs().gte(MONEY_LIMIT) || openRate.times(amount).gte(MONEY_LIMIT)) {
    return refuse('invalid_amount', 'Amount is too large');
  }
  return {
    ok: true as const, amount: amount.toString(), lots: lots?.toString() ?? null, tp, sl, leverage, stopout,
    openRate: openRate.toString(), spread: spread.toString(), exchangeRate: exchangeRate.toString(), margin: margin.toString(),
  };
}

async function replay(sql: Sql, id: string, name: string, input: PlaceInput): Promise<Result<{ order: OrderView; replayed: boolean }>> {
  const [dup] = await sql<OrderRow[]>`SELECT * FROM orders WHERE id = ${id}`;
  return replayOf(dup, name, input);
}

/**
 * An idempotency key already used: the same order again (a retry, a double click) answers the
 * first one; a different order under the same key is a client bug and is refused, so it never
 * silently gets someone else's answer. `input`'s numbers are canonical (parseNumbers).
 */
function replayOf(row: OrderRow, name: string, input: PlaceInput): Result<{ order: OrderView; replayed: boolean }> {
  const same = (stored: string | null, sent: unknown) =>
    stored === null || sent === null || sent === undefined ? stored === null && (sent === null || sent === undefined) : dec(stored).eq(sent as string);
  const quantity = row.lots !== null ? same(row.lots, input.lots) : same(row.trade_amount, input.amount);
  const matches = row.type === input.type && name === input.instrument && quantity && same(row.profit, input.profit) && same(row.loss, input.loss)
    && (input.balanceId === undefined || Number(row.balance_id) === input.balanceId);
  if (!matches) return refuse('idempotency_conflict', 'Idempotency key reused with a different order');
  return { ok: true, order: orderView(row, name), replayed: true };
}

export interface CloseInput {
  orderId: number;
  reason: CloseReason;
  /** the customer closing their own order: it must be theirs */
  userId?: number;
  /** staff or customer who closed it; null for automatic closes */
  actorId?: number | null;
  ip?: string | null;
  /**
   * The tick an automatic close (tp, sl, stop_out, zero_equity) was triggered on (the risk
   * evaluator's CloseRequest.tick): the close settles at that tick's price, never at the book's
   * quote of the moment the statement runs (a later tick may be back on the other side of the
   * level), and records it (orders.trigger_bid / trigger_ask / trigger_at). `stamp`: the close
   * time is the tick's too (a trigger found replaying missed ticks, risk/failover.ts takeOver); else it is
   * when the close settles. The tick was a fresh feed price at its own time, so the fresh-price
   * rule holds; manual and staff closes never pass a price.
   */
  at?: TriggerAt;
}

/** See CloseInput.at. */
export interface TriggerAt { bid: number; ask: number; time: Date; stamp?: boolean }

const triggered = (reason: CloseReason) => reason !== 'manual' && reason !== 'admin';

type CloseOut = { status: 'ok' | 'not_found' | 'already_closed'; balance_after: string | null } & OrderRow;

export async function closeOrder(deps: OrderDeps, input: CloseInput): Promise<Result<{ order: OrderView; balanceAfter: string | null }>> {
  const { sql, book } = deps;
  // the instrument, to price the close: from the evaluator when it holds the position, else read
  let instrumentId = deps.instrumentOf?.(input.orderId);
  if (instrumentId === undefined) {
    const [o] = await sql<{ instrument_id: bigint }[]>`SELECT instrument_id FROM orders WHERE id = ${input.orderId}`;
    if (!o) return refuse('not_found', 'Order not found');
    instrumentId = Number(o.instrument_id);
  }
  const inst = book.byId.get(instrumentId);
  if (input.at && inst && triggered(input.reason)) {
    const [r] = await sql<CloseOut[]>`
      SELECT f.status, f.balance_after, (f.o).*
        FROM engine_close_order_tick(${input.orderId}, ${String(input.at.bid)}, ${String(input.at.ask)}, ${input.reason},
                                     ${input.at.time}, ${input.at.stamp === true}) f`;
    if (r.status === 'not_found') return refuse('not_found', 'Order not found');
    if (r.status === 'already_closed') return refuse('already_closed', 'Order is already closed');
    const order = orderView(r, inst.name);
    deps.hooks?.closed?.(order, r.balance_after);
    return { ok: true, order, balanceAfter: r.balance_after };
  }
  const q = inst && book.tradable(inst.name);
  if (!inst || !q || (input.reason === 'manual' && !book.isOpen(inst.category))) {
    // refused before any write: pick the message the order's state calls for first
    const [o] = await sql<{ user_id: bigint; close_time: Date | null; deleted_at: Date | null }[]>`
      SELECT user_id, close_time, deleted_at FROM orders WHERE id = ${input.orderId}`;
    if (!o || o.deleted_at || (input.userId !== undefined && Number(o.user_id) !== input.userId)) return refuse('not_found', 'Order not found');
    if (o.close_time) return refuse('already_closed', 'Order is already closed');
    if (inst && q) return refuse('market_closed', 'Market is closed');
    return refuse('no_price', noPrice(inst?.name));
  }
  // One autocommit statement (engine_close_order): lock the balance, close conditionally on the
  // order being open (whoever comes second, a retry or another engine, changes nothing),
  // release the margin, post the realised P/L through post_ledger with the shortfall written
  // off, audit a staff close. The close rate is the side's mark (buy: ask, sell: bid).
  const [r] = await sql<CloseOut[]>`
    SELECT f.status, f.balance_after, (f.o).*
      FROM engine_close_order(${input.orderId}, ${input.userId ?? null}, ${String(q.bid)}, ${String(q.ask)}, ${input.reason},
                              ${input.actorId ?? null}, ${input.ip ?? null}) f`;
  if (r.status === 'not_found') return refuse('not_found', 'Order not found');
  if (r.status === 'already_closed') return refuse('already_closed', 'Order is already closed');
  const order = orderView(r, inst.name);
  deps.hooks?.closed?.(order, r.balance_after);
  return { ok: true, order, balanceAfter: r.balance_after };
}

/**
 * One automatic close of a batch (closeOrders); the instrument is the evaluator's when it knows it;
 * `at`: the tick it was triggered on (CloseInput.at; `stamp` is not taken here: those go one by one).
 */
export interface BatchCloseInput { orderId: number; reason: CloseReason; instrumentId?: number; at?: TriggerAt }

type BatchCloseOut = { order_id: bigint; status: 'ok' | 'not_found' | 'already_closed'; balance_after: string | null } & OrderRow;

/**
 * Many closes in one statement (engine_close_orders, a flash crash): the same close as
 * closeOrder for each order — at its trigger tick's price (`at`, recorded with the close), else
 * at its instrument's tradable price, conditional on the order
 * still being open, balances locked in id order, the same ledger rows — answered per order in
 * input order, with the same `closed` hook for each that closed. An order whose instrument has
 * no fresh price goes through closeOrder (which picks the refusal). Throws when the statement
 * fails (nothing changed): the caller closes that batch one by one.
 */
export async function closeOrders(deps: OrderDeps, inputs: BatchCloseInput[], opts: { actorId?: number | null; ip?: string | null } = {}):
  Promise<Result<{ order: OrderView; balanceAfter: string | null }>[]> {
  const { sql, book } = deps;
  const out: Result<{ order: OrderView; balanceAfter: string | null }>[] = new Array(inputs.length);
  const at: number[] = [], ids: string[] = [], bids: string[] = [], asks: string[] = [], reasons: string[] = [], names: string[] = [];
  const times: (string | null)[] = [];
  const single: number[] = [];
  const quotes = new Map<number, { bid: number; ask: number; name: string } | null>();
  inputs.forEach((input, i) => {
    const iid = input.instrumentId ?? deps.instrumentOf?.(input.orderId);
    if (iid === undefined) { single.push(i); return; }
    let q = quotes.get(iid);
    if (q === undefined) {
      // the closes without a trigger tick: one price per instrument for the whole batch, read once
      const inst = book.byId.get(iid);
      const t = inst && book.tradable(inst.name);
      q = inst && t ? { bid: t.bid, ask: t.ask, name: inst.name } : null;
      quotes.set(iid, q);
    }
    if (!q || input.reason === 'manual' || input.at?.stamp) { single.push(i); return; }
    // a triggered close: its own tick's price, whatever the book says by now
    const t = input.at && triggered(input.reason) ? input.at : undefined;
    at.push(i); ids.push(String(input.orderId)); bids.push(String(t?.bid ?? q.bid)); asks.push(String(t?.ask ?? q.ask));
    reasons.push(input.reason); names.push(q.name); times.push(t?.time.toISOString() ?? null);
  });
  if (ids.length) {
    const rows = await sql<BatchCloseOut[]>`
      SELECT f.order_id, f.status, f.balance_after, (f.o).*
        FROM engine_close_orders(${ids}::bigint[], ${bids}::numeric[], ${asks}::numeric[], ${reasons}::close_reason[],
                                 ${opts.actorId ?? null}, ${opts.ip ?? null}, ${times}::timestamptz[]) f`;
    rows.forEach((r, k) => {
      const i = at[k];
      if (Number(r.order_id) !== inputs[i].orderId) throw new Error('engine_close_orders answered out of order');
      if (r.status === 'not_found') out[i] = refuse('not_found', 'Order not found');
      else if (r.status === 'already_closed') out[i] = refuse('already_closed', 'Order is already closed');
      else {
        const order = orderView(r, names[k]);
        deps.hooks?.closed?.(order, r.balance_after);
        out[i] = { ok: true, order, balanceAfter: r.balance_after };
      }
    });
  }
  for (const i of single) {
    out[i] = await closeOrder(deps, { orderId: inputs[i].orderId, reason: inputs[i].reason, actorId: opts.actorId, ip: opts.ip, at: inputs[i].at });
  }
  return out;
}

/** PATCH /v1/orders/:id (contract/orders.ts): undefined leaves a level, null or 0 removes it. */
export type ModifyInput = ModifyOrderInput & { orderId: number };

/**
 * The levels of an open position (the customer's modals and the staff edit alike): within the
 * bounds against its open rate (docs/specs.md#client-validation), and not already reached by the
 * live price, which would close the position at once. Null levels are not checked.
 */
function openLevelsRefusal(deps: OrderDeps, side: 'buy' | 'sell', name: string, openRate: string, tp: string | null, sl: string | null) {
  const bad = checkModifyLevels(side, openRate, tp, sl);
  if (bad === 'bad_take_profit') return refuse(bad, side === 'buy' ? `Take profit must be at or above the open rate (${openRate})` : `Take profit must be between 0 and the open rate (${openRate})`);
  if (bad === 'bad_stop_loss') return refuse(bad, side === 'buy' ? `Stop loss must be between 0 and the open rate (${openRate})` : `Stop loss must be at or above the open rate (${openRate})`);
  const q = deps.book.quote(name);
  const now = q && checkLevelsNotTriggered(side, q.bid, q.ask, tp, sl);
  return now ? refuse(now.code, now.message) : null;
}

export async function modifyOrder(deps: OrderDeps, raw: ModifyInput): Promise<Result<{ order: OrderView }>> {
  const parsed = parseNumbers(raw, [], ['profit', 'loss', 'trailing']);
  if (!parsed.ok) return parsed;
  const input = parsed.input;
  const out = await deps.sql.begin(async (tx) => {
    const [cur] = await tx<(OrderRow & TrailingInstrument & { name: string })[]>`
      SELECT o.*, i.name, i.category, i.quote, i.digits, i.trailing_min_distance
        FROM orders o JOIN instruments i ON i.id = o.instrument_id WHERE o.id = ${input.orderId} FOR UPDATE OF o`;
    if (!cur || cur.deleted_at || Number(cur.user_id) !== input.userId) return refuse('not_found', 'Order not found');
    if (cur.close_time) return refuse('already_closed', 'Order is already closed');
    const tp = input.profit === undefined ? cur.profit : levelOrNull(input.profit as string);
    let sl = input.loss === undefined ? trailedLoss(deps, cur) : levelOrNull(input.loss as string);
    const bad = openLevelsRefusal(deps, cur.type, cur.name, cur.open_rate,
      input.profit === undefined ? null : tp, input.loss === undefined ? null : sl);
    if (bad) return bad;
    // a trailing stop (docs/specs.md#trailing-stop): at least the instrument's smallest distance;
    // the stop-loss starts behind the live price by it, unless the stop-loss is already closer
    const trailing = input.trailing === undefined ? cur.trailing_distance ?? null : levelOrNull(input.trailing as string);
    if (input.trailing !== undefined && trailing !== null) {
      const t = trailingStart(deps, cur, trailing, sl);
      if (!t.ok) return t;
      sl = t.sl;
    }
    const [row] = await tx<OrderRow[]>`
      UPDATE orders SET profit = ${tp}, loss = ${sl}, trailing_distance = ${trailing}, updated_at = now()
       WHERE id = ${input.orderId} RETURNING *`;
    return { ok: true as const, row, name: cur.name };
  });
  if (!out.ok) return out;
  const order = orderView(out.row, out.name);
  deps.hooks?.modified?.(order);
  return { ok: true, order };
}

type TrailingInstrument = { category: Category; quote: string; digits: number; trailing_min_distance: string | null };

/**
 * The stop-loss a modify keeps when it does not set one: a trailing position's as the evaluator
 * has trailed it (its flush may not have written it yet), never behind the stored one.
 */
function trailedLoss(deps: OrderDeps, cur: OrderRow): string | null {
  const mem = cur.trailing_distance ? deps.stopOf?.(Number(cur.id)) : undefined;
  if (mem === undefined || mem === null) return cur.loss;
  if (cur.loss === null) return rate(mem).toString();
  const better = cur.type === 'buy' ? dec(mem).gt(cur.loss) : dec(mem).lt(cur.loss);
  return better ? rate(mem).toString() : cur.loss;
}

/** A trailing distance switched on or changed: its bound, and the stop-loss it starts from. */
function trailingStart(deps: OrderDeps, cur: OrderRow & TrailingInstrument & { name: string }, distance: string, sl: string | null):
  { ok: true; sl: string } | ReturnType<typeof refuse> {
  const min = minTrailingDistance(cur);
  if (dec(distance).lt(min)) return refuse('bad_trailing', `Trailing distance must be at least ${min}`);
  const q = deps.book.tradable(cur.name);
  if (!q) return refuse('no_price', noPrice(cur.name));
  const next = trailedStop(cur.type, q.bid, q.ask, Number(distance), sl === null ? null : Number(sl));
  if (next === null) {
    if (sl !== null) return { ok: true, sl };
    return refuse('bad_trailing', 'Trailing distance must be less than the price');
  }
  return { ok: true, sl: rate(dec(markRate(cur.type, q.bid, q.ask)).minus(cur.type === 'buy' ? distance : dec(distance).neg())).toString() };
}

export type AdminEditInput = ContractAdminEditInput & { orderId: number };

/**
 * A staff edit's open time: ISO 8601, a time without a zone read as UTC (web's datetime-local
 * field holds the stored UTC time to the minute), between 1970 and 2100; else null.
 */
export function parseOpenTime(v: string): Date | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$/.exec(v.trim());
  if (!m) return null;
  // a day or a time that does not exist (2024-02-30, 25:00) is refused, not rolled over into another
  const day = new Date(`${m[1]}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== m[1]) return null;
  if (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59) return null;
  const d = new Date(m[5] ? v.trim() : `${v.trim()}Z`);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 2100) return null;
  return d;
}

/**
 * Staff edit (docs/specs.md#admin-trades). The close rate may change only on a closed trade. When a
 * closed trade's rates or spread change, its P/L is recomputed and the difference is posted
 * to the balance as an adjustment, so balance and ledger keep agreeing. An open trade keeps
 * its reserved margin.
 */
export async function adminEditOrder(deps: OrderDeps, raw: AdminEditInput): Promise<Result<{ order: OrderView }>> {
  const parsed = parseNumbers(raw, ['openRate', 'closeRate', 'spread'], ['profit', 'loss']);
  if (!parsed.ok) return parsed;
  const input = parsed.input;
  const out = await deps.sql.begin(async (tx) => {
    const [head] = await tx<{ balance_id: bigint }[]>`SELECT balance_id FROM orders WHERE id = ${input.orderId}`;
    if (!head) return refuse('not_found', 'Order not found');
    const [wallet] = await tx<{ balance: string }[]>`SELECT balance FROM balances WHERE id = ${String(head.balance_id)} FOR UPDATE`;
    const [cur] = await tx<(OrderRow & { name: string })[]>`
      SELECT o.*, i.name FROM orders o JOIN instruments i ON i.id = o.instrument_id WHERE o.id = ${input.orderId} FOR UPDATE OF o`;
    if (cur.deleted_at) return refuse('not_found', 'Order not found');
    if (input.closeRate !== undefined && input.closeRate !== null && !cur.close_time) {
      return refuse('invalid', 'Open trades cannot have the close rate edited');
    }
    let openTime: Date | undefined;
    if (input.openTime) {
      const t = parseOpenTime(input.openTime);
      if (!t) return refuse('invalid', 'Invalid open time');
      if (cur.close_time && t > cur.close_time) return refuse('invalid', 'Open time must be before the close time');
      openTime = t;
    }
    const next = {
      open_rate: input.openRate === undefined ? cur.open_rate : rate(input.openRate).toString(),
      close_rate: input.closeRate === undefined || input.closeRate === null ? cur.close_rate : rate(input.closeRate).toString(),
      spread: input.spread === undefined ? cur.spread : moneyStr(input.spread),
      profit: input.profit === undefined ? cur.profit : levelOrNull(input.profit as string),
      loss: input.loss === undefined ? cur.loss : levelOrNull(input.loss as string),
      created_at: openTime ?? cur.created_at,
    };
    // an open trade's levels meet the customer's rules: one on the wrong side closes it at once.
    // The levels sent are checked, and all of them when the open rate (their bound) changes.
    if (!cur.close_time) {
      const rebound = input.openRate !== undefined;
      const bad = openLevelsRefusal(deps, cur.type, cur.name, next.open_rate,
        input.profit !== undefined || rebound ? next.profit : null, input.loss !== undefined || rebound ? next.loss : null);
      if (bad) return bad;
    }
    let pnl = cur.pro_loss;
    let delta = dec(0);
    if (cur.close_time) {
      const p = money(orderPnl(cur.type, cur.trade_amount, next.open_rate, next.close_rate!, next.spread, cur.exchange_rate));
      // what is stored and posted must fit numeric(24, 8): an absurd rate is refused, not an overflow
      delta = p.minus(cur.pro_loss ?? 0);
      if (p.abs().gte(MONEY_LIMIT) || delta.plus(wallet.balance).gte(MONEY_LIMIT)) return refuse('invalid', 'The profit/loss of these rates is too large');
      pnl = p.toFixed(8);
    }
    const [row] = await tx<OrderRow[]>`
      UPDATE orders SET open_rate = ${next.open_rate}, close_rate = ${next.close_rate}, spread = ${next.spread},
             profit = ${next.profit}, loss = ${next.loss}, created_at = ${next.created_at}, pro_loss = ${pnl}, updated_at = now()
       WHERE id = ${input.orderId} RETURNING *`;
    const pick = (r: OrderRow) => ({ open_rate: r.open_rate, close_rate: r.close_rate, spread: r.spread, profit: r.profit, loss: r.loss, created_at: r.created_at.toISOString(), pro_loss: r.pro_loss });
    const [audit] = await tx<{ id: bigint }[]>`
      INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
      VALUES (${input.actorId}, 'order.edit', 'order', ${String(row.id)}, ${tx.json(pick(cur))}, ${tx.json(pick(row))}, ${input.ip ?? null})
      RETURNING id`;
    if (!delta.isZero()) {
      await tx`SELECT 1 FROM post_ledger(${String(row.balance_id)}, ${delta.toFixed(8)}, 'adjustment', 'order_edit', ${`${row.id}:${audit.id}`},
               ${input.actorId}, 'trade edited by staff', true)`;
    }
    return { ok: true as const, row, name: cur.name };
  });
  if (!out.ok) return out;
  const order = orderView(out.row, out.name);
  deps.hooks?.modified?.(order);
  return { ok: true, order };
}

/** Staff delete: soft delete, margin released if it was open, audited. */
export async function adminDeleteOrder(deps: OrderDeps, input: { orderId: number; actorId: number; ip?: string | null }): Promise<Result<{ order: OrderView }>> {
  const out = await deps.sql.begin(async (tx) => {
    const [head] = await tx<{ balance_id: bigint }[]>`SELECT balance_id FROM orders WHERE id = ${input.orderId}`;
    if (!head) return refuse('not_found', 'Order not found');
    await tx`SELECT 1 FROM balances WHERE id = ${String(head.balance_id)} FOR UPDATE`;
    const [row] = await tx<(OrderRow & { name: string })[]>`
      UPDATE orders o SET deleted_at = now(), updated_at = now() FROM instruments i
       WHERE o.id = ${input.orderId} AND o.deleted_at IS NULL AND i.id = o.instrument_id
      RETURNING o.*, i.name`;
    if (!row) return refuse('not_found', 'Order not found');
    if (!row.close_time) {
      await tx`UPDATE balances SET margin = greatest(margin - ${row.margin_used}, 0), updated_at = now() WHERE id = ${String(row.balance_id)}`;
    }
    await tx`INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
             VALUES (${input.actorId}, 'order.delete', 'order', ${String(row.id)}, ${tx.json({ deleted_at: null, open: !row.close_time })},
                     ${tx.json({ deleted_at: row.deleted_at!.toISOString() })}, ${input.ip ?? null})`;
    return { ok: true as const, row, name: row.name };
  });
  if (!out.ok) return out;
  const order = orderView(out.row, out.name);
  deps.hooks?.deleted?.(order);
  return { ok: true, order };
}
