// Searching, ordering and counting a list of users (the customers' lists and the staff's), and
// who is online: the users table's list rules, one place for both lists.
import type postgres from 'postgres';
import type { Db, Sql } from '~/shared/db.server.ts';
import type { ListQuery } from '~/components/ui/list-params.ts';
import { prefixMatch } from '~/shared/prefix-search.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';
import { boundedCount, SEARCH_COUNT_LIMIT } from '~/shared/bounded-count.server.ts';

const PHONE = /^\+?[0-9][0-9 ()-]{0,30}$/;

/**
 * The search box: a number is a customer id or the start of a phone number; other text is the
 * start of the full name (any case) or of the email. Each branch has its index
 * (users_pkey, profiles_phone_idx, users_full_name_idx, users_email_pattern_idx).
 */
export function searchCondition(sql: Db, term: string): postgres.Fragment {
  const s = term.trim();
  if (!s) return sql``;
  if (PHONE.test(s)) {
    const id = /^[0-9]{1,15}$/.test(s) ? Number(s) : null;
    return sql`AND (${id !== null ? sql`u.id = ${id} OR` : sql``}
                    u.id IN (SELECT p.user_id FROM profiles p WHERE ${prefixMatch(sql, sql`p.phone`, s)}))`;
  }
  const lower = s.toLowerCase();
  return sql`AND (${prefixMatch(sql, sql`lower(u.full_name)`, lower)} OR ${prefixMatch(sql, sql`u.email`, lower)})`;
}

/** The order of a users list: by id, full name (any case) or email, the id breaking ties. */
export function userOrder(sql: Sql, q: Pick<ListQuery, 'sort' | 'dir'>): postgres.Fragment {
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  if (q.sort === 'full_name') return sql`lower(u.full_name) ${dir}, u.id ${dir}`;
  if (q.sort === 'email') return sql`u.email ${dir}, u.id ${dir}`;
  return sql`u.id ${dir}`;
}

export { SEARCH_COUNT_LIMIT };

/** The count limit of a users list: EXACT_COUNT_LIMIT, or SEARCH_COUNT_LIMIT while searched. */
export const countLimit = (search: string) => (search.trim() ? SEARCH_COUNT_LIMIT : EXACT_COUNT_LIMIT);

/** How many users a list's condition holds (shared/bounded-count.server.ts). */
export function countUsers(sql: Db, cond: postgres.Fragment, search: string) {
  return boundedCount(sql, sql`users u`, cond, countLimit(search));
}

/**
 * Runs a list's reads; a text search is planned for the term at hand (a plan cached for any
 * prefix guesses it matches a few users, and walks every customer for a broad one), as the
 * withdrawals list does.
 */
export async function withSearchPlan<T>(sql: Sql, search: string, read: (db: Db) => Promise<T>): Promise<T> {
  if (!search.trim()) return read(sql);
  return sql.begin(async (tx) => {
    await tx`SET LOCAL plan_cache_mode = force_custom_plan`;
    return read(tx);
  }) as Promise<T>;
}
