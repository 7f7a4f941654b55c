// Chargebacks, disputes, refunds and reversals of card / wallet deposits (issue 22 §3,
// docs/specs.md "Payment gateways"). Until now the webhook route verified these notifications and
// dropped them; now:
//   1. the adapter that verified the notification (verifyNotification answered null: not a payment
//      of a pending deposit) reads it (DISPUTE_READERS: Stripe, PayPal, Wipays — the providers whose
//      APIs send them; README "Payment gateways");
//   2. it is stored in payment_events under the provider's event id, like every notification (a
//      replay changes nothing), its state the dispute's kind ('resolved' when it ends);
//   3. a credited deposit it names (the provider's verified data: the id we gave it, and its payment
//      id when it says it) is flagged (deposits.disputed_at, kind, amount, state), and the admins
//      and managers (roles 1–2) are notified, in the same transaction.
// The admin's deposit list shows the flag on the row and the event in its events dialog. Staff
// (roles 1–2) may then debit the disputed amount from the customer's wallet, once per deposit
// (debitDispute).
import type { Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import { notifyStaff, publishNotices, type Notice } from '~/shared/notify.server.ts';
import type { GatewayConfig } from './adapter.ts';
import type { DisputeNotice } from '~/modules/money/dispute.ts';
import { readStripeDispute } from './adapters/stripe.server.ts';
import { readPaypalDispute } from './adapters/paypal.server.ts';
import { readWipaysDispute } from './adapters/wipays.server.ts';
import { BACK_OFFICE_ROLES } from '~/shared/roles.ts';

/**
 * Per gateway, the reader of its dispute / refund notifications. Flutterwave (v3), CoinPayments,
 * MoonPay and Perfect Money send none through the notifications this app receives (README).
 */
export const DISPUTE_READERS: Record<string, (config: GatewayConfig, rawBody: string) => Promise<DisputeNotice | null>> = {
  stripe: readStripeDispute,
  paypal: readPaypalDispute,
  wipays: async (_config, rawBody) => readWipaysDispute(rawBody),
};

export type DisputeOutcome = 'replay' | 'flagged' | 'recorded' | 'unknown';

const log = (message: string, data: Record<string, unknown> = {}) => console.warn(`[payments] ${message}`, JSON.stringify(data));

const DECIMAL = /^\d{1,12}(\.\d{1,8})?$/;

/**
 * A verified dispute / refund notification of `gateway`: read by its adapter (null when it is not
 * one) and recorded. Throws when the provider cannot be asked (the webhook answers 500: it retries).
 */
export async function handleDisputeNotification(sql: Sql, gateway: string, config: GatewayConfig, rawBody: string): Promise<DisputeOutcome | null> {
  const read = Object.hasOwn(DISPUTE_READERS, gateway) ? DISPUTE_READERS[gateway] : null;
  const notice = read ? await read(config, rawBody) : null;
  if (!notice) return null;
  return recordDispute(sql, gateway, notice);
}

/** Stores the event once, flags the credited deposit it names and notifies roles 1–2. */
export async function recordDispute(sql: Sql, gateway: string, n: DisputeNotice): Promise<DisputeOutcome> {
  const amount = DECIMAL.test(n.amount) && Number(n.amount) > 0 ? n.amount : null;
  const currency = /^[A-Z0-9]{2,10}$/.test(n.currency) ? n.currency : null;
  const notices: Notice[] = [];
  const outcome = await sql.begin(async (tx): Promise<DisputeOutcome> => {
    const [dep] = n.depositId === null ? [] : await tx`
      SELECT d.id, d.reference, d.status, d.amount::text AS amount, u.full_name, coalesce(g.title, d.gateway) AS gateway_title
        FROM deposits d JOIN users u ON u.id = d.user_id LEFT JOIN payment_gateways g ON g.name::text = d.gateway
       WHERE d.id = ${n.depositId} AND d.gateway = ${gateway} FOR UPDATE OF d`;
    const known = dep && (n.providerRef === null || dep.reference === n.providerRef) ? dep : null;
    const depositId = known ? Number(known.id) : null;
    const reason = !known ? 'Unknown payment'
      : known.status !== 'approved' ? `The deposit is ${known.status}: nothing was credited`
      : n.phase === 'opened' ? null : `Ended: ${n.phase}`;
    const summary = { eventType: n.eventType, disputeId: n.disputeId, depositId: n.depositId, providerRef: n.providerRef, amount: n.amount, currency: n.currency, detail: n.detail };
    const [row] = await tx`
      INSERT INTO payment_events (deposit_id, gateway, event_id, kind, state, amount, currency, outcome, reason, raw)
      VALUES (${depositId}, ${gateway}, ${n.eventId.slice(0, 200)}, 'webhook', ${n.phase === 'opened' ? n.kind : 'resolved'}, ${amount}, ${currency},
              ${!known ? 'rejected' : known.status === 'approved' ? 'applied' : 'verified'}, ${reason ?? (n.detail ? n.detail.slice(0, 200) : null)},
              ${tx.json(summary as never)})
      ON CONFLICT (gateway, event_id) DO NOTHING RETURNING id`;
    if (!row) return 'replay';
    if (!known) {
      log(`${gateway} ${n.kind} event ${n.eventId} names an unknown payment`, { depositId: n.depositId, providerRef: n.providerRef });
      return 'unknown';
    }
    if (known.status !== 'approved') return 'recorded';
    const state = n.phase === 'opened' ? 'open' : n.phase;
    await tx`
      UPDATE deposits SET disputed_at = coalesce(disputed_at, now()), dispute_kind = ${n.kind},
             dispute_amount = coalesce(${n.phase === 'opened' ? amount : null}::numeric, dispute_amount),
             dispute_currency = coalesce(${n.phase === 'opened' && amount ? currency : null}, dispute_currency),
             dispute_state = ${state}
       WHERE id = ${depositId}`;
    notices.push(...await notifyStaff(tx, { roles: BACK_OFFICE_ROLES }, {
      title: n.phase === 'opened' ? `Deposit #${depositId}: ${n.kind} reported` : `Deposit #${depositId}: ${n.kind} ended (${n.phase})`,
      description: `${known.full_name}, ${known.gateway_title}${amount && currency ? `, ${amount} ${currency}` : ''}.`,
      url: `/admin/deposits?search=${depositId}`,
      data: {
        kind: 'deposit.disputed', id: depositId!, dispute: n.kind, phase: n.phase, amount: amount ?? '', currency: currency ?? '',
        gateway: String(known.gateway_title), customer: String(known.full_name),
      },
    }));
    return 'flagged';
  });
  await publishNotices(notices);
  return outcome;
}

// ---------------------------------------------------------------- the staff's debit

/** The ledger reference kind of a disputed deposit's debit (one per deposit: ref_id is the deposit id). */
export const DISPUTE_REF_KIND = 'deposit_dispute';
export const DEBIT_ROLES: readonly number[] = BACK_OFFICE_ROLES;

export type DebitResult = Outcome<{ amount: string; currency: string; balance: string }>;

/**
 * Debits a flagged deposit's disputed amount from its wallet: the amount the provider reported when
 * it is in the wallet's currency, never more than the deposit credited (else the credited amount).
 * One 'reversal' ledger entry through post_ledger under ('deposit_dispute', deposit id), so it
 * happens once whatever the number of clicks; below zero is refused as every staff debit is (no
 * write-off: that is the trading engine's negative-balance protection); audited. Roles 1–2 only.
 */
export async function debitDispute(sql: Sql, actor: { id: number; roleId: number; ip: string | null }, depositId: number): Promise<DebitResult> {
  if (!DEBIT_ROLES.includes(actor.roleId)) return refuse(403, 'You do not have permission to do this.');
  try {
    return await sql.begin(async (tx): Promise<DebitResult> => {
      const [d] = await tx`
        SELECT d.id, d.user_id, d.balance_id, d.status, d.amount::text AS amount, d.disputed_at, d.dispute_kind, d.dispute_state,
               d.dispute_amount::text AS dispute_amount, d.dispute_currency, d.dispute_debited_at, trim(b.currency) AS currency,
               b.balance::text AS balance,
               least(d.amount, coalesce(CASE WHEN d.dispute_currency = trim(b.currency) THEN d.dispute_amount END, d.amount))::numeric(20, 2)::text AS debit
          FROM deposits d JOIN balances b ON b.id = d.balance_id
         WHERE d.id = ${depositId} FOR UPDATE OF d`;
      if (!d) return refuse(404, 'Deposit not found');
      if (d.dispute_debited_at) return refuse(409, 'The disputed amount was already debited');
      if (!d.disputed_at || d.status !== 'approved') return refuse(409, 'This deposit has no chargeback or refund to debit');
      const [r] = await tx`
        SELECT entry_id, balance_after::text AS balance_after, applied
          FROM post_ledger(${d.balance_id}, ${'-' + d.debit}::numeric, 'reversal', ${DISPUTE_REF_KIND}, ${String(d.id)}, ${actor.id},
                           ${`${d.dispute_kind} of deposit #${d.id}`})`;
      await tx`UPDATE deposits SET dispute_debited_at = now(), dispute_debit_entry = ${r.entry_id} WHERE id = ${d.id}`;
      await audit(tx, {
        actorId: actor.id, action: 'deposit.dispute_debit', targetKind: 'deposit', targetId: Number(d.id), ip: actor.ip,
        before: { balanceId: Number(d.balance_id), balance: d.balance, disputeKind: d.dispute_kind, disputeState: d.dispute_state, disputeAmount: d.dispute_amount, disputeCurrency: d.dispute_currency },
        after: { balanceId: Number(d.balance_id), balance: r.balance_after, debited: d.debit, currency: d.currency, entryId: Number(r.entry_id) },
      });
      return { ok: true, toast: 'Disputed amount debited', amount: d.debit, currency: d.currency, balance: String(r.balance_after) };
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'BAL01') return refuse(400, 'The balance cannot go below zero');
    throw e;
  }
}
