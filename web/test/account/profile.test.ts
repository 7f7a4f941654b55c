// /profile against PostgreSQL: the signed-in user's own profile only, the sign-up's rules on the
// server (a message under the field, never a 500, nothing changed), the email read-only, one
// transaction over users and profiles with an audit row, and the phone masked and kept for a
// retention agent's login-as session.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, get, post, settle } from '../helpers.ts';
import { action, loader } from '~/routes/_client.profile.tsx';
import { yearsBefore } from '~/modules/auth/schemas.ts';
import { maskEmail, maskPhone } from '~/shared/mask.ts';

const sql = testSql();
afterAll(async () => { await sql.end(); });

const VALID = {
  fullName: 'Jane Updated', phone: '+44 20 7946 0999', birthDate: '1990-05-17', country: 'Germany', city: 'Berlin',
  address: 'Torstraße 1', postalCode: '10119',
};

async function customer(opts: { roleId?: number } = {}) {
  const u = await createUser(sql, { roleId: opts.roleId });
  await sql`INSERT INTO profiles (user_id, phone, birth_date, country, city, address, postal_code)
            VALUES (${u.id}, '+1 212 555 0142', '1988-04-17', 'United States', 'New York', '350 5th Ave', '10118')`;
  const s = await sessionFor(sql, u.id);
  return { ...u, cookie: s.cookie, sessionId: s.id };
}

