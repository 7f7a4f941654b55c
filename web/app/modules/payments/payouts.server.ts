// Payouts of approved withdrawals through a payment provider (issue 13: "where the provider offers
// it, pay out a withdrawal"). Today: PayPal Payouts, to the PayPal account that funded the
// customer's own earlier PayPal deposit (return to source), and Flutterwave transfers to the
// withdrawal's bank account, at the bank the approver picks from Flutterwave's own bank list
// (adapters/flutterwave-payout.server.ts; README "Payouts" says why the other gateways do not pay out).
//
// The flow, and what makes it safe:
//   1. On Pending Withdraws a staff member approves with "Pay manually" (the bank transfer of
//      today) or "Pay out through {gateway}" when the gateway can pay this withdrawal (payoutOptions).
//      A bank payout (Flutterwave) also names the provider's bank code, picked by the approver from
//      the provider's list for the withdrawal's country and checked against that list here.
//   2. Only the final approval counts (four-eyes: a first of two approvals sends nothing). Its
//      transaction (decideMoney's onApproved) writes the withdrawal_payouts row, keyed by the
//      withdrawal id, with its audit row: of any number of concurrent approvals one succeeds and one
//      payout exists.
//   3. After the commit, sendPayout claims the row (one UPDATE … WHERE status = 'requested' and no
//      live claim) and calls the provider with the withdrawal's own reference as its idempotency key
//      (PayPal's sender_batch_id), chosen once with the row: a retry after a timeout or a crash never pays twice.
//   4. The provider's answers (the create call, its signed notifications, our status checks) are
//      payout_events rows, unique by the provider's event id (a replay changes nothing), and move the
//      payout to 'paid' or 'failed'.
//   5. A payout the provider reports failed (refused, denied, blocked, returned, refunded) never
//      leaves the customer debited: the withdrawal's total comes back through the ledger
//      ('withdrawal_refund', the same entry a decline writes, so it is posted once), the withdrawal
//      becomes 'declined' with the reason 'Payout failed: …', the customer is notified and the
//      change is audited (actor: the provider, null). A payout reported paid after that is never
//      applied: it is held for staff review (the event 'rejected' with its reason, and a log line).
//   6. Only a failure the provider confirms refunds (issue 22). An answer that leaves open whether a
//      payout exists — a refusal of a retry (the first request with this reference may have paid),
//      a refusal naming our reference as used, no answer after MAX_SEND_ATTEMPTS tries — makes the
//      payout 'review' (Needs review): nothing is refunded or resent automatically, roles 1–2 are
//      notified, and a status the provider then reports (Check status, a notification) settles it.
// A background job (startPayoutJob) retries payouts whose call did not get an answer and asks the
// provider about payouts without news.
import { randomBytes } from 'node:crypto';
import type { Db, Sql } from '~/shared/db.server.ts';
import type { Result } from '~/shared/result.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { decideMoney } from '~/modules/money/money.server.ts';
import { addNotification, notifyStaff, publishNotices, type Notice } from '~/shared/notify.server.ts';
import countries from 'world-countries';
import type { PayoutState, PayoutStatusName, PayoutView } from '~/modules/money/payout-view.ts';
import { PayoutAmbiguous, PayoutRefused, paypalPayouts, payoutRef, type BankDestination, type PayoutAdapter, type PayoutNotice, type PayoutStatus } from './adapters/paypal-payout.server.ts';
import { flutterwaveAccountName, flutterwaveBanks, flutterwavePayouts, FLW_PAYOUT_COUNTRIES, FLW_RESOLVE_COUNTRIES, type FlwBank } from './adapters/flutterwave-payout.server.ts';
import { BACK_OFFICE_ROLES } from '~/shared/roles.ts';

/** The gateways that can pay a withdrawal out, by payment_gateways.name. */
export const PAYOUT_ADAPTERS: Record<string, PayoutAdapter> = { paypal: paypalPayouts, flutterwave: flutterwavePayouts };

/** The customer-facing name of a payout gateway's account ('your PayPal account'). */
const GATEWAY_NAMES: Record<string, string> = { paypal: 'PayPal' };
/** The gateways that pay to the withdrawal's bank account (the approver picks the provider's bank code). */
const BANK_PAYOUTS = new Set(['flutterwave']);
export const isBankPayout = (gateway: string) => BANK_PAYOUTS.has(gateway);

export const payoutAdapterFor = (gateway: string): PayoutAdapter | null => (Object.hasOwn(PAYOUT_ADAPTERS, gateway) ? PAYOUT_ADAPTERS[gateway] : null);

const log = (message: string, data: Record<string, unknown> = {}) => console.warn(`[payouts] ${message}`, JSON.stringify(data));

/** A gateway a payout may go through now: an adapter, active, its API keys saved. */
async function payoutReady(sql: Sql, gateway: string) {
  const adapter = payoutAdapterFor(gateway);
  if (!adapter) return null;
  const config = await gatewayConfig(sql, gateway);
  return config && config.active && config.key1?.trim() && config.key2?.trim() ? { adapter, config } : null;
}

