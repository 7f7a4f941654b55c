// The engine's typed client: Eden's treaty over the engine's App type (a type-only import, so
// nothing of the engine's server code runs in web). Every call answers { ok: true, ...data } or
// the engine's refusal { ok: false, status, code, message }; an engine that cannot be reached or
// does not answer in time is the refusal 503 'engine_unavailable', never a thrown error.
// Bodies are typed by the engine's route schemas (contract/orders.ts): nothing here redeclares one.
import { treaty } from '@elysiajs/eden';
import type { App } from '../http/app.ts';
import { SECRET_HEADER } from './auth.ts';
import type { EngineRefusal } from './orders.ts';
import type { PublishedEventName, StreamEvents } from './events.ts';

export type { App, EngineRefusal };
export type EngineResult<T> = ({ ok: true } & T) | EngineRefusal;

const UNAVAILABLE: EngineRefusal = { ok: false, status: 503, code: 'engine_unavailable', message: 'Something went wrong' };

type Answer<T> = { data: T; error: null } | { data: null; error: { status: unknown; value: unknown } };

/** A treaty answer as an EngineResult: a refusal keeps the engine's status, code and message. */
async function settle<T>(call: () => Promise<Answer<T>>): Promise<EngineResult<NonNullable<T>>> {
  let r: Answer<T>;
  try { r = await call(); } catch { return UNAVAILABLE; }
  if (r.error) {
    // Eden answers a failed fetch (refused, timed out) as an error holding the thrown Error
    if (r.error.value instanceof Error || typeof r.error.status !== 'number' || r.error.status < 400) return UNAVAILABLE;
    const status = r.error.status;
    const v = (r.error.value ?? {}) as { code?: unknown; message?: unknown };
    return { ok: false, status, code: typeof v.code === 'string' ? v.code : 'error', message: typeof v.message === 'string' ? v.message : 'Something went wrong' };
  }
  if (r.data === null || typeof r.data !== 'object') return UNAVAILABLE; // not the engine's JSON
  return { ...(r.data as object), ok: true } as EngineResult<NonNullable<T>>;
}

export interface EngineClientOptions {
  /** ENGINE_SECRET: the engine's commands refuse a call without it */
  secret: string;
  /** per call; market data answers faster or not at all */
  timeoutMs?: number;
}

/**
 * The client for an engine at `target`: its base URL, or (tests) the Elysia app itself, called
 * in process. Market data and customer commands take the signed-in user's id; the engine checks
 * the wallet and the order are theirs. Staff commands take the staff member's id (actorId).
 */
export function engineClient(target: string | App, opts: EngineClientOptions) {
  const api = treaty<App>(target as App, { headers: { [SECRET_HEADER]: opts.secret } }).v1;
  const within = (ms = opts.timeoutMs ?? 10_000) => ({ fetch: { signal: AbortSignal.timeout(ms) } });
  type Body<F extends (...a: never[]) => unknown> = Parameters<F>[0];
  return {
    /** A customer's order. Without balanceId: the user's active wallet (the engine resolves it). */
    placeOrder: (body: Body<typeof api.orders.post>) => settle(() => api.orders.post(body, within())),
    /** the whole position, or `quantity` of it (lots, or units for a position in units): a partial close */
    closeOrder: (orderId: number, userId: number, quantity?: string) =>
      settle(() => api.orders({ id: orderId }).close.post(quantity === undefined ? { userId } : { userId, quantity }, within())),
    /** absent leaves a level, null removes it */
    modifyOrder: (orderId: number, body: Body<ReturnType<typeof api.orders>['patch']>) =>
      settle(() => api.orders({ id: orderId }).patch(body, within())),
    /** staff: edit a trade's rates, spread, levels or open time; a closed trade's P/L difference is posted */
    adminEditOrder: (orderId: number, body: Body<ReturnType<typeof api.admin.orders>['put']>) =>
      settle(() => api.admin.orders({ id: orderId }).put(body, within())),
    /** staff: force close at the live price */
    adminCloseOrder: (orderId: number, body: Body<ReturnType<typeof api.admin.orders>['close']['post']>) =>
      settle(() => api.admin.orders({ id: orderId }).close.post(body, within())),
    /** staff: soft delete (margin released, audited) */
    adminDeleteOrder: (orderId: number, actor: NonNullable<Parameters<ReturnType<typeof api.admin.orders>['delete']>[1]>['query']) =>
      settle(() => api.admin.orders({ id: orderId }).delete(undefined, { query: actor, ...within() })),
    /** a pending order (docs/specs.md#pending-orders): Buy/Sell Limit or Stop at a price, with an expiry */
    placePending: (body: Body<(typeof api)['pending-orders']['post']>) => settle(() => api['pending-orders'].post(body, within())),
    /** the customer changes a pending order's price, amount, levels or expiry */
    modifyPending: (id: number, body: Body<ReturnType<(typeof api)['pending-orders']>['patch']>) =>
      settle(() => api['pending-orders']({ id }).patch(body, within())),
    cancelPending: (id: number, userId: number) => settle(() => api['pending-orders']({ id }).cancel.post({ userId }, within())),
    /** staff: cancel a customer's pending order (audited) */
    adminCancelPending: (id: number, body: Body<ReturnType<(typeof api.admin)['pending-orders']>['cancel']['post']>) =>
      settle(() => api.admin['pending-orders']({ id }).cancel.post(body, within())),
    /** a wallet's live figures: balance, used margin, floating P/L at live prices, equity, free margin */
    account: (balanceId: number) => settle(() => api.accounts({ balanceId }).get(within(5000))),
    /** a realtime event to a user's stream (notifications) or a staff page (tracking) */
    publish: <E extends PublishedEventName>(body: Body<typeof api.events.post> & { event: E; data: StreamEvents[E] }) => settle(() => api.events.post(body, within(3000))),
    quotes: () => settle(() => api.quotes.get(within(3000))),
    candles: (symbol: string, interval: '1m' | '1h' | '1D' = '1D', limit = 500) =>
      settle(() => api.candles({ symbol }).get({ query: { interval, limit }, ...within(5000) })),
    /** staff: the engine process's CPU and memory (Server Information) */
    serverInfo: () => settle(() => api.server.get(within(3000))),
    rate: (from: string, to: string) => settle(() => api.rates.get({ query: { from, to }, ...within(5000) })),
  };
}
export type EngineClient = ReturnType<typeof engineClient>;
