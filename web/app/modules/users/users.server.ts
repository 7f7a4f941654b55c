// Adding, editing and deleting users from the back-office (docs/specs.md#customers-and-staff-lists):
// the add-user modal of the customer lists and of Admin & Staffs, the edit-user modal and the delete
// of both. Every change is one transaction with its audit row (before and after, never the
// password hash). The rules that keep the site administrable (someone stays an active admin, an
// admin does not remove or demote themselves) are checked under a lock of every active admin
// row, so two concurrent demotions cannot both pass.
import { BlockList, isIP } from 'node:net';
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { abort, refuse, refusalOf, type Outcome } from '~/shared/result.server.ts';
import { hashPassword } from '~/modules/auth/password.server.ts';
import { loadAuthConfig, provisionCustomer } from '~/modules/auth/auth.server.ts';
import { revokeAllSessions } from '~/modules/auth/session.server.ts';
import { auditIp } from '~/modules/trades/trades.server.ts';
import { MAX_WHITELIST, USER_MESSAGES, USER_TOASTS, type AddUser, type EditUser, type UserListKind } from './schemas.ts';
import { isAdmin, isCustomer, ROLE } from '~/shared/roles.ts';

export interface Actor { id: number; roleId: number; ip: string | null }

export type UserActionResult = Outcome<{ id?: number }>;


// ---------------------------------------------------------------- whitelist

/**
 * The edit form's whitelist: comma-separated IP addresses (v4 or v6) or CIDR ranges. Blank is an
 * empty list (whitelisting off). Each entry is checked with node:net (an address isIP accepts, a
 * prefix length the family allows, read by BlockList) before PostgreSQL's inet sees it.
 */
export function parseWhitelist(text: string): { ok: true; entries: string[] } | { ok: false; message: string; entry?: string } {
  const parts = text.split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
  if (parts.length > MAX_WHITELIST) return { ok: false, message: USER_MESSAGES.whitelistTooMany };
  const entries: string[] = [];
  // the refusal names the entry that is wrong (cut short: the field allows 2,000 characters)
  const bad = (entry: string) => ({ ok: false as const, message: USER_MESSAGES.whitelistInvalid, entry: entry.length > 60 ? `${entry.slice(0, 60)}…` : entry });
  for (const p of parts) {
    const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(p);
    const family = m ? isIP(m[1]) : 0;
    if (!m || family === 0) return bad(p);
    if (m[2] !== undefined) {
      const bits = Number(m[2]);
      if (bits > (family === 4 ? 32 : 128) || (m[2].length > 1 && m[2].startsWith('0'))) return bad(p);
      try {
        new BlockList().addSubnet(m[1], bits, family === 4 ? 'ipv4' : 'ipv6');
      } catch {
        return bad(p);
      }
    }
    const entry = m[2] === undefined ? m[1].toLowerCase() : `${m[1].toLowerCase()}/${m[2]}`;
    if (!entries.includes(entry)) entries.push(entry);
  }
  return { ok: true, entries };
}