/**
 * Where a withdrawal's PayPal payout goes: the payer id PayPal itself reported (captured order,
 * verified status) for the customer's latest approved PayPal deposit into a wallet of the same
 * currency. Null: the customer never paid by PayPal, so there is no account of theirs to return to.
 */
export async function paypalReceivers(sql: Sql, withdrawalIds: number[]): Promise<Map<number, { receiver: string; depositId: number }>> {
  const out = new Map<number, { receiver: string; depositId: number }>();
  if (withdrawalIds.length === 0) return out;
  const rows = await sql`
    SELECT w.id, r.account, r.deposit_id
      FROM withdrawals w JOIN balances wb ON wb.id = w.balance_id
      CROSS JOIN LATERAL (
        SELECT pe.raw->>'payerAccount' AS account, d.id AS deposit_id
          FROM deposits d JOIN balances db ON db.id = d.balance_id AND db.currency = wb.currency
          JOIN payment_events pe ON pe.deposit_id = d.id AND pe.gateway = 'paypal' AND pe.state = 'paid' AND pe.outcome = 'applied'
         WHERE d.user_id = w.user_id AND d.gateway = 'paypal' AND d.status = 'approved' AND pe.raw ? 'payerAccount'
         ORDER BY d.id DESC, pe.id DESC LIMIT 1) r
     WHERE w.id IN ${sql(withdrawalIds)}`;
  for (const r of rows) {
    if (/^[A-Z0-9]{1,20}$/.test(r.account ?? '')) out.set(Number(r.id), { receiver: r.account, depositId: Number(r.deposit_id) });
  }
  return out;
}

/** The bank account a withdrawal was asked to (its form), with its country's ISO-2 code. */
export interface WithdrawalBank { bankName: string; accountNumber: string; accountName: string; country: string | null; countryName: string; currency: string }

let isoByName: Map<string, string> | undefined;
/** The form's country names (world-countries' common names, auth/countries.server.ts) as ISO-2 codes. */
const isoOf = (name: string) => (isoByName ??= new Map(countries.map((c) => [c.name.common, c.cca2]))).get(name) ?? null;

