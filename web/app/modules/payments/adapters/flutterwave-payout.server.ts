// Flutterwave transfers (v3) of withdrawals to a bank account, plain fetch against the documented API
// ('Authorization: Bearer <secret key>', key2, the deposits' own key), written against:
//   https://developer.flutterwave.com/v3.0/reference/get-all-banks  (GET /v3/banks/{country}, ISO-2:
//       data [{ id, code, name }]: the bank codes a transfer's account_bank takes)
//   https://developer.flutterwave.com/docs/making-payments/transfers/overview and .../bank-accounts
//       (POST /v3/transfers: account_bank, account_number, amount, currency, narration, reference —
//       "a unique reference code to identify the transfer" — debit_currency, beneficiary_name,
//       callback_url; the answer's data { id, status 'NEW', reference, complete_message, … };
//       GET /v3/transfers/{id}: status NEW / PENDING / SUCCESSFUL / FAILED, complete_message)
//   https://developer.flutterwave.com/docs/bank-account-verification-1 (POST /v3/accounts/resolve
//       { account_number, account_bank } → data { account_number, account_name }; "Nigerian Banks only")
//   https://developer.flutterwave.com/docs/webhooks (the 'transfer.completed' event, delivered with
//       the same 'verif-hash' header as the deposits' charge.completed: verified by the deposit
//       adapter (flutterwave.server.ts), then read here; its data is never trusted by itself: the
//       transfer is fetched again by id before anything changes)
//
// Without guessing: the withdrawal form holds a bank's name typed by the customer, never
// Flutterwave's bank code. The approver picks the bank from Flutterwave's own list for the
// withdrawal's country (shown next to the typed name), the server checks the code against that list,
// and for Nigeria the account holder's name Flutterwave resolves is shown before approving.
// Countries: Nigeria in naira only. Flutterwave's bank transfers elsewhere need details the form does
// not hold (a branch code for Ghana, Uganda, Tanzania, Sierra Leone and the CFA countries; the
// beneficiary's address for South Africa; a routing number for USD / EUR / GBP).
import { createHash } from 'node:crypto';
import type { GatewayConfig } from '../adapter.ts';
import { FLUTTERWAVE_API } from './flutterwave.server.ts';
import { decimalString, isObject, requireKey } from './more-helpers.server.ts';
import { PayoutAmbiguous, PayoutRefused, withdrawalIdFrom, type PayoutAdapter, type PayoutState, type PayoutStatus } from './paypal-payout.server.ts';

/** The countries (ISO-2) a Flutterwave bank payout may go to, with the one currency it is paid in there. */
export const FLW_PAYOUT_COUNTRIES: Record<string, string> = { NG: 'NGN' };
/** Where Flutterwave resolves an account holder's name (its docs: Nigerian banks only). */
export const FLW_RESOLVE_COUNTRIES = new Set(['NG']);

export interface FlwBank { code: string; name: string }

const STATE: Record<string, PayoutState> = { SUCCESSFUL: 'paid', FAILED: 'failed', NEW: 'pending', PENDING: 'pending' };

/** '100.50000000' → 100.5 at two decimals, or null (more precision than the currency takes). */
export function flutterwaveAmount(amount: string): number | null {
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return null;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > 2) return null;
  const n = Number(`${m[1]}.${frac || '0'}`);
  return n > 0 ? n : null;
}

