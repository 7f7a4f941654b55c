// The staff member's own record (/admin/profile, docs/specs.md#profile): the staff top bar's
// Profile. What they see of themselves (name, email, role, two-factor state) and what they may
// change: their name and their page language here, their password through the /security rule
// (current password, rate limit, other sessions ended). Email, role, status and whitelist are the
// admin's (Admin & Staffs). Only ever the session's own user: no id is read from the request.
import type { Sql } from '~/shared/db.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import { audit } from '~/shared/audit.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { actingUserId } from '~/modules/auth/impersonation.server.ts';
import type { StaffProfileInput } from './schemas.ts';

export interface StaffRecordView {
  id: number;
  fullName: string;
  email: string;
  roleId: number;
  twoFactor: boolean;
}

export interface LanguageOption { code: string; name: string }

export async function loadStaffProfile(sql: Sql, s: CurrentSession, languages: readonly LanguageOption[], language: string) {
  const [row] = await sql<{ full_name: string; email: string; role_id: number; two_factor: boolean }[]>`
    SELECT u.full_name, u.email, u.role_id,
           EXISTS (SELECT 1 FROM user_two_factor t WHERE t.user_id = u.id AND t.enabled_at IS NOT NULL) AS two_factor
      FROM users u WHERE u.id = ${s.user.id} AND u.deleted_at IS NULL`;
  if (!row) throw new Response('Not Found', { status: 404 });
  const record: StaffRecordView = { id: s.user.id, fullName: row.full_name, email: row.email, roleId: Number(row.role_id), twoFactor: row.two_factor };
  return { record, languages: languages.map((l) => ({ code: l.code, name: l.name })), language };
}

export const STAFF_PROFILE_TOAST = 'Profile updated successfully';

/**
 * Saves the session user's name (audited `profile.update` when it changed) and checks the
 * language is one the site offers (the route stores it in the language cookie). Nothing else of
 * the record is touched.
 */
export async function saveStaffProfile(sql: Sql, s: CurrentSession, input: StaffProfileInput, languages: readonly LanguageOption[], ip: string | null): Promise<Outcome> {
  if (!languages.some((l) => l.code === input.language)) return refuse(400, 'Choose one of the languages offered', 'language');
  return sql.begin(async (tx): Promise<Outcome> => {
    const [cur] = await tx<{ full_name: string }[]>`SELECT full_name FROM users WHERE id = ${s.user.id} AND deleted_at IS NULL FOR UPDATE`;
    if (!cur) return refuse(404, 'Something went wrong');
    if (cur.full_name !== input.fullName) {
      await tx`UPDATE users SET full_name = ${input.fullName}, updated_at = now() WHERE id = ${s.user.id}`;
      await audit(tx, {
        actorId: actingUserId(s), action: 'profile.update', targetKind: 'user', targetId: s.user.id,
        before: { full_name: cur.full_name }, after: { full_name: input.fullName }, ip,
      });
    }
    return { ok: true, toast: STAFF_PROFILE_TOAST };
  });
}
