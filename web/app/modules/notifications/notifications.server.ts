// Reading a user's notifications: the bell and the notifications pages, and marking them read.
// Sending them is shared/notify.server.ts (every feature sends).
import type { Sql } from '~/shared/db.server.ts';
import type { NotificationData } from '@broker/engine/contract/events';

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