async function call(config: GatewayConfig, method: 'GET' | 'POST', path: string, body?: unknown) {
  const secret = requireKey(config, 'key2', 'secret key');
  const headers: Record<string, string> = { Authorization: `Bearer ${secret}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${FLUTTERWAVE_API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  const json = (await res.json().catch(() => null)) as { status?: unknown; message?: unknown; data?: unknown } | null;
  const message = typeof json?.message === 'string' ? json.message.slice(0, 300) : '';
  return { status: res.status, ok: res.ok && json?.status === 'success', data: json?.data, message };
}

// ---------------------------------------------------------------- banks

const BANK_TTL_MS = 5 * 60_000;
const bankCache = new Map<string, { at: number; banks: FlwBank[] }>();
/** Forgets the cached bank lists (tests). */
export const clearBankCache = () => bankCache.clear();

/**
 * Flutterwave's banks of a country (GET /v3/banks/{country}), sorted by name, cached five minutes per
 * account (the secret key's hash) and country. Throws when Flutterwave does not answer with a list.
 */
export async function flutterwaveBanks(config: GatewayConfig, country: string): Promise<FlwBank[]> {
  if (!/^[A-Z]{2}$/.test(country)) throw new Error('Not a country code');
  const key = `${createHash('sha256').update(config.key2 ?? '').digest('hex').slice(0, 16)}:${country}`;
  const hit = bankCache.get(key);
  if (hit && Date.now() - hit.at < BANK_TTL_MS) return hit.banks;
  const r = await call(config, 'GET', `/banks/${country}`);
  if (!r.ok || !Array.isArray(r.data)) throw new Error(`Flutterwave GET /v3/banks/${country}: HTTP ${r.status}${r.message ? ` ${r.message}` : ''}`);
  const banks: FlwBank[] = [];
  const seen = new Set<string>();
  for (const b of r.data) {
    if (!isObject(b)) continue;
    const code = typeof b.code === 'string' || typeof b.code === 'number' ? String(b.code).trim() : '';
    const name = typeof b.name === 'string' ? b.name.trim() : '';
    if (!/^[A-Za-z0-9]{1,20}$/.test(code) || !name || seen.has(code)) continue;
    seen.add(code);
    banks.push({ code, name: name.slice(0, 120) });
  }
  banks.sort((a, b) => a.name.localeCompare(b.name, 'en'));
  bankCache.set(key, { at: Date.now(), banks });
  return banks;
}

/**
 * The account holder's name Flutterwave resolves for an account at a bank (POST /v3/accounts/resolve),
 * or null when it resolves none (a wrong account or bank: Flutterwave answers an error).
 */
export async function flutterwaveAccountName(config: GatewayConfig, a: { accountNumber: string; bankCode: string }): Promise<string | null> {
  const r = await call(config, 'POST', '/accounts/resolve', { account_number: a.accountNumber, account_bank: a.bankCode });
  if (r.ok && isObject(r.data) && typeof r.data.account_name === 'string' && r.data.account_name.trim()) return r.data.account_name.trim().slice(0, 200);
  if (r.status === 400 || r.status === 404 || r.status === 422) return null;
  throw new Error(`Flutterwave POST /v3/accounts/resolve: HTTP ${r.status}${r.message ? ` ${r.message}` : ''}`);
}

// ---------------------------------------------------------------- transfers

/** A transfer (create / get / webhook data) as a payout status. */
function readTransfer(d: Record<string, unknown>): PayoutStatus {
  const id = d.id;
  if ((typeof id !== 'number' && typeof id !== 'string') || !/^\d{1,20}$/.test(String(id))) throw new Error('Flutterwave answered a transfer without an id');
  const status = String(d.status ?? '').toUpperCase();
  const state = STATE[status] ?? 'pending';
  const message = typeof d.complete_message === 'string' ? d.complete_message.slice(0, 300) : '';
  const reference = typeof d.reference === 'string' ? d.reference : null;
  return {
    providerRef: String(id), itemId: null, providerStatus: status || 'UNKNOWN', state,
    reason: state === 'failed' ? message || 'Flutterwave reported the transfer failed' : null,
    withdrawalId: withdrawalIdFrom(reference), reference,
  };
}

/** A 4xx naming the reference as used before: the first transfer may exist (and be paid), so the payout is never failed for it. */
const DUPLICATE = /reference/i;

export const flutterwavePayouts: PayoutAdapter = {
  name: 'flutterwave',

  check(r) {
    if (!Object.values(FLW_PAYOUT_COUNTRIES).includes(r.currency.toUpperCase())) return `Flutterwave bank payouts are not offered in ${r.currency}`;
    if (flutterwaveAmount(r.amount) === null) return `Flutterwave cannot send ${r.amount} ${r.currency} exactly`;
    return null;
  },

  async createPayout(config, r) {
    const d = r.destination;
    if (!d) throw new PayoutRefused('The payout has no bank account', true);
    const amount = flutterwaveAmount(r.amount);
    if (amount === null) throw new PayoutRefused(`Flutterwave cannot send ${r.amount} ${r.currency} exactly`, true);
    if (withdrawalIdFrom(r.reference) !== r.withdrawalId) throw new PayoutRefused('The payout reference does not name this withdrawal', true);
    const currency = r.currency.toUpperCase();
    if (FLW_PAYOUT_COUNTRIES[d.country] !== currency) throw new PayoutRefused(`Flutterwave bank payouts to ${d.country} are not offered in ${currency}`, true);
    const res = await call(config, 'POST', '/transfers', {
      account_bank: d.bankCode,
      account_number: d.accountNumber,
      amount,
      currency,
      debit_currency: currency,
      narration: `Withdrawal #${r.withdrawalId}`,
      reference: r.reference,
      beneficiary_name: d.accountName || undefined,
      meta: { withdrawal_id: r.withdrawalId },
    });
    if (res.ok && isObject(res.data)) return readTransfer(res.data);
    // 400: this request was refused (a wrong account, bank, amount, balance…): it sent nothing. On a
    // retry that does not mean the first request sent nothing (sendPayout holds it for review). One
    // that names our reference as used (a first request whose answer was lost) is ambiguous: the
    // first transfer may exist: held for a person at once, never failed.
    // 401, 403, 429, 5xx: ours or transient, tried again later with the same reference.
    const text = `Flutterwave POST /v3/transfers: HTTP ${res.status}${res.message ? ` ${res.message}` : ''}`;
    if ((res.status === 400 || res.status === 422) && DUPLICATE.test(res.message)) throw new PayoutAmbiguous(text);
    if (res.status === 400 || res.status === 422) throw new PayoutRefused(res.message || `HTTP ${res.status}`);
    throw new Error(text);
  },

  async fetchPayout(config, providerRef) {
    if (!/^\d{1,20}$/.test(providerRef)) throw new Error('Not a Flutterwave transfer id');
    const r = await call(config, 'GET', `/transfers/${providerRef}`);
    if (!r.ok || !isObject(r.data)) throw new Error(`Flutterwave GET /v3/transfers/…: HTTP ${r.status}${r.message ? ` ${r.message}` : ''}`);
    return readTransfer(r.data);
  },

  readNotification(rawBody) {
    let ev: unknown;
    try { ev = JSON.parse(rawBody); } catch { return null; }
    if (!isObject(ev) || ev.event !== 'transfer.completed' || !isObject(ev.data)) return null;
    const d = ev.data;
    const id = d.id;
    if ((typeof id !== 'number' && typeof id !== 'string') || !/^\d{1,20}$/.test(String(id))) return null;
    const status = String(d.status ?? '').toUpperCase();
    // status null: the transfer is fetched again (GET /v3/transfers/{id}) before anything changes
    return {
      eventId: `transfer.completed:${String(id)}:${status || 'UNKNOWN'}`, eventType: 'transfer.completed', providerRef: String(id), status: null,
      reference: typeof d.reference === 'string' ? d.reference : null,
      amount: decimalString(d.amount), currency: typeof d.currency === 'string' ? d.currency.toUpperCase() : null,
    };
  },
};
