// Money in and out (docs/specs.md#money): deposits, withdrawals and the staff decisions on them.
// The one home of these rules; the customer pages, the staff pages and (later) the payment
// gateways' webhooks all call it.
//
// - Every balance change is a post_ledger() entry referencing its deposit or withdrawal, so a
//   retried or raced approval credits or debits exactly once.
// - A withdrawal request holds its total at once (a 'withdrawal' ledger entry): the money can no
//   longer be used as margin or withdrawn twice. Approval settles the hold (no second entry);
//   decline gives it back ('withdrawal_refund') and keeps the reason.
// - Four-eyes: above the site's 'second approval above' amount, two different staff members must
//   approve; the first approval leaves the request pending, 'awaiting second approval'.
// - The KYC switches are enforced here when on.
import { UNAVAILABLE_GATEWAYS } from '~/modules/gateways/kinds.ts';
import { parseDecimal } from '@broker/engine/domain';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { pgCode, refuse, type Refusal, type Result } from '~/shared/result.server.ts';
import { auditLoginAs, type ChangeSource } from '~/modules/auth/impersonation.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { kycBlocks, KYC_MESSAGES } from '~/modules/kyc/kyc-gate.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { addNotification, notifyStaff, publishNotices, type Notice } from '~/shared/notify.server.ts';
import { depositFee, withdrawFee, MONEY_INPUT, type FeeSummary } from './fees.ts';
import { BACK_OFFICE_ROLES } from '~/shared/roles.ts';

export type MoneyKind = 'deposit' | 'withdrawal';
export type Decision = 'approve' | 'decline';

/** A request refused: nothing changed. `field` names the form field the message belongs under. */

/** Longest decline reason kept (a sentence or two for the customer). */
export const REASON_MAX = 500;

// ---------------------------------------------------------------- wallets and gateways

export interface RealWallet { id: number; currency: string; balance: string; margin: string }

/** One of the user's real wallets (deposits and withdrawals never touch demo money), or null. */
export async function realWallet(sql: Sql, userId: number, balanceId: number): Promise<RealWallet | null> {
  if (!Number.isSafeInteger(balanceId) || balanceId < 1) return null;
  const [b] = await sql`SELECT id, currency, balance::text AS balance, margin::text AS margin
                          FROM balances WHERE id = ${balanceId} AND user_id = ${userId} AND mode = 'real'`;
  return b ? { id: Number(b.id), currency: String(b.currency).trim(), balance: b.balance, margin: b.margin } : null;
}

export interface Gateway {
  name: string;
  title: string;
  manual: boolean;
  /** percent of the amount */
  fee: string;
  /** key1..key5: for bank the broker's bank details, for btc / usdt key1 is the wallet address */
  keys: (string | null)[];
  /** an uploaded QR code (btc / usdt) */
  filePath: string | null;
}

const gatewayRow = (g: Record<string, unknown>): Gateway => ({
  name: String(g.name), title: String(g.title), manual: g.is_manual === true, fee: String(g.fee),
  keys: [g.key1, g.key2, g.key3, g.key4, g.key5].map((k) => (k == null ? null : String(k))), filePath: (g.file_path as string | null) ?? null,
});

/** The gateways a customer may deposit through: the active ones, manual ones first; never one not available in this version. */
export async function activeGateways(sql: Sql): Promise<Gateway[]> {
  const rows = await sql`SELECT name, title, is_manual, fee::text AS fee, key1, key2, key3, key4, key5, file_path
                           FROM payment_gateways WHERE is_active AND name::text <> ALL(${UNAVAILABLE_GATEWAYS as string[]}::text[])
                          ORDER BY is_manual DESC, title`;
  return rows.map(gatewayRow);
}

/** One active gateway by name, or null (unknown, or switched off by the admin). */
export async function activeGateway(sql: Sql, name: string): Promise<Gateway | null> {
  if (!/^[a-z]{2,20}$/.test(name)) return null;
  const [g] = await sql`SELECT name, title, is_manual, fee::text AS fee, key1, key2, key3, key4, key5, file_path
                          FROM payment_gateways WHERE name = ${name}::text::gateway_kind AND is_active`;
  return g && !(UNAVAILABLE_GATEWAYS as readonly string[]).includes(name) ? gatewayRow(g) : null;
}

/** The withdrawal fee settings (admin: fee % and fixed fee). */
export async function withdrawFees(sql: Sql): Promise<{ percentage: string; fixed: string }> {
  const [f] = await sql`SELECT fee_percentage::text AS p, fee_fixed::text AS f FROM withdraw_fee_settings WHERE id = 1`;
  return { percentage: f?.p ?? '0', fixed: f?.f ?? '0' };
}

