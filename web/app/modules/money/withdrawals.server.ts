// The withdrawal pages (docs/specs.md#money): what the customer's /withdraws and the staff's
// /admin/withdraws/{pending,history,settings} read and write. The rules of a withdrawal (the
// wallet, KYC, the amount, the fee, the free margin, the hold, four-eyes, the decision) are
// money.server.ts's: this file reads, pages, and saves the admin's fee settings.
import { randomUUID } from 'node:crypto';
import { dec } from '@broker/engine/domain';
import type { Db, Sql } from '~/shared/db.server.ts';
import type { ListQuery } from '~/components/ui/list-params.ts';
import { boundedCount, SEARCH_COUNT_LIMIT } from '~/shared/bounded-count.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';
import { prefixMatch } from '~/shared/prefix-search.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { refuse } from '~/shared/result.server.ts';
import { countryNames, countryOptions } from '~/modules/auth/countries.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { decideMoney, requestWithdrawal, withdrawFees, type BankDetails, type FloatingPnl } from './money.server.ts';
import { isKycApproved } from '~/modules/kyc/kyc-gate.server.ts';
import type { WithdrawInput } from './withdrawal-schemas.ts';

export type WithdrawalStatus = 'pending' | 'approved' | 'declined';

/** The success toasts of the withdrawal pages (docs/specs.md#money; the customer's comes from the server). */
export const WITHDRAW_TOASTS = {
  requested: 'Withdraw request submitted successfully',
  approved: 'Withdraw approved successfully',
  awaitingSecond: 'Awaiting second approval',
  declined: 'Withdraw declined successfully',
  settings: 'Withdraw settings updated successfully',
} as const;
export const WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = ['pending', 'approved', 'declined'];

/** The floating P/L of a wallet's open positions, the engine's figure (null when the engine cannot say). */
const engineFloating: FloatingPnl = async (balanceId) => {
  const r = await engine().account(balanceId);
  return r.ok ? r.floatingPnl : null;
};

// ---------------------------------------------------------------- the Withdraw tab

export interface WithdrawWallet {
  id: number;
  currency: string;
  balance: string;
  /**
   * What may be withdrawn, total included: balance − used margin + floating P/L (the rule
   * requestWithdrawal applies under the balance lock). Null while live prices are unknown.
   */
  freeMargin: string | null;
}

/** The user's real wallets with their free margin (withdrawals never touch demo money). */
export async function withdrawWallets(sql: Sql, userId: number, floating: FloatingPnl = engineFloating): Promise<WithdrawWallet[]> {
  const rows = await sql`SELECT id, currency, balance::text AS balance, margin::text AS margin
                           FROM balances WHERE user_id = ${userId} AND mode = 'real' ORDER BY currency, id`;
  return Promise.all(rows.map(async (b): Promise<WithdrawWallet> => {
    const balance = String(b.balance);
    const base = { id: Number(b.id), currency: String(b.currency).trim(), balance };
    if (dec(b.margin).isZero()) return { ...base, freeMargin: dec(balance).toFixed(2) };
    const f = await floating(Number(b.id));
    if (f === null || !Number.isFinite(f)) return { ...base, freeMargin: null };
    return { ...base, freeMargin: dec(balance).minus(dec(b.margin)).plus(dec(f)).toFixed(2) };
  }));
}

/** Everything the Withdraw tab shows: the wallets, the admin's fees, the KYC notice, the holder's name, the countries, the form's id. */
export async function withdrawForm(sql: Sql, userId: number, floating: FloatingPnl = engineFloating, locale = 'en') {
  const [wallets, fees, kycApproved, [user]] = await Promise.all([
    withdrawWallets(sql, userId, floating), withdrawFees(sql), isKycApproved(sql, userId),
    sql`SELECT full_name, active_balance_id FROM users WHERE id = ${userId}`,
  ]);
  const activeId = Number(user?.active_balance_id ?? 0);
  return {
    wallets,
    /** the active wallet when it is a real one, else the first real wallet */
    defaultWalletId: wallets.find((w) => w.id === activeId)?.id ?? wallets[0]?.id ?? null,
    fees,
    kycNotice: !kycApproved,
    fullName: String(user?.full_name ?? ''),
    countries: countryOptions(locale),
    /** the form's random id: a double submit is one request; each load brings a new one */
    clientRef: randomUUID(),
  };
}

