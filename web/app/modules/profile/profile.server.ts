// The signed-in user's profile (/profile, docs/specs.md#profile): what the form shows and its save.
// Only ever the session's own user: no id comes from the request. A retention agent signed in as
// the customer (login-as) sees the phone masked and cannot change it: the browser never receives
// it and the save keeps the stored one whatever is posted.
import type { Db, Sql } from '~/shared/db.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { countryNames } from '~/modules/auth/countries.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { actingUserId } from '~/modules/auth/impersonation.server.ts';
import { maskEmail, maskPhone } from '~/shared/mask.ts';
import type { ProfileInput } from './schemas.ts';
import { ROLE } from '~/shared/roles.ts';

/** The roles whose login-as sessions see the customer's phone masked (the spec's retention-agent flag). */
export const PHONE_MASKED_FOR_ROLES: readonly number[] = [ROLE.retention];

export interface ProfileView {
  fullName: string;
  email: string;
  /** masked when phoneLocked */
  phone: string;
  phoneLocked: boolean;
  birthDate: string | null;
  country: string;
  city: string;
  address: string;
  postalCode: string;
}

/** Whether this session may not see or change the phone: a login-as by a role of PHONE_MASKED_FOR_ROLES. */
export async function phoneLocked(sql: Sql, s: CurrentSession): Promise<boolean> {
  if (s.impersonatorId === null) return false;
  // the staff member's role is read with the session (session.server.ts findSession)
  return s.impersonatorRoleId === null || PHONE_MASKED_FOR_ROLES.includes(s.impersonatorRoleId);
}

interface Stored { full_name: string; email: string; phone: string; birth_date: string | null; country: string; city: string; address: string; postal_code: string }

async function stored(sql: Db, userId: number, lock = false): Promise<Stored | undefined> {
  const [row] = await sql<Stored[]>`
    SELECT u.full_name, u.email, coalesce(p.phone, '') AS phone, to_char(p.birth_date, 'YYYY-MM-DD') AS birth_date,
           coalesce(p.country, '') AS country, coalesce(p.city, '') AS city, coalesce(p.address, '') AS address,
           coalesce(p.postal_code, '') AS postal_code
      FROM users u LEFT JOIN profiles p ON p.user_id = u.id
     WHERE u.id = ${userId} AND u.deleted_at IS NULL
     ${lock ? sql`FOR UPDATE OF u` : sql``}`;
  return row;
}

export async function loadProfile(sql: Sql, s: CurrentSession): Promise<{ profile: ProfileView; countries: string[] }> {
  const [row, locked] = await Promise.all([stored(sql, s.user.id), phoneLocked(sql, s)]);
  if (!row) throw new Response('Not Found', { status: 404 });
  const countries = countryNames();
  return {
    profile: {
      // the email is read-only here; a retention agent's login-as sees it masked too (docs/specs.md#customer-records)
      fullName: row.full_name, email: locked ? maskEmail(row.email) : row.email, phone: locked ? maskPhone(row.phone) : row.phone, phoneLocked: locked,
      birthDate: row.birth_date, country: row.country, city: row.city, address: row.address, postalCode: row.postal_code,
    },
    // a country stored before the list had it stays choosable, so an unchanged form saves
    countries: row.country && !countries.includes(row.country) ? [row.country, ...countries] : countries,
  };
}

/**
 * Saves the profile of the session's user: users.full_name and the profiles row in one transaction,
 * with an audit row of what changed (the actor is the staff member of a login-as session). The
 * country must be one of the list (or the one already stored); a locked phone is kept as stored.
 */
export async function saveProfile(sql: Sql, s: CurrentSession, input: ProfileInput, ip: string | null): Promise<Outcome> {
  const locked = await phoneLocked(sql, s);
  return sql.begin(async (tx): Promise<Outcome> => {
    const cur = await stored(tx, s.user.id, true);
    if (!cur) return refuse(404, 'Something went wrong');
    if (input.country !== cur.country && !countryNames().includes(input.country)) return refuse(400, 'Select a country from the list', 'country');
    const next = {
      full_name: input.fullName, phone: locked || input.phone === undefined ? cur.phone : input.phone,
      birth_date: input.birthDate ?? null, country: input.country, city: input.city, address: input.address, postal_code: input.postalCode,
    };
    await tx`UPDATE users SET full_name = ${next.full_name}, updated_at = now() WHERE id = ${s.user.id}`;
    await tx`
      INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
      VALUES (${s.user.id}, ${next.phone}, ${next.birth_date}, ${next.country}, ${next.city}, ${next.address}, ${next.postal_code})
      ON CONFLICT (user_id) DO UPDATE SET phone = EXCLUDED.phone, birth_date = EXCLUDED.birth_date, country = EXCLUDED.country,
        city = EXCLUDED.city, address = EXCLUDED.address, postal_code = EXCLUDED.postal_code`;
    const keys = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== cur[k]);
    if (keys.length) {
      await audit(tx, {
        actorId: actingUserId(s), action: 'profile.update', targetKind: 'user', targetId: s.user.id,
        before: Object.fromEntries(keys.map((k) => [k, cur[k]])), after: Object.fromEntries(keys.map((k) => [k, next[k]])), ip,
      });
    }
    return { ok: true, toast: 'Profile updated successfully' };
  });
}
