// An orders row as the engine's API answers it: the spec's snake_case names, ids as numbers,
// money and rates as exact decimal strings.
export interface OrderRow {
  id: bigint; user_id: bigint; balance_id: bigint; instrument_id: bigint; type: 'buy' | 'sell'; kind: string;
  trade_amount: string; lots: string | null; open_rate: string; close_rate: string | null; exchange_rate: string;
  spread: string; profit: string | null; loss: string | null; pro_loss: string | null; margin_used: string;
  leverage: number; close_time: Date | null; close_reason: string | null; closed_by: bigint | null;
  idempotency_key: string | null; created_at: Date; updated_at: Date; deleted_at: Date | null;
  /** a partial close's part: the position it was cut from (docs/specs.md#partial-close) */
  position_id?: bigint | null;
  /** the trailing stop's distance in price units; null: none (docs/specs.md#trailing-stop) */
  trailing_distance?: string | null;
}

export interface OrderView {
  id: number; user_id: number; balance_id: number; instrument_id: number; instrument: string;
  type: 'buy' | 'sell'; kind: string; trade_amount: string; lots: string | null; open_rate: string;
  close_rate: string | null; exchange_rate: string; spread: string; profit: string | null; loss: string | null;
  pro_loss: string | null; margin_used: string; leverage: number; created_at: string; close_time: string | null;
  close_reason: string | null; closed_by: number | null; deleted_at: string | null;
  position_id: number | null; trailing_distance: string | null;
}

export function orderView(r: OrderRow, instrument: string): OrderView {
  return {
    id: Number(r.id), user_id: Number(r.user_id), balance_id: Number(r.balance_id), instrument_id: Number(r.instrument_id),
    instrument, type: r.type, kind: r.kind, trade_amount: r.trade_amount, lots: r.lots, open_rate: r.open_rate,
    close_rate: r.close_rate, exchange_rate: r.exchange_rate, spread: r.spread, profit: r.profit, loss: r.loss,
    pro_loss: r.pro_loss, margin_used: r.margin_used, leverage: r.leverage, created_at: r.created_at.toISOString(),
    close_time: r.close_time?.toISOString() ?? null, close_reason: r.close_reason,
    closed_by: r.closed_by === null ? null : Number(r.closed_by), deleted_at: r.deleted_at?.toISOString() ?? null,
    position_id: r.position_id === null || r.position_id === undefined ? null : Number(r.position_id),
    trailing_distance: r.trailing_distance ?? null,
  };
}

/** A pending_orders row (migrations/1733310000000_pending-orders.sql). */
export interface PendingRow {
  id: bigint; user_id: bigint; balance_id: bigint; instrument_id: bigint; type: 'buy' | 'sell'; order_type: 'limit' | 'stop';
  price: string; trade_amount: string; lots: string | null; profit: string | null; loss: string | null;
  expiry: 'gtc' | 'day' | 'at'; expires_at: Date | null; status: 'pending' | 'filled' | 'cancelled' | 'expired';
  order_id: bigint | null; fill_rate: string | null; slippage: string | null; trigger_bid: string | null; trigger_ask: string | null;
  trigger_at: Date | null; cancel_reason: string | null; cancelled_by: bigint | null; idempotency_key: string | null;
  created_at: Date; updated_at: Date; done_at: Date | null;
}

/** A pending order as the engine's API and the realtime events answer it. */
export interface PendingView {
  id: number; user_id: number; balance_id: number; instrument_id: number; instrument: string;
  type: 'buy' | 'sell'; order_type: 'limit' | 'stop'; price: string; trade_amount: string; lots: string | null;
  profit: string | null; loss: string | null; expiry: 'gtc' | 'day' | 'at'; expires_at: string | null;
  status: 'pending' | 'filled' | 'cancelled' | 'expired'; order_id: number | null; fill_rate: string | null;
  slippage: string | null; cancel_reason: string | null; created_at: string; done_at: string | null;
}

export function pendingView(r: PendingRow, instrument: string): PendingView {
  return {
    id: Number(r.id), user_id: Number(r.user_id), balance_id: Number(r.balance_id), instrument_id: Number(r.instrument_id),
    instrument, type: r.type, order_type: r.order_type, price: r.price, trade_amount: r.trade_amount, lots: r.lots,
    profit: r.profit, loss: r.loss, expiry: r.expiry, expires_at: r.expires_at?.toISOString() ?? null, status: r.status,
    order_id: r.order_id === null ? null : Number(r.order_id), fill_rate: r.fill_rate, slippage: r.slippage,
    cancel_reason: r.cancel_reason, created_at: r.created_at.toISOString(), done_at: r.done_at?.toISOString() ?? null,
  };
}
