// The loader and action of the notifications pages (/notifications for the client area,
// /admin/notifications for staff): the signed-in user's own notifications, a page at a time, and
// the bell's calls: open one (mark it read, then go to its url if it has one) and 'Mark all read'.
// No user id is read from the request: every statement is scoped to the session's user, so another
// user's notification id is 'Notification not found' and changes nothing.
import { z } from 'zod';
import type { Sql } from '~/shared/sql.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { auditLoginAs } from '~/modules/auth/impersonation.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseIntent, RECORD_ID } from '~/shared/forms.ts';
import { replyDone, replyRedirect, replyRefused } from '~/shared/reply.server.ts';
import { safeRedirect } from '~/shared/safe-redirect.ts';
import { listNotifications, markAllNotificationsRead, markNotificationRead } from './notifications.server.ts';

export const NOTIFICATION_ACTIONS = {
  read: z.object({ id: RECORD_ID, open: z.string().max(10).optional() }),
  readAll: z.object({}),
};

export async function notificationsLoader(sql: Sql, s: CurrentSession, params: URLSearchParams) {
  const q = listQuery(params, ['id']);
  return listNotifications(sql, s.user.id, q);
}

export async function notificationsAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseIntent(form, NOTIFICATION_ACTIONS);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  if (intent === 'readAll') {
    const n = await markAllNotificationsRead(sql, s.user.id);
    if (n) await auditLoginAs(sql, s, 'notifications.read_all', { after: { count: n }, ip: ip });
    return replyDone(submission, n ? 'Notifications marked as read' : null, { intent, values: { count: n } });
  }
  const v = submission.value as z.infer<typeof NOTIFICATION_ACTIONS.read>;
  const r = await markNotificationRead(sql, s.user.id, v.id);
  if (!r.found) return replyRefused(submission, { intent, status: 404, toast: 'Notification not found' });
  await auditLoginAs(sql, s, 'notifications.read', { after: { id: v.id }, ip: ip });
  // opening one with a url goes there: the stored url, never one from the form (only whether to go)
  if (v.open !== undefined && r.url) return replyRedirect(safeRedirect(r.url, '/'));
  return replyDone(submission, null, { intent });
}