export async function withdrawalBanks(sql: Sql, withdrawalIds: number[]): Promise<Map<number, WithdrawalBank>> {
  const out = new Map<number, WithdrawalBank>();
  if (withdrawalIds.length === 0) return out;
  const rows = await sql`
    SELECT w.id, w.details, u.full_name, trim(b.currency) AS currency
      FROM withdrawals w JOIN balances b ON b.id = w.balance_id JOIN users u ON u.id = w.user_id
     WHERE w.id IN ${sql(withdrawalIds)}`;
  for (const r of rows) {
    const d = (r.details && typeof r.details === 'object' ? r.details : {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
    const countryName = text(d.bankCountry);
    out.set(Number(r.id), {
      bankName: text(d.bankName), accountNumber: text(d.accountNumber).replace(/[\s-]+/g, ''), accountName: text(d.accountName) || String(r.full_name),
      country: isoOf(countryName), countryName, currency: String(r.currency),
    });
  }
  return out;
}

/** Where a payout goes before the approver's choice: a provider account (PayPal), or the withdrawal's bank account. */
interface PayableTo { receiver: string; depositId: number | null; bank: WithdrawalBank | null }

/** Where each withdrawal's payout through `gateway` would go (see paypalReceivers); a withdrawal missing here cannot be paid through it. */
async function payableBy(sql: Sql, gateway: string, withdrawalIds: number[]): Promise<Map<number, PayableTo>> {
  const out = new Map<number, PayableTo>();
  if (gateway === 'paypal') {
    for (const [id, r] of await paypalReceivers(sql, withdrawalIds)) out.set(id, { ...r, bank: null });
  } else if (gateway === 'flutterwave') {
    // a country Flutterwave pays bank accounts in, in its currency, to an account number it can take
    for (const [id, b] of await withdrawalBanks(sql, withdrawalIds)) {
      if (b.country && FLW_PAYOUT_COUNTRIES[b.country] === b.currency && /^[A-Za-z0-9]{1,34}$/.test(b.accountNumber)) out.set(id, { receiver: b.accountNumber, depositId: null, bank: b });
    }
  }
  return out;
}

/** Which gateways can pay out each of these pending withdrawals (the approve dialog's choices). */
export async function payoutOptions(sql: Sql, rows: { id: number; amount: string; currency: string }[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(rows.map((r) => [r.id, []]));
  if (rows.length === 0) return out;
  for (const g of Object.keys(PAYOUT_ADAPTERS)) {
    if (!(await payoutReady(sql, g))) continue;
    const fit = rows.filter((r) => !PAYOUT_ADAPTERS[g].check({ withdrawalId: r.id, amount: r.amount, currency: r.currency }));
    const to = await payableBy(sql, g, fit.map((r) => r.id));
    for (const r of fit) if (to.has(r.id)) out.get(r.id)!.push(g);
  }
  return out;
}

/** The payouts of a page of withdrawals, by withdrawal id (the primary key). */
export async function payoutsOf(sql: Sql, withdrawalIds: number[]): Promise<Map<number, PayoutView>> {
  const out = new Map<number, PayoutView>();
  if (withdrawalIds.length === 0) return out;
  const [rows, events] = await Promise.all([
    sql`SELECT withdrawal_id, gateway, status, provider_ref, provider_status, reason, last_error, updated_at, destination
          FROM withdrawal_payouts WHERE withdrawal_id IN ${sql(withdrawalIds)}`,
    sql`SELECT id, withdrawal_id, created_at, kind, state, outcome, reason, event_id
          FROM payout_events WHERE withdrawal_id IN ${sql(withdrawalIds)} ORDER BY withdrawal_id, id`,
  ]);
  for (const r of rows) {
    out.set(Number(r.withdrawal_id), {
      gateway: r.gateway, status: r.status, providerRef: r.provider_ref ?? null, providerStatus: r.provider_status ?? null,
      reason: r.reason ?? null, lastError: r.last_error ?? null, updatedAt: (r.updated_at as Date).toISOString(),
      bank: r.destination ? { name: String(r.destination.bankName ?? ''), accountNumber: String(r.destination.accountNumber ?? '') } : null, events: [],
    });
  }
  for (const e of events) {
    out.get(Number(e.withdrawal_id))?.events.push({
      id: Number(e.id), createdAt: (e.created_at as Date).toISOString(), kind: e.kind, state: e.state, outcome: e.outcome, reason: e.reason ?? null, eventId: e.event_id,
    });
  }
  return out;
}

// ---------------------------------------------------------------- the staff's approval

export type PayoutChoice = 'manual' | string;

export type ApproveResult = Result<{ state: 'approved' | 'awaiting_second'; payout: PayoutView | null }>;

/**
 * A staff member approves a pending withdrawal, paid manually or through a gateway. The gateway is
 * checked on the server (it can pay this withdrawal now); the payout is recorded by the final
 * approval's transaction and sent after it committed.
 */
export async function approveWithdrawal(sql: Sql, a: { id: number; actorId: number; ip: string | null; payout: PayoutChoice; bankCode?: string }): Promise<ApproveResult> {
  let target: { gateway: string; receiver: string; depositId: number | null; destination: BankDestination | null } | null = null;
  if (a.payout !== 'manual') {
    const ready = await payoutReady(sql, a.payout);
    const [w] = await sql`SELECT w.amount::text AS amount, trim(b.currency) AS currency FROM withdrawals w JOIN balances b ON b.id = w.balance_id WHERE w.id = ${a.id}`;
    if (!w) return { ok: false, status: 404, message: 'Withdrawal not found' };
    const to = ready && w && !ready.adapter.check({ withdrawalId: a.id, amount: w.amount, currency: w.currency }) ? (await payableBy(sql, a.payout, [a.id])).get(a.id) : null;
    if (!to || !ready) return { ok: false, status: 400, message: 'This withdrawal cannot be paid out through this gateway', field: 'payout' };
    let destination: BankDestination | null = null;
    if (to.bank) {
      // the bank code must be one of the provider's own list for this country: never guessed, never taken on trust
      const list = await bankList(ready.config, to.bank.country!);
      if (!list) return { ok: false, status: 502, message: 'The bank list of the gateway is unavailable: try again', field: 'bankCode' };
      const bank = list.find((b) => b.code === a.bankCode);
      if (!bank) return { ok: false, status: 400, message: "Choose the customer's bank from the gateway's list", field: 'bankCode' };
      destination = { bankCode: bank.code, bankName: bank.name, accountNumber: to.bank.accountNumber, accountName: to.bank.accountName, country: to.bank.country! };
    }
    target = { gateway: a.payout, receiver: to.receiver, depositId: to.depositId, destination };
  }
  const r = await decideMoney(sql, {
    kind: 'withdrawal', id: a.id, actorId: a.actorId, ip: a.ip, decision: 'approve',
    destination: target ? (target.destination ? `your account at ${target.destination.bankName}` : `your ${GATEWAY_NAMES[target.gateway] ?? target.gateway} account`) : undefined,
    onApproved: target ? async (tx) => {
      const reference = payoutRef(a.id, randomBytes(5).toString('hex'));
      await tx`INSERT INTO withdrawal_payouts (withdrawal_id, gateway, reference, receiver, source_deposit_id, requested_by, destination)
               VALUES (${a.id}, ${target.gateway}, ${reference}, ${target.receiver}, ${target.depositId}, ${a.actorId},
                       ${target.destination ? sql.json(target.destination as never) : null})`;
      await audit(tx, {
        actorId: a.actorId, action: 'withdrawal.payout_request', targetKind: 'withdrawal', targetId: a.id, ip: a.ip,
        after: { gateway: target.gateway, reference, receiver: target.receiver, sourceDepositId: target.depositId, destination: target.destination },
      });
    } : undefined,
  });
  if (!r.ok) return r;
  if (r.state === 'declined') return { ok: false, status: 409, message: 'This withdrawal was already declined' };
  if (r.state === 'awaiting_second' || !target) return { ok: true, state: r.state, payout: null };
  // approved and recorded: a failure of ours while sending leaves the payout requested for the job
  await sendPayout(sql, a.id).catch((e) => log(`payout of withdrawal ${a.id} not sent: ${e instanceof Error ? e.message : String(e)}`));
  return { ok: true, state: 'approved', payout: (await payoutsOf(sql, [a.id])).get(a.id) ?? null };
}

/**
 * Withdraw History's 'Check status': a requested payout is sent (its claim respected, the same
 * reference), a sent one is asked about; a settled one is left as it is. Audited.
 */
export async function staffPayoutCheck(sql: Sql, c: { id: number; actorId: number; ip: string | null }): Promise<{ ok: true; status: PayoutStatusName } | { ok: false; status: number; message: string }> {
  const [p] = await sql`SELECT status FROM withdrawal_payouts WHERE withdrawal_id = ${c.id}`;
  if (!p) return { ok: false, status: 404, message: 'Payout not found' };
  if (p.status === 'paid' || p.status === 'failed') return { ok: false, status: 409, message: 'This payout is already settled' };
  if (p.status === 'requested') await sendPayout(sql, c.id);
  else if (p.status === 'sent') await refreshPayout(sql, c.id);
  else await reviewCheck(sql, c.id);
  const [now] = await sql`SELECT status, provider_status FROM withdrawal_payouts WHERE withdrawal_id = ${c.id}`;
  await audit(sql, { actorId: c.actorId, action: 'withdrawal.payout_check', targetKind: 'withdrawal', targetId: c.id, ip: c.ip,
    before: { payout: p.status }, after: { payout: now.status, providerStatus: now.provider_status } });
  return { ok: true, status: now.status as PayoutStatusName };
}

// ---------------------------------------------------------------- sending

/** How long a claim on a payout call lasts: an answer never received is retried after it. */
export const CLAIM_SECONDS = 120;
/** Unanswered sends (network, 5xx) before a payout is held for review instead of being sent again. */
export const MAX_SEND_ATTEMPTS = 3;

/**
 * Sends a requested payout to its provider, once: the row is claimed first (a concurrent call, or
 * the job, finds it claimed and does nothing). A refusal fails the payout (money back); no answer
 * (network, 5xx) leaves it requested, retried after the claim expires with the same reference.
 */
export async function sendPayout(sql: Sql, withdrawalId: number): Promise<PayoutStatusName | null> {
  const [p] = await sql`
    UPDATE withdrawal_payouts SET attempts = attempts + 1, claimed_at = now(), updated_at = now()
     WHERE withdrawal_id = ${withdrawalId} AND status = 'requested'
       AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => ${CLAIM_SECONDS}))
     RETURNING gateway, reference, receiver, destination, attempts`;
  if (!p) {
    const [now] = await sql`SELECT status FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId}`;
    return (now?.status as PayoutStatusName | undefined) ?? null;
  }
  const [w] = await sql`SELECT w.amount::text AS amount, trim(b.currency) AS currency FROM withdrawals w JOIN balances b ON b.id = w.balance_id WHERE w.id = ${withdrawalId}`;
  const ready = await payoutReady(sql, p.gateway);
  if (!ready) {
    await sql`UPDATE withdrawal_payouts SET last_error = 'The gateway is switched off or has no keys', updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    return 'requested';
  }
  let st: PayoutStatus;
  try {
    st = await ready.adapter.createPayout(ready.config, { withdrawalId, reference: p.reference, amount: w.amount, currency: w.currency, receiver: p.receiver, destination: p.destination ?? null });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // a refusal confirms that no payout exists only when no earlier request with this reference can
    // have reached the provider: this is the first send, or we refused it before any call
    const firstSend = Number(p.attempts) <= 1;
    if (e instanceof PayoutRefused && (firstSend || e.local)) {
      await recordEvent(sql, p.gateway, withdrawalId, `create:${p.reference}`, 'create', 'failed', { error: message });
      await failPayout(sql, withdrawalId, `Payout failed: ${message}`);
      return 'failed';
    }
    if (e instanceof PayoutRefused || e instanceof PayoutAmbiguous || Number(p.attempts) >= MAX_SEND_ATTEMPTS) {
      const why = e instanceof PayoutRefused
        ? `A resend was refused (${message}); the first request with this reference may have paid`
        : e instanceof PayoutAmbiguous ? message : `No answer after ${Number(p.attempts)} tries (${message})`;
      await holdForReview(sql, withdrawalId, p.gateway, `create:${p.reference}:${Number(p.attempts)}`, why);
      return 'review';
    }
    log(`${p.gateway} payout of withdrawal ${withdrawalId} got no answer: ${message}`);
    await sql`UPDATE withdrawal_payouts SET last_error = ${message.slice(0, 300)}, updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    return 'requested';
  }
  if (st.withdrawalId !== null && st.withdrawalId !== withdrawalId) {
    // the provider answered about another payout: never trusted, held for a person
    log(`${p.gateway} answered payout ${st.providerRef} for withdrawal ${st.withdrawalId}, asked for ${withdrawalId}`);
    await sql`UPDATE withdrawal_payouts SET last_error = 'The provider answered about another payout', updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    return 'requested';
  }
  await sql`UPDATE withdrawal_payouts SET status = 'sent', provider_ref = ${st.providerRef}, provider_item_id = ${st.itemId},
              provider_status = ${st.providerStatus}, last_error = NULL, updated_at = now()
             WHERE withdrawal_id = ${withdrawalId} AND status = 'requested'`;
  await applyPayoutStatus(sql, p.gateway, st, `create:${p.reference}`, 'create');
  const [now] = await sql`SELECT status FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId}`;
  return now.status as PayoutStatusName;
}

/**
 * A payout whose state the provider's answer left open: 'review' (Needs review), the answer kept as
 * an event, roles 1–2 notified, audited. Nothing is refunded and nothing is sent again
 * automatically; only a state the provider reports later (Check status, a notification) settles it.
 */
export async function holdForReview(sql: Sql, withdrawalId: number, gateway: string, eventId: string, reason: string): Promise<boolean> {
  const text = reason.slice(0, 500);
  const notices = await sql.begin(async (tx) => {
    const [p] = await tx`SELECT status FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId} FOR UPDATE`;
    if (!p || p.status === 'paid' || p.status === 'failed' || p.status === 'review') return null;
    await tx`UPDATE withdrawal_payouts SET status = 'review', reason = ${text}, last_error = ${text}, claimed_at = NULL, updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    await recordEvent(tx, gateway, withdrawalId, eventId, 'create', 'pending', { error: text, review: true });
    await tx`UPDATE payout_events SET outcome = 'rejected', reason = ${`Needs review: ${text}`.slice(0, 500)} WHERE gateway = ${gateway} AND event_id = ${eventId.slice(0, 200)}`;
    await audit(tx, { actorId: null, action: 'withdrawal.payout_review', targetKind: 'withdrawal', targetId: withdrawalId,
      before: { payout: p.status }, after: { payout: 'review', gateway, reason: text } });
    const [w] = await tx`SELECT w.amount::text AS amount, trim(b.currency) AS currency FROM withdrawals w JOIN balances b ON b.id = w.balance_id WHERE w.id = ${withdrawalId}`;
    return notifyStaff(tx, { roles: BACK_OFFICE_ROLES }, {
      title: `Payout of withdrawal #${withdrawalId} needs review`,
      description: text,
      url: '/admin/withdraws/history',
      data: { kind: 'payout.review', id: withdrawalId, gateway, amount: w.amount, currency: w.currency, reason: text },
    });
  });
  if (!notices) return false;
  log(`${gateway} payout of withdrawal ${withdrawalId} needs review: ${text}`);
  await publishNotices(notices).catch((e) => log(`notice not sent: ${e instanceof Error ? e.message : String(e)}`));
  return true;
}