/** A withdrawal request from the form: the country must be one of the list's; the rest is requestWithdrawal's. */
export async function submitWithdrawal(sql: Sql, userId: number, v: WithdrawInput, floating: FloatingPnl = engineFloating) {
  if (!countryNames().includes(v.bank_country)) return refuse(400, 'Choose a bank country from the list', 'bank_country');
  const bank: BankDetails = {
    bankName: v.bank_name, accountName: '', accountNumber: v.account_number, swiftCode: v.swift_code, bankCountry: v.bank_country,
  };
  return requestWithdrawal(sql, { userId, balanceId: v.balance_id, amount: v.amount, bank, clientRef: v.clientRef ?? null }, floating);
}

// ---------------------------------------------------------------- the lists

export interface WithdrawalRow {
  id: number;
  createdAt: string;
  gateway: string;
  description: string;
  /** the bank the money goes to (formattedDescription: bankName, accountName, accountNumber, swiftCode, bankCountry) */
  bank: BankDetails | null;
  amount: string;
  fee: string;
  total: string;
  currency: string;
  status: WithdrawalStatus;
  declineReason: string | null;
  /** the wallet's balance once the total was held */
  balanceAfter: string | null;
}

export interface StaffWithdrawalRow extends WithdrawalRow {
  userId: number;
  email: string;
  /** approved once, waiting for a second staff member (four-eyes) */
  awaitingSecond: boolean;
}

