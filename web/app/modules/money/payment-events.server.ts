// The payment events of a page of deposits, for the admin's deposit list: one query for the page.
import type { Sql } from '~/shared/db.server.ts';

export interface PaymentEventRow {
  id: number;
  createdAt: string;
  kind: string;
  state: string;
  outcome: 'received' | 'verified' | 'applied' | 'rejected';
  reason: string | null;
  amount: string | null;
  currency: string | null;
  eventId: string;
}

/** Each deposit's events, oldest first, by deposit id (payment_events_deposit_idx). */
export async function depositPaymentEvents(sql: Sql, depositIds: number[]): Promise<Map<number, PaymentEventRow[]>> {
  const out = new Map<number, PaymentEventRow[]>();
  if (depositIds.length === 0) return out;
  const rows = await sql`SELECT id, deposit_id, created_at, kind, state, outcome, reason, amount::text AS amount, currency, event_id
                           FROM payment_events WHERE deposit_id IN ${sql(depositIds)} ORDER BY deposit_id, id`;
  for (const r of rows) {
    const list = out.get(Number(r.deposit_id)) ?? [];
    list.push({
      id: Number(r.id), createdAt: (r.created_at as Date).toISOString(), kind: r.kind, state: r.state, outcome: r.outcome,
      reason: r.reason ?? null, amount: r.amount ?? null, currency: r.currency ?? null, eventId: r.event_id,
    });
    out.set(Number(r.deposit_id), list);
  }
  return out;
}
