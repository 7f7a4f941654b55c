// Sending a notification (every feature does): a row in the user's dropdown, and the same event live on their stream
// (user:{id}), which toasts it, plays the sound and refreshes the dropdown. The row is written in
// the transaction of the change it tells about; the live event is sent after that commits.
// Customers hear about decisions on their money and documents (addNotification); staff about the
// work waiting for them (notifyStaff: withdrawals and manual deposits to decide, KYC documents to
// review, leads assigned to an agent, chargebacks and refunds of deposits).
import type { Db } from './db.server.ts';
import { engine } from './engine.server.ts';
import { ROLE } from './roles.ts';

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
export async function addNotification(sql: Db, userId: number, n: NewNotification): Promise<Notice> {
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
export async function notifyStaff(sql: Db, to: StaffRecipients, n: NewNotification): Promise<Notice[]> {
  const who = 'roles' in to
    ? sql`u.role_id = ANY(${to.roles as number[]}::smallint[])`
    : sql`u.id = ANY(${to.ids as number[]}::bigint[])`;
  const rows = await sql`
    INSERT INTO notifications (user_id, title, description, url, data)
    SELECT u.id, ${n.title}, ${n.description}, ${n.url}, ${sql.json(n.data as never)}
      FROM users u
     WHERE ${who} AND u.role_id <> ${ROLE.customer} AND u.is_active AND u.deleted_at IS NULL
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
