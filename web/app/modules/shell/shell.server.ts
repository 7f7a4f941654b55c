// What the client and staff layouts show around every page: the user, their notifications,
// their balances (wallet switcher) and whether this is a login-as session.
import type { Sql } from '~/utils/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { accountSummary } from '~/modules/accounts/accounts.server.ts';

/** The values a notification carries for the web to word and format (the engine's closes). */
export type NotificationData =
  | { kind: 'position.closed'; id: number; reason: string; side: 'buy' | 'sell'; amount: string; instrument: string; rate: string | null; digits: number; pnl: string }
  | { kind?: undefined };

/** With the request, the wallets are read once for it (the dashboard's loader reads the same summary). */
export async function loadShell(sql: Sql, s: CurrentSession, request?: Request) {
  const [notifications, account] = await Promise.all([
    sql`SELECT id, title, description, url, data, read_at IS NOT NULL AS read, created_at
          FROM notifications WHERE user_id = ${s.user.id} ORDER BY id DESC LIMIT 10`,
    accountSummary(sql, s.user.id, request),
  ]);
  return {
    user: { id: s.user.id, fullName: s.user.fullName, email: s.user.email, roleId: s.user.roleId },
    impersonating: s.impersonatorId !== null,
    notifications: notifications.map((n) => ({
      id: Number(n.id), title: n.title as string, description: n.description as string, url: (n.url as string | null) ?? null,
      read: n.read as boolean, createdAt: (n.created_at as Date).toISOString(), data: (n.data ?? null) as NotificationData | null,
    })),
    balances: account.wallets,
    activeBalanceId: account.active?.id ?? null,
  };
}
export type Shell = Awaited<ReturnType<typeof loadShell>>;
