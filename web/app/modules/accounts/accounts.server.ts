// A customer's wallets (balances): the one home of every wallet read in web — the list (wallet
// switcher, /auth/user), the active wallet (dashboard, statements, rates), the switch, and the
// account summary. Every read is scoped to the user: a wallet is only ever read or made active
// through its owner's id. Money stays the numeric columns' exact text.
import type { Sql } from '~/shared/db.server.ts';
import { oncePerRequest } from '~/shared/request-scope.server.ts';

export interface Wallet { id: number; mode: 'demo' | 'real'; currency: string; balance: string; margin: string }

/** The user's wallets and which is active (null when none is, or the pointer is not theirs). */
export interface AccountSummary { wallets: Wallet[]; active: Wallet | null }

const wallet = (b: Record<string, unknown>): Wallet => ({
  id: Number(b.id), mode: b.mode as Wallet['mode'], currency: String(b.currency).trim(), balance: String(b.balance), margin: String(b.margin),
});

/** The user's wallets, demo before real, by currency. */
export async function listWallets(sql: Sql, userId: number): Promise<Wallet[]> {
  return (await accountSummary(sql, userId)).wallets;
}

/** The wallet the user trades on: users.active_balance_id, and only when it is theirs. */
export async function activeWallet(sql: Sql, userId: number): Promise<Wallet | null> {
  const [b] = await sql`
    SELECT b.id, b.mode, b.currency, b.balance::text AS balance, b.margin::text AS margin
      FROM users u JOIN balances b ON b.id = u.active_balance_id AND b.user_id = u.id
     WHERE u.id = ${userId}`;
  return b ? wallet(b) : null;
}

/**
 * Wallets and the active one in one read (the layouts' wallet switcher, the dashboard, /auth/user).
 * Given the request, read once for all the loaders of a GET (the client layout's and the page's);
 * `read` is how, when a caller reads them along with something else (the layouts, walletsColumn).
 */
export function accountSummary(sql: Sql, userId: number, request?: Request, read = () => readAccountSummary(sql, userId)): Promise<AccountSummary> {
  return request ? oncePerRequest(request, `accountSummary:${userId}`, read) : read();
}

const summaryOf = (rows: Record<string, unknown>[]): AccountSummary => {
  const wallets = rows.map(wallet);
  const i = rows.findIndex((r) => r.active === true);
  return { wallets, active: i >= 0 ? wallets[i] : null };
};

async function readAccountSummary(sql: Sql, userId: number): Promise<AccountSummary> {
  const rows = await sql`
    SELECT b.id, b.mode, b.currency, b.balance::text AS balance, b.margin::text AS margin, b.id = u.active_balance_id AS active
      FROM users u JOIN balances b ON b.user_id = u.id
     WHERE u.id = ${userId}
     ORDER BY b.mode, b.currency, b.id`;
  return summaryOf(rows);
}

/** The wallets as one json column of a query over `users u`, in accountSummary's order; summaryFromColumn reads it. */
export function walletsColumn(sql: Sql) {
  return sql`(SELECT coalesce(json_agg(json_build_object('id', b.id, 'mode', b.mode, 'currency', b.currency, 'balance', b.balance::text,
                                                          'margin', b.margin::text, 'active', b.id = u.active_balance_id)
                                       ORDER BY b.mode, b.currency, b.id), '[]'::json)
                FROM balances b WHERE b.user_id = u.id)`;
}

export function summaryFromColumn(column: unknown): AccountSummary {
  return summaryOf((column ?? []) as Record<string, unknown>[]);
}

/** Makes one of the user's own wallets the active one; false (nothing changed) for anyone else's or an unknown id. */
export async function switchWallet(sql: Sql, userId: number, balanceId: number): Promise<boolean> {
  if (!Number.isSafeInteger(balanceId) || balanceId < 1) return false;
  const rows = await sql`UPDATE users SET active_balance_id = b.id, updated_at = now()
                          FROM balances b WHERE users.id = ${userId} AND b.id = ${balanceId} AND b.user_id = ${userId}
                          RETURNING b.id`;
  return rows.length === 1;
}
