// The customer lists (/admin/customers/all and /inactive, roles 1 and 2 from the permission map;
// docs/specs.md#customers-and-staff-lists): read, searched, sorted and paged in PostgreSQL, with
// each row's live presence; and the page's two actions, add (the add-user modal, a customer by
// default) and delete (a soft delete with its refusals), in modules/users/users.server.ts.
import type { Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { addUser, deleteUser } from '~/modules/users/users.server.ts';
import { USER_SORTABLE, parseCustomerForm, type AddUser } from '~/modules/users/schemas.ts';
import { onlineExpr } from '~/modules/users/online.server.ts';
import { countLimit, countUsers, searchCondition, userOrder, withSearchPlan } from '~/modules/users/user-search.server.ts';
import { isAdmin, ROLE } from '~/shared/roles.ts';

export type CustomerListType = 'all' | 'inactive';

export interface CustomerRow {
  id: number; fullName: string; email: string; phone: string; birthDate: string | null; country: string;
  roleId: number; isEmailVerified: boolean; isActive: boolean; online: boolean;
}

type Q = Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>;

/**
 * One page of customers (role 3, not deleted; the inactive list only is_active = false). The
 * page's ids come from the users' indexes first; then only those rows are read with their
 * profile and presence: no N+1, a deep page costs the index entries walked to it.
 */
export async function listCustomers(sql: Sql, type: CustomerListType, q: Q): Promise<{ rows: CustomerRow[]; total: number; estimated: boolean }> {
  const cond = sql`u.role_id = ${ROLE.customer} AND u.deleted_at IS NULL ${type === 'inactive' ? sql`AND NOT u.is_active` : sql``} ${searchCondition(sql, q.search)}`;
  const order = userOrder(sql, q);
  const [rows, count] = await withSearchPlan(sql, q.search, (d) => Promise.all([
    d`SELECT u.id, u.full_name, u.email, u.role_id, u.is_email_verified, u.is_active,
             coalesce(p.phone, '') AS phone, to_char(p.birth_date, 'YYYY-MM-DD') AS birth_date, coalesce(p.country, '') AS country,
             ${onlineExpr(sql)} AS online
        FROM (SELECT u.id FROM users u WHERE ${cond} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}) page
        JOIN users u ON u.id = page.id
        LEFT JOIN profiles p ON p.user_id = u.id
       ORDER BY ${order}`,
    countUsers(d, cond, q.search),
  ]));
  const seen = q.offset + rows.length + (count.estimated && rows.length === q.limit ? 1 : 0);
  return {
    total: count.estimated ? Math.max(count.total, seen) : count.total,
    estimated: count.estimated,
    rows: rows.map((r): CustomerRow => ({
      id: Number(r.id), fullName: r.full_name, email: r.email, phone: r.phone, birthDate: r.birth_date, country: r.country,
      roleId: Number(r.role_id), isEmailVerified: r.is_email_verified, isActive: r.is_active, online: r.online,
    })),
  };
}

export async function customersLoader(sql: Sql, s: CurrentSession, type: CustomerListType, params: URLSearchParams) {
  {
    const q = listQuery(params, USER_SORTABLE);
    const list = await listCustomers(sql, type, q);
    return { type, ...list, countLimit: countLimit(q.search), canAddStaff: isAdmin(s.user.roleId) };
  }
}
export type CustomersLoader = typeof customersLoader;

/** POST: add (the add-user modal) or delete (after the confirmation) one user. */
export async function customersAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseCustomerForm(form);
  if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: ['password'] });
  const actor = { id: s.user.id, roleId: s.user.roleId, ip: ip };
  const v = submission.value;
  const r = intent === 'add'
    ? await addUser(sql, actor, v as AddUser)
    : await deleteUser(sql, actor, (v as { id: number }).id, 'customers');
  if (r.ok) return replyDone(submission, r.toast, { intent, hideFields: ['password'] });
  return replyRefusal(submission, r, { intent, hideFields: ['password'] });
}