/** An amount typed by a customer, canonical, or the refusal naming the amount field. */
export function parseMoneyAmount(input: unknown): { ok: true; value: string } | Refusal {
  const r = parseDecimal(input, MONEY_INPUT);
  return r.ok ? r : refuse(400, r.message, 'amount');
}

// ---------------------------------------------------------------- deposits

export interface DepositRequest {
  userId: number;
  balanceId: number;
  gateway: string;
  /** canonical decimal string (parseMoneyAmount) */
  amount: string;
  /** the form's random id: a double submit answers the first deposit */
  clientRef?: string | null;
  description?: string;
  /** bank: bankName, accountName, accountNumber, proofUploadId */
  details?: Record<string, string | number>;
  /** a crypto deposit's transaction hash (validated by the form): the transfer it claims, at most once per gateway */
  reference?: string | null;
  /** the request's session: inside login-as the deposit is audited with the staff member as actor */
  source?: ChangeSource;
}

export interface DepositCreated extends FeeSummary { ok: true; id: number; currency: string; gateway: string; replayed: boolean }

/** A deposit that passed every rule: the wallet, the gateway and the figures it would be stored with. */
export interface DepositChecked { ok: true; wallet: RealWallet; gateway: Gateway; fees: FeeSummary }

/**
 * The rules of a deposit, checked without writing anything: the user's own real wallet, an
 * active gateway, the KYC gate, a valid amount; the fee from the gateway. createDeposit runs
 * them; the deposit form runs them too before it sends the customer to a manual gateway's page.
 */
export async function checkDeposit(sql: Sql, r: Pick<DepositRequest, 'userId' | 'balanceId' | 'gateway' | 'amount'>): Promise<DepositChecked | Refusal> {
  const wallet = await realWallet(sql, r.userId, r.balanceId);
  if (!wallet) return refuse(400, 'Wallet is required', 'balance_id');
  const gateway = await activeGateway(sql, r.gateway);
  if (!gateway) return refuse(400, 'Gateway is required', 'gateway');
  if (await kycBlocks(sql, r.userId, 'deposit')) return refuse(403, KYC_MESSAGES.deposit);
  const amount = parseMoneyAmount(r.amount);
  if (!amount.ok) return amount;
  return { ok: true, wallet, gateway, fees: depositFee(amount.value, gateway.fee) };
}

/** Where staff decide what waits for them (the notifications' links). */
export const STAFF_PENDING_DEPOSITS = '/admin/deposits?status=pending';
export const STAFF_PENDING_WITHDRAWALS = '/admin/withdraws/pending';

/**
 * A pending deposit: real wallet of the user, active gateway, KYC gate, fee from the gateway. One
 * through a manual gateway (bank, crypto) notifies the admins and managers in its transaction.
 */
export async function createDeposit(sql: Sql, r: DepositRequest): Promise<DepositCreated | Refusal> {
  const checked = await checkDeposit(sql, r);
  if (!checked.ok) return checked;
  const { wallet, gateway, fees } = checked;
  const clientRef = r.clientRef || null;
  const reference = r.reference || null;
  const notices: Notice[] = [];
  // a transfer claimed by another deposit (not this form's own double submit) is refused by name;
  // the unique (gateway, reference) index holds it against a parallel claim
  const usedBy = async () => reference !== null && (await sql`SELECT 1 FROM deposits WHERE gateway = ${gateway.name} AND reference = ${reference}
                                                                 AND NOT (user_id = ${r.userId} AND client_ref IS NOT DISTINCT FROM ${clientRef})`).length > 0;
  const usedHash = () => refuse(409, 'This transaction hash was already submitted', 'tx_hash');
  if (await usedBy()) return usedHash();
  const row = await sql.begin(async (tx) => {
    const [created] = await tx`
      INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total, description, details, client_ref, reference)
      VALUES (${r.userId}, ${wallet.id}, ${gateway.name}, ${fees.amount}, ${fees.fee}, ${fees.total},
              ${r.description ?? gateway.title}, ${tx.json((r.details ?? {}) as never)}, ${clientRef}, ${reference})
      ON CONFLICT (user_id, client_ref) WHERE client_ref IS NOT NULL DO NOTHING
      RETURNING id, (SELECT full_name FROM users WHERE id = ${r.userId}) AS customer`;
    // a manual gateway's deposit waits for a staff decision: admins and managers hear of it (a card
    // or wallet payment is decided by its provider)
    if (created && gateway.manual) {
      const id = Number(created.id);
      notices.push(...await notifyStaff(tx, { roles: BACK_OFFICE_ROLES }, {
        title: `Deposit #${id} awaits approval`,
        description: `${created.customer} sent ${fees.amount} ${wallet.currency} by ${gateway.title}.`,
        url: STAFF_PENDING_DEPOSITS,
        data: { kind: 'deposit.submitted', id, amount: fees.amount, currency: wallet.currency, gateway: gateway.title, customer: String(created.customer) },
      }));
    }
    // docs/specs.md#login-as: a deposit requested inside login-as is audited, in its transaction
    if (created && r.source) {
      await auditLoginAs(tx, r.source.session, 'deposit.request', {
        after: { depositId: Number(created.id), gateway: gateway.name, amount: fees.amount, fee: fees.fee, total: fees.total, currency: wallet.currency, details: r.details ?? {} },
        ip: r.source.ip,
      });
    }
    return created;
  }).catch((e: unknown) => {
    if (pgCode(e) === '23505' && (e as { constraint_name?: string }).constraint_name === 'deposits_reference_key') return 'used' as const;
    throw e;
  });
  if (row === 'used') return usedHash();
  if (row) {
    await publishNotices(notices);
    return { ok: true, id: Number(row.id), currency: wallet.currency, gateway: gateway.name, replayed: false, ...fees };
  }
  const [first] = await sql`SELECT id, gateway, amount::text AS amount, fee::text AS fee, total::text AS total
                              FROM deposits WHERE user_id = ${r.userId} AND client_ref = ${clientRef}`;
  return { ok: true, id: Number(first.id), currency: wallet.currency, gateway: first.gateway, amount: first.amount, fee: first.fee, total: first.total, replayed: true };
}

