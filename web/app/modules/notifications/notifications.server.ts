// A user's notifications: a row in their dropdown, and the same event live on their stream
// (user:{id}), which toasts it, plays the sound and refreshes the dropdown. The row is written in
// the transaction of the change it tells about; the live event is sent after that commits.
// Customers hear about decisions on their money and documents (addNotification); staff about the
// work waiting for them (notifyStaff: withdrawals and manual deposits to decide, KYC documents to
// review, leads assigned to an agent, chargebacks and refunds of deposits).
import type { Sql } from '~/utils/db.server.ts';
import { engine } from '~/modules/trading/engine.server.ts';
import type { NotificationData } from '@broker/engine/contract/events';

/** The values a notification carries: the engine's contract, which its close notifications use too. */
export type { NotificationData } from '@broker/engine/contract/events';

export interface NewNotification {
  title: string;
  description: string;
  url: string | null;
  data: Exclude<NotificationData, { kind?: undefined }>;
}

export interface Notice extends NewNotification { id: number; userId: number }

/** Writes the row (inside the caller's transaction); hand the answer to publishNotices after commit. */
export async function addNotification(sql: Sql, userId: number, n: NewNotification): Promise<Notice> {
  const [row] = await sql`
    INSERT INTO notifications (user_id, title, description, url, data)
    VALUES (${userId}, ${n.title}, ${n.description}, ${n.url}, ${sql.json(n.data as never)}) RETURNING id`;
  return { ...n, id: Number(row.id), userId };
}

/** Who among the staff hears of an event: every active staff member of some roles, or some staff by id. */
export type StaffRecipients = { roles: readonly (1 | 2 | 4 | 5 | 6)[] } | { ids: readonly number[] };

/**
 * The same notification for each active staff member the recipients name (never a customer, an
 * inactive or a deleted account), in one INSERT … SELECT inside the caller's transaction
 * (users_role_id_idx; as many rows as there are such staff). Hand the answer to publishNotices
 * after commit.
 */
export async function notifyStaff(sql: Sql, to: StaffRecipients, n: NewNotification): Promise<Notice[]> {
  const who = 'roles' in to
    ? sql`u.role_id = ANY(${to.roles as number[]}::smallint[])`
    : sql`u.id = ANY(${to.ids as number[]}::bigint[])`;
  const rows = await sql`
    INSERT INTO notifications (user_id, title, description, url, data)
    SELECT u.id, ${n.title}, ${n.description}, ${n.url}, ${sql.json(n.data as never)}
      FROM users u
     WHERE ${who} AND u.role_id <> 3 AND u.is_active AND u.deleted_at IS NULL
    RETURNING id, user_id`;
  return rows.map((r) => ({ ...n, id: Number(r.id), userId: Number(r.user_id) }));
}

/** The live events, best effort: the row is already in the dropdown whatever happens here. */
export async function publishNotices(notices: readonly Notice[]): Promise<void> {
  const failed: string[] = [];
  await Promise.all(notices.map(async (n) => {
    const r = await engine().publish({
      topic: `user:${n.userId}`, event: 'notification',
      data: { id: n.id, title: n.title, description: n.description, url: n.url, data: n.data },
    });
    if (!r.ok) failed.push(`${n.userId}: ${r.message}`);
  }));
  // one line however many staff an event went to
  if (failed.length) console.warn(`[notifications] ${failed.length} of ${notices.length} live events not sent (user ${failed[0]}${failed.length > 1 ? ', …' : ''})`);
}

// ---------------------------------------------------------------- reading them (the bell and the notifications pages)

/** A notification as the bell and the notifications pages show it. */
export interface NotificationItem {
  id: number; title: string; description: string; url: string | null;
  read: boolean; createdAt: string; data: NotificationData | null;
}

export function notificationItem(n: Record<string, unknown>): NotificationItem {
  return {
    id: Number(n.id), title: n.title as string, description: n.description as string, url: (n.url as string | null) ?? null,
    read: n.read as boolean, createdAt: new Date(n.created_at as string).toISOString(), data: (n.data ?? null) as NotificationData | null,
  };
}

/** One page of the user's notifications, newest first (notifications_user_idx), with their count and the unread count. */
export async function listNotifications(sql: Sql, userId: number, q: { limit: number; offset: number }) {
  const [rows, [count]] = await Promise.all([
    sql`SELECT id, title, description, url, data, read_at IS NOT NULL AS read, created_at
          FROM notifications WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT (SELECT count(*)::int FROM notifications WHERE user_id = ${userId}) AS total,
               (SELECT count(*)::int FROM notifications WHERE user_id = ${userId} AND read_at IS NULL) AS unread`,
  ]);
  return { rows: rows.map(notificationItem), total: count.total as number, unread: count.unread as number };
}

/**
 * Marks one of the user's own notifications read; false when it is not theirs (or does not
 * exist): nothing changes. Reading it again keeps the first time it was read.
 */
export async function markNotificationRead(sql: Sql, userId: number, id: number): Promise<{ found: boolean; url: string | null }> {
  const [row] = await sql`
    UPDATE notifications SET read_at = coalesce(read_at, now())
     WHERE id = ${id} AND user_id = ${userId} RETURNING url`;
  return row ? { found: true, url: (row.url as string | null) ?? null } : { found: false, url: null };
}

/** Marks every unread notification of the user read; answers how many. */
export async function markAllNotificationsRead(sql: Sql, userId: number): Promise<number> {
  const rows = await sql`UPDATE notifications SET read_at = now() WHERE user_id = ${userId} AND read_at IS NULL RETURNING id`;
  return rows.length;
}