/** Whether `ip` is one of the whitelist's entries or inside one of its ranges (node:net's BlockList). */
export function whitelistAllows(entries: string[], ip: string): boolean {
  const family = isIP(ip);
  if (!family) return false;
  const list = new BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split('/');
    const type = isIP(addr) === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** The whitelist as the edit form shows it (stored as user_ip_whitelist rows, as sign-in reads it). */
export async function readWhitelists(sql: Sql, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await sql`SELECT user_id, string_agg(CASE WHEN family(ip_address) = 4 AND masklen(ip_address) = 32 OR masklen(ip_address) = 128
                                                         THEN host(ip_address) ELSE ip_address::text END, ', ' ORDER BY ip_address) AS list
                           FROM user_ip_whitelist WHERE user_id IN ${sql(ids)} GROUP BY user_id`;
  return new Map(rows.map((r) => [Number(r.user_id), String(r.list)]));
}

// ---------------------------------------------------------------- the shared pieces

interface UserState {
  id: number; email: string; fullName: string; roleId: number; isActive: boolean; isEmailVerified: boolean; whitelist?: string[];
}

async function lockUser(tx: Db, id: number): Promise<UserState | null> {
  const [u] = await tx`SELECT id, email, full_name, role_id, is_active, is_email_verified FROM users
                        WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`;
  return u ? { id: Number(u.id), email: u.email, fullName: u.full_name, roleId: Number(u.role_id), isActive: u.is_active, isEmailVerified: u.is_email_verified } : null;
}

/**
 * Locks every active admin row (in id order, so two of these never deadlock) and answers their
 * ids. A transaction that removes an admin holds these locks until it commits; the next one
 * waits, then sees the committed change (READ COMMITTED re-checks the locked rows) and counts
 * what is left.
 */
async function lockActiveAdmins(tx: Db): Promise<number[]> {
  const rows = await tx`SELECT id FROM users WHERE role_id = ${ROLE.admin} AND is_active AND deleted_at IS NULL ORDER BY id FOR UPDATE`;
  return rows.map((r) => Number(r.id));
}

const isUniqueViolation = (e: unknown) => (e as { code?: string })?.code === '23505';

async function emailTaken(tx: Db, email: string, exceptId?: number): Promise<boolean> {
  const [row] = await tx`SELECT 1 FROM users WHERE email = ${email} AND deleted_at IS NULL ${exceptId ? tx`AND id <> ${exceptId}` : tx``}`;
  return !!row;
}

// the user's sessions and the login-as sessions they opened (docs/specs.md#login-as)
async function revokeSessions(tx: Db, userId: number) {
  await revokeAllSessions(tx, userId);
  await tx`UPDATE users SET online = false WHERE id = ${userId}`;
}

// ---------------------------------------------------------------- add

/**
 * The add-user modal. On a customer list only a customer (role 3) may be added by a manager; an
 * admin may add any role. A customer gets what sign-up gives (auth.server.ts provisionCustomer:
 * profile, demo and real wallets through the ledger, the CRM client lead); staff an empty profile.
 */
export async function addUser(sql: Sql, actor: Actor, v: AddUser): Promise<UserActionResult> {
  if (!isCustomer(v.roleId) && !isAdmin(actor.roleId)) return refuse(403, USER_MESSAGES.roleNotAllowed, 'roleId');
  const cfg = isCustomer(v.roleId) ? await loadAuthConfig(sql) : null;
  const hash = await hashPassword(v.password);
  try {
    const id = await sql.begin(async (tx) => {
      if (await emailTaken(tx, v.email)) abort(409, USER_MESSAGES.emailTaken, 'email');
      const [u] = await tx`
        INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified)
        VALUES (${v.email}, ${hash}, ${v.fullName}, ${v.roleId}, ${v.isActive}, ${v.isEmailVerified}) RETURNING id`;
      const id = Number(u.id);
      if (cfg) {
        await provisionCustomer(tx, cfg, id, {
          email: v.email, fullName: v.fullName, phone: '', country: '', city: '', address: '', postalCode: '', currency: cfg.currencies[0],
        });
      } else {
        await tx`INSERT INTO profiles (user_id) VALUES (${id})`;
      }
      await audit(tx, {
        actorId: actor.id, action: 'user.create', targetKind: 'user', targetId: id, ip: auditIp(actor.ip),
        after: { email: v.email, fullName: v.fullName, roleId: v.roleId, isActive: v.isActive, isEmailVerified: v.isEmailVerified },
      });
      return id;
    });
    return { ok: true, toast: USER_TOASTS.added, id };
  } catch (e) {
    const refused = refusalOf(e);
    if (refused) return refused;
    if (isUniqueViolation(e)) return refuse(409, USER_MESSAGES.emailTaken, 'email'); // a concurrent add won
    throw e;
  }
}

// ---------------------------------------------------------------- edit (Admin & Staffs)

/**
 * The edit-user modal of Admin & Staffs: name, email, optional new password, role (staff roles),
 * email verified, active and the IP whitelist. A new password or a deactivation ends every
 * session of the user.
 */
export async function editUser(sql: Sql, actor: Actor, v: EditUser): Promise<UserActionResult> {
  const wl = parseWhitelist(v.whitelist);
  if (!wl.ok) {
    // the toast names the bad entry; the field keeps the rule (field errors are shown without values)
    return wl.entry === undefined ? refuse(400, wl.message, 'whitelist')
      : refuse(400, USER_MESSAGES.whitelistBadEntry, 'whitelist', { entry: wl.entry }, wl.message);
  }
  // an admin does not shut themselves out: their own whitelist must hold the address they use now
  if (v.id === actor.id && wl.entries.length && !(actor.ip && whitelistAllows(wl.entries, actor.ip))) {
    return refuse(409, USER_MESSAGES.whitelistSelf, 'whitelist');
  }
  const hash = v.password ? await hashPassword(v.password) : null;
  try {
    await sql.begin(async (tx) => {
      const admins = await lockActiveAdmins(tx);
      const before = await lockUser(tx, v.id);
      if (!before || isCustomer(before.roleId)) abort(404, USER_MESSAGES.notFound);
      if (v.id === actor.id && v.roleId !== before.roleId) abort(409, USER_MESSAGES.selfDemote, 'roleId');
      if (v.id === actor.id && !v.isActive) abort(409, USER_MESSAGES.selfDeactivate, 'isActive');
      const removesAdmin = isAdmin(before.roleId) && before.isActive && (!isAdmin(v.roleId) || !v.isActive);
      if (removesAdmin && admins.filter((a) => a !== v.id).length === 0) abort(409, USER_MESSAGES.lastAdmin, !isAdmin(v.roleId) ? 'roleId' : 'isActive');
      if (v.email !== before.email && await emailTaken(tx, v.email, v.id)) abort(409, USER_MESSAGES.emailTaken, 'email');
      const [oldList] = await tx`SELECT coalesce(array_agg(ip_address::text ORDER BY ip_address), '{}') AS list FROM user_ip_whitelist WHERE user_id = ${v.id}`;
      await tx`UPDATE users SET full_name = ${v.fullName}, email = ${v.email}, role_id = ${v.roleId}, is_active = ${v.isActive},
                      is_email_verified = ${v.isEmailVerified}, updated_at = now()
                      ${hash ? tx`, password_hash = ${hash}` : tx``}
                WHERE id = ${v.id}`;
      await tx`DELETE FROM user_ip_whitelist WHERE user_id = ${v.id}`;
      if (wl.entries.length) {
        await tx`INSERT INTO user_ip_whitelist (user_id, ip_address)
                 SELECT ${v.id}, e::inet FROM unnest(${wl.entries}::text[]) e ON CONFLICT DO NOTHING`;
      }
      const [newList] = await tx`SELECT coalesce(array_agg(ip_address::text ORDER BY ip_address), '{}') AS list FROM user_ip_whitelist WHERE user_id = ${v.id}`;
      const deactivated = before.isActive && !v.isActive;
      if (hash || deactivated) await revokeSessions(tx, v.id);
      await audit(tx, {
        actorId: actor.id, action: 'user.update', targetKind: 'user', targetId: v.id, ip: auditIp(actor.ip),
        before: { email: before.email, fullName: before.fullName, roleId: before.roleId, isActive: before.isActive, isEmailVerified: before.isEmailVerified, whitelist: oldList.list },
        after: {
          email: v.email, fullName: v.fullName, roleId: v.roleId, isActive: v.isActive, isEmailVerified: v.isEmailVerified, whitelist: newList.list,
          passwordChanged: !!hash, sessionsRevoked: !!(hash || deactivated),
        },
      });
    });
    return { ok: true, toast: USER_TOASTS.updated };
  } catch (e) {
    const refused = refusalOf(e);
    if (refused) return refused;
    if (isUniqueViolation(e)) return refuse(409, USER_MESSAGES.emailTaken, 'email');
    throw e;
  }
}

// ---------------------------------------------------------------- delete

/**
 * A soft delete (users.deleted_at): the ledger, orders and audit trail stay; the user's sessions
 * are revoked and the email is free again. From a customer list only customers, and only with
 * no open position, no money in a real wallet (demo money is play money) and no pending
 * withdrawal, checked under the lock of the user's wallets (an order or a ledger posting locks
 * its wallet first). From Admin & Staffs only staff, never oneself nor the last active admin.
 */
export async function deleteUser(sql: Sql, actor: Actor, id: number, list: UserListKind): Promise<UserActionResult> {
  try {
    await sql.begin(async (tx) => {
      const admins = list === 'users' ? await lockActiveAdmins(tx) : [];
      const before = await lockUser(tx, id);
      if (!before || (list === 'customers') !== isCustomer(before.roleId)) abort(404, USER_MESSAGES.notFound);
      if (id === actor.id) abort(409, USER_MESSAGES.selfDelete);
      if (isAdmin(before.roleId) && before.isActive && admins.filter((a) => a !== id).length === 0) abort(409, USER_MESSAGES.lastAdmin);
      if (isCustomer(before.roleId)) {
        const wallets = await tx`SELECT id, mode, balance <> 0 OR margin <> 0 AS funded FROM balances WHERE user_id = ${id} ORDER BY id FOR UPDATE`;
        const ids = wallets.map((w) => String(w.id));
        const [open] = ids.length
          ? await tx`SELECT 1 FROM orders WHERE balance_id IN ${tx(ids)} AND close_time IS NULL AND deleted_at IS NULL LIMIT 1`
          : [];
        const money = { open: !!open, money: wallets.some((w) => w.mode === 'real' && w.funded) };
        if (money.open) abort(409, USER_MESSAGES.openPositions);
        if (money.money) abort(409, USER_MESSAGES.money);
        const [pending] = await tx`SELECT 1 FROM withdrawals WHERE user_id = ${id} AND status = 'pending' LIMIT 1`;
        if (pending) abort(409, USER_MESSAGES.pendingWithdrawals);
      }
      await tx`UPDATE users SET deleted_at = now(), is_active = false, updated_at = now() WHERE id = ${id}`;
      await revokeSessions(tx, id);
      await audit(tx, {
        actorId: actor.id, action: 'user.delete', targetKind: 'user', targetId: id, ip: auditIp(actor.ip),
        before: { email: before.email, fullName: before.fullName, roleId: before.roleId, isActive: before.isActive, isEmailVerified: before.isEmailVerified },
        after: { deleted: true, sessionsRevoked: true },
      });
    });
    return { ok: true, toast: list === 'customers' ? USER_TOASTS.customersDeleted : USER_TOASTS.deleted };
  } catch (e) {
    const refused = refusalOf(e);
    if (refused) return refused;
    throw e;
  }
}
