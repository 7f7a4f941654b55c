// The deposit pages (docs/specs.md#money): what the customer's /deposits, bank and crypto pages
// and the staff's /admin/deposits read. The rules of a deposit (wallet, gateway, KYC, amount,
// fee) are money.server.ts's; this file only reads, pages and quotes.
import QRCode from 'qrcode';
import { dec, Decimal } from '@broker/engine/domain';
import { uploadHref } from '~/modules/uploads/href.ts';
import type { Db, Sql } from '~/shared/db.server.ts';
import type { ListQuery } from '~/components/ui/list-params.ts';
import { prefixMatch } from '~/shared/prefix-search.server.ts';
import { boundedCount, SEARCH_COUNT_LIMIT } from '~/shared/bounded-count.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';
import { engine } from '~/shared/engine.server.ts';
import { activeGateways, type Gateway } from './money.server.ts';
import { isKycApproved } from '~/modules/kyc/kyc-gate.server.ts';
import { depositPaymentEvents, type PaymentEventRow } from '~/modules/money/payment-events.server.ts';

export type DepositStatus = 'pending' | 'approved' | 'declined';
export const DEPOSIT_STATUSES: readonly DepositStatus[] = ['pending', 'approved', 'declined'];


// ---------------------------------------------------------------- the deposit form

export interface DepositWallet { id: number; currency: string; balance: string }
export interface GatewayOption { name: string; title: string; manual: boolean; fee: string }
export interface ExternalPayment { id: number; name: string; link: string; logo: string | null; customLabel: string | null; customValue: string | null }

/** The user's real wallets (deposits never go to demo money). */
export async function depositWallets(sql: Sql, userId: number): Promise<DepositWallet[]> {
  const rows = await sql`SELECT id, currency, balance::text AS balance FROM balances
                          WHERE user_id = ${userId} AND mode = 'real' ORDER BY currency, id`;
  return rows.map((b) => ({ id: Number(b.id), currency: String(b.currency).trim(), balance: b.balance }));
}

/** The admin's external payment links: off-platform payments, shown, never recorded. */
export async function externalPayments(sql: Sql): Promise<ExternalPayment[]> {
  const rows = await sql`SELECT id, name, link, logo_path, custom_label, custom_value FROM external_payments ORDER BY name, id LIMIT 100`;
  return rows.map((r) => ({
    id: Number(r.id), name: r.name, link: r.link, logo: uploadHref(r.logo_path),
    customLabel: r.custom_label ?? null, customValue: r.custom_value ?? null,
  }));
}

/** Everything the Deposit tab offers: the wallets, the active gateways, the external payments, the KYC notice. */
export async function depositForm(sql: Sql, userId: number) {
  const [wallets, gateways, externals, kycApproved] = await Promise.all([
    depositWallets(sql, userId), activeGateways(sql), externalPayments(sql), isKycApproved(sql, userId),
  ]);
  return {
    wallets,
    gateways: gateways.map((g): GatewayOption => ({ name: g.name, title: g.title, manual: g.manual, fee: g.fee })),
    externals,
    kycNotice: !kycApproved,
  };
}

/** Where a manual gateway's deposit goes on: its own page, with the wallet and the amount. */
export function manualGatewayPath(gateway: Gateway, balanceId: number, amount: string): string | null {
  if (gateway.name === 'bank') return `/deposits/bank/${balanceId}?${new URLSearchParams({ amount })}`;
  if (gateway.name === 'btc' || gateway.name === 'usdt') return `/deposits/crypto/${gateway.name}?${new URLSearchParams({ balance: String(balanceId), amount })}`;
  return null;
}

// ---------------------------------------------------------------- the lists

/** A bank deposit's 'Sent From' details and its proof (an upload id). */
export interface DepositDetails { bankName?: string; accountName?: string; accountNumber?: string; proofUploadId?: number }