function bankOf(d: unknown): BankDetails | null {
  const o = (d && typeof d === 'object' ? d : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const b: BankDetails = {
    bankName: text(o.bankName), accountName: text(o.accountName), accountNumber: text(o.accountNumber),
    swiftCode: text(o.swiftCode), bankCountry: text(o.bankCountry),
  };
  return Object.values(b).some(Boolean) ? b : null;
}

const row = (r: Record<string, unknown>): WithdrawalRow => ({
  id: Number(r.id), createdAt: (r.created_at as Date).toISOString(), gateway: String(r.gateway), description: String(r.description ?? ''),
  bank: bankOf(r.details), amount: String(r.amount), fee: String(r.fee), total: String(r.total), currency: String(r.currency).trim(),
  status: r.status as WithdrawalStatus, declineReason: (r.decline_reason as string | null) ?? null,
  balanceAfter: (r.balance_after as string | null) ?? null,
});

const COLUMNS = (sql: Sql) => sql`
  w.id, w.created_at, w.gateway, w.description, w.details, w.amount::text AS amount, w.fee::text AS fee, w.total::text AS total,
  b.currency, w.status, w.decline_reason, w.balance_after::text AS balance_after`;

/** The customer's History tab: their own withdrawals, newest first (withdrawals_user_idx). */
export async function customerWithdrawals(sql: Sql, userId: number, q: Pick<ListQuery, 'offset' | 'limit'>) {
  const [rows, [count]] = await Promise.all([
    sql`SELECT ${COLUMNS(sql)}
          FROM withdrawals w JOIN balances b ON b.id = w.balance_id
         WHERE w.user_id = ${userId}
         ORDER BY w.id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ${userId}`,
  ]);
  return { total: count.n as number, rows: rows.map(row) };
}

/** The staff lists' sortable columns (each has an index with the status in front and without). */
export const STAFF_SORTS = ['id', 'amount', 'created_at'] as const;

/**
 * Staff search (Pending Withdraws): a number is a withdrawal id or a customer id; text is the
 * start of a customer's email. Each is served by an index (primary key, withdrawals by user,
 * users' email pattern index).
 */
function search(sql: Sql, term: string) {
  const s = term.trim();
  if (!s) return sql``;
  if (/^#?[0-9]{1,15}$/.test(s)) {
    const n = Number(s.replace('#', ''));
    return sql`AND (w.id = ${n} OR w.user_id = ${n})`;
  }
  return sql`AND w.user_id IN (SELECT u2.id FROM users u2 WHERE ${prefixMatch(sql, sql`u2.email`, s.toLowerCase())})`;
}

const isTextSearch = (term: string) => term.trim() !== '' && !/^#?[0-9]{1,15}$/.test(term.trim());

function dates(sql: Sql, q: Pick<ListQuery, 'dateStart' | 'dateEnd'>) {
  return sql`${q.dateStart ? sql`AND w.created_at >= ${q.dateStart}::date` : sql``}
             ${q.dateEnd ? sql`AND w.created_at < ${q.dateEnd}::date + 1` : sql``}`;
}

export interface StaffListQuery extends ListQuery { status?: WithdrawalStatus | null }

/**
 * /admin/withdraws/pending and /history: every customer's withdrawals, by status, date range
 * and search, sorted and paged on the server. The page's ids are found first on the
 * withdrawals' own indexes, then only those rows are joined: a deep page costs its offset in
 * index entries, not in joins.
 */
export async function staffWithdrawals(sql: Sql, q: StaffListQuery) {
  const where = sql`TRUE ${q.status ? sql`AND w.status = ${q.status}::money_status` : sql``} ${dates(sql, q)} ${search(sql, q.search)}`;
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const order = q.sort === 'amount' ? sql`w.amount ${dir}, w.id ${dir}`
    : q.sort === 'created_at' ? sql`w.created_at ${dir}, w.id ${dir}` : sql`w.id ${dir}`;
  const countLimit = q.search.trim() ? SEARCH_COUNT_LIMIT : EXACT_COUNT_LIMIT;
  const read = (db: Db) => Promise.all([
    db`SELECT ${COLUMNS(sql)}, w.user_id, u.email, w.first_approved_by
         FROM (SELECT w.id FROM withdrawals w WHERE ${where} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}) page
         JOIN withdrawals w ON w.id = page.id JOIN users u ON u.id = w.user_id JOIN balances b ON b.id = w.balance_id
        ORDER BY ${order}`,
    // exact up to EXACT_COUNT_LIMIT withdrawals (SEARCH_COUNT_LIMIT while searched), then
    // estimated, and the page says so (shared/bounded-count.server.ts)
    boundedCount(db, sql`withdrawals w`, where, countLimit),
  ]);
  // A text search is planned for the prefix at hand: a plan cached for any prefix guesses that it
  // matches a few users, and walks every customer for a broad one ('customer'). README "List
  // speed at scale" has the figures.
  const [rows, count] = isTextSearch(q.search)
    ? await sql.begin(async (tx) => {
      await tx`SET LOCAL plan_cache_mode = force_custom_plan`;
      return read(tx);
    })
    : await read(sql);
  const seen = q.offset + rows.length + (count.estimated && rows.length === q.limit ? 1 : 0);
  return {
    total: count.estimated ? Math.max(count.total, seen) : count.total, estimated: count.estimated, countLimit,
    rows: rows.map((r): StaffWithdrawalRow => ({
      ...row(r), userId: Number(r.user_id), email: String(r.email),
      awaitingSecond: r.status === 'pending' && r.first_approved_by !== null,
    })),
  };
}

// ---------------------------------------------------------------- staff decisions

export type DecisionReply = { ok: true; status: number; toast: string } | { ok: false; status: number; toast: string; field?: string };

/** A staff member approves or declines a pending withdrawal (decideMoney: four-eyes, audit, notification). */
export async function decideWithdrawal(sql: Sql, d: { id: number; actorId: number; ip: string | null; decision: 'approve' | 'decline'; reason?: string }): Promise<DecisionReply> {
  const r = await decideMoney(sql, { kind: 'withdrawal', id: d.id, actorId: d.actorId, ip: d.ip, decision: d.decision, reason: d.reason ?? null });
  if (!r.ok) return { ok: false, status: r.status, toast: r.message, field: r.field };
  const toast = r.state === 'awaiting_second' ? WITHDRAW_TOASTS.awaitingSecond
    : r.state === 'approved' ? WITHDRAW_TOASTS.approved : WITHDRAW_TOASTS.declined;
  return { ok: true, status: 200, toast };
}

// ---------------------------------------------------------------- fee settings

/**
 * Saves the admin's withdrawal fees (values parsed by FeeSettingsSchema: 0 ≤ % ≤ 100 with 4
 * decimals, fixed ≥ 0 with 2), with an audit row of before and after in the same transaction.
 */
export async function saveWithdrawFees(sql: Sql, v: { feePercentage: string; feeFixed: string }, actorId: number, ip: string | null) {
  await sql.begin(async (tx) => {
    await tx`INSERT INTO withdraw_fee_settings (id) VALUES (1) ON CONFLICT (id) DO NOTHING`;
    const [before] = await tx`SELECT fee_percentage::text AS p, fee_fixed::text AS f FROM withdraw_fee_settings WHERE id = 1 FOR UPDATE`;
    const [after] = await tx`UPDATE withdraw_fee_settings SET fee_percentage = ${v.feePercentage}::numeric, fee_fixed = ${v.feeFixed}::numeric, updated_at = now()
                              WHERE id = 1 RETURNING fee_percentage::text AS p, fee_fixed::text AS f`;
    await audit(tx, {
      actorId, action: 'withdraw_fees.update', targetKind: 'withdraw_fee_settings', targetId: 1,
      before: { feePercentage: before.p, feeFixed: before.f }, after: { feePercentage: after.p, feeFixed: after.f }, ip,
    });
  });
}
