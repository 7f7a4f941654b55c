// The Edit Customer page (/admin/customers/edit/:id, docs/specs.md#customer-records): what each staff role
// sees and may do on a customer that requireCustomerRecord let it open, the customer's record
// (contact details masked on the server for the roles that must not see them), and the profile
// save (validated, email unique, audited with before and after in the same transaction).
import type { Db, Sql } from '~/shared/db.server.ts';
import { revokeAllSessions, type CurrentSession } from '~/modules/auth/session.server.ts';
import { countryNames, countryOptions } from '~/modules/auth/countries.server.ts';
import { hashPassword } from '~/modules/auth/password.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { refuse, type Outcome } from '~/shared/result.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { maskEmail, maskPhone } from '~/shared/mask.ts';
import { LOGIN_AS_ROLES } from '~/modules/auth/impersonation.server.ts';
import type { CustomerProfileInput } from './edit-schemas.ts';
import { isAdmin, isRetentionAgent, isSalesAgent, ROLE } from '~/shared/roles.ts';

/** What the viewing staff member may do on the page. */
export interface EditAccess {
  /** the profile form's Submit (not role 6) */
  canEdit: boolean;
  /** password, manager, plan, verified and active: the back-office's (roles 1 and 2) */
  canEditAccount: boolean;
  /** Add / Subtract on the wallets (not role 6) */
  canAdjust: boolean;
  /** the Login as button (LOGIN_AS_ROLES) */
  canLoginAs: boolean;
  /** email and phone masked (role 6 always; role 5 while showUserInfoAgent is off) */
  masked: boolean;
  /** the History link to the audit trail (admins) */
  history: boolean;
}

/**
 * docs/specs.md#customer-records: a retention agent (6) sees email and phone obscured, has no Submit and no add or
 * subtract buttons; agents (5 and 6) see them masked while 'Show Email & Phone in Agent Dashboard'
 * is off (docs/specs.md#agent-masking); managers (2) edit in full; the History link is the admins' (the audit page).
 * Money and the account are the back-office's (roles 1 and 2, who reach Customers in the menu): a
 * sales agent edits the profile fields of their lead's customer, never the password, manager,
 * plan or the verified / active flags, and cannot add or subtract balance
 * (docs/specs.md#customer-records).
 */
export function editAccess(roleId: number, showUserInfoAgent: boolean): EditAccess {
  const loginAs = (LOGIN_AS_ROLES as readonly number[]).includes(roleId);
  if (isRetentionAgent(roleId)) return { canEdit: false, canEditAccount: false, canAdjust: false, canLoginAs: loginAs, masked: true, history: false };
  if (isSalesAgent(roleId)) return { canEdit: true, canEditAccount: false, canAdjust: false, canLoginAs: loginAs, masked: !showUserInfoAgent, history: false };
  return { canEdit: true, canEditAccount: true, canAdjust: true, canLoginAs: loginAs, masked: false, history: isAdmin(roleId) };
}

export async function editAccessFor(sql: Sql, s: CurrentSession): Promise<EditAccess> {
  const role = s.user.roleId;
  const show = isSalesAgent(role) ? (await getSetting(sql, 'showUserInfoAgent')).enabled === 'on' : false;
  return editAccess(role, show);
}

export interface Wallet { id: number; mode: 'demo' | 'real'; currency: string; balance: string }

export interface CustomerView {
  id: number;
  fullName: string;
  /** masked when access.masked: the full value never leaves the server */
  email: string;
  phone: string;
  birthDate: string | null;
  country: string;
  city: string;
  postalCode: string;
  address: string;
  managerId: number | null;
  pricingTableId: number | null;
  isEmailVerified: boolean;
  isActive: boolean;
  wallets: Wallet[];
}

export interface Option { value: string; label: string }

interface Stored {
  full_name: string; email: string; phone: string; birth_date: string | null; country: string; city: string;
  postal_code: string; address: string; manager_id: string | null; pricing_plan_id: string | null;
  is_email_verified: boolean; is_active: boolean;
}

async function stored(sql: Db, id: number, lock = false): Promise<Stored | undefined> {
  const [row] = await sql<Stored[]>`
    SELECT u.full_name, u.email, coalesce(p.phone, '') AS phone, to_char(p.birth_date, 'YYYY-MM-DD') AS birth_date,
           coalesce(p.country, '') AS country, coalesce(p.city, '') AS city, coalesce(p.postal_code, '') AS postal_code,
           coalesce(p.address, '') AS address, u.manager_id::text AS manager_id, u.pricing_plan_id::text AS pricing_plan_id,
           u.is_email_verified, u.is_active
      FROM users u LEFT JOIN profiles p ON p.user_id = u.id
     WHERE u.id = ${id} AND u.role_id = ${ROLE.customer} AND u.deleted_at IS NULL
     ${lock ? sql`FOR UPDATE OF u` : sql``}`;
  return row;
}

