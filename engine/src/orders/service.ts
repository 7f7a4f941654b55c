// Place, close, modify and staff edit/delete of orders. Every command is one PostgreSQL
// transaction that locks the balance row first (then the order row), so commands on one
// balance serialize and two engines racing to close an order close it once. Realised P/L is
// posted through post_ledger() in the same transaction.
import type { Sql } from '../db.ts';
import type { Book } from '../book/book.ts';
import {
  CONTRACT_SIZE, DEFAULT_STOPOUT, checkDialogLevels, checkMargin, checkModifyLevels, dec, effectiveLeverage,
  levelOrNull, marginRequired, markRate, money, moneyStr, orderPnl, planValue, rate, spreadCost,
  type Category, type CloseReason, type Side,
} from '../domain/index.ts';
import { refuse, type Result } from './results.ts';
import { orderView, type OrderRow, type OrderView } from './view.ts';

/** What the rest of the engine learns after a command commits. */
export interface OrderHooks {
  opened?(o: OrderView, stopout: number, balance: string): void;
  closed?(o: OrderView, balanceAfter: string | null): void;
  modified?(o: OrderView): void;
  deleted?(o: OrderView): void;
}

export interface OrderDeps { sql: Sql; book: Book; hooks?: OrderHooks }

export interface PlaceInput {
  userId: number;
  balanceId?: number;
  type: Side;
  instrument: string;
  amount?: number | string;
  lots?: number | string;
  profit?: number | string | null;   // take-profit rate
  loss?: number | string | null;     // stop-loss rate
  idempotencyKey?: string;
}

const sideWord = (s: Side) => (s === 'buy' ? 'buy' : 'sell');
const num = (v: unknown) => (v === null || v === undefined ? undefined : dec(v as string));

type OpenLeg = [Side, string, string, string, string, string]; // type, amount, open, spread, xr, instrument id

export async function placeOrder(deps: OrderDeps, input: PlaceInput): Promise<Result<{ order: OrderView; replayed: boolean }>> {
  try {
    return await placeOnce(deps, input);
  } catch (e) {
    // the same key raced in on another of the user's balances: answer with the order it placed
    if ((e as { code?: string; constraint_name?: string }).code === '23505' && input.idempotencyKey) {
      const [row] = await deps.sql<(OrderRow & { name: string })[]>`
        SELECT o.*, i.name FROM orders o JOIN instruments i ON i.id = o.instrument_id
         WHERE o.user_id = ${input.userId} AND o.idempotency_key = ${input.idempotencyKey}`;
      if (row) return { ok: true, order: orderView(row, row.name), replayed: true };
    }
    throw e;
  }
}

