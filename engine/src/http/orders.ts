// Orders over internal HTTP: web calls these with the signed-in user's id (or the staff
// member's id as actorId) and the shared secret.
import { Elysia, t } from 'elysia';
import type { Core } from '../core.ts';
import { placeOrder, closeOrder, modifyOrder, adminEditOrder, adminDeleteOrder } from '../orders/service.ts';
import { partialClose } from '../orders/partial.ts';
import { STATUS, Refused, type Result } from '../orders/results.ts';
import { requireSecret } from './internal.ts';
import { HttpError } from './errors.ts';
import { float } from '../domain/index.ts';
import { AdminCloseBody, AdminEditBody, CloseOrderBody, ModifyOrderBody, PlaceOrderBody } from '../contract/orders.ts';

/**
 * A result as the HTTP answer: the success (its status 200, or 201 for a new order) is the
 * route's typed response; a refusal is thrown and answered by onError as { message, code } with
 * the code's status (orders/results.ts STATUS).
 */
function answer<T extends object>(r: Result<T>, set: { status?: number | string }, okStatus = 200): { ok: true } & T {
  if (!r.ok) throw new Refused(STATUS[r.code], r.code, r.message);
  set.status = okStatus;
  return r;
}

const id = t.Object({ id: t.Integer({ minimum: 1 }) });

export function orderRoutes(core: Core, secret: string) {
  const deps = core.orders;
  return new Elysia()
    .onBeforeHandle(({ headers }) => requireSecret(headers, secret))
    .post('/orders', async ({ body, set }) => {
      const r = await placeOrder(deps, body);
      return answer(r, set, r.ok && !r.replayed ? 201 : 200);
    }, { body: PlaceOrderBody })
    .post('/orders/:id/close', async ({ params, body, set }) => answer(body.quantity === undefined
      ? await closeOrder(deps, { orderId: params.id, userId: body.userId, actorId: body.userId, reason: 'manual' })
      : await partialClose(deps, { orderId: params.id, userId: body.userId, actorId: body.userId, reason: 'manual', quantity: body.quantity }), set),
    { params: id, body: CloseOrderBody })
    .patch('/orders/:id', async ({ params, body, set }) =>
      answer(await modifyOrder(deps, { orderId: params.id, ...body }), set), { params: id, body: ModifyOrderBody })
    .put('/admin/orders/:id', async ({ params, body, set }) =>
      answer(await adminEditOrder(deps, { orderId: params.id, ...body }), set), { params: id, body: AdminEditBody })
    .post('/admin/orders/:id/close', async ({ params, body, set }) => answer(body.quantity === undefined
      ? await closeOrder(deps, { orderId: params.id, actorId: body.actorId, ip: body.ip, reason: 'admin' })
      : await partialClose(deps, { orderId: params.id, actorId: body.actorId, ip: body.ip, reason: 'admin', quantity: body.quantity }), set),
    { params: id, body: AdminCloseBody })
    .delete('/admin/orders/:id', async ({ params, query, set }) =>
      answer(await adminDeleteOrder(deps, { orderId: params.id, actorId: query.actorId, ip: query.ip }), set), {
      params: id,
      query: t.Object({ actorId: t.Integer({ minimum: 1 }), ip: t.Optional(t.String({ maxLength: 64 })) }),
    })
    .get('/accounts/:balanceId', async ({ params }) => {
      const [b] = await deps.sql<{ balance: string; margin: string; currency: string }[]>`
        SELECT balance, margin, currency FROM balances WHERE id = ${params.balanceId}`;
      if (!b) throw new HttpError(404, 'Balance not found');
      const floating = core.owns(params.balanceId) ? core.risk.floatingPnl(params.balanceId) : await floatingFromDb(core, params.balanceId);
      return {
        balanceId: params.balanceId, currency: b.currency, balance: b.balance, margin: b.margin, floatingPnl: floating,
        equity: float.equity(+b.balance, floating), freeMargin: float.freeMargin(+b.balance, +b.margin, floating),
        marginLevel: float.marginLevel(+b.balance, +b.margin, floating),
      };
    }, { params: t.Object({ balanceId: t.Integer({ minimum: 1 }) }) });
}

/** Floating P/L of a balance another core process keeps (partitioned scale-out): open orders at live prices. */
async function floatingFromDb(core: Core, balanceId: number) {
  const rows = await core.orders.sql<{ type: 'buy' | 'sell'; trade_amount: string; open_rate: string; spread: string; exchange_rate: string; instrument_id: bigint }[]>`
    SELECT type, trade_amount, open_rate, spread, exchange_rate, instrument_id FROM orders
     WHERE balance_id = ${balanceId} AND close_time IS NULL AND deleted_at IS NULL`;
  let sum = 0;
  for (const r of rows) {
    const inst = core.book.byId.get(Number(r.instrument_id));
    const q = inst && core.book.tradable(inst.name);
    if (!q) continue;
    sum += float.positionPnl(r.type, +r.trade_amount, +r.open_rate, +r.spread, +r.exchange_rate, q.bid, q.ask);
  }
  return sum;
}
