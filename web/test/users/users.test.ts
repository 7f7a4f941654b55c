// Admin & Staffs (/admin/users) against PostgreSQL: admins only, staff roles listed, the add and
// edit forms' messages, the IP whitelist (validated, stored as sign-in reads it), the last-admin
// and self rules (also under two concurrent demotions), session revocation and the audit trail.
import { describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, get, post, uniqueEmail, uniqueIp, testAuthConfig, postgresStore, PASSWORD } from '../helpers.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';
import { loader, action } from '~/routes/_staff.admin.users.tsx';
import { editUser, parseWhitelist, whitelistAllows } from '~/modules/users/users.server.ts';
import { getSession } from '~/modules/auth/session.server.ts';
import { signIn, AuthError } from '~/modules/auth/auth.server.ts';
import type { StaffRow } from '~/modules/users/list.server.ts';

const sql = testSql(6);
const load = (path: string, cookie: string) => answer(loader({ request: get(path, cookie), params: {}, context: {} } as never));
const act = (body: Record<string, string>, cookie: string) => answer(action({ request: post('/admin/users', body, { cookie }), params: {}, context: {} } as never));
type ListBody = { rows: StaffRow[]; total: number };

async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}

function editBody(u: { id: number; email: string }, over: Record<string, string> = {}) {
  return { intent: 'edit', id: String(u.id), fullName: 'Edited Name', email: u.email, password: '', roleId: '5', isEmailVerified: 'on', isActive: 'on', whitelist: '', ...over };
}

/** Every active admin but `keep` stops being one, so the test controls how many remain. */
async function onlyAdmins(...keep: number[]) {
  await sql`UPDATE users SET role_id = 2 WHERE role_id = 1 AND is_active AND deleted_at IS NULL AND NOT (id = ANY(${keep}::bigint[]))`;
}