/**
 * Check status of a payout under review: asked about by the provider's id when it is known (a state
 * the provider reports settles it, a refund only on its confirmed failure); without one, sent again
 * with the same reference (the provider refuses or links a duplicate; a refusal keeps it in review).
 */
async function reviewCheck(sql: Sql, withdrawalId: number): Promise<void> {
  const [p] = await sql`SELECT provider_ref FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId} AND status = 'review'`;
  if (!p) return;
  if (p.provider_ref) {
    await refreshPayout(sql, withdrawalId);
    return;
  }
  const [back] = await sql`UPDATE withdrawal_payouts SET status = 'requested', claimed_at = NULL, updated_at = now()
                            WHERE withdrawal_id = ${withdrawalId} AND status = 'review' RETURNING withdrawal_id`;
  if (!back) return;
  const now = await sendPayout(sql, withdrawalId);
  // no answer again: back to review, never left for the job to loop on
  if (now === 'requested') await sql`UPDATE withdrawal_payouts SET status = 'review', updated_at = now() WHERE withdrawal_id = ${withdrawalId} AND status = 'requested'`;
}

// ---------------------------------------------------------------- what the provider says

export type PayoutOutcome = 'verified' | 'applied' | 'rejected' | 'replay';

/** One payout_events row; null when that event id was stored before (a replay). */
async function recordEvent(sql: Db, gateway: string, withdrawalId: number | null, eventId: string, kind: string, state: PayoutState, raw: Record<string, unknown>) {
  const [row] = await sql`
    INSERT INTO payout_events (withdrawal_id, gateway, event_id, kind, state, raw)
    VALUES (${withdrawalId}, ${gateway}, ${eventId.slice(0, 200)}, ${kind}, ${state}, ${sql.json(raw as never)})
    ON CONFLICT (gateway, event_id) DO NOTHING RETURNING id`;
  return row ? Number(row.id) : null;
}