// ---------------------------------------------------------------- withdrawals

export interface BankDetails { bankName: string; accountName: string; accountNumber: string; swiftCode: string; bankCountry: string }

export interface WithdrawalRequest {
  userId: number;
  balanceId: number;
  amount: string;
  /** accountName is replaced by the user's own full name: money leaves only to the account holder */
  bank: BankDetails;
  clientRef?: string | null;
}

export interface WithdrawalCreated extends FeeSummary { ok: true; id: number; currency: string; balanceAfter: string; replayed: boolean }

/** The floating P/L of a wallet's open positions at live prices (the engine's figure), or null when unknown. */
export type FloatingPnl = (balanceId: number) => Promise<number | null>;

const engineFloating: FloatingPnl = async (balanceId) => {
  const r = await engine().account(balanceId);
  return r.ok ? r.floatingPnl : null;
};

/**
 * A withdrawal request: its total (amount + fee) is held at once through the ledger, refused when
 * it exceeds the wallet's free margin (balance − used margin + floating P/L, the place-order rule)
 * under the balance lock, so neither a parallel request nor a new position can spend it twice.
 * The admins and managers who decide it are notified in the same transaction.
 */
export async function requestWithdrawal(sql: Sql, r: WithdrawalRequest, floatingPnl: FloatingPnl = engineFloating): Promise<WithdrawalCreated | Refusal> {
  const wallet = await realWallet(sql, r.userId, r.balanceId);
  if (!wallet) return refuse(400, 'Wallet is required', 'balance_id');
  if (await kycBlocks(sql, r.userId, 'withdraw')) return refuse(403, KYC_MESSAGES.withdraw);
  const amount = parseMoneyAmount(r.amount);
  if (!amount.ok) return amount;
  const fees = withdrawFee(amount.value, ...Object.values(await withdrawFees(sql)) as [string, string]);
  const clientRef = r.clientRef || null;

  // open positions make free margin depend on live prices: without them the figure is unknown
  let floating = 0;
  if (Number(wallet.margin) > 0) {
    const f = await floatingPnl(wallet.id);
    if (f === null || !Number.isFinite(f)) return refuse(503, 'Live prices are unavailable. Please try again in a moment.');
    floating = f;
  }

  const notices: Notice[] = [];
  const result = await sql.begin(async (tx) => {
    const [b] = await tx`SELECT balance::text AS balance, free_margin(balance, margin, ${String(floating)}::numeric) < ${fees.total}::numeric AS short
                           FROM balances WHERE id = ${wallet.id} FOR UPDATE`;
    if (clientRef) {
      const [first] = await tx`SELECT id, amount::text AS amount, fee::text AS fee, total::text AS total, balance_after::text AS balance_after
                                 FROM withdrawals WHERE user_id = ${r.userId} AND client_ref = ${clientRef}`;
      if (first) return { ok: true as const, id: Number(first.id), currency: wallet.currency, amount: first.amount, fee: first.fee, total: first.total, balanceAfter: first.balance_after, replayed: true };
    }
    if (b.short) return refuse(400, 'The total exceeds your free margin', 'amount');
    const [user] = await tx`SELECT full_name FROM users WHERE id = ${r.userId}`;
    const details: BankDetails = { ...r.bank, accountName: String(user.full_name) };
    const [w] = await tx`
      INSERT INTO withdrawals (user_id, balance_id, gateway, amount, fee, total, description, details, client_ref)
      VALUES (${r.userId}, ${wallet.id}, 'bank', ${fees.amount}, ${fees.fee}, ${fees.total}, ${details.bankName},
              ${tx.json(details as never)}, ${clientRef})
      RETURNING id`;
    const [posted] = await tx`SELECT balance_after::text AS balance_after FROM post_ledger(${wallet.id}, ${'-' + fees.total}::numeric,
                                'withdrawal', 'withdrawal', ${String(w.id)}, ${r.userId}, 'withdrawal request: total held')`;
    await tx`UPDATE withdrawals SET balance_after = ${posted.balance_after} WHERE id = ${w.id}`;
    // the admins and managers who decide it hear of it, in this transaction
    const id = Number(w.id);
    notices.push(...await notifyStaff(tx, { roles: BACK_OFFICE_ROLES }, {
      title: `Withdrawal #${id} requested`,
      description: `${user.full_name} asked to withdraw ${fees.amount} ${wallet.currency}.`,
      url: STAFF_PENDING_WITHDRAWALS,
      data: { kind: 'withdrawal.requested', id, amount: fees.amount, currency: wallet.currency, customer: String(user.full_name) },
    }));
    return { ok: true as const, id, currency: wallet.currency, balanceAfter: posted.balance_after, replayed: false, ...fees };
  });
  if (result.ok) await publishNotices(notices);
  return result;
}