type Body = { ok: boolean; toast: string | null; result?: { error?: Record<string, string[] | null> } };
async function save(cookie: string, body: Record<string, string>, origin?: string) {
  const r = (await settle(action({ request: post('/profile', body, { cookie, origin }), params: {}, context: {} }))) as
    { data: Body; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null as Body | null };
  return { status: r.init?.status ?? 200, body: r.data };
}
const load = async (cookie: string) =>
  (await loader({ request: get('/profile', cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof loader>>;
const row = async (id: number) => (await sql`
  SELECT u.full_name, u.email, p.phone, to_char(p.birth_date, 'YYYY-MM-DD') AS birth_date, p.country, p.city, p.address, p.postal_code
    FROM users u LEFT JOIN profiles p ON p.user_id = u.id WHERE u.id = ${id}`)[0];

describe('profile page', () => {
  test("the loader shows the signed-in user's own profile and the offline country list", async () => {
    const c = await customer();
    const d = await load(c.cookie);
    expect(d.profile).toEqual({
      fullName: `Test ${c.email.slice(0, 12)}`, email: c.email, phone: '+1 212 555 0142', phoneLocked: false, birthDate: '1988-04-17',
      country: 'United States', city: 'New York', address: '350 5th Ave', postalCode: '10118',
    });
    expect(d.countries.length).toBeGreaterThan(200);
    expect(d.countries).toContainEqual({ value: 'Germany', label: 'Germany' });
  });

  test('a valid save writes users and profiles, answers the toast, and leaves an audit row of what changed', async () => {
    const c = await customer();
    const r = await save(c.cookie, VALID);
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Profile updated successfully' } });
    expect(await row(c.id)).toEqual({
      full_name: 'Jane Updated', email: c.email, phone: '+44 20 7946 0999', birth_date: '1990-05-17', country: 'Germany', city: 'Berlin',
      address: 'Torstraße 1', postal_code: '10119',
    });
    const [a] = await sql`SELECT actor_id, action, target_id, before, after FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(c.id)} AND action = 'profile.update'`;
    expect(a).toMatchObject({ actor_id: c.id, before: { country: 'United States', city: 'New York' }, after: { country: 'Germany', city: 'Berlin' } });
    // saving the same values again changes nothing and writes no second audit row
    expect((await save(c.cookie, VALID)).status).toBe(200);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM audit_events WHERE target_id = ${String(c.id)} AND action = 'profile.update'`;
    expect(n).toBe(1);
  });

  test('a user without a profiles row gets one on the first save', async () => {
    const u = await createUser(sql, { roleId: 1 }); // staff open /profile too
    const s = await sessionFor(sql, u.id);
    expect((await load(s.cookie)).profile).toMatchObject({ phone: '', birthDate: null, country: '' });
    expect((await save(s.cookie, { ...VALID, birthDate: '' })).status).toBe(200);
    expect(await row(u.id)).toMatchObject({ full_name: 'Jane Updated', birth_date: null, country: 'Germany' });
  });

  const BAD: [string, Record<string, string>, string, string][] = [
    ['no full name', { fullName: '  ' }, 'fullName', 'Full name is required'],
    ['a full name over 200 characters', { fullName: 'x'.repeat(201) }, 'fullName', 'Full name is required'],
    ['no phone', { phone: '' }, 'phone', 'Phone is required'],
    ['a phone over 40 characters', { phone: '1'.repeat(41) }, 'phone', 'Phone is required'],
    ['a day that does not exist', { birthDate: '2001-02-30' }, 'birthDate', 'Invalid date'],
    ['not a date', { birthDate: '17/05/1990' }, 'birthDate', 'Invalid date'],
    ['a birth date in the future', { birthDate: '2999-01-01' }, 'birthDate', 'You must be at least 18 years old'],
    ['someone under 18', { birthDate: yearsBefore(17) }, 'birthDate', 'You must be at least 18 years old'],
    ['an age over 120', { birthDate: '1800-01-01' }, 'birthDate', 'Invalid date'],
    ['a phone that is not a number', { phone: 'call me maybe' }, 'phone', 'Invalid phone number for this country'],
    ['a number too short for the country', { phone: '12' }, 'phone', 'Invalid phone number for this country'],
    ['no country', { country: '' }, 'country', 'Country is required'],
    ['a country not in the list', { country: 'Atlantis' }, 'country', 'Select a country from the list'],
    ['no city', { city: '' }, 'city', 'City is required'],
    ['an address over 300 characters', { address: 'a'.repeat(301) }, 'address', 'Address is required'],
    ['no postal code', { postalCode: '' }, 'postalCode', 'Postal code is required'],
  ];
  for (const [what, change, field, message] of BAD) {
    test(`${what} is refused under its field, nothing changed`, async () => {
      const c = await customer();
      const before = await row(c.id);
      const r = await save(c.cookie, { ...VALID, ...change });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ ok: false, toast: message });
      expect(r.body?.result?.error?.[field]).toEqual([message]);
      expect(await row(c.id)).toEqual(before);
    });
  }

  test('the age bounds are inclusive: exactly 18 today is accepted', async () => {
    const c = await customer();
    expect((await save(c.cookie, { ...VALID, birthDate: yearsBefore(18) })).status).toBe(200);
    expect((await row(c.id)).birth_date).toBe(yearsBefore(18));
  });

  test('the email is read-only and no id in the form reaches another user', async () => {
    const c = await customer();
    const other = await customer();
    const theirs = await row(other.id);
    const r = await save(c.cookie, { ...VALID, email: 'taken-over@evil.test', id: String(other.id), userId: String(other.id), user_id: String(other.id) });
    expect(r.status).toBe(200);
    expect((await row(c.id)).email).toBe(c.email);
    expect(await row(other.id)).toEqual(theirs);
  });

  test('a cross-site post and a signed-out post change nothing', async () => {
    const c = await customer();
    const before = await row(c.id);
    expect((await save(c.cookie, VALID, 'https://evil.example')).status).toBe(403);
    const anon = (await settle(action({ request: post('/profile', VALID), params: {}, context: {} }))) as Response;
    expect(anon.status).toBe(302);
    expect(await row(c.id)).toEqual(before);
  });

  test("a retention agent signed in as the customer sees the phone masked and disabled, and cannot change it", async () => {
    const c = await customer();
    const agent = await createUser(sql, { roleId: 6 });
    // a retention agent signs in as the customers they are the retention agent of (docs/specs.md#login-as)
    await sql`INSERT INTO leads (email, user_id, ret_id) VALUES (${c.email}, ${c.id}, ${agent.id})`;
    const agentSession = await sessionFor(sql, agent.id);
    const s = await sessionFor(sql, c.id, { impersonatorId: agent.id, parentId: agentSession.id });
    const d = await load(s.cookie);
    expect(d.profile).toMatchObject({ phone: '******42', phoneLocked: true });
    expect(JSON.stringify(d)).not.toContain('555 0142');
    // the form sends no phone; a forged one is ignored, the rest is saved
    const r = await save(s.cookie, { ...VALID, phone: '+49 000 000 0000' });
    expect(r.status).toBe(200);
    expect(await row(c.id)).toMatchObject({ phone: '+1 212 555 0142', full_name: 'Jane Updated' });
    const { phone: _, ...noPhone } = VALID;
    expect((await save(s.cookie, { ...noPhone, city: 'Hamburg' })).status).toBe(200);
    expect(await row(c.id)).toMatchObject({ phone: '+1 212 555 0142', city: 'Hamburg' });
    // the staff member is the audit's actor
    const [a] = await sql`SELECT actor_id FROM audit_events WHERE target_id = ${String(c.id)} AND action = 'profile.update' ORDER BY id DESC LIMIT 1`;
    expect(a.actor_id).toBe(agent.id);
  });

  test("an admin's login-as session sees and edits the phone; the customer's own session needs it", async () => {
    const c = await customer();
    const admin = await createUser(sql, { roleId: 1 });
    const adminSession = await sessionFor(sql, admin.id);
    const s = await sessionFor(sql, c.id, { impersonatorId: admin.id, parentId: adminSession.id });
    expect((await load(s.cookie)).profile).toMatchObject({ phone: '+1 212 555 0142', phoneLocked: false });
    const { phone: _, ...noPhone } = VALID;
    expect((await save(c.cookie, noPhone)).body?.result?.error?.phone).toEqual(['Phone is required']);
  });
});

describe('masking (docs/specs.md#agent-masking)', () => {
  test('phones keep the last 2 digits; emails the first and last 2 characters of a local part over 4', () => {
    expect(maskPhone('+1 212 555 0142')).toBe('******42');
    expect(maskPhone('')).toBe('');
    expect(maskEmail('johnny.doe@example.com')).toBe('jo****oe@example.com');
    expect(maskEmail('abcd@example.com')).toBe('abcd@example.com');
  });
});