export interface DepositRow {
  id: number;
  createdAt: string;
  gateway: string;
  gatewayTitle: string;
  description: string;
  details: DepositDetails;
  amount: string;
  fee: string;
  total: string;
  currency: string;
  status: DepositStatus;
  declineReason: string | null;
  balanceAfter: string | null;
  /** approved once, waiting for a second staff member (four-eyes): staff see it, customers see pending */
  awaitingSecond: boolean;
}

export interface StaffDepositRow extends DepositRow {
  userId: number; email: string; reference: string | null;
  /** a card / wallet deposit's provider notifications and status checks (modules/payments) */
  paymentEvents: PaymentEventRow[];
  /** the chargeback / refund a provider reported (modules/payments/disputes.server.ts), or null */
  dispute: DepositDispute | null;
}

/** A flagged deposit's chargeback / refund, and the debit staff may make of it once. */
export interface DepositDispute {
  kind: 'chargeback' | 'dispute' | 'refund' | 'reversal';
  state: 'open' | 'won' | 'lost' | 'closed';
  at: string;
  /** what the provider reported, when it did */
  amount: string | null;
  currency: string | null;
  /** what a debit takes from the wallet (in its currency): the reported amount, at most what the deposit credited */
  debit: string;
  debitedAt: string | null;
}

const DISPUTE_COLUMNS = (sql: Sql) => sql`
  d.disputed_at, d.dispute_kind, d.dispute_state, d.dispute_amount::text AS dispute_amount, d.dispute_currency, d.dispute_debited_at,
  least(d.amount, coalesce(CASE WHEN d.dispute_currency = trim(b.currency) THEN d.dispute_amount END, d.amount))::numeric(20, 2)::text AS dispute_debit`;

function disputeOf(r: Record<string, unknown>): DepositDispute | null {
  if (!r.disputed_at) return null;
  return {
    kind: r.dispute_kind as DepositDispute['kind'], state: r.dispute_state as DepositDispute['state'],
    at: (r.disputed_at as Date).toISOString(), amount: (r.dispute_amount as string | null) ?? null,
    currency: (r.dispute_currency as string | null) ?? null, debit: String(r.dispute_debit),
    debitedAt: r.dispute_debited_at ? (r.dispute_debited_at as Date).toISOString() : null,
  };
}

