// /admin/profile against PostgreSQL: the staff top bar's Profile is the staff member's own record
// (docs/specs.md#profile). Every staff role opens their own and no customer does; a save changes
// the session user's name alone (audited) and sets the page language; an id, email or role posted
// beside it changes nothing, of theirs or anyone's; a language the site does not offer and an
// empty name are messages under the field; the password needs the current one.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, get, post, answerOf, PASSWORD } from '../helpers.ts';
import { action, loader } from '~/routes/_staff.admin.profile.tsx';
import { verifyPassword } from '~/modules/auth/password.server.ts';

const sql = testSql();
afterAll(async () => { await sql.end(); });

async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  const s = await sessionFor(sql, u.id);
  return { ...u, cookie: s.cookie };
}
const load = (cookie: string) => answerOf(Promise.resolve().then(() => loader({ request: get('/admin/profile', cookie), params: {}, context: {} })));
async function save(cookie: string, body: Record<string, string>) {
  const r = await Promise.resolve().then(() => action({ request: post('/admin/profile', body, { cookie }), params: {}, context: {} })).catch((e) => e);
  if (r instanceof Response) return { status: r.status, body: null, cookie: null as string | null };
  const d = r as { data: { ok: boolean; toast: string | null; result?: { error?: Record<string, string[] | null> } }; init: { status?: number; headers?: Record<string, string> } | null };
  return { status: d.init?.status ?? 200, body: d.data, cookie: d.init?.headers?.['set-cookie'] ?? null };
}
const userRow = async (id: number) => (await sql`SELECT full_name, email, role_id, is_active FROM users WHERE id = ${id}`)[0];

describe('the staff member\'s own record', () => {
  test('every staff role opens their own record; a customer is refused', async () => {
    for (const roleId of [1, 2, 4, 5, 6]) {
      const s = await staff(roleId);
      const r = await load(s.cookie);
      expect(r.status, `role ${roleId}`).toBe(200);
      expect(r.body.record).toEqual({ id: s.id, fullName: `Test ${s.email.slice(0, 12)}`, email: s.email, roleId, twoFactor: false });
      expect(r.body.languages.map((l: { code: string }) => l.code)).toContain('en');
    }
    const c = await staff(3);
    expect((await load(c.cookie)).status).toBe(403);
    expect((await save(c.cookie, { intent: 'details', fullName: 'Nope', language: 'en' })).status).toBe(403);
  });

  test('a save changes the own name (audited) and the language cookie; posted ids, email and role change nothing', async () => {
    const me = await staff(5);
    const other = await staff(1);
    const before = await userRow(other.id);
    const r = await save(me.cookie, { intent: 'details', fullName: '  Sam Agent ', language: 'en', id: String(other.id), userId: String(other.id), email: 'taken@example.com', roleId: '1' });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Profile updated successfully' } });
    expect(r.cookie).toMatch(/^lang=en;/);
    expect(await userRow(me.id)).toMatchObject({ full_name: 'Sam Agent', email: me.email, role_id: 5, is_active: true });
    expect(await userRow(other.id)).toEqual(before);
    const audits = await sql`SELECT actor_id, before, after FROM audit_events WHERE action = 'profile.update' AND target_kind = 'user' AND target_id = ${String(me.id)}`;
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actor_id: me.id, before: { full_name: `Test ${me.email.slice(0, 12)}` }, after: { full_name: 'Sam Agent' } });
    // the same name again writes no audit row
    await save(me.cookie, { intent: 'details', fullName: 'Sam Agent', language: 'en' });
    expect(await sql`SELECT 1 FROM audit_events WHERE action = 'profile.update' AND target_id = ${String(me.id)}`).toHaveLength(1);
  });

  test('a language the site does not offer and an empty name are messages under the field; nothing changes', async () => {
    const me = await staff(2);
    const name = (await userRow(me.id)).full_name;
    const bad = await save(me.cookie, { intent: 'details', fullName: 'New Name', language: 'zz' });
    expect(bad.status).toBe(400);
    expect(bad.body?.result?.error?.language).toEqual(['Choose one of the languages offered']);
    expect(bad.cookie).toBeNull();
    const empty = await save(me.cookie, { intent: 'details', fullName: '   ', language: 'en' });
    expect(empty.status).toBe(400);
    expect(empty.body?.result?.error?.fullName).toEqual(['Full name is required']);
    expect((await userRow(me.id)).full_name).toBe(name);
  });

  test('the password: a wrong current one is refused; the right one changes the own password only', async () => {
    const me = await staff(4);
    const wrong = await save(me.cookie, { intent: 'password', currentPassword: 'not-it-at-all', newPassword: 'Another-pass-9' });
    expect(wrong.status).toBe(400);
    expect(wrong.body?.result?.error?.currentPassword).toEqual(['Current password is incorrect']);
    const ok = await save(me.cookie, { intent: 'password', currentPassword: PASSWORD, newPassword: 'Another-pass-9' });
    expect(ok).toMatchObject({ status: 200, body: { ok: true } });
    const [row] = await sql`SELECT password_hash FROM users WHERE id = ${me.id}`;
    expect(await verifyPassword(row.password_hash, 'Another-pass-9')).toBe(true);
  });
});
