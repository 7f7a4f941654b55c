// The engine's HTTP API as web uses it: trading commands with the shared secret, market data
// without. Refusals come back as { ok: false, message, code, status }; a down engine is one too.
import { env } from '~/utils/env.server.ts';

export interface EngineRefusal { ok: false; status: number; code: string; message: string }
export type EngineResult<T> = ({ ok: true } & T) | EngineRefusal;

export interface EngineOrder {
  id: number; user_id: number; balance_id: number; instrument: string; type: 'buy' | 'sell';
  trade_amount: string; open_rate: string; close_rate: string | null; profit: string | null; loss: string | null;
  pro_loss: string | null; close_time: string | null; close_reason: string | null;
}

async function call<T>(path: string, init: { method?: string; body?: unknown; secret?: boolean; timeoutMs?: number } = {}): Promise<EngineResult<T>> {
  const e = env();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.secret) headers['x-engine-secret'] = e.ENGINE_SECRET;
  let res: Response;
  try {
    res = await fetch(new URL(`/v1${path}`, e.ENGINE_URL), {
      method: init.method ?? 'GET', headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
    });
  } catch {
    return { ok: false, status: 503, code: 'engine_unavailable', message: 'Something went wrong' };
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    return { ok: false, status: res.status, code: String(body.code ?? 'error'), message: typeof body.message === 'string' ? body.message : 'Something went wrong' };
  }
  return { ok: true, ...(body as T) };
}

export interface PlaceOrder {
  userId: number; balanceId: number; type: 'buy' | 'sell'; instrument: string;
  amount?: string; lots?: string; profit: string | null; loss: string | null; idempotencyKey?: string;
}

export const engine = {
  placeOrder: (o: PlaceOrder) => call<{ order: EngineOrder; replayed: boolean }>('/orders', { method: 'POST', body: o, secret: true }),
  closeOrder: (orderId: number, userId: number) =>
    call<{ order: EngineOrder; balanceAfter: string | null }>(`/orders/${orderId}/close`, { method: 'POST', body: { userId }, secret: true }),
  modifyOrder: (orderId: number, userId: number, levels: { profit?: string | null; loss?: string | null }) =>
    call<{ order: EngineOrder }>(`/orders/${orderId}`, { method: 'PATCH', body: { userId, ...levels }, secret: true }),
  quotes: () => call<{ status: MarketStatus; quotes: EngineQuote[] }>('/quotes', { timeoutMs: 3000 }),
  candles: (symbol: string, interval: '1m' | '1h' | '1D' = '1D', limit = 500) =>
    call<{ symbol: string; interval: string; candles: { ts: number; open: number; high: number; low: number; close: number }[] }>(
      `/candles/${encodeURIComponent(symbol)}?interval=${interval}&limit=${limit}`, { timeoutMs: 5000 }),
  rate: (from: string, to: string) =>
    call<{ from: string; to: string; rate: string }>(`/rates?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { timeoutMs: 5000 }),
};

export interface MarketStatus { fx: 'open' | 'closed'; stock: 'open' | 'closed'; crypto: 'open' | 'closed' }
export interface EngineQuote {
  name: string; category: string; tradable: boolean; open: boolean;
  bids: number | null; asks: number | null; prevBids: number | null; prevAsks: number | null;
  closeoutBid: number | null; closeoutAsk: number | null;
  /** a price saved by the engine's last run: shown, never traded on */
  stale?: boolean;
}