async function placeOnce(deps: OrderDeps, input: PlaceInput): Promise<Result<{ order: OrderView; replayed: boolean }>> {
  const { sql, book } = deps;
  const out = await sql.begin(async (tx) => {
    // One round trip: everything the checks need, with the balance row locked, so commands on
    // one balance serialize and the margin check sees every earlier order.
    const [ctx] = await tx<{
      instrument_id: bigint; name: string; quote: string; category: Category; tradable: boolean; leverage: number;
      spread_setting: string | null; lot_state: 'amount' | 'lot' | null; is_active: boolean; deleted_at: Date | null;
      plan: Record<string, unknown> | null; kyc_trade: string | null; kyc_ok: boolean;
      balance_id: bigint; balance_user_id: bigint; currency: string; balance: string; margin: string; open: OpenLeg[]; dup: string | null;
    }[]>`
      SELECT i.id AS instrument_id, i.name, i.quote, i.category, i.tradable, i.leverage,
             (SELECT value FROM spreads s WHERE s.category = i.category) AS spread_setting,
             (SELECT state FROM lot_settings l WHERE l.category = i.category) AS lot_state,
             u.is_active, u.deleted_at, to_jsonb(p) AS plan,
             (SELECT value->>'trade' FROM site_settings WHERE key = 'kyc') AS kyc_trade,
             EXISTS (SELECT 1 FROM kyc_documents k WHERE k.user_id = u.id AND k.status = 'approved') AS kyc_ok,
             b.id AS balance_id, b.user_id AS balance_user_id, b.currency, b.balance, b.margin,
             (SELECT coalesce(json_agg(json_build_array(o.type, o.trade_amount::text, o.open_rate::text, o.spread::text,
                                                        o.exchange_rate::text, o.instrument_id::text)), '[]')
                FROM orders o WHERE o.balance_id = b.id AND o.close_time IS NULL AND o.deleted_at IS NULL) AS open,
             (SELECT d.id::text FROM orders d WHERE d.user_id = u.id AND d.idempotency_key = ${input.idempotencyKey ?? null}) AS dup
        FROM users u
        JOIN instruments i ON i.name = ${input.instrument}
        JOIN balances b ON b.id = coalesce(${input.balanceId ?? null}::bigint, u.active_balance_id)
        LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
       WHERE u.id = ${input.userId}
         FOR UPDATE OF b`;
    if (!ctx) {
      const [i] = await tx`SELECT 1 FROM instruments WHERE name = ${input.instrument}`;
      return refuse('not_found', i ? 'Balance not found' : 'Instrument not found');
    }
    if (Number(ctx.balance_user_id) !== input.userId) return refuse('not_found', 'Balance not found');
    if (!ctx.is_active || ctx.deleted_at) return refuse('inactive', 'Account is inactive');
    if (ctx.dup) {
      const [dup] = await tx<OrderRow[]>`SELECT * FROM orders WHERE id = ${ctx.dup}`;
      return { ok: true as const, row: dup, name: ctx.name, replayed: true, stopout: 0, balance: ctx.balance };
    }

    // by amount or by lots, per the category's lot state
    let amount = num(input.amount);
    let lots = num(input.lots);
    if ((ctx.lot_state ?? 'amount') === 'lot') {
      if (!lots || !lots.isFinite() || lots.lte(0)) return refuse('invalid_amount', 'Lots must be greater than 0');
      amount = lots.times(CONTRACT_SIZE[ctx.category]);
    } else lots = undefined;
    if (!amount || !amount.isFinite() || amount.lte(0)) return refuse('invalid_amount', 'Amount must be greater than 0');

    if (!ctx.tradable) return refuse('not_tradable', 'This instrument is not tradable');
    if (!book.isOpen(ctx.category)) return refuse('market_closed', 'Market is closed');
    if (ctx.kyc_trade === 'on' && !ctx.kyc_ok) return refuse('kyc_required', 'Please verify KYC to enable trading.');

    const q = book.quote(ctx.name);
    if (!q) return refuse('no_price', 'No price for this instrument yet');
    const bid = dec(q.bid), ask = dec(q.ask);
    const tp = levelOrNull(input.profit as string), sl = levelOrNull(input.loss as string);
    const bad = checkDialogLevels(input.type, bid, ask, tp, sl);
    if (bad === 'bad_take_profit') return refuse(bad, input.type === 'buy' ? `Take profit must be at or above the ask (${q.ask})` : `Take profit must be between 0 and the bid (${q.bid})`);
    if (bad === 'bad_stop_loss') return refuse(bad, input.type === 'buy' ? `Stop loss must be between 0 and the ask (${q.ask})` : `Stop loss must be at or above the bid (${q.bid})`);

    const leverage = effectiveLeverage(planValue(ctx.plan, ctx.category, 'leverage'), ctx.leverage);
    const stopout = planValue(ctx.plan, ctx.category, 'stopout') ?? DEFAULT_STOPOUT;
    const openRate = rate(markRate(input.type, bid, ask));
    const spread = money(spreadCost(bid, ask, ctx.spread_setting ?? 0, amount));
    const xr = book.rate(ctx.currency, ctx.quote);
    if (!xr) return refuse('no_rate', `No conversion rate from ${ctx.currency} to ${ctx.quote}`);
    const exchangeRate = rate(xr);
    const margin = money(marginRequired(openRate, amount, leverage, exchangeRate));

    // free margin counts the floating P/L of the balance's open positions at live prices
    let floating = dec(0);
    for (const [type, amt, open, spr, x, iid] of ctx.open) {
      const inst = book.byId.get(Number(iid));
      const oq = inst && book.quote(inst.name);
      if (!oq) continue;
      floating = floating.plus(orderPnl(type, amt, open, markRate(type, oq.bid, oq.ask), spr, x));
    }
    const m = checkMargin(margin, ctx.balance, ctx.margin, floating);
    if (m === 'insufficient_balance') return refuse(m, 'Insufficient Balance!');
    if (m === 'insufficient_free_margin') return refuse(m, 'Insufficient Free Margin!');

    const [row] = await tx<OrderRow[]>`
      WITH o AS (
        INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, lots, open_rate, exchange_rate,
                            spread, profit, loss, margin_used, leverage, idempotency_key)
        VALUES (${input.userId}, ${String(ctx.balance_id)}, ${String(ctx.instrument_id)}, ${input.type}, ${ctx.category}, ${amount.toString()},
                ${lots?.toString() ?? null}, ${openRate.toString()}, ${exchangeRate.toString()}, ${spread.toString()},
                ${tp}, ${sl}, ${margin.toString()}, ${leverage}, ${input.idempotencyKey ?? null})
        RETURNING *
      ), b AS (
        UPDATE balances SET margin = margin + ${margin.toString()}, updated_at = now() WHERE id = ${String(ctx.balance_id)}
      )
      SELECT * FROM o`;
    return { ok: true as const, row, name: ctx.name, replayed: false, stopout, balance: ctx.balance };
  });
  if (!out.ok) return out;
  const order = orderView(out.row, out.name);
  if (!out.replayed) deps.hooks?.opened?.(order, out.stopout, out.balance);
  return { ok: true, order, replayed: out.replayed };
}