const finish = (sql: Sql, eventRow: number, outcome: Exclude<PayoutOutcome, 'replay'>, reason: string | null) =>
  sql`UPDATE payout_events SET outcome = ${outcome}, reason = ${reason} WHERE id = ${eventRow}`;

/**
 * A provider's word about a payout (create answer, notification, status check), stored once under
 * `eventId`, then applied: paid → 'paid'; failed → the money back (failPayout); pending → noted.
 */
export async function applyPayoutStatus(sql: Sql, gateway: string, st: PayoutStatus, eventId: string, kind: string, extra: Record<string, unknown> = {}): Promise<PayoutOutcome> {
  // by the provider's payout id, or (a notification faster than our storing of that id) by our reference
  let [p] = await sql`SELECT withdrawal_id, status FROM withdrawal_payouts WHERE gateway = ${gateway} AND provider_ref = ${st.providerRef}`;
  if (!p && st.reference) {
    [p] = await sql`UPDATE withdrawal_payouts SET provider_ref = ${st.providerRef}, status = CASE WHEN status = 'requested' THEN 'sent' ELSE status END, updated_at = now()
                     WHERE gateway = ${gateway} AND reference = ${st.reference} AND provider_ref IS NULL RETURNING withdrawal_id, status`;
  }
  const withdrawalId = p ? Number(p.withdrawal_id) : null;
  const raw = { ...extra, providerRef: st.providerRef, itemId: st.itemId, providerStatus: st.providerStatus, reason: st.reason };
  const eventRow = await recordEvent(sql, gateway, withdrawalId, eventId, kind, st.state, raw);
  if (eventRow === null) return 'replay';
  const done = async (outcome: Exclude<PayoutOutcome, 'replay'>, reason: string | null) => {
    await finish(sql, eventRow, outcome, reason);
    if (outcome === 'rejected') log(`${gateway} payout event ${eventId} rejected: ${reason}`, { withdrawalId });
    return outcome;
  };
  if (withdrawalId === null) return done('rejected', 'Unknown payout');
  if (st.withdrawalId !== null && st.withdrawalId !== withdrawalId) return done('rejected', 'The payout names another withdrawal');

  if (st.state === 'pending') {
    await sql`UPDATE withdrawal_payouts SET status = 'sent', provider_status = ${st.providerStatus}, updated_at = now() WHERE withdrawal_id = ${withdrawalId} AND status IN ('sent', 'review')`;
    return done('verified', `Payout ${st.providerStatus.toLowerCase()} at the provider`);
  }
  if (st.state === 'failed') {
    const r = await failPayout(sql, withdrawalId, `Payout failed: ${st.reason ?? st.providerStatus}`, st.providerStatus);
    return done(r ? 'applied' : 'verified', r ? st.reason : 'Already failed: the money was returned before');
  }
  // paid
  const marked = await sql.begin(async (tx) => {
    const [row] = await tx`SELECT status FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId} FOR UPDATE`;
    if (row.status === 'paid') return 'already';
    if (row.status === 'failed') return 'after_failure';
    await tx`UPDATE withdrawal_payouts SET status = 'paid', provider_status = ${st.providerStatus}, provider_item_id = coalesce(${st.itemId}, provider_item_id),
               reason = NULL, updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    await audit(tx, { actorId: null, action: 'withdrawal.payout_paid', targetKind: 'withdrawal', targetId: withdrawalId,
      before: { payout: row.status }, after: { payout: 'paid', gateway, providerRef: st.providerRef, providerStatus: st.providerStatus } });
    return 'paid';
  });
  if (marked === 'after_failure') return done('rejected', 'Reported paid after the payout failed and the money was returned: to be reviewed');
  return done(marked === 'paid' ? 'applied' : 'verified', marked === 'paid' ? null : 'Already paid');
}

/**
 * A failed payout: the withdrawal's total back to the wallet through the ledger (the decline's
 * 'withdrawal_refund' entry, posted once whatever the number of reports), the withdrawal declined
 * with the reason, the customer notified, audited. False when it had failed before.
 */
export async function failPayout(sql: Sql, withdrawalId: number, reason: string, providerStatus: string | null = null): Promise<boolean> {
  const notices: Notice[] = [];
  const text = reason.slice(0, 500);
  const changed = await sql.begin(async (tx) => {
    const [p] = await tx`SELECT status, gateway FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId} FOR UPDATE`;
    if (!p || p.status === 'failed') return false;
    const [w] = await tx`SELECT w.user_id, w.balance_id, w.status, w.total::text AS total, trim(b.currency) AS currency
                           FROM withdrawals w JOIN balances b ON b.id = w.balance_id WHERE w.id = ${withdrawalId} FOR UPDATE OF w`;
    const [posted] = await tx`SELECT balance_after::text AS balance_after FROM post_ledger(${w.balance_id}, ${w.total}::numeric,
                                'withdrawal_refund', 'withdrawal', ${String(withdrawalId)}, NULL, 'payout failed: total returned')`;
    // the history shows the wallet once the total came back (the refund's ledger entry)
    await tx`UPDATE withdrawals SET status = 'declined', decline_reason = ${text}, balance_after = ${posted.balance_after}::numeric
              WHERE id = ${withdrawalId}`;
    await tx`UPDATE withdrawal_payouts SET status = 'failed', reason = ${text}, provider_status = coalesce(${providerStatus}, provider_status),
               updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    await audit(tx, { actorId: null, action: 'withdrawal.payout_failed', targetKind: 'withdrawal', targetId: withdrawalId,
      before: { status: w.status, payout: p.status }, after: { status: 'declined', payout: 'failed', reason: text, refunded: w.total, currency: w.currency, gateway: p.gateway } });
    notices.push(await addNotification(tx, Number(w.user_id), {
      title: `Withdrawal #${withdrawalId} could not be paid`,
      description: `${w.total} ${w.currency} is back in your wallet. Reason: ${text}`,
      url: '/withdraws?tab=history',
      data: { kind: 'money.decided', subject: 'withdrawal', id: withdrawalId, decision: 'declined', amount: w.total, currency: w.currency, reason: text },
    }));
    return true;
  });
  if (changed) await publishNotices(notices).catch((e) => log(`notice not sent: ${e instanceof Error ? e.message : String(e)}`));
  return changed;
}