function details(d: unknown): DepositDetails {
  const o = (d && typeof d === 'object' ? d : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const proof = Number(o.proofUploadId);
  return {
    bankName: text(o.bankName), accountName: text(o.accountName), accountNumber: text(o.accountNumber),
    proofUploadId: Number.isSafeInteger(proof) && proof > 0 ? proof : undefined,
  };
}

const row = (r: Record<string, unknown>): DepositRow => ({
  id: Number(r.id), createdAt: (r.created_at as Date).toISOString(), gateway: String(r.gateway), gatewayTitle: String(r.gateway_title),
  description: String(r.description ?? ''), details: details(r.details), amount: String(r.amount), fee: String(r.fee), total: String(r.total),
  currency: String(r.currency).trim(), status: r.status as DepositStatus, declineReason: (r.decline_reason as string | null) ?? null,
  balanceAfter: (r.balance_after as string | null) ?? null, awaitingSecond: r.status === 'pending' && r.first_approved_by !== null,
});

const COLUMNS = (sql: Sql) => sql`
  d.id, d.created_at, d.gateway, coalesce(g.title, d.gateway) AS gateway_title, d.description, d.details,
  d.amount::text AS amount, d.fee::text AS fee, d.total::text AS total, b.currency, d.status, d.decline_reason,
  d.balance_after::text AS balance_after, d.first_approved_by`;

function dates(sql: Sql, q: Pick<ListQuery, 'dateStart' | 'dateEnd'>) {
  return sql`${q.dateStart ? sql`AND d.created_at >= ${q.dateStart}::date` : sql``}
             ${q.dateEnd ? sql`AND d.created_at < ${q.dateEnd}::date + 1` : sql``}`;
}

/** The customer's History tab: their own deposits, newest first, in a date range (UTC days, inclusive). */
export async function customerDeposits(sql: Sql, userId: number, q: Pick<ListQuery, 'offset' | 'limit' | 'dateStart' | 'dateEnd'>) {
  const where = sql`d.user_id = ${userId} ${dates(sql, q)}`;
  const [rows, [count]] = await Promise.all([
    sql`SELECT ${COLUMNS(sql)}
          FROM deposits d JOIN balances b ON b.id = d.balance_id LEFT JOIN payment_gateways g ON g.name::text = d.gateway
         WHERE ${where} ORDER BY d.id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM deposits d WHERE ${where}`,
  ]);
  return { total: count.n as number, rows: rows.map(row) };
}

export const STAFF_SORTS = ['id', 'created_at'] as const;

/**
 * The staff list's filter as one or two conditions on `d` whose matches are the union: status and
 * date range always; a number searched is a deposit id, a customer id or a reference; text is the
 * start of a customer's email, or of a reference. Each condition has an index to walk (primary
 * key, (status, id), (status, created_at), deposits by user after the users' email pattern index,
 * the reference pattern index), so the two text branches are paged apart and merged rather than
 * OR-ed into one filter that no index serves.
 */
function staffBranches(sql: Sql, q: ListQuery & { status?: DepositStatus }) {
  const base = sql`${q.status ? sql`d.status = ${q.status}::money_status` : sql`TRUE`} ${dates(sql, q)}`;
  const s = q.search.trim();
  if (!s) return [base];
  if (/^#?[0-9]{1,15}$/.test(s)) {
    const n = Number(s.replace('#', ''));
    return [sql`${base} AND (d.id = ${n} OR d.user_id = ${n} OR d.reference = ${s})`];
  }
  return [
    sql`${base} AND d.user_id IN (SELECT u2.id FROM users u2 WHERE ${prefixMatch(sql, sql`u2.email`, s.toLowerCase())})`,
    sql`${base} AND d.reference IS NOT NULL AND ${prefixMatch(sql, sql`d.reference`, s)}`,
  ];
}

/** /admin/deposits: every customer's deposits, by status, date range and search, sorted and paged on the server. */
export async function staffDeposits(sql: Sql, q: ListQuery & { status?: DepositStatus }) {
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const byDate = q.sort === 'created_at';
  const order = (t: string) => (byDate ? sql`${sql(t)}.created_at ${dir}, ${sql(t)}.id ${dir}` : sql`${sql(t)}.id ${dir}`);
  const branches = staffBranches(sql, q);
  // the page's ids first, from deposits and its indexes alone (a deep page walks an index, not
  // joined rows); then its 15 to 50 rows with their customer, wallet and gateway
  const page = branches.length === 1
    ? sql`SELECT d.id FROM deposits d WHERE ${branches[0]} ORDER BY ${order('d')} LIMIT ${q.limit} OFFSET ${q.offset}`
    : sql`SELECT x.id FROM (${branches.map((b, i) => sql`${i ? sql`UNION` : sql``}
            (SELECT d.id, d.created_at FROM deposits d WHERE ${b} ORDER BY ${order('d')} LIMIT ${q.offset + q.limit})`)}) x
          ORDER BY ${order('x')} LIMIT ${q.limit} OFFSET ${q.offset}`;
  // the total: counted up to EXACT_COUNT_LIMIT deposits (SEARCH_COUNT_LIMIT per branch while
  // searched), else estimated (shared/bounded-count.server.ts; the page says so), so 200,000
  // deposits cost what 50,000 do and a prefix matching every customer what 1,000 deposits do. The
  // union's size is the first branch's count plus the second's rows the first does not hold.
  const countLimit = branches.length === 1 ? EXACT_COUNT_LIMIT : SEARCH_COUNT_LIMIT;
  const count = async (db: Db) => {
    if (branches.length === 1) return boundedCount(db, sql`deposits d`, branches[0], countLimit);
    const [a, b] = await Promise.all([
      boundedCount(db, sql`deposits d`, branches[0], countLimit),
      boundedCount(db, sql`deposits d`, sql`${branches[1]} AND NOT (${branches[0]})`, countLimit),
    ]);
    return { total: a.total + b.total, estimated: a.estimated || b.estimated };
  };
  // A text search is planned for the prefix at hand, as the withdrawals list does: a plan cached
  // for any prefix guesses it matches a few users, and counted every customer's deposits through
  // them for a broad one ('customer': 240 ms). README "List speed at scale".
  const textSearch = branches.length > 1;
  const read = (db: Db) => Promise.all([
    db`WITH page AS (${page})
        SELECT ${COLUMNS(sql)}, d.user_id, u.email, d.reference, ${DISPUTE_COLUMNS(sql)}
          FROM page JOIN deposits d ON d.id = page.id JOIN users u ON u.id = d.user_id JOIN balances b ON b.id = d.balance_id
          LEFT JOIN payment_gateways g ON g.name::text = d.gateway
         ORDER BY ${order('d')}`,
    count(db),
  ]);
  const [rows, total] = textSearch
    ? await sql.begin(async (tx) => {
      await tx`SET LOCAL plan_cache_mode = force_custom_plan`;
      return read(tx);
    })
    : await read(sql);
  const events = await depositPaymentEvents(sql, rows.map((r) => Number(r.id)));
  const seen = q.offset + rows.length + (total.estimated && rows.length === q.limit ? 1 : 0);
  return {
    total: total.estimated ? Math.max(total.total, seen) : total.total, estimated: total.estimated, countLimit,
    rows: rows.map((r): StaffDepositRow => ({
      ...row(r), userId: Number(r.user_id), email: String(r.email), reference: (r.reference as string | null) ?? null,
      paymentEvents: events.get(Number(r.id)) ?? [], dispute: disputeOf(r),
    })),
  };
}

// ---------------------------------------------------------------- the crypto page

export interface CryptoQuote {
  /** the currency the customer sends: BTC or USDT */
  currency: string;
  /** the wallet currency's total in that currency, or null when no rate is known */
  amount: string | null;
  /** how many units of it one unit of the wallet's currency buys */
  rate: string | null;
  /** one unit of it in the wallet's currency (what the page shows as the rate) */
  price: string | null;
}

const CRYPTO_CURRENCY: Record<string, { code: string; dp: number }> = { btc: { code: 'BTC', dp: 8 }, usdt: { code: 'USDT', dp: 2 } };

/**
 * The total to send in the gateway's coin, at the engine's live rate. USDT is a dollar token:
 * without a USDT quote it counts as USD, one for one. Null figures when no rate is known (the
 * page says 'Rate unavailable' and the deposit can still be confirmed: staff check the transfer).
 */
export async function cryptoQuote(gateway: string, walletCurrency: string, total: string): Promise<CryptoQuote> {
  const coin = CRYPTO_CURRENCY[gateway];
  if (!coin) return { currency: gateway.toUpperCase(), amount: null, rate: null, price: null };
  let rate: Decimal | null = null;
  const direct = await engine().rate(walletCurrency, coin.code);
  if (direct.ok) rate = dec(direct.rate);
  else if (coin.code === 'USDT') {
    if (walletCurrency === 'USD') rate = dec(1);
    else {
      const usd = await engine().rate(walletCurrency, 'USD');
      if (usd.ok) rate = dec(usd.rate);
    }
  }
  if (!rate || !rate.isFinite() || rate.lte(0)) return { currency: coin.code, amount: null, rate: null, price: null };
  return {
    currency: coin.code,
    amount: dec(total).mul(rate).toDecimalPlaces(coin.dp, Decimal.ROUND_UP).toFixed(coin.dp),
    rate: rate.toSignificantDigits(12).toString(),
    price: dec(1).div(rate).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2),
  };
}

/** The wallet address as a QR code: an SVG data URL drawn by the qrcode library. */
export async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
