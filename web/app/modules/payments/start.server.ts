// Payments that start with a browser form (PaymentStart kind 'form': Perfect Money's SCI entry
// form, any adapter that returns one): the deposit action keeps the form here and sends the
// customer to /deposits/start/:depositId, which posts it to the provider (auto-submitted, with a
// button for browsers without JavaScript). The form is stored exactly as the adapter built it, so
// the page never asks the provider again; it holds only the provider's public form fields.
import type { Sql } from '~/shared/db.server.ts';
import type { PaymentStart } from './adapter.ts';

type FormStart = Extract<PaymentStart, { kind: 'form' }>;

export const startPath = (depositId: number) => `/deposits/start/${depositId}`;

/** Keeps a deposit's form start (the latest one wins: a start is made once per deposit). */
export async function saveFormStart(sql: Sql, depositId: number, start: FormStart): Promise<void> {
  const fields = Object.fromEntries(Object.entries(start.fields).map(([k, v]) => [k, String(v)]));
  await sql`INSERT INTO payment_starts (deposit_id, action, method, fields)
            VALUES (${depositId}, ${start.action}, ${start.method}, ${sql.json(fields)})
            ON CONFLICT (deposit_id) DO UPDATE SET action = EXCLUDED.action, method = EXCLUDED.method, fields = EXCLUDED.fields, created_at = now()`;
}

export interface StartPageData {
  deposit: { id: number; amount: string; fee: string; total: string; currency: string };
  gateway: { name: string; title: string; feePercent: string };
  form: { action: string; method: 'POST' | 'GET'; fields: [string, string][] };
}

/**
 * The start page of the customer's own pending deposit, or null (not theirs, not pending, no form
 * start): the route answers 404 for all of these alike.
 */
export async function formStartOf(sql: Sql, userId: number, depositId: number): Promise<StartPageData | null> {
  const [r] = await sql`
    SELECT d.id, d.amount::text AS amount, d.fee::text AS fee, d.total::text AS total, trim(b.currency) AS currency,
           d.gateway, coalesce(g.title, d.gateway) AS title, coalesce(g.fee, 0)::text AS fee_percent,
           p.action, p.method, p.fields
      FROM deposits d
      JOIN balances b ON b.id = d.balance_id
      JOIN payment_starts p ON p.deposit_id = d.id
      LEFT JOIN payment_gateways g ON g.name::text = d.gateway
     WHERE d.id = ${depositId} AND d.user_id = ${userId} AND d.status = 'pending'`;
  if (!r) return null;
  const fields = Object.entries(r.fields as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]);
  return {
    deposit: { id: Number(r.id), amount: r.amount, fee: r.fee, total: r.total, currency: r.currency },
    gateway: { name: r.gateway, title: r.title, feePercent: r.fee_percent },
    form: { action: r.action, method: r.method === 'GET' ? 'GET' : 'POST', fields },
  };
}