/**
 * Asks the provider about a sent payout and applies its answer ('status:<ref>:<status>'), or, when a
 * notification without a state of its own asked for it (`via`), stored under that notification's id.
 */
export async function refreshPayout(sql: Sql, withdrawalId: number, via?: { eventId: string; kind: string; extra: Record<string, unknown> }): Promise<PayoutOutcome | null> {
  const [p] = await sql`SELECT gateway, provider_ref FROM withdrawal_payouts WHERE withdrawal_id = ${withdrawalId} AND status IN ('sent', 'review')`;
  if (!p?.provider_ref) return null;
  const adapter = payoutAdapterFor(p.gateway);
  const config = await gatewayConfig(sql, p.gateway);
  if (!adapter || !config) return null;
  try {
    const st = await adapter.fetchPayout(config, p.provider_ref);
    if (st.state === 'pending') {
      await sql`UPDATE withdrawal_payouts SET status = 'sent', provider_status = ${st.providerStatus}, updated_at = now() WHERE withdrawal_id = ${withdrawalId} AND status IN ('sent', 'review')`;
      return 'verified';
    }
    return via
      ? await applyPayoutStatus(sql, p.gateway, st, via.eventId, via.kind, { ...via.extra, readBy: 'status request' })
      : await applyPayoutStatus(sql, p.gateway, st, `status:${st.providerRef}:${st.providerStatus}`, 'status');
  } catch (e) {
    log(`${p.gateway} status of payout ${p.provider_ref} unavailable: ${e instanceof Error ? e.message : String(e)}`);
    await sql`UPDATE withdrawal_payouts SET updated_at = now() WHERE withdrawal_id = ${withdrawalId}`;
    return null;
  }
}

