// A customer's notifications: a row in their dropdown, and the same event live on their stream
// (user:{id}), which toasts it, plays the sound and refreshes the dropdown. The row is written in
// the transaction of the change it tells about; the live event is sent after that commits.
import type { Sql } from '~/utils/db.server.ts';
import { engine } from '~/modules/trading/engine.server.ts';

/** The values a notification carries for the web to word and format in the reader's language. */
export type NotificationData =
  | { kind: 'position.closed'; id: number; reason: string; side: 'buy' | 'sell'; amount: string; instrument: string; rate: string | null; digits: number; pnl: string }
  | { kind: 'money.decided'; subject: 'deposit' | 'withdrawal'; id: number; decision: 'approved' | 'declined'; amount: string; currency: string; reason: string | null }
  | { kind: 'kyc.decided'; id: number; decision: 'approved' | 'declined'; reason: string | null }
  | { kind?: undefined };

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

/** The live events, best effort: the row is already in the dropdown whatever happens here. */
export async function publishNotices(notices: readonly Notice[]): Promise<void> {
  await Promise.all(notices.map(async (n) => {
    const r = await engine().publish({
      topic: `user:${n.userId}`, event: 'notification',
      data: { id: n.id, title: n.title, description: n.description, url: n.url, data: n.data },
    });
    if (!r.ok) console.warn(`[notifications] live event for user ${n.userId} not sent: ${r.message}`);
  }));
}
