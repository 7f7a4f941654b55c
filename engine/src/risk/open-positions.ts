// What the risk index is rebuilt from and kept in step with, read from PostgreSQL: the open
// positions and balances of some partitions, and the stop-out and margin of open positions after
// a plan or a user's plan changed.
import type { Sql } from '../db.ts';
import { DEFAULT_STOPOUT, planValue, type Category } from '../domain/index.ts';
import type { OrderView } from '../orders/view.ts';
import type { PositionInput } from './evaluator.ts';

export interface OpenPosition { balance: number; openMs: number; input: PositionInput }

/** A position as the evaluator holds it, from the order the engine answered. */
export function positionInput(o: OrderView, stopout: number): PositionInput {
  return {
    id: o.id, accountId: o.balance_id, instrumentId: o.instrument_id, side: o.type, amount: +o.trade_amount,
    open: +o.open_rate, spread: +o.spread, exchangeRate: +o.exchange_rate, margin: +o.margin_used,
    tp: o.profit === null ? null : +o.profit, sl: o.loss === null ? null : +o.loss, stopout,
    trail: o.trailing_distance ? +o.trailing_distance : null,
  };
}

/** Open positions and balances of some partitions (of `count`; all when count <= 1), oldest first. */
export async function loadOpenPositions(sql: Sql, count: number, parts: number[]): Promise<OpenPosition[]> {
  const rows = await sql<{
    id: bigint; balance_id: bigint; instrument_id: bigint; type: 'buy' | 'sell'; kind: Category; trade_amount: string;
    open_rate: string; spread: string; exchange_rate: string; margin_used: string; profit: string | null; loss: string | null;
    plan: Record<string, unknown> | null; balance: string; open_ms: string; trailing_distance: string | null;
  }[]>`
    SELECT o.id, o.balance_id, o.instrument_id, o.type, o.kind, o.trade_amount, o.open_rate, o.spread, o.exchange_rate,
           o.margin_used, o.profit, o.loss, o.trailing_distance, to_jsonb(p) AS plan, b.balance,
           floor(extract(epoch FROM o.created_at) * 1000)::bigint::text AS open_ms
      FROM orders o JOIN balances b ON b.id = o.balance_id JOIN users u ON u.id = o.user_id
      LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
     WHERE o.close_time IS NULL AND o.deleted_at IS NULL
       AND (${count}::int <= 1 OR o.balance_id % ${count}::int = ANY(${parts}::int[]))
     ORDER BY o.created_at, o.id`;
  return rows.map((r) => ({
    balance: Number(r.balance), openMs: Number(r.open_ms),
    input: {
      id: Number(r.id), accountId: Number(r.balance_id), instrumentId: Number(r.instrument_id), side: r.type,
      amount: +r.trade_amount, open: +r.open_rate, spread: +r.spread, exchangeRate: +r.exchange_rate, margin: +r.margin_used,
      tp: r.profit === null ? null : +r.profit, sl: r.loss === null ? null : +r.loss,
      stopout: planValue(r.plan, r.kind, 'stopout') ?? DEFAULT_STOPOUT,
      trail: r.trailing_distance ? +r.trailing_distance : null,
    },
  }));
}

/**
 * The stop-out threshold and margin of the open positions of a user or of a plan's users: a
 * plan's stop-out values or a user's plan changed, and a plan subscription re-margins open
 * positions at the plan's leverage (migrations/*_plan-leverage.sql).
 */
export async function planStopouts(sql: Sql, where: { userId?: number; planId?: number }): Promise<{ id: number; stopout: number; margin: number }[]> {
  const rows = await sql<{ id: bigint; kind: Category; margin_used: string; plan: Record<string, unknown> | null }[]>`
    SELECT o.id, o.kind, o.margin_used, to_jsonb(p) AS plan
      FROM orders o JOIN users u ON u.id = o.user_id LEFT JOIN pricing_plans p ON p.id = u.pricing_plan_id
     WHERE o.close_time IS NULL AND o.deleted_at IS NULL
       AND ${where.userId !== undefined ? sql`o.user_id = ${where.userId}` : sql`u.pricing_plan_id = ${where.planId ?? null}`}`;
  return rows.map((r) => ({ id: Number(r.id), stopout: planValue(r.plan, r.kind, 'stopout') ?? DEFAULT_STOPOUT, margin: +r.margin_used }));
}
