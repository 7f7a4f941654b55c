// Admin & Staffs (/admin/users, role 1 from the permission map; docs/specs.md#customers-and-staff-lists):
// the staff users (roles 1, 2, 4, 5, 6), searched, sorted and paged in PostgreSQL, with the
// whitelist each edit form shows; and the page's add, edit and delete (users.server.ts).
import type { Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { countUsers, searchCondition, userOrder, withSearchPlan } from '~/modules/users/user-search.server.ts';
import { onlineExpr } from '~/modules/users/online.server.ts';
import { USER_SORTABLE, parseUserForm, type AddUser, type EditUser } from './schemas.ts';
import { addUser, deleteUser, editUser, readWhitelists } from './users.server.ts';
import { ROLE } from '~/shared/roles.ts';

export interface StaffRow {
  id: number; fullName: string; email: string; roleId: number; isEmailVerified: boolean; isActive: boolean; online: boolean; whitelist: string;
}

/** One page of staff users (every role but 3, not deleted), ids first from users_staff_list_idx. */
export async function listStaff(sql: Sql, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>): Promise<{ rows: StaffRow[]; total: number; estimated: boolean }> {
  const cond = sql`u.role_id <> ${sql.unsafe(String(ROLE.customer))} AND u.deleted_at IS NULL ${searchCondition(sql, q.search)}`;
  const order = userOrder(sql, q);
  const [rows, count] = await withSearchPlan(sql, q.search, (d) => Promise.all([
    d`SELECT u.id, u.full_name, u.email, u.role_id, u.is_email_verified, u.is_active, ${onlineExpr(sql)} AS online
        FROM (SELECT u.id FROM users u WHERE ${cond} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}) page
        JOIN users u ON u.id = page.id
       ORDER BY ${order}`,
    countUsers(d, cond, q.search),
  ]));
  const lists = await readWhitelists(sql, rows.map((r) => Number(r.id)));
  return {
    total: count.total, estimated: count.estimated,
    rows: rows.map((r): StaffRow => ({
      id: Number(r.id), fullName: r.full_name, email: r.email, roleId: Number(r.role_id),
      isEmailVerified: r.is_email_verified, isActive: r.is_active, online: r.online, whitelist: lists.get(Number(r.id)) ?? '',
    })),
  };
}

export async function usersLoader(sql: Sql, s: CurrentSession, params: URLSearchParams) {
  const list = await listStaff(sql, listQuery(params, USER_SORTABLE));
  return { ...list, me: s.user.id };
}

/** POST: add, edit or delete one staff user. */
export async function usersAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseUserForm(form);
  if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: ['password'] });
  const actor = { id: s.user.id, roleId: s.user.roleId, ip: ip };
  const v = submission.value;
  const r = intent === 'add' ? await addUser(sql, actor, v as AddUser)
    : intent === 'edit' ? await editUser(sql, actor, v as EditUser)
      : await deleteUser(sql, actor, (v as { id: number }).id, 'users');
  if (r.ok) return replyDone(submission, r.toast, { intent, hideFields: ['password'] });
  return replyRefusal(submission, r, { intent, hideFields: ['password'] });
}
