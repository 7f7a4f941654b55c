// The staff list of pending orders (/admin/trades/pending, docs/specs.md#admin-trades): every
// customer's pending orders, filtered by status (pending, filled, cancelled, expired), user,
// instrument and side, paged in PostgreSQL (pending_orders_status_idx, pending_orders_balance_idx);
// and the staff cancel of a pending one, the engine's audited command (pending.cancel).
import type { Sql } from '~/shared/db.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import { parseUserRef } from './schemas.ts';
import { auditIp } from './trades.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';

export const PENDING_STATUSES = ['pending', 'filled', 'cancelled', 'expired'] as const;
export type PendingStatus = (typeof PENDING_STATUSES)[number];

export interface PendingFilters { status: string; user: string; instrument: string; side: string }

export interface StaffPendingRow {
  id: number; userId: number; email: string; mode: 'demo' | 'real'; currency: string;
  type: 'buy' | 'sell'; orderType: 'limit' | 'stop'; instrument: string; digits: number;
  price: string; amount: string; profit: string | null; loss: string | null;
  expiry: 'gtc' | 'day' | 'at'; expiresAt: string | null; status: PendingStatus; orderId: number | null;
  fillRate: string | null; slippage: string | null; cancelReason: string | null; createdAt: string; doneAt: string | null;
}

/**
 * A page of pending orders, newest first, and how many match: counted up to EXACT_COUNT_LIMIT,
 * beyond it PostgreSQL's estimate (`estimated`), as the trade lists count.
 */
export async function listPendingOrders(sql: Sql, f: PendingFilters, page: { limit: number; offset: number }): Promise<{ rows: StaffPendingRow[]; total: number; estimated: boolean }> {
  const user = f.user ? parseUserRef(f.user) : null;
  const users = !user ? null : 'id' in user ? [user.id] : (await sql`SELECT id FROM users WHERE email = ${user.email}`).map((r) => Number(r.id));
  const [inst] = f.instrument ? await sql`SELECT id FROM instruments WHERE name = ${f.instrument}` : [null];
  if ((users && !users.length) || (f.instrument && !inst)) return { rows: [], total: 0, estimated: false };
  const cond = sql`true
    ${f.status ? sql`AND x.status = ${f.status}::pending_status` : sql``}
    ${users ? sql`AND x.balance_id IN (SELECT b.id FROM balances b WHERE b.user_id IN ${sql(users)})` : sql``}
    ${inst ? sql`AND x.instrument_id = ${inst.id}` : sql``}
    ${f.side ? sql`AND x.type = ${f.side}::order_side` : sql``}`;
  const [rows, [{ n }]] = await Promise.all([
    sql`SELECT x.id, x.user_id, u.email, b.mode, b.currency, x.type, x.order_type, i.base || '/' || i.quote AS instrument, i.digits,
               x.price::text AS price, x.trade_amount::text AS amount, x.profit::text AS profit, x.loss::text AS loss,
               x.expiry, x.expires_at, x.status, x.order_id, x.fill_rate::text AS fill_rate, x.slippage::text AS slippage,
               x.cancel_reason, x.created_at, x.done_at
          FROM (SELECT x.id FROM pending_orders x WHERE ${cond} ORDER BY x.id DESC LIMIT ${page.limit} OFFSET ${page.offset}) p
          JOIN pending_orders x ON x.id = p.id
          JOIN instruments i ON i.id = x.instrument_id
          JOIN users u ON u.id = x.user_id
          JOIN balances b ON b.id = x.balance_id
         ORDER BY x.id DESC`,
    sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM pending_orders x WHERE ${cond} LIMIT ${EXACT_COUNT_LIMIT + 1}) c`,
  ]);
  let total = n as number, estimated = false;
  if (total > EXACT_COUNT_LIMIT) {
    const [plan] = await sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM pending_orders x WHERE ${cond}`;
    const est = Number((plan['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0]?.Plan?.['Plan Rows']);
    total = Math.max(total, Number.isFinite(est) ? Math.round(est) : 0, page.offset + rows.length);
    estimated = true;
  }
  return {
    total, estimated,
    rows: rows.map((r): StaffPendingRow => ({
      id: Number(r.id), userId: Number(r.user_id), email: r.email, mode: r.mode, currency: String(r.currency).trim(), type: r.type,
      orderType: r.order_type, instrument: r.instrument, digits: Number(r.digits), price: r.price, amount: r.amount, profit: r.profit,
      loss: r.loss, expiry: r.expiry, expiresAt: r.expires_at ? (r.expires_at as Date).toISOString() : null, status: r.status,
      orderId: r.order_id === null ? null : Number(r.order_id), fillRate: r.fill_rate, slippage: r.slippage, cancelReason: r.cancel_reason,
      createdAt: (r.created_at as Date).toISOString(), doneAt: r.done_at ? (r.done_at as Date).toISOString() : null,
    })),
  };
}

/** Staff cancel of a pending order: the engine's command, audited there with the staff member and their address. */
export async function staffCancelPending(actor: { id: number; ip: string | null }, pendingId: number): Promise<Outcome> {
  const ip = auditIp(actor.ip);
  const r = await engine().adminCancelPending(pendingId, ip ? { actorId: actor.id, ip } : { actorId: actor.id });
  if (r.ok) return { ok: true, toast: 'Pending order cancelled' };
  if (r.code === 'already_closed') return refuse(409, 'Order is no longer pending');
  if (r.code === 'not_found') return refuse(404, 'Order not found');
  return { ok: false, status: r.status >= 500 && r.status !== 503 ? 502 : r.status, message: 'Something went wrong' };
}
