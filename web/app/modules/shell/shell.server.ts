// What the client and staff layouts show around every page: the user, their notifications,
// their balances (wallet switcher) and whether this is a login-as session.
import type { Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { accountSummary, summaryFromColumn, walletsColumn } from '~/modules/accounts/accounts.server.ts';
import { notificationItem } from '~/modules/notifications/notifications.server.ts';
import { type NotificationData } from '~/shared/notify.server.ts';
import { phoneLocked } from '~/modules/profile/profile.server.ts';
import { maskEmail } from '~/shared/mask.ts';

export type { NotificationData };

/**
 * One query: the latest notifications and the wallets. With the request, the wallets are the
 * request's account summary, which the dashboard's loader reads too (accountSummary).
 */
export async function loadShell(sql: Sql, s: CurrentSession, request?: Request) {
  const read = sql`
    SELECT (SELECT coalesce(json_agg(n ORDER BY n.id DESC), '[]'::json) FROM (
              SELECT id, title, description, url, data, read_at IS NOT NULL AS read, created_at
                FROM notifications WHERE user_id = u.id ORDER BY id DESC LIMIT 10) n) AS notifications,
           (SELECT count(*)::int FROM notifications WHERE user_id = u.id AND read_at IS NULL) AS unread,
           ${walletsColumn(sql)} AS wallets
      FROM users u WHERE u.id = ${s.user.id}`.then(([row]) => row);
  const [row, account, masked] = await Promise.all([
    read, accountSummary(sql, s.user.id, request, () => read.then((r) => summaryFromColumn(r?.wallets))),
    // a retention agent signed in as the customer sees the contact details masked (docs/specs.md#customer-records); only login-as sessions ask
    s.impersonatorId !== null ? phoneLocked(sql, s) : false,
  ]);
  const notifications = (row?.notifications ?? []) as Record<string, unknown>[];
  return {
    user: { id: s.user.id, fullName: s.user.fullName, email: masked ? maskEmail(s.user.email) : s.user.email, roleId: s.user.roleId },
    impersonating: s.impersonatorId !== null,
    notifications: notifications.map(notificationItem),
    unread: Number(row?.unread ?? 0),
    balances: account.wallets,
    activeBalanceId: account.active?.id ?? null,
  };
}
export type Shell = Awaited<ReturnType<typeof loadShell>>;