/** The customer, their wallets, and the form's choices (managers, plans, countries), in one round of queries. */
export async function loadCustomer(sql: Sql, id: number, access: EditAccess, locale = 'en') {
  const [row, wallets, managers, plans] = await Promise.all([
    stored(sql, id),
    sql`SELECT id, mode, currency, balance::text AS balance FROM balances WHERE user_id = ${id} ORDER BY mode DESC, currency, id`,
    sql`SELECT id, full_name FROM users WHERE role_id = ${ROLE.manager} AND deleted_at IS NULL ORDER BY full_name, id LIMIT 500`,
    sql`SELECT id, name FROM pricing_plans ORDER BY price, name, id LIMIT 500`,
  ]);
  if (!row) throw new Response('Not Found', { status: 404, statusText: 'Not Found' });
  const customer: CustomerView = {
    id,
    fullName: row.full_name,
    email: access.masked ? maskEmail(row.email) : row.email,
    phone: access.masked ? (row.phone ? maskPhone(row.phone) : '') : row.phone,
    birthDate: row.birth_date, country: row.country, city: row.city, postalCode: row.postal_code, address: row.address,
    managerId: row.manager_id === null ? null : Number(row.manager_id),
    pricingTableId: row.pricing_plan_id === null ? null : Number(row.pricing_plan_id),
    isEmailVerified: row.is_email_verified, isActive: row.is_active,
    wallets: wallets.map((w) => ({ id: Number(w.id), mode: w.mode, currency: String(w.currency).trim(), balance: String(w.balance) })),
  };
  return {
    customer,
    managers: managers.map((m): Option => ({ value: String(m.id), label: String(m.full_name) })),
    plans: plans.map((p): Option => ({ value: String(p.id), label: String(p.name) })),
    // a country stored before the list had it stays choosable, so an unchanged form saves
    // a country stored before the list had it stays choosable, so an unchanged form saves
    countries: countryOptions(locale, row.country),
  };
}



/**
 * Saves the profile form of customer `id`: users (name, email, password, manager, plan, flags)
 * and the profiles row in one transaction with an audit row of what changed (before and after;
 * a password change is recorded as changed, never its hash). A masked viewer's form carries no
 * email or phone, a sales agent's no account field (edit-schemas.ts ACCOUNT_FIELDS): the stored
 * ones stay. A new password ends the customer's sessions. Refusals
 * (an email another user has, a manager or plan that does not exist, a country off the list)
 * change nothing.
 */
export async function saveCustomerProfile(sql: Sql, actor: { id: number; ip: string | null }, id: number, input: CustomerProfileInput): Promise<Outcome> {
  const hash = input.password ? await hashPassword(input.password) : null;
  try {
    return await sql.begin(async (tx): Promise<Outcome> => {
      const cur = await stored(tx, id, true);
      if (!cur) return refuse(404, 'User not found');
      const email = input.email ?? cur.email;
      if (email !== cur.email) {
        const [taken] = await tx`SELECT 1 FROM users WHERE email = ${email} AND id <> ${id} AND deleted_at IS NULL`;
        if (taken) return refuse(400, 'This email is already registered.', 'email');
      }
      if (input.country && input.country !== cur.country && !countryNames().includes(input.country)) {
        return refuse(400, 'Select a country from the list', 'country');
      }
      if (input.managerId != null && String(input.managerId) !== cur.manager_id) {
        const [m] = await tx`SELECT 1 FROM users WHERE id = ${input.managerId} AND role_id = ${ROLE.manager} AND deleted_at IS NULL`;
        if (!m) return refuse(400, 'Select a manager from the list', 'managerId');
      }
      if (input.pricingTableId != null && String(input.pricingTableId) !== cur.pricing_plan_id) {
        const [p] = await tx`SELECT 1 FROM pricing_plans WHERE id = ${input.pricingTableId}`;
        if (!p) return refuse(400, 'Select a plan from the list', 'pricingTableId');
      }
      const next = {
        full_name: input.fullName, email, phone: input.phone ?? cur.phone, birth_date: input.birthDate ?? null,
        country: input.country, city: input.city, postal_code: input.postalCode, address: input.address,
        // an account field the form did not carry (a sales agent's) keeps the stored value
        manager_id: input.managerId === undefined ? cur.manager_id : input.managerId === null ? null : String(input.managerId),
        pricing_plan_id: input.pricingTableId === undefined ? cur.pricing_plan_id : input.pricingTableId === null ? null : String(input.pricingTableId),
        is_email_verified: input.isEmailVerified ?? cur.is_email_verified, is_active: input.isActive ?? cur.is_active,
      };
      await tx`
        UPDATE users SET full_name = ${next.full_name}, email = ${next.email}, manager_id = ${next.manager_id},
               pricing_plan_id = ${next.pricing_plan_id}, is_email_verified = ${next.is_email_verified},
               is_active = ${next.is_active}, updated_at = now()
               ${hash ? tx`, password_hash = ${hash}` : tx``}
         WHERE id = ${id}`;
      await tx`
        INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
        VALUES (${id}, ${next.phone}, ${next.birth_date}, ${next.country}, ${next.city}, ${next.address}, ${next.postal_code})
        ON CONFLICT (user_id) DO UPDATE SET phone = EXCLUDED.phone, birth_date = EXCLUDED.birth_date, country = EXCLUDED.country,
          city = EXCLUDED.city, address = EXCLUDED.address, postal_code = EXCLUDED.postal_code`;
      // a new password, or an account switched off, ends the customer's sessions
      if (hash || (cur.is_active && !next.is_active)) {
        await revokeAllSessions(tx, id);
      }
      const keys = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== cur[k]);
      if (keys.length || hash) {
        await audit(tx, {
          actorId: actor.id, action: 'customer.update', targetKind: 'user', targetId: id, ip: actor.ip,
          before: { ...Object.fromEntries(keys.map((k) => [k, cur[k]])), ...(hash ? { password: '(unchanged)' } : {}) },
          after: { ...Object.fromEntries(keys.map((k) => [k, next[k]])), ...(hash ? { password: '(changed)' } : {}) },
        });
      }
      return { ok: true, toast: 'User updated successfully' };
    });
  } catch (e) {
    // two saves racing for one email: the unique index decides
    if ((e as { code?: string }).code === '23505') return refuse(400, 'This email is already registered.', 'email');
    throw e;
  }
}
