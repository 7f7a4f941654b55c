// Staff add / subtract on a customer's wallet (docs/specs.md#customer-records): one
// ledger entry of kind 'adjustment' through post_ledger (which locks the wallet, refuses to go
// below zero and NOTIFYs balance_changed: the engine then pushes the new balance to the
// customer's open pages), audited with the balance before and after in the same transaction.
// The form's random id is the entry's reference, so a double submit posts once.
import type { Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import type { BalanceInput } from './edit-schemas.ts';

/** The ledger reference kind of a staff adjustment (ledger_entries.ref_kind). */
export const ADJUST_REF_KIND = 'staff_adjustment';

export type AdjustResult = Outcome<{ applied: boolean; balance: string }>;

export const BELOW_ZERO = 'The balance cannot go below zero';

/** The entry's reference: the wallet and the form's id (ledger_entries is unique on it and the kind). */
export const adjustRef = (balanceId: number, clientRef: string) => `${balanceId}:${clientRef}`;

/**
 * Adds (type add) or subtracts the amount on wallet `input.balanceId` of customer `customerId`.
 * A wallet that is not this customer's is 'Wallet not found' (404); below zero is refused with
 * BELOW_ZERO and nothing changes; a repeated form id answers the first result without a second
 * entry or audit row.
 */
export async function adjustBalance(sql: Sql, actor: { id: number; ip: string | null }, customerId: number, input: BalanceInput): Promise<AdjustResult> {
  const signed = input.type === 'add' ? input.amount : `-${input.amount}`;
  try {
    return await sql.begin(async (tx): Promise<AdjustResult> => {
      // the wallet's lock first (post_ledger takes the same one), so 'before' is the balance the entry moves
      const [w] = await tx`SELECT id, balance::text AS balance, mode, currency FROM balances
                            WHERE id = ${input.balanceId} AND user_id = ${customerId} FOR UPDATE`;
      if (!w) return refuse(404, 'Wallet not found', 'balanceId');
      const [r] = await tx`
        SELECT entry_id, balance_after::text AS balance_after, applied
          FROM post_ledger(${input.balanceId}, ${signed}::numeric, 'adjustment', ${ADJUST_REF_KIND},
                           ${adjustRef(input.balanceId, input.clientRef)}, ${actor.id}, ${input.reason})`;
      if (r.applied) {
        await audit(tx, {
          actorId: actor.id, action: 'balance.adjust', targetKind: 'user', targetId: customerId, ip: actor.ip,
          before: { balanceId: input.balanceId, mode: w.mode, currency: String(w.currency).trim(), balance: w.balance },
          after: {
            balanceId: input.balanceId, balance: r.balance_after, type: input.type, amount: input.amount,
            reason: input.reason, entryId: Number(r.entry_id),
          },
        });
      }
      return { ok: true, toast: 'Balance updated successfully', applied: !!r.applied, balance: String(r.balance_after) };
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'BAL01') return refuse(400, BELOW_ZERO, 'amount');
    // the same form id posted again with another wallet or amount
    if (code === 'BAL05') return refuse(409, 'This form was already submitted. Reload the page and try again.');
    // numeric field overflow: the new balance would not fit the column
    if (code === '22003') return refuse(400, 'Amount is too large', 'amount');
    throw e;
  }
}