export interface CloseInput {
  orderId: number;
  reason: CloseReason;
  /** the customer closing their own order: it must be theirs */
  userId?: number;
  /** staff or customer who closed it; null for automatic closes */
  actorId?: number | null;
  ip?: string | null;
}

export async function closeOrder(deps: OrderDeps, input: CloseInput): Promise<Result<{ order: OrderView; balanceAfter: string | null }>> {
  const { sql, book } = deps;
  const out = await sql.begin(async (tx) => {
    // lock the order's balance first (every command on a balance does), reading the order
    const [o] = await tx<{ user_id: bigint; instrument_id: bigint; close_time: Date | null; deleted_at: Date | null }[]>`
      SELECT o.user_id, o.instrument_id, o.close_time, o.deleted_at
        FROM balances b JOIN orders o ON o.balance_id = b.id
       WHERE b.id = (SELECT balance_id FROM orders WHERE id = ${input.orderId}) AND o.id = ${input.orderId}
         FOR UPDATE OF b`;
    if (!o || o.deleted_at || (input.userId !== undefined && Number(o.user_id) !== input.userId)) return refuse('not_found', 'Order not found');
    if (o.close_time) return refuse('already_closed', 'Order is already closed');
    const inst = book.byId.get(Number(o.instrument_id));
    if (!inst) return refuse('no_price', 'No price for this instrument yet');
    if (input.reason === 'manual' && !book.isOpen(inst.category)) return refuse('market_closed', 'Market is closed');
    const q = book.quote(inst.name);
    if (!q) return refuse('no_price', 'No price for this instrument yet');
    // conditional: whoever comes second (a retry, another engine) changes nothing. The close
    // rate is the side's mark (buy: ask, sell: bid); the P/L is the spec's formula in SQL
    // numeric, rounded to the column's 8 decimals.
    const [row] = await tx<OrderRow[]>`
      WITH o AS (
        UPDATE orders SET close_time = now(),
               close_rate = CASE WHEN type = 'buy' THEN ${String(q.ask)}::numeric ELSE ${String(q.bid)}::numeric END,
               pro_loss = round((trade_amount * CASE WHEN type = 'buy' THEN ${String(q.ask)}::numeric - open_rate
                                                     ELSE open_rate - ${String(q.bid)}::numeric END - spread) / exchange_rate, 8),
               close_reason = ${input.reason}, closed_by = ${input.actorId ?? null}, updated_at = now()
         WHERE id = ${input.orderId} AND close_time IS NULL AND deleted_at IS NULL
        RETURNING *
      ), m AS (
        UPDATE balances b SET margin = greatest(b.margin - o.margin_used, 0), updated_at = now() FROM o WHERE b.id = o.balance_id
      )
      SELECT * FROM o`;
    if (!row) return refuse('already_closed', 'Order is already closed');
    let balanceAfter: string | null = null; // null: unchanged
    if (!dec(row.pro_loss!).isZero()) {
      // negative-balance protection: a loss beyond the balance is written off, ending at 0
      const [l] = await tx<{ balance_after: string }[]>`
        SELECT balance_after FROM post_ledger(${String(row.balance_id)}, ${row.pro_loss}, 'trade_pnl', 'order', ${String(row.id)},
               ${input.actorId ?? null}, ${`close ${input.reason}`}, true)`;
      balanceAfter = l.balance_after;
    }
    if (input.reason === 'admin') {
      await tx`INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
               VALUES (${input.actorId ?? null}, 'order.force_close', 'order', ${String(row.id)},
                       ${tx.json({ close_time: null })}, ${tx.json({ close_rate: row.close_rate, pro_loss: row.pro_loss })}, ${input.ip ?? null})`;
    }
    return { ok: true as const, row, balanceAfter, name: inst.name };
  });
  if (!out.ok) return out;
  const order = orderView(out.row, out.name);
  deps.hooks?.closed?.(order, out.balanceAfter);
  return { ok: true, order, balanceAfter: out.balanceAfter };
}

export interface ModifyInput {
  orderId: number;
  userId: number;
  /** undefined: unchanged; null or 0: removed */
  profit?: number | string | null;
  loss?: number | string | null;
}