/**
 * A verified notification of a gateway that was not about a deposit (payments.server.ts hands it
 * here): a payout event is applied; anything else is ignored. Item events carry their state; a
 * batch event carries none, so the payout is asked about again.
 */
export async function handlePayoutNotification(sql: Sql, gateway: string, rawBody: string): Promise<PayoutNotice | null> {
  const adapter = payoutAdapterFor(gateway);
  const notice = adapter?.readNotification(rawBody) ?? null;
  if (!notice) return null;
  if (notice.status) {
    await applyPayoutStatus(sql, gateway, notice.status, notice.eventId, 'webhook', { eventType: notice.eventType, amount: notice.amount, currency: notice.currency });
  } else {
    let [p] = await sql`SELECT withdrawal_id FROM withdrawal_payouts WHERE gateway = ${gateway} AND provider_ref = ${notice.providerRef}`;
    if (!p && notice.reference) {
      // faster than our storing of the provider's id: found by our reference (then asked about by that id)
      [p] = await sql`UPDATE withdrawal_payouts SET provider_ref = ${notice.providerRef}, status = CASE WHEN status = 'requested' THEN 'sent' ELSE status END, updated_at = now()
                       WHERE gateway = ${gateway} AND reference = ${notice.reference} AND provider_ref IS NULL RETURNING withdrawal_id`;
    }
    // stored as the notification, its state the provider's answer to our request, never its body's
    if (p) await refreshPayout(sql, Number(p.withdrawal_id), { eventId: notice.eventId, kind: 'webhook', extra: { eventType: notice.eventType, amount: notice.amount, currency: notice.currency } });
    else log(`${gateway} payout event ${notice.eventId} names an unknown payout`, { providerRef: notice.providerRef });
  }
  return notice;
}