// ---------------------------------------------------------------- staff decisions

export interface DecisionInput {
  kind: MoneyKind;
  id: number;
  /**
   * The staff member; null for a payment provider's verified notification (modules/payments): a
   * payment the provider confirmed is credited as it is, without four-eyes.
   */
  actorId: number | null;
  ip?: string | null;
  decision: Decision;
  /** required to decline a withdrawal; optional for a deposit */
  reason?: string | null;
  /**
   * Runs inside the transaction of a final approval (not a first of two): a withdrawal paid out
   * through a provider records its payout here (modules/payments/payouts.server.ts), so exactly one
   * payout exists whatever the number of concurrent approvals.
   */
  onApproved?: (tx: Db) => Promise<void>;
  /** where an approved withdrawal's money goes, for the customer's notification (default: their bank account) */
  destination?: string;
}

export type DecisionResult = Result<{ state: 'approved' | 'declined' | 'awaiting_second'; id: number }>;

const LABEL: Record<MoneyKind, string> = { deposit: 'Deposit', withdrawal: 'Withdrawal' };
const notFound = (kind: MoneyKind) => (kind === 'deposit' ? refuse(404, 'Deposit not found') : refuse(404, 'Withdrawal not found'));
const alreadyDecided = (kind: MoneyKind, status: 'approved' | 'declined') => kind === 'deposit'
  ? (status === 'approved' ? refuse(409, 'This deposit was already approved') : refuse(409, 'This deposit was already declined'))
  : (status === 'approved' ? refuse(409, 'This withdrawal was already approved') : refuse(409, 'This withdrawal was already declined'));

/** Whether an amount needs two approvals under the site's four-eyes setting. */
export async function needsSecondApproval(sql: Db, amount: string): Promise<boolean> {
  const { secondApprovalAbove } = await getSetting(sql, 'approvals');
  if (secondApprovalAbove === '') return false;
  const [r] = await sql`SELECT ${amount}::numeric > ${secondApprovalAbove}::numeric AS above`;
  return r.above === true;
}

/**
 * A staff member approves or declines a pending deposit or withdrawal. The row is locked first,
 * so of any number of parallel decisions one acts and the others are told it was already decided.
 */