describe('Admin & Staffs', () => {
  test('admins only; every staff role listed with its columns, customers never', async () => {
    const admin = await staff(1);
    for (const role of [2, 3, 4, 5, 6]) {
      const s = await staff(role);
      expect((await load('/admin/users', s.cookie)).status, `role ${role}`).toBe(403);
      expect((await act({ intent: 'delete', id: String(admin.id) }, s.cookie)).status, `role ${role} posts`).toBe(403);
    }
    const made = await Promise.all([1, 2, 4, 5, 6].map((r) => createUser(sql, { roleId: r, email: uniqueEmail(`stafflist${r}-`) })));
    const customer = await createUser(sql, { email: uniqueEmail('stafflist3-') });
    const a = await load('/admin/users?search=stafflist&limit=50', admin.cookie);
    expect(a.status).toBe(200);
    const rows = (a.body as unknown as ListBody).rows;
    for (const m of made) expect(rows.map((r) => r.id)).toContain(m.id);
    expect(rows.map((r) => r.id)).not.toContain(customer.id);
    const one = rows.find((r) => r.id === made[3].id)!;
    expect(one).toEqual({ id: made[3].id, fullName: expect.any(String), email: made[3].email, roleId: 5, isEmailVerified: true, isActive: true, online: false, whitelist: '' });
  });

  test('add: an admin by default, a staff role; messages of the required fields', async () => {
    const admin = await staff(1);
    const email = uniqueEmail('newstaff');
    const a = await act({ intent: 'add', fullName: 'New Staff', email, password: 'long-enough-1', roleId: '1', isEmailVerified: 'on', isActive: 'on' }, admin.cookie);
    expect(a.body?.toast).toBe('User added successfully');
    const [u] = await sql`SELECT role_id, is_active FROM users WHERE email = ${email}`;
    expect(u).toMatchObject({ role_id: 1, is_active: true });
    expect(await sql`SELECT 1 FROM balances b JOIN users u ON u.id = b.user_id WHERE u.email = ${email}`).toHaveLength(0); // staff have no wallets
    const r = await act({ intent: 'add', fullName: ' ', email: 'x', password: '1234567', roleId: '1' }, admin.cookie);
    expect(r.status).toBe(400);
    expect(fieldErrors(r)).toMatchObject({ fullName: ['Full name is required'], email: ['Invalid email'], password: ['Password must be at least 8 characters'] });
    // the spec's add form offers every role, 1 to 6: a customer added here is provisioned as on the customer lists
    const customerEmail = uniqueEmail('fromstaff');
    const c = await act({ intent: 'add', fullName: 'C Customer', email: customerEmail, password: 'long-enough-1', roleId: '3', isActive: 'on' }, admin.cookie);
    expect(c.body?.toast).toBe('User added successfully');
    expect(await sql`SELECT b.mode::text FROM balances b JOIN users u ON u.id = b.user_id WHERE u.email = ${customerEmail} ORDER BY 1`).toEqual([{ mode: 'demo' }, { mode: 'real' }]);
    for (const roleId of ['0', '7', 'x']) {
      expect(fieldErrors(await act({ intent: 'add', fullName: 'C', email: uniqueEmail(), password: 'long-enough-1', roleId }, admin.cookie)).roleId, roleId)
        .toEqual([roleId === 'x' ? 'Role is required' : 'Choose one of the roles offered']);
    }
  });

  test('edit: role, name, flags and whitelist saved and audited with before and after; a new password ends the sessions', async () => {
    const admin = await staff(1);
    const target = await createUser(sql, { roleId: 4 });
    const s = await sessionFor(sql, target.id);
    const a = await act(editBody(target, { roleId: '6', whitelist: '203.0.113.5, 10.0.0.0/8 ,2001:db8::/32' }), admin.cookie);
    expect(a.body?.toast).toBe('User updated successfully');
    const [u] = await sql`SELECT role_id, full_name, password_hash FROM users WHERE id = ${target.id}`;
    expect(u).toMatchObject({ role_id: 6, full_name: 'Edited Name' });
    const wl = await sql`SELECT ip_address::text AS ip FROM user_ip_whitelist WHERE user_id = ${target.id} ORDER BY ip_address`;
    expect(wl.map((r) => r.ip).sort()).toEqual(['10.0.0.0/8', '2001:db8::/32', '203.0.113.5/32'].sort());
    expect(await getSession(sql, get('/affiliate', s.cookie), '203.0.113.5')).not.toBeNull(); // password unchanged: still signed in
    expect(await getSession(sql, get('/affiliate', s.cookie), '10.20.30.40')).not.toBeNull(); // inside the range
    expect(await getSession(sql, get('/affiliate', s.cookie), '192.0.2.1')).toBeNull(); // outside: the sign-in check reads it
    const list = (await load(`/admin/users?search=${encodeURIComponent(target.email)}`, admin.cookie)).body as unknown as ListBody;
    expect(list.rows[0].whitelist.split(', ').sort()).toEqual(['10.0.0.0/8', '2001:db8::/32', '203.0.113.5'].sort());

    const [row] = await sql`SELECT before, after FROM audit_events WHERE action = 'user.update' AND target_id = ${String(target.id)} ORDER BY id DESC LIMIT 1`;
    expect(row.before).toMatchObject({ roleId: 4, whitelist: [] });
    expect(row.after).toMatchObject({ roleId: 6, fullName: 'Edited Name', passwordChanged: false });
    expect(JSON.stringify([row.before, row.after])).not.toContain(u.password_hash);

    // a new password: saved, every session revoked; blank whitelist turns it off
    await act(editBody(target, { roleId: '6', password: 'brand-new-pass' }), admin.cookie);
    expect(await sql`SELECT 1 FROM sessions WHERE user_id = ${target.id} AND revoked_at IS NULL`).toHaveLength(0);
    expect(await sql`SELECT 1 FROM user_ip_whitelist WHERE user_id = ${target.id}`).toHaveLength(0);
    const [after] = await sql`SELECT password_hash FROM users WHERE id = ${target.id}`;
    expect(after.password_hash).not.toBe(u.password_hash);
    const [last] = await sql`SELECT after FROM audit_events WHERE action = 'user.update' AND target_id = ${String(target.id)} ORDER BY id DESC LIMIT 1`;
    expect(last.after).toMatchObject({ passwordChanged: true, sessionsRevoked: true });
    expect(JSON.stringify(last.after)).not.toContain(after.password_hash);
    const signed = await signIn(sql, postgresStore(sql), testAuthConfig(), { email: target.email, password: 'brand-new-pass', remember: false, ip: uniqueIp() } as never);
    expect(signed.step).toBe('session');
  });

  test('edit: a deactivation ends the sessions; short password, taken email and bad whitelists are field errors that change nothing', async () => {
    const admin = await staff(1);
    const target = await createUser(sql, { roleId: 5 });
    await sessionFor(sql, target.id);
    expect(fieldErrors(await act(editBody(target, { password: 'short' }), admin.cookie)).password).toEqual(['Password must be at least 8 characters']);
    const other = await createUser(sql, { roleId: 2 });
    const taken = await act(editBody(target, { email: other.email.toUpperCase() }), admin.cookie);
    expect(taken.status).toBe(409);
    expect(fieldErrors(taken).email).toEqual(['This email is already registered.']);
    for (const bad of ['999.1.1.1', '10.0.0.0/33', 'localhost', '10.0.0.1/', '::1/129', '1.2.3.4/08', '10.0.0.0/8; DROP TABLE users']) {
      const r = await act(editBody(target, { whitelist: bad }), admin.cookie);
      expect(r.status, bad).toBe(400);
      expect(fieldErrors(r).whitelist, bad).toEqual(['Enter IP addresses or CIDR ranges separated by commas, like 203.0.113.5, 10.0.0.0/8']);
    }
    // the message names the entry that is wrong, among good ones
    const named = await act(editBody(target, { whitelist: '203.0.113.5, 10.0.0.0/8, 10.0.0.300, ::1' }), admin.cookie);
    expect(named.body).toMatchObject({ toast: 'Not an IP address or CIDR range: {{entry}}', values: { entry: '10.0.0.300' } });
    expect(parseWhitelist('1.2.3.4, localhost')).toMatchObject({ ok: false, entry: 'localhost' });
    expect(fieldErrors(await act(editBody(target, { whitelist: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`).join(',') }), admin.cookie)).whitelist)
      .toEqual(['The whitelist allows at most 50 entries']);
    expect(await sql`SELECT 1 FROM sessions WHERE user_id = ${target.id} AND revoked_at IS NULL`).toHaveLength(1);
    const [still] = await sql`SELECT role_id, email FROM users WHERE id = ${target.id}`;
    expect(still).toMatchObject({ role_id: 5, email: target.email });

    await act(editBody(target, { isActive: '' }), admin.cookie);
    const [u] = await sql`SELECT is_active FROM users WHERE id = ${target.id}`;
    expect(u.is_active).toBe(false);
    expect(await sql`SELECT 1 FROM sessions WHERE user_id = ${target.id} AND revoked_at IS NULL`).toHaveLength(0);
    // customers are not edited here
    const c = await createUser(sql);
    expect((await act(editBody(c), admin.cookie)).status).toBe(404);
    expect((await act(editBody({ id: 0, email: c.email }), admin.cookie)).status).toBe(400);
  });

  test("an admin's own whitelist must hold the address they use now", async () => {
    const me = await createUser(sql, { roleId: 1 });
    const actor = { id: me.id, roleId: 1, ip: '198.51.100.7' };
    const edit = (whitelist: string) => editUser(sql, actor, { id: me.id, fullName: 'Me', email: me.email, roleId: 1, isEmailVerified: true, isActive: true, whitelist });
    expect(await edit('203.0.113.5')).toMatchObject({ ok: false, field: 'whitelist', message: 'Your own whitelist must include the address you are using now.' });
    expect(await sql`SELECT 1 FROM user_ip_whitelist WHERE user_id = ${me.id}`).toHaveLength(0);
    expect(await edit('203.0.113.5, 198.51.100.0/24')).toMatchObject({ ok: true });
    expect(await edit('')).toMatchObject({ ok: true });
    expect(whitelistAllows(['10.0.0.0/8', '2001:db8::/32', '203.0.113.5'], '10.9.8.7')).toBe(true);
    expect(whitelistAllows(['10.0.0.0/8', '2001:db8::/32', '203.0.113.5'], '2001:db8::1')).toBe(true);
    expect(whitelistAllows(['10.0.0.0/8'], '11.0.0.1')).toBe(false);
  });

  test('parseWhitelist: addresses and ranges of both families, blank is off', () => {
    expect(parseWhitelist('')).toEqual({ ok: true, entries: [] });
    expect(parseWhitelist(' 1.2.3.4 ,1.2.3.4, ::1, fe80::/10 ')).toEqual({ ok: true, entries: ['1.2.3.4', '::1', 'fe80::/10'] });
    expect(parseWhitelist('1.2.3.4/32').ok).toBe(true);
    expect(parseWhitelist('1.2.3/24').ok).toBe(false);
  });
});

describe('the last admin and oneself', () => {
  // these tests change who the admins are: one file, run in order
  test('an admin cannot delete, demote or deactivate themselves', async () => {
    const me = await staff(1);
    const d = await act({ intent: 'delete', id: String(me.id) }, me.cookie);
    expect(d.status).toBe(409);
    expect(d.body?.toast).toBe('You cannot delete your own account.');
    const r = await act(editBody(me, { roleId: '2' }), me.cookie);
    expect(fieldErrors(r).roleId).toEqual(['You cannot change your own role.']);
    const x = await act(editBody(me, { roleId: '1', isActive: '' }), me.cookie);
    expect(x.body?.toast).toBe('You cannot deactivate your own account.');
    const [u] = await sql`SELECT role_id, is_active, deleted_at FROM users WHERE id = ${me.id}`;
    expect(u).toMatchObject({ role_id: 1, is_active: true, deleted_at: null });
  });

  test('the last active admin cannot be deleted, demoted or deactivated by another admin', async () => {
    const me = await staff(1);
    const other = await createUser(sql, { roleId: 1 });
    await onlyAdmins(me.id, other.id);
    // with two admins one may go…
    expect((await act(editBody(other, { roleId: '2' }), me.cookie)).body?.toast).toBe('User updated successfully');
    // …now `me` is the last active one; an inactive admin account does not count
    const inactive = await createUser(sql, { roleId: 1, active: false });
    // me is the last active admin: the rules hold whoever asks, checked in the module
    const actor = { id: inactive.id, roleId: 1, ip: null };
    const demote = await editUser(sql, actor, { id: me.id, fullName: 'X', email: me.email, roleId: 2, isEmailVerified: true, isActive: true, whitelist: '' });
    expect(demote).toMatchObject({ ok: false, status: 409, message: 'At least one active admin must remain: make another user an active admin first.', field: 'roleId' });
    const deactivate = await editUser(sql, actor, { id: me.id, fullName: 'X', email: me.email, roleId: 1, isEmailVerified: true, isActive: false, whitelist: '' });
    expect(deactivate).toMatchObject({ ok: false, message: 'At least one active admin must remain: make another user an active admin first.' });
    const { deleteUser } = await import('~/modules/users/users.server.ts');
    expect(await deleteUser(sql, actor, me.id, 'users')).toMatchObject({ ok: false, message: 'At least one active admin must remain: make another user an active admin first.' });
    const [u] = await sql`SELECT role_id, is_active, deleted_at FROM users WHERE id = ${me.id}`;
    expect(u).toMatchObject({ role_id: 1, is_active: true, deleted_at: null });
  });

  test('two concurrent demotions of the only two admins: one wins, one admin remains', async () => {
    const a = await staff(1);
    const b = await staff(1);
    await onlyAdmins(a.id, b.id);
    for (let round = 0; round < 5; round++) {
      // each demotes the other at the same moment
      const [ra, rb] = await Promise.all([
        editUser(sql, { id: a.id, roleId: 1, ip: null }, { id: b.id, fullName: 'B', email: b.email, roleId: 2, isEmailVerified: true, isActive: true, whitelist: '' }),
        editUser(sql, { id: b.id, roleId: 1, ip: null }, { id: a.id, fullName: 'A', email: a.email, roleId: 2, isEmailVerified: true, isActive: true, whitelist: '' }),
      ]);
      expect([ra.ok, rb.ok].filter(Boolean)).toHaveLength(1);
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM users WHERE role_id = 1 AND is_active AND deleted_at IS NULL`;
      expect(n).toBe(1);
      await sql`UPDATE users SET role_id = 1 WHERE id IN (${a.id}, ${b.id})`;
    }
  });

  test('a staff user is soft-deleted with sessions revoked and audited', async () => {
    const me = await staff(1);
    const agent = await createUser(sql, { roleId: 5 });
    const s = await sessionFor(sql, agent.id);
    const d = await act({ intent: 'delete', id: String(agent.id) }, me.cookie);
    expect(d.body?.toast).toBe('User deleted successfully');
    expect(await getSession(sql, get('/admin/crm/sales/all', s.cookie))).toBeNull();
    const [row] = await sql`SELECT before FROM audit_events WHERE action = 'user.delete' AND target_id = ${String(agent.id)}`;
    expect(row.before).toMatchObject({ roleId: 5, email: agent.email });
    await expect(signIn(sql, postgresStore(sql), testAuthConfig(), { email: agent.email, password: PASSWORD, remember: false, ip: uniqueIp() } as never))
      .rejects.toBeInstanceOf(AuthError);
  });
});
