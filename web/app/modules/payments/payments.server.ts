// The money path of card and wallet gateways (issue 13): one pipeline every adapter's notification
// goes through, and the customer's start of a payment.
//
// A notification (POST /payments/webhooks/:gateway) is read as the raw body, verified by the
// adapter (signature, timestamp tolerance), and then:
//   1. stored in payment_events under the provider's event id (unique per gateway): a replay
//      finds its row and changes nothing;
//   2. matched to its pending deposit (our id echoed back, and the provider's payment id the
//      deposit was created with);
//   3. a paid payment whose amount and currency equal the deposit's total and wallet currency
//      exactly (numeric compare in SQL) is credited through decideMoney, the staff approval path:
//      the deposit row is locked, the ledger entry is unique per deposit, so the credit happens
//      once whatever the order or number of deliveries; a mismatch is 'rejected' with its reason
//      and the deposit stays pending for a person to look at; a failed payment declines it.
// Each event's outcome (received → verified / applied / rejected + reason) is what the admin's
// deposit list shows. Card deposits still pending after PAYMENT_PENDING_MINUTES are asked about
// (fetchStatus) by reconcilePending and settled or expired.
import type { Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { decideMoney } from '~/modules/money/money.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { resolveAppUrl } from '~/modules/email/app-url.server.ts';
import { NotificationRefused, type GatewayAdapter, type GatewayConfig, type PaymentStart, type VerifiedEvent } from './adapter.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { stripeAdapter } from './adapters/stripe.server.ts';
import { paypalAdapter } from './adapters/paypal.server.ts';
import { MORE_ADAPTERS } from './adapters/more.server.ts';
import { handlePayoutNotification } from './payouts.server.ts';
import { BodyTooLarge, readTextCapped } from '~/shared/body-limit.server.ts';
import { handleDisputeNotification } from './disputes.server.ts';

/** The gateways with a working adapter; every other card / wallet gateway is 'not available in this version'. */
export const ADAPTERS: Record<string, GatewayAdapter> = { stripe: stripeAdapter, paypal: paypalAdapter, ...MORE_ADAPTERS };

/**
 * Gateways whose provider offers no payment status API (their fetchStatus throws): a deposit of
 * theirs still pending after PAYMENT_PENDING_MINUTES is expired without asking, the reason recorded.
 */
export const NO_STATUS_API: ReadonlySet<string> = new Set(['perfectmoney', 'wipays']);
export const EXPIRED_NO_STATUS_REASON = 'Payment expired: no notification received and the provider offers no status API';

export function adapterFor(gateway: string): GatewayAdapter | null {
  return Object.hasOwn(ADAPTERS, gateway) ? ADAPTERS[gateway] : null;
}

/** A gateway customers can pay through: an adapter, active, its keys saved (both API keys). */
export async function gatewayReady(sql: Sql, gateway: string): Promise<boolean> {
  if (!adapterFor(gateway)) return false;
  const config = await gatewayConfig(sql, gateway);
  return !!config && config.active && !!config.key1?.trim() && !!config.key2?.trim();
}

export type EventOutcome = 'received' | 'verified' | 'applied' | 'rejected';

export interface ApplyResult {
  outcome: EventOutcome | 'replay';
  reason: string | null;
  depositId: number | null;
}

const log = (message: string, data: Record<string, unknown> = {}) => console.warn(`[payments] ${message}`, JSON.stringify(data));

/**
 * A verified event about a payment, applied to its deposit. `source` is 'webhook' for a provider's
 * notification, 'status' for the reconciliation job's answer, 'capture' for PayPal's capture call.
 */
export async function applyEvent(sql: Sql, gateway: string, ev: VerifiedEvent, kind: string, raw: Record<string, unknown> = {}): Promise<ApplyResult> {
  // the deposit: ours by id when the provider echoes it, and in every case the one created with this payment
  const [dep] = ev.depositId !== null
    ? await sql`SELECT id, reference FROM deposits WHERE id = ${ev.depositId} AND gateway = ${gateway}`
    : await sql`SELECT id, reference FROM deposits WHERE gateway = ${gateway} AND reference = ${ev.providerRef}`;
  const depositId = dep && (dep.reference === null || dep.reference === ev.providerRef) ? Number(dep.id) : null;
  const amount = /^\d{1,18}(\.\d{1,8})?$/.test(ev.amount) ? ev.amount : null;
  const summary = { ...raw, providerRef: ev.providerRef, depositId: ev.depositId, state: ev.state, amount: ev.amount, currency: ev.currency, ...(ev.payerAccount ? { payerAccount: ev.payerAccount } : {}) };

  const [inserted] = await sql`
    INSERT INTO payment_events (deposit_id, gateway, event_id, kind, state, amount, currency, raw)
    VALUES (${depositId}, ${gateway}, ${ev.eventId.slice(0, 200)}, ${kind.slice(0, 100)}, ${ev.state}, ${amount}, ${ev.currency.slice(0, 10) || null}, ${sql.json(summary as never)})
    ON CONFLICT (gateway, event_id) DO NOTHING
    RETURNING id`;
  let eventRow: number;
  if (inserted) eventRow = Number(inserted.id);
  else {
    // a replay changes nothing, unless its first delivery stopped half way (a crash between the
    // row and the decision): a row still 'received' a minute later is processed again (idempotent)
    const [again] = await sql`UPDATE payment_events SET updated_at = now()
                                WHERE gateway = ${gateway} AND event_id = ${ev.eventId.slice(0, 200)}
                                  AND outcome = 'received' AND updated_at < now() - interval '1 minute'
                                RETURNING id`;
    if (!again) return { outcome: 'replay', reason: null, depositId };
    eventRow = Number(again.id);
  }

  const finish = async (outcome: EventOutcome, reason: string | null): Promise<ApplyResult> => {
    await sql`UPDATE payment_events SET outcome = ${outcome}, reason = ${reason}, updated_at = now() WHERE id = ${eventRow} AND outcome = 'received'`;
    if (outcome === 'rejected') log(`${gateway} event ${ev.eventId} rejected: ${reason}`, { depositId });
    return { outcome, reason, depositId };
  };

  if (depositId === null) return finish('rejected', 'Unknown payment');
  // a payment the adapter found not payable to this gateway's destination, or made by another customer
  if (ev.refusal) return finish('rejected', ev.refusal);
  if (ev.customerRef !== undefined) {
    const [owner] = await sql`SELECT user_id FROM deposits WHERE id = ${depositId}`;
    if (ev.customerRef !== String(owner.user_id)) return finish('rejected', `Customer mismatch: the payment names customer ${ev.customerRef ?? '?'}, not the deposit's`);
  }
  if (ev.state === 'pending') return finish('verified', 'Payment pending at the provider');

  if (ev.state === 'failed') {
    const r = await decideMoney(sql, { kind: 'deposit', id: depositId, actorId: null, decision: 'decline', reason: 'Payment failed' });
    if (r.ok) return finish('applied', 'Payment failed');
    return finish('verified', r.message);
  }

  // paid: the exact figures of the pending deposit, or nothing
  const [m] = await sql`
    SELECT d.status, d.total::text AS total, trim(b.currency) AS currency,
           (${amount}::numeric IS NOT NULL AND d.total = ${amount}::numeric) AS amount_ok
      FROM deposits d JOIN balances b ON b.id = d.balance_id WHERE d.id = ${depositId}`;
  if (ev.unsignedFigures && (!m.amount_ok || ev.currency.toUpperCase() !== m.currency)) {
    return finish('rejected', `Refused: the notification's unsigned amount ${ev.amount || '?'} ${ev.currency || '?'} is not the deposit's ${m.total} ${m.currency}; only the deposit's own figures are credited`);
  }
  if (!m.amount_ok) return finish('rejected', `Amount mismatch: paid ${ev.amount || '?'} ${ev.currency}, expected ${m.total} ${m.currency}`);
  if (ev.currency.toUpperCase() !== m.currency) return finish('rejected', `Currency mismatch: paid ${ev.currency || '?'}, expected ${m.currency}`);
  if (m.status === 'declined') return finish('rejected', 'Paid after the deposit was declined: to be reviewed');

  const r = await decideMoney(sql, { kind: 'deposit', id: depositId, actorId: null, decision: 'approve' });
  if (r.ok) return finish('applied', null);
  // another delivery (or the job) credited it first: this one changes nothing
  return finish('verified', r.message);
}

/** Notifications are a few kilobytes; anything far larger is refused unread. */
export const MAX_NOTIFICATION_BYTES = 256 * 1024;

/** What the webhook route answers. */
export interface WebhookAnswer { status: number; body: string; contentType: string }

/**
 * POST /payments/webhooks/:gateway. The raw body is read here, before anything parses it.
 * A refused notification (bad signature, old timestamp, malformed) answers 400 and is logged;
 * an accepted one the provider's acknowledgement, whatever it did to the deposit (a mismatch is
 * held for review: retrying would not change it). A failure of ours answers 500: the provider retries.
 */
export async function handleWebhook(sql: Sql, gateway: string, request: Request, now = new Date()): Promise<WebhookAnswer> {
  const json = (status: number, body: unknown): WebhookAnswer => ({ status, body: JSON.stringify(body), contentType: 'application/json' });
  const adapter = adapterFor(gateway);
  if (!adapter) return json(404, { error: 'Unknown gateway' });
  // capped while it streams: a chunked body without Content-Length is counted as it arrives
  let rawBody: string;
  try {
    rawBody = await readTextCapped(request, MAX_NOTIFICATION_BYTES);
  } catch (e) {
    if (e instanceof BodyTooLarge) return json(413, { error: 'too_large', message: `The notification is larger than ${MAX_NOTIFICATION_BYTES} bytes` });
    throw e;
  }
  const config = await gatewayConfig(sql, gateway);
  if (!config) return json(404, { error: 'Unknown gateway' });
  let ev: VerifiedEvent | null;
  try {
    ev = await adapter.verifyNotification(config, { headers: request.headers, rawBody, now });
  } catch (e) {
    if (e instanceof NotificationRefused) {
      log(`${gateway} notification refused (${e.reason}): ${e.message}`, { bytes: rawBody.length });
      return json(400, { error: e.reason });
    }
    log(`${gateway} notification could not be verified: ${e instanceof Error ? e.message : String(e)}`);
    return json(500, { error: 'verification_unavailable' });
  }
  const ack = adapter.acknowledge ?? { status: 200, body: '{"received":true}' };
  const answer = { status: ack.status, body: ack.body, contentType: 'application/json' };
  if (!ev) {
    // not a payment of a pending deposit: a chargeback / refund of a credited one (disputes.server.ts),
    // verified above; a failure of ours (the provider could not be asked) answers 500: it retries
    try {
      if (await handleDisputeNotification(sql, gateway, config, rawBody) !== null) return answer;
    } catch (e) {
      log(`${gateway} dispute notification failed: ${e instanceof Error ? e.message : String(e)}`);
      return json(500, { error: 'dispute_unavailable' });
    }
    // a payout's notification (payouts.server.ts), verified above; a failure
    // of ours answers 500 so the provider delivers it again
    try {
      await handlePayoutNotification(sql, gateway, rawBody);
    } catch (e) {
      log(`${gateway} payout notification failed: ${e instanceof Error ? e.message : String(e)}`);
      return json(500, { error: 'payout_unavailable' });
    }
    return answer;
  }
  await applyEvent(sql, gateway, ev, 'webhook');
  return answer;
}

// ---------------------------------------------------------------- starting a payment

export interface StartInput {
  depositId: number;
  gateway: string;
  /** the app's public origin, for the return / cancel / notify URLs */
  origin: string;
}

export type StartResult = { ok: true; start: PaymentStart } | { ok: false; message: string };

/** The deposit's payment at its provider: created, its id saved as the deposit's reference. */
export async function startPayment(sql: Sql, input: StartInput): Promise<StartResult> {
  const adapter = adapterFor(input.gateway);
  const config = await gatewayConfig(sql, input.gateway);
  if (!adapter || !config || !config.active) return { ok: false, message: 'This gateway is not available yet' };
  const [d] = await sql`
    SELECT d.id, d.total::text AS total, d.status, d.created_at, trim(b.currency) AS currency, u.id AS user_id, u.email, u.full_name
      FROM deposits d JOIN balances b ON b.id = d.balance_id JOIN users u ON u.id = d.user_id
     WHERE d.id = ${input.depositId} AND d.gateway = ${input.gateway}`;
  if (!d || d.status !== 'pending') return { ok: false, message: 'Deposit not found' };
  try {
    const start = await adapter.createPayment(config, {
      depositId: Number(d.id),
      total: d.total,
      currency: d.currency,
      customer: { id: Number(d.user_id), email: d.email, fullName: d.full_name },
      // PayPal appends ?token={orderId}: that route captures; Stripe's customer comes back to /payments/return
      returnUrl: input.gateway === 'paypal' ? `${input.origin}/payments/paypal/capture` : `${input.origin}/payments/return/${d.id}`,
      cancelUrl: `${input.origin}/payments/return/${d.id}?cancelled=1`,
      notifyUrl: `${input.origin}/payments/webhooks/${input.gateway}`,
      expiresAt: new Date(new Date(d.created_at).getTime() + env().PAYMENT_PENDING_MINUTES * 60_000),
    });
    await sql`UPDATE deposits SET reference = ${start.providerRef} WHERE id = ${d.id} AND status = 'pending'`;
    return { ok: true, start };
  } catch (e) {
    log(`${input.gateway} payment for deposit ${d.id} could not be created: ${e instanceof Error ? e.message : String(e)}`);
    return { ok: false, message: 'The payment provider is unavailable. Please try again in a moment.' };
  }
}

/** A deposit whose payment could not be started at the provider: declined at once, with the reason. */
export async function abandonPayment(sql: Sql, depositId: number, reason: string): Promise<void> {
  await decideMoney(sql, { kind: 'deposit', id: depositId, actorId: null, decision: 'decline', reason });
}

/**
 * The customer is back from the provider (the return URL): the deposit's state now, asking the
 * provider when no notification arrived yet, so a paid payment shows 'Deposit Successful' at once.
 * Back by the cancel URL: a provider that can close its checkout (Stripe) is told at once, so the
 * deposit is declined now rather than pending until the expiry job.
 */
export async function settleOnReturn(sql: Sql, userId: number, depositId: number, cancelled = false): Promise<'success' | 'pending' | 'failed' | null> {
  const [d] = await sql`SELECT id, gateway, status, reference FROM deposits WHERE id = ${depositId} AND user_id = ${userId}`;
  if (!d) return null;
  if (d.status === 'pending' && d.reference) {
    if (cancelled) await cancelAtProvider(sql, d.gateway, Number(d.id), d.reference);
    else await checkStatus(sql, d.gateway, Number(d.id), d.reference, 'return');
  }
  const [now] = await sql`SELECT status FROM deposits WHERE id = ${depositId}`;
  return now.status === 'approved' ? 'success' : now.status === 'declined' ? 'failed' : 'pending';
}

/** Where the customer goes after the provider: the Deposits page's result modal (status, the credited amount, currency). */
async function resultPath(sql: Sql, depositId: number, cancelled = false): Promise<string> {
  const [d] = await sql`SELECT d.status, d.amount::text AS amount, trim(b.currency) AS currency
                          FROM deposits d JOIN balances b ON b.id = d.balance_id WHERE d.id = ${depositId}`;
  const status = d.status === 'approved' ? 'success' : d.status === 'declined' || cancelled ? 'failed' : 'pending';
  return `/deposits?${new URLSearchParams({ status, amount: d.amount, currency: d.currency })}`;
}

/** The customer's return from a card provider: the result page of their own deposit, or null (not theirs). */
export async function returnTo(sql: Sql, userId: number, depositId: number, cancelled: boolean): Promise<string | null> {
  const state = await settleOnReturn(sql, userId, depositId, cancelled);
  if (state === null) return null;
  return resultPath(sql, depositId, cancelled && state === 'pending');
}

/**
 * /payments/paypal/capture/{orderId}: the customer's own pending PayPal deposit of that order is
 * captured (idempotent at PayPal by its request id) and the capture applied like a notification.
 */
export async function capturePaypal(sql: Sql, userId: number, orderId: string): Promise<string | null> {
  const [d] = await sql`SELECT id, status FROM deposits WHERE gateway = 'paypal' AND reference = ${orderId} AND user_id = ${userId}`;
  if (!d) return null;
  const id = Number(d.id);
  if (d.status === 'pending') {
    const config = await gatewayConfig(sql, 'paypal');
    try {
      if (!config) throw new Error('PayPal is not configured');
      const c = await paypalAdapter.capture(config, orderId);
      await applyEvent(sql, 'paypal', { ...c, depositId: c.depositId ?? id, eventId: `capture:${c.captureId ?? orderId}` }, 'capture');
    } catch (e) {
      // already captured, not approved, unreachable: the order's state says what happened
      log(`paypal capture of ${orderId} failed: ${e instanceof Error ? e.message : String(e)}`);
      await checkStatus(sql, 'paypal', id, orderId, 'status');
    }
  }
  return resultPath(sql, id);
}

/** The public address the providers send customers and notifications back to. */
export async function publicOrigin(sql: Sql): Promise<string> {
  return resolveAppUrl((await getSetting(sql, 'branding')).appUrl);
}

/** Asks the provider about one payment and applies its answer as an event ('status:<ref>:<state>'). */
export async function checkStatus(sql: Sql, gateway: string, depositId: number, providerRef: string, kind: string): Promise<ApplyResult | null> {
  const adapter = adapterFor(gateway);
  const config = await gatewayConfig(sql, gateway);
  if (!adapter || !config) return null;
  try {
    const status = await adapter.fetchStatus(config, providerRef);
    if (status.state === 'pending') return { outcome: 'verified', reason: 'Payment pending at the provider', depositId };
    // an answer about a purchase refused for its wallet / customer (MoonPay) is an event of its own: a
    // later answer about the genuine purchase is not its replay
    const whose = status.customerRef !== undefined || status.refusal ? `:${status.customerRef ?? '-'}${status.refusal ? ':refused' : ''}` : '';
    return await applyEvent(sql, gateway, { ...status, depositId: status.depositId ?? depositId, eventId: `status:${providerRef}:${status.state}${whose}` }, kind);
  } catch (e) {
    log(`${gateway} status of ${providerRef} unavailable: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

/**
 * The customer cancelled at the provider: its checkout closed where the adapter can (then its
 * answer — failed, or paid if it was paid first — applied like checkStatus's), else only asked.
 */
async function cancelAtProvider(sql: Sql, gateway: string, depositId: number, providerRef: string): Promise<ApplyResult | null> {
  const adapter = adapterFor(gateway);
  const config = await gatewayConfig(sql, gateway);
  if (!adapter?.cancelPayment || !config) return checkStatus(sql, gateway, depositId, providerRef, 'return');
  try {
    const status = await adapter.cancelPayment(config, providerRef);
    if (status.state === 'pending') return { outcome: 'verified', reason: 'Payment pending at the provider', depositId };
    return await applyEvent(sql, gateway, { ...status, depositId: status.depositId ?? depositId, eventId: `status:${providerRef}:${status.state}` }, 'return');
  } catch (e) {
    // unreachable: the deposit stays pending and the expiry job asks again
    log(`${gateway} checkout ${providerRef} could not be cancelled: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

// ---------------------------------------------------------------- the reconciliation job

export const EXPIRED_REASON = 'Payment expired';

/**
 * Card / wallet deposits pending longer than `minutes`: each provider is asked; a paid payment
 * is credited (same checks as a notification), anything else is declined 'Payment expired'.
 * Returns how many deposits it settled or expired.
 */
export async function reconcilePending(sql: Sql, opts: { minutes?: number; limit?: number } = {}): Promise<{ settled: number; expired: number }> {
  const minutes = opts.minutes ?? env().PAYMENT_PENDING_MINUTES;
  // the least recently checked first: one the provider cannot answer about never holds back the rest
  const rows = await sql`
    SELECT d.id, d.gateway, d.reference FROM deposits d LEFT JOIN payment_checks c ON c.deposit_id = d.id
     WHERE d.status = 'pending' AND d.gateway IN ${sql(Object.keys(ADAPTERS))}
       AND d.created_at < now() - make_interval(mins => ${minutes})
     ORDER BY c.checked_at NULLS FIRST, d.created_at LIMIT ${opts.limit ?? 100}`;
  let settled = 0, expired = 0;
  for (const d of rows) {
    const id = Number(d.id);
    const noStatus = NO_STATUS_API.has(d.gateway);
    const r = d.reference && !noStatus ? await checkStatus(sql, d.gateway, id, d.reference, 'status') : null;
    const unavailable = Boolean(d.reference) && !noStatus && r === null;
    await sql`INSERT INTO payment_checks (deposit_id, last_error) VALUES (${id}, ${unavailable ? 'status unavailable' : null})
              ON CONFLICT (deposit_id) DO UPDATE SET checked_at = now(), attempts = payment_checks.attempts + 1, last_error = EXCLUDED.last_error`;
    if (unavailable) continue; // provider unreachable: asked again on a later run
    if (r?.outcome === 'applied') { settled++; continue; }
    if (r?.outcome === 'rejected') continue; // paid with other figures: held for review, never expired
    const [still] = await sql`SELECT status FROM deposits WHERE id = ${id}`;
    if (still.status !== 'pending') continue;
    const x = await decideMoney(sql, { kind: 'deposit', id, actorId: null, decision: 'decline', reason: EXPIRED_REASON });
    if (x.ok) {
      expired++;
      await sql`INSERT INTO payment_events (deposit_id, gateway, event_id, kind, state, outcome, reason, raw)
                VALUES (${id}, ${d.gateway}, ${`expired:${id}`}, 'expiry', 'failed', 'applied', ${noStatus ? EXPIRED_NO_STATUS_REASON : EXPIRED_REASON}, ${sql.json({ providerRef: d.reference } as never)})
                ON CONFLICT (gateway, event_id) DO NOTHING`;
    }
  }
  return { settled, expired };
}

const JOB_LOCK = 'broker.payments.reconcile';
let timer: ReturnType<typeof setInterval> | null = null;

/** One run of the job, by one process only (a transaction-scoped advisory lock). */
export async function reconcileOnce(sql: Sql): Promise<{ settled: number; expired: number } | null> {
  return sql.begin(async (tx) => {
    const [l] = await tx`SELECT pg_try_advisory_xact_lock(hashtextextended(${JOB_LOCK}, 0)) AS got`;
    if (!l.got) return null;
    return reconcilePending(sql);
  });
}

/** Starts the periodic job in this web process (every minute); a second call does nothing. */
export function startReconcileJob(sql: Sql, everyMs = 60_000): void {
  if (timer) return;
  timer = setInterval(() => {
    reconcileOnce(sql).catch((e) => log(`reconcile job failed: ${e instanceof Error ? e.message : String(e)}`));
  }, everyMs);
  timer.unref?.();
}

export type { GatewayConfig };
