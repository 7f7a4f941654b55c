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
