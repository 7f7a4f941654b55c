// Partial close (docs/specs.md#partial-close): part of an open position's lots (or units) closes at
// the market like a close; the position keeps its id, levels and the rest. One autocommit
// statement (engine_partial_close) locks the balance, re-checks the quantity against the locked
// row, writes the closed part as its own closed order (position_id: the position), releases its
// margin share and posts its P/L through post_ledger; a staff close is audited.
import { MIN_LOTS, parseDecimal, partialSplit, type Category } from '../domain/index.ts';
import { refuse, type Result } from './results.ts';
import { noPrice, numberRefusal, type OrderDeps } from './service.ts';
import { orderView, type OrderRow, type OrderView } from './view.ts';

export interface PartialCloseInput {
  orderId: number;
  /** lots for a position in lots, else units; canonical or as typed (the one decimal parser reads it) */
  quantity: string | number;
  reason: 'manual' | 'admin';
  /** the customer closing their own order: it must be theirs */
  userId?: number;
  actorId?: number | null;
  ip?: string | null;
}

type Out = { which: 'part' | 'rest'; status: 'ok' | 'not_found' | 'already_closed' | 'too_large' | 'remainder'; balance_after: string | null } & OrderRow;

export async function partialClose(deps: OrderDeps, input: PartialCloseInput): Promise<Result<{ order: OrderView; position: OrderView; balanceAfter: string | null }>> {
  const { sql, book } = deps;
  const [cur] = await sql<(OrderRow & { name: string; category: Category })[]>`
    SELECT o.*, i.name, i.category FROM orders o JOIN instruments i ON i.id = o.instrument_id WHERE o.id = ${input.orderId}`;
  if (!cur || cur.deleted_at || (input.userId !== undefined && Number(cur.user_id) !== input.userId)) return refuse('not_found', 'Order not found');
  if (cur.close_time) return refuse('already_closed', 'Order is already closed');
  const field = cur.lots === null ? 'amount' : 'lots';
  const parsed = parseDecimal(input.quantity, field);
  if (!parsed.ok) return refuse(numberRefusal(field), parsed.message);
  const split = partialSplit({ category: cur.category, trade_amount: cur.trade_amount, lots: cur.lots, spread: cur.spread, margin_used: cur.margin_used }, parsed.value);
  if (!split.ok) return refuse('invalid_amount', split.message);
  const inst = book.byId.get(Number(cur.instrument_id));
  const q = inst && book.tradable(inst.name);
  if (!inst || !q) return refuse('no_price', noPrice(cur.name));
  if (input.reason === 'manual' && !book.isOpen(inst.category)) return refuse('market_closed', 'Market is closed');
  // the function runs once (a CTE calling a volatile function); both rows come back as columns
  const rows = await sql<Out[]>`
    WITH f AS (SELECT * FROM engine_partial_close(${input.orderId}, ${input.userId ?? null}, ${split.amount}, ${split.lots},
                                ${MIN_LOTS[cur.category]}, ${String(q.bid)}, ${String(q.ask)}, ${input.reason},
                                ${input.actorId ?? null}, ${input.ip ?? null}))
    SELECT 'part' AS which, f.status, f.balance_after, (f.o).* FROM f
    UNION ALL
    SELECT 'rest', f.status, f.balance_after, (f.rest).* FROM f`;
  const r = rows.find((x) => x.which === 'part')!;
  if (r.status === 'not_found') return refuse('not_found', 'Order not found');
  if (r.status === 'already_closed') return refuse('already_closed', 'Order is already closed');
  // the position changed between the read and the lock (another partial close): say so, change nothing
  if (r.status === 'too_large') return refuse('invalid_amount', `${field === 'lots' ? 'Lots' : 'Amount'} must be less than the position's`);
  if (r.status === 'remainder') return refuse('invalid_amount', `The lots left open must be at least ${MIN_LOTS[cur.category]}`);
  const order = orderView(r, inst.name);
  const position = orderView(rows.find((x) => x.which === 'rest')!, inst.name);
  deps.hooks?.partial?.(order, position, r.balance_after);
  return { ok: true, order, position, balanceAfter: r.balance_after };
}