export async function decideMoney(sql: Sql, d: DecisionInput): Promise<DecisionResult> {
  if (!Number.isSafeInteger(d.id) || d.id < 1) return notFound(d.kind);
  const reason = d.reason?.trim() || null;
  if (d.decision === 'decline' && d.kind === 'withdrawal' && !reason) return refuse(400, 'Decline reason is required', 'declineReason');
  if (reason && reason.length > REASON_MAX) return refuse(400, 'Decline reason allows at most 500 characters', 'declineReason');

  const notices: Notice[] = [];
  const result = await sql.begin(async (tx): Promise<DecisionResult> => {
    const table = tx(d.kind === 'deposit' ? 'deposits' : 'withdrawals');
    const [row] = await tx`
      SELECT m.id, m.user_id, m.balance_id, m.status, m.amount::text AS amount, m.fee::text AS fee, m.total::text AS total,
             m.first_approved_by, b.currency
        FROM ${table} m JOIN balances b ON b.id = m.balance_id
       WHERE m.id = ${d.id} FOR UPDATE OF m`;
    if (!row) return notFound(d.kind);
    if (row.status !== 'pending') return alreadyDecided(d.kind, row.status);
    const currency = String(row.currency).trim();
    const figures = { amount: row.amount, fee: row.fee, total: row.total, currency };
    const before = { status: row.status, firstApprovedBy: row.first_approved_by };

    if (d.decision === 'approve') {
      if (d.actorId !== null && await needsSecondApproval(tx, row.amount)) {
        if (row.first_approved_by === null) {
          await tx`UPDATE ${table} SET first_approved_by = ${d.actorId}, first_approved_at = now() WHERE id = ${d.id}`;
          await audit(tx, { actorId: d.actorId, action: `${d.kind}.approve_first`, targetKind: d.kind, targetId: d.id, before, after: { status: 'pending', firstApprovedBy: d.actorId, ...figures }, ip: d.ip });
          return { ok: true, state: 'awaiting_second', id: d.id };
        }
        if (Number(row.first_approved_by) === d.actorId) return refuse(409, 'A second approval must come from another staff member');
      }
      let balanceAfter: string | null = null;
      if (d.kind === 'deposit') {
        const [posted] = await tx`SELECT balance_after::text AS balance_after FROM post_ledger(${row.balance_id}, ${row.amount}::numeric,
                                    'deposit', 'deposit', ${String(d.id)}, ${d.actorId}, 'deposit approved')`;
        balanceAfter = posted.balance_after;
      }
      // a withdrawal's money left the wallet when it was requested (the hold): approval settles it
      await tx`UPDATE ${table} SET status = 'approved', decided_by = ${d.actorId}, decided_at = now(),
                 balance_after = coalesce(${balanceAfter}::numeric, balance_after) WHERE id = ${d.id}`;
      await audit(tx, { actorId: d.actorId, action: `${d.kind}.approve`, targetKind: d.kind, targetId: d.id, before, after: { status: 'approved', ...figures, balanceAfter }, ip: d.ip });
      if (d.onApproved) await d.onApproved(tx);
    } else {
      let balanceAfter: string | null = null;
      if (d.kind === 'withdrawal') {
        const [posted] = await tx`SELECT balance_after::text AS balance_after FROM post_ledger(${row.balance_id}, ${row.total}::numeric,
                                    'withdrawal_refund', 'withdrawal', ${String(d.id)}, ${d.actorId}, 'withdrawal declined: hold released')`;
        balanceAfter = posted.balance_after;
      }
      // a declined withdrawal's history shows the wallet once the hold came back, not during it
      await tx`UPDATE ${table} SET status = 'declined', decline_reason = ${reason}, decided_by = ${d.actorId}, decided_at = now(),
                 balance_after = coalesce(${balanceAfter}::numeric, balance_after) WHERE id = ${d.id}`;
      await audit(tx, { actorId: d.actorId, action: `${d.kind}.decline`, targetKind: d.kind, targetId: d.id, before, after: { status: 'declined', reason, ...figures }, ip: d.ip });
    }

    const decision = d.decision === 'approve' ? 'approved' : 'declined';
    const amountText = `${row.amount} ${currency}`;
    notices.push(await addNotification(tx, Number(row.user_id), {
      title: `${LABEL[d.kind]} #${d.id} ${decision}`,
      description: decision === 'approved'
        ? (d.kind === 'deposit' ? `${amountText} was credited to your wallet.` : `${amountText} is on its way to ${d.destination ?? 'your bank account'}.`)
        : (d.kind === 'withdrawal' ? `${row.total} ${currency} is back in your wallet. Reason: ${reason}` : `Reason: ${reason ?? ''}`),
      url: d.kind === 'deposit' ? '/deposits?tab=history' : '/withdraws?tab=history',
      data: { kind: 'money.decided', subject: d.kind, id: d.id, decision, amount: d.kind === 'withdrawal' && decision === 'declined' ? row.total : row.amount, currency, reason },
    }));
    return { ok: true, state: decision, id: d.id };
  });
  if (result.ok) await publishNotices(notices);
  return result;
}