export async function modifyOrder(deps: OrderDeps, input: ModifyInput): Promise<Result<{ order: OrderView }>> {
  const out = await deps.sql.begin(async (tx) => {
    const [cur] = await tx<(OrderRow & { name: string })[]>`
      SELECT o.*, i.name FROM orders o JOIN instruments i ON i.id = o.instrument_id WHERE o.id = ${input.orderId} FOR UPDATE OF o`;
    if (!cur || cur.deleted_at || Number(cur.user_id) !== input.userId) return refuse('not_found', 'Order not found');
    if (cur.close_time) return refuse('already_closed', 'Order is already closed');
    const tp = input.profit === undefined ? cur.profit : levelOrNull(input.profit as string);
    const sl = input.loss === undefined ? cur.loss : levelOrNull(input.loss as string);
    const bad = checkModifyLevels(cur.type, cur.open_rate,
      input.profit === undefined ? null : tp, input.loss === undefined ? null : sl);
    if (bad === 'bad_take_profit') return refuse(bad, cur.type === 'buy' ? `Take profit must be at or above the open rate (${cur.open_rate})` : `Take profit must be between 0 and the open rate (${cur.open_rate})`);
    if (bad === 'bad_stop_loss') return refuse(bad, cur.type === 'buy' ? `Stop loss must be between 0 and the open rate (${cur.open_rate})` : `Stop loss must be at or above the open rate (${cur.open_rate})`);
    const [row] = await tx<OrderRow[]>`
      UPDATE orders SET profit = ${tp}, loss = ${sl}, updated_at = now() WHERE id = ${input.orderId} RETURNING *`;
    return { ok: true as const, row, name: cur.name };
  });
  if (!out.ok) return out;
  const order = orderView(out.row, out.name);
  deps.hooks?.modified?.(order);
  return { ok: true, order };
}

export interface AdminEditInput {
  orderId: number;
  actorId: number;
  ip?: string | null;
  openRate?: number | string;
  closeRate?: number | string | null;
  spread?: number | string;
  profit?: number | string | null;
  loss?: number | string | null;
  openTime?: string | null;
}

/**
 * Staff edit (admin.md §2.6, §3). The close rate may change only on a closed trade. When a
 * closed trade's rates or spread change, its P/L is recomputed and the difference is posted
 * to the balance as an adjustment, so balance and ledger keep agreeing. An open trade keeps
 * its reserved margin.
 */
export async function adminEditOrder(deps: OrderDeps, input: AdminEditInput): Promise<Result<{ order: OrderView }>> {
  const out = await deps.sql.begin(async (tx) => {
    const [head] = await tx<{ balance_id: bigint }[]>`SELECT balance_id FROM orders WHERE id = ${input.orderId}`;
    if (!head) return refuse('not_found', 'Order not found');
    await tx`SELECT 1 FROM balances WHERE id = ${String(head.balance_id)} FOR UPDATE`;
    const [cur] = await tx<(OrderRow & { name: string })[]>`
      SELECT o.*, i.name FROM orders o JOIN instruments i ON i.id = o.instrument_id WHERE o.id = ${input.orderId} FOR UPDATE OF o`;
    if (cur.deleted_at) return refuse('not_found', 'Order not found');
    if (input.closeRate !== undefined && input.closeRate !== null && !cur.close_time) {
      return refuse('invalid', 'Open trades cannot have the close rate edited');
    }
    const positive = (v: unknown) => v === undefined || v === null || dec(v as string).gt(0);
    if (!positive(input.openRate) || !positive(input.closeRate)) return refuse('invalid', 'Rates must be greater than 0');
    if (input.spread !== undefined && dec(input.spread).lt(0)) return refuse('invalid', 'Spread cannot be negative');
    if (input.profit !== undefined && input.profit !== null && dec(input.profit).lt(0)) return refuse('invalid', 'Take profit cannot be negative');
    if (input.loss !== undefined && input.loss !== null && dec(input.loss).lt(0)) return refuse('invalid', 'Stop loss cannot be negative');
    let openTime: Date | undefined;
    if (input.openTime) {
      openTime = new Date(input.openTime);
      if (Number.isNaN(openTime.getTime())) return refuse('invalid', 'Invalid open time');
    }
    const next = {
      open_rate: input.openRate === undefined ? cur.open_rate : rate(input.openRate).toString(),
      close_rate: input.closeRate === undefined || input.closeRate === null ? cur.close_rate : rate(input.closeRate).toString(),
      spread: input.spread === undefined ? cur.spread : moneyStr(input.spread),
      profit: input.profit === undefined ? cur.profit : levelOrNull(input.profit as string),
      loss: input.loss === undefined ? cur.loss : levelOrNull(input.loss as string),
      created_at: openTime ?? cur.created_at,
    };
    let pnl = cur.pro_loss;
    let delta = dec(0);
    if (cur.close_time) {
      const p = money(orderPnl(cur.type, cur.trade_amount, next.open_rate, next.close_rate!, next.spread, cur.exchange_rate));
      delta = p.minus(cur.pro_loss ?? 0);
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