// ---------------------------------------------------------------- the job

/** One pass: requested payouts whose claim expired are sent again; sent ones quiet for `quietMinutes` are asked about. */
export async function payoutPass(sql: Sql, opts: { quietMinutes?: number; limit?: number } = {}): Promise<{ sent: number; checked: number }> {
  const rows = await sql`
    SELECT withdrawal_id, status FROM withdrawal_payouts
     WHERE status IN ('requested', 'sent') AND updated_at < now() - make_interval(mins => ${opts.quietMinutes ?? 5})
     ORDER BY updated_at LIMIT ${opts.limit ?? 50}`;
  let sent = 0, checked = 0;
  for (const r of rows) {
    if (r.status === 'requested') { await sendPayout(sql, Number(r.withdrawal_id)); sent++; }
    else { await refreshPayout(sql, Number(r.withdrawal_id)); checked++; }
  }
  return { sent, checked };
}

const JOB_LOCK = 'broker.payments.payouts';
let timer: ReturnType<typeof setInterval> | null = null;

/** Starts the payout job in this web process (every minute, one process at a time by an advisory lock). */
export function startPayoutJob(sql: Sql, everyMs = 60_000): void {
  if (timer) return;
  timer = setInterval(() => {
    sql.begin(async (tx) => {
      const [l] = await tx`SELECT pg_try_advisory_xact_lock(hashtextextended(${JOB_LOCK}, 0)) AS got`;
      if (l.got) await payoutPass(sql);
    }).catch((e) => log(`payout job failed: ${e instanceof Error ? e.message : String(e)}`));
  }, everyMs);
  timer.unref?.();
}

/** A page of the staff's withdrawal list with each row's payout, and for pending rows the gateways that can pay it out. */
export async function withPayouts<R extends { id: number; amount: string; currency: string; status: string }>(sql: Sql, rows: R[]) {
  const pending = rows.filter((r) => r.status === 'pending');
  const [payouts, options] = await Promise.all([payoutsOf(sql, rows.map((r) => r.id)), payoutOptions(sql, pending)]);
  return rows.map((r) => ({ ...r, payout: payouts.get(r.id) ?? null, payoutOptions: options.get(r.id) ?? [] }));
}

// ---------------------------------------------------------------- bank payouts: the approver's bank choice

/** The provider's bank list of a country, or null when it does not answer (logged). */
async function bankList(config: Parameters<typeof flutterwaveBanks>[0], country: string): Promise<FlwBank[] | null> {
  try {
    return await flutterwaveBanks(config, country);
  } catch (e) {
    log(`bank list of ${country} unavailable: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

export type BankChoices =
  | { ok: true; gateway: string; typed: WithdrawalBank; banks: FlwBank[]; canResolve: boolean }
  | { ok: false; status: number; message: string };

/** What the approve dialog shows for a bank payout: the withdrawal's typed bank and the provider's banks of its country. */
export async function payoutBankChoices(sql: Sql, gateway: string, withdrawalId: number): Promise<BankChoices> {
  const ready = isBankPayout(gateway) ? await payoutReady(sql, gateway) : null;
  const to = ready ? (await payableBy(sql, gateway, [withdrawalId])).get(withdrawalId) : null;
  const [w] = to ? await sql`SELECT status FROM withdrawals WHERE id = ${withdrawalId}` : [];
  if (!ready || !to?.bank || w?.status !== 'pending') return { ok: false, status: 400, message: 'This withdrawal cannot be paid out through this gateway' };
  const banks = await bankList(ready.config, to.bank.country!);
  if (!banks) return { ok: false, status: 502, message: 'The bank list of the gateway is unavailable: try again' };
  return { ok: true, gateway, typed: to.bank, banks, canResolve: FLW_RESOLVE_COUNTRIES.has(to.bank.country!) };
}

/**
 * The account holder's name the provider resolves for the withdrawal's account at the chosen bank
 * (shown to the approver before paying; changes nothing). Null: the provider knows no such account.
 */
export async function payoutAccountName(sql: Sql, gateway: string, withdrawalId: number, bankCode: string): Promise<{ ok: true; accountName: string | null } | { ok: false; status: number; message: string }> {
  const choices = await payoutBankChoices(sql, gateway, withdrawalId);
  if (!choices.ok) return choices;
  if (!choices.canResolve) return { ok: false, status: 400, message: 'The gateway does not check account names in this country' };
  if (!choices.banks.some((b) => b.code === bankCode)) return { ok: false, status: 400, message: "Choose the customer's bank from the gateway's list" };
  const ready = (await payoutReady(sql, gateway))!;
  try {
    return { ok: true, accountName: await flutterwaveAccountName(ready.config, { accountNumber: choices.typed.accountNumber, bankCode }) };
  } catch (e) {
    log(`account name of withdrawal ${withdrawalId} unavailable: ${e instanceof Error ? e.message : String(e)}`);
    return { ok: false, status: 502, message: 'The gateway did not answer: try again' };
  }
}
