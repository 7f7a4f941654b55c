// The customer lists (/admin/customers/all and /inactive) against PostgreSQL: the roles of the
// permission map, the columns, search, sort and paging in the URL, live presence, the add-user
// modal (its messages, a customer provisioned as at sign-up) and the delete with its refusals.
import { describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, get, post, unique, uniqueEmail, uniqueIp, walletFor, testAuthConfig, postgresStore } from '../helpers.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';
import { loader as allLoader, action as allAction } from '~/routes/_staff.admin.customers.all.tsx';
import { loader as inactiveLoader } from '~/routes/_staff.admin.customers.inactive.tsx';
import { listCustomers } from '~/modules/customers/list.server.ts';
import { SEARCH_COUNT_LIMIT } from '~/modules/users/user-search.server.ts';
import { ONLINE_WINDOW_MINUTES } from '~/modules/users/online.server.ts';
import { loadAuthConfig, signUp } from '~/modules/auth/auth.server.ts';
import { getSession } from '~/modules/auth/session.server.ts';
import type { CustomerRow } from '~/modules/customers/list.server.ts';

const sql = testSql();
const ctx = { params: {}, context: {} } as never;
const load = (path: string, cookie: string, loader = allLoader) => answer(loader({ request: get(path, cookie), ...(ctx as object) } as never));
const act = (body: Record<string, string>, cookie: string) => answer(allAction({ request: post('/admin/customers/all', body, { cookie }), ...(ctx as object) } as never));
type ListBody = { rows: CustomerRow[]; total: number; estimated: boolean; type: string };

async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}

function addBody(over: Record<string, string> = {}) {
  return { intent: 'add', fullName: 'Zed ' + unique('n'), email: uniqueEmail('added'), password: 'long-enough-1', roleId: '3', isEmailVerified: 'on', isActive: 'on', ...over };
}

describe('who may open the lists', () => {
  test('admins and managers list customers; affiliates, sales and retention agents and customers are refused', async () => {
    await createUser(sql); // at least one customer
    for (const role of [1, 2]) {
      const s = await staff(role);
      const a = await load('/admin/customers/all', s.cookie);
      expect(a.status, `role ${role}`).toBe(200);
      expect((a.body as unknown as ListBody).rows.length).toBeGreaterThan(0);
    }
    for (const role of [3, 4, 5, 6]) {
      const s = await staff(role);
      expect((await load('/admin/customers/all', s.cookie)).status, `role ${role}`).toBe(403);
      expect((await load('/admin/customers/inactive', s.cookie, inactiveLoader)).status, `role ${role}`).toBe(403);
      expect((await act(addBody(), s.cookie)).status, `role ${role} posts`).toBe(403);
    }
  });
});

describe('the list', () => {
  test('every column of the spec, customers only, inactive ones on the inactive list, staff and deleted users never', async () => {
    const admin = await staff(1);
    const name = unique('Lister');
    const c = await createUser(sql, { verified: false });
    await sql`UPDATE users SET full_name = ${name} WHERE id = ${c.id}`;
    await sql`INSERT INTO profiles (user_id, phone, birth_date, country) VALUES (${c.id}, '+4479001234', '1990-04-05', 'Portugal')`;
    const off = await createUser(sql, { active: false });
    const gone = await createUser(sql);
    await sql`UPDATE users SET deleted_at = now() WHERE id = ${gone.id}`;

    const all = (await load(`/admin/customers/all?search=${encodeURIComponent(c.email)}`, admin.cookie)).body as unknown as ListBody;
    expect(all.rows).toEqual([{
      id: c.id, fullName: name, email: c.email, phone: '+4479001234', birthDate: '1990-04-05', country: 'Portugal',
      roleId: 3, isEmailVerified: false, isActive: true, online: false,
    }]);
    const page = await listCustomers(sql, 'all', { limit: 50, offset: 0, sort: 'id', dir: 'desc', search: '' });
    expect(page.rows.every((r) => r.roleId === 3)).toBe(true);
    expect(page.rows.map((r) => r.id)).not.toContain(gone.id);
    expect(page.rows.map((r) => r.id)).not.toContain(admin.id);
    const ids = page.rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a)); // newest first by default

    const inactive = (await load('/admin/customers/inactive?limit=50', admin.cookie, inactiveLoader)).body as unknown as ListBody;
    expect(inactive.rows.map((r) => r.id)).toContain(off.id);
    expect(inactive.rows.every((r) => !r.isActive)).toBe(true);
    expect(inactive.rows.map((r) => r.id)).not.toContain(c.id);
  });

  test('search by name, email, phone or id; sort by email; page size and page in the URL', async () => {
    const admin = await staff(1);
    const tag = unique('srch').toLowerCase();
    const made = [];
    for (const i of [1, 2, 3]) {
      const u = await createUser(sql, { email: `${tag}${i}@test.broker` });
      await sql`UPDATE users SET full_name = ${`Q${tag} ${i}`} WHERE id = ${u.id}`;
      await sql`INSERT INTO profiles (user_id, phone) VALUES (${u.id}, ${`+99${u.id}${i}`})`;
      made.push(u);
    }
    const rows = async (qs: string) => ((await load(`/admin/customers/all?${qs}`, admin.cookie)).body as unknown as ListBody);
    expect((await rows(`search=${tag}`)).rows.map((r) => r.id).sort()).toEqual(made.map((u) => u.id).sort());
    expect((await rows(`search=${tag.toUpperCase()}`)).total).toBe(3); // any case
    expect((await rows(`search=q${tag}`)).total).toBe(3); // the start of the full name
    expect((await rows(`search=${encodeURIComponent(`+99${made[1].id}2`)}`)).rows.map((r) => r.id)).toEqual([made[1].id]);
    expect((await rows(`search=${made[2].id}`)).rows.map((r) => r.id)).toContain(made[2].id);
    expect((await rows(`search=${encodeURIComponent('%_\\')}`)).total).toBe(0); // wildcards are literal
    const asc = await rows(`search=${tag}&sort=email&dir=asc`);
    expect(asc.rows.map((r) => r.email)).toEqual([1, 2, 3].map((i) => `${tag}${i}@test.broker`));
    const p2 = await rows(`search=${tag}&sort=email&dir=asc&limit=15&page=2`);
    expect(p2.rows).toEqual([]);
    expect(p2.total).toBe(3);
    // nonsense in the URL is clamped, never a 500
    expect((await load('/admin/customers/all?page=-4&limit=7&sort=password_hash&dir=x', admin.cookie)).status).toBe(200);
  });

  test('a search matching more than SEARCH_COUNT_LIMIT customers is counted that far, then estimated, and says so', async () => {
    const tag = unique('many').toLowerCase();
    await sql`INSERT INTO users (email, password_hash, full_name, role_id)
              SELECT ${tag} || g || '@test.broker', 'x', 'Many ' || g, 3 FROM generate_series(1, ${SEARCH_COUNT_LIMIT + 5}) g`;
    await sql`ANALYZE users`;
    const r = await listCustomers(sql, 'all', { limit: 15, offset: 0, sort: 'id', dir: 'desc', search: tag });
    expect(r.estimated).toBe(true);
    expect(r.total).toBeGreaterThan(SEARCH_COUNT_LIMIT);
    expect(r.rows).toHaveLength(15);
    const exact = await listCustomers(sql, 'all', { limit: 15, offset: 0, sort: 'id', dir: 'desc', search: `${tag}1@` });
    expect(exact).toMatchObject({ estimated: false, total: 1 });
  });

  test('online is a live session seen in the last minutes, not the stored flag', async () => {
    const admin = await staff(1);
    const c = await createUser(sql);
    const search = async () => ((await load(`/admin/customers/all?search=${encodeURIComponent(c.email)}`, admin.cookie)).body as unknown as ListBody).rows[0];
    await sql`UPDATE users SET online = true WHERE id = ${c.id}`;
    expect((await search()).online).toBe(false); // the stored flag says nothing
    const s = await sessionFor(sql, c.id);
    expect((await search()).online).toBe(true);
    await sql`UPDATE sessions SET last_seen_at = now() - make_interval(mins => ${ONLINE_WINDOW_MINUTES + 1}) WHERE id = ${s.id}`;
    expect((await search()).online).toBe(false);
    // a request from the user marks the session seen again (at most once a minute)
    await getSession(sql, get('/dashboard', s.cookie));
    expect((await search()).online).toBe(true);
    const [{ seen }] = await sql`SELECT last_seen_at AS seen FROM sessions WHERE id = ${s.id}`;
    await getSession(sql, get('/dashboard', s.cookie));
    const [{ seen: again }] = await sql`SELECT last_seen_at AS seen FROM sessions WHERE id = ${s.id}`;
    expect(again).toEqual(seen); // within the minute: no write
    await sql`UPDATE sessions SET revoked_at = now() WHERE id = ${s.id}`;
    expect((await search()).online).toBe(false);
  });
});

describe('add user', () => {
  test('the required fields and their messages; nothing is written', async () => {
    const admin = await staff(1);
    const email = uniqueEmail('refused');
    const a = await act(addBody({ fullName: '', email, password: 'short', roleId: '' }), admin.cookie);
    expect(a.status).toBe(400);
    expect(fieldErrors(a)).toMatchObject({
      fullName: ['Full name is required'], password: ['Password must be at least 8 characters'], roleId: ['Role is required'],
    });
    expect((await act(addBody({ email: 'not-an-email' }), admin.cookie)).body?.toast).toBe('Invalid email');
    expect(fieldErrors(await act(addBody({ roleId: '9' }), admin.cookie)).roleId).toEqual(['Choose one of the roles offered']);
    expect(await sql`SELECT 1 FROM users WHERE email = ${email}`).toHaveLength(0);
  });

  test('a customer added from the modal has what sign-up gives: profile, demo and real wallets through the ledger, the CRM lead; audited', async () => {
    const admin = await staff(1);
    const email = uniqueEmail('modal');
    const a = await act(addBody({ email, fullName: 'Modal Customer' }), admin.cookie);
    expect(a.status).toBe(200);
    expect(a.body?.toast).toBe('User added successfully');
    const [u] = await sql`SELECT id, role_id, is_active, is_email_verified, active_balance_id FROM users WHERE email = ${email}`;
    expect(u).toMatchObject({ role_id: 3, is_active: true, is_email_verified: true });

    // the same through sign-up, with the site's settings
    const cfg = await loadAuthConfig(sql);
    const signed = uniqueEmail('signed');
    const s = await signUp(sql, { ...testAuthConfig(), currencies: cfg.currencies, demoInitialBalance: cfg.demoInitialBalance }, postgresStore(sql), {
      fullName: 'Signed Up', email: signed, password: 'long-enough-1', passwordConfirmation: 'long-enough-1', phone: '', country: '', city: '', address: '',
      postalCode: '', currency: cfg.currencies[0], ip: uniqueIp(),
    });
    const shape = async (id: number) => {
      const wallets = await sql`SELECT b.mode, b.currency, b.balance::text AS balance, (b.id = u.active_balance_id) AS active,
                                       (SELECT array_agg(kind::text) FROM ledger_entries l WHERE l.balance_id = b.id) AS kinds
                                  FROM balances b JOIN users u ON u.id = b.user_id WHERE b.user_id = ${id} ORDER BY b.mode`;
      const leads = await sql`SELECT "group" FROM leads WHERE user_id = ${id}`;
      const profile = await sql`SELECT 1 FROM profiles WHERE user_id = ${id}`;
      return { wallets: wallets.map((w) => ({ ...w })), leads: leads.map((l) => l.group), profile: profile.length };
    };
    const mine = await shape(Number(u.id));
    expect(mine.wallets.map((w) => w.mode)).toEqual(['demo', 'real']);
    expect(mine.wallets[0]).toMatchObject({ currency: cfg.currencies[0], active: true });
    expect(Number(mine.wallets[0].balance)).toBe(Number(cfg.demoInitialBalance));
    if (Number(cfg.demoInitialBalance) > 0) expect(mine.wallets[0].kinds).toEqual(['demo_credit']);
    expect(Number(mine.wallets[1].balance)).toBe(0);
    expect(mine.leads).toEqual(['sales']);
    expect(mine.profile).toBe(1);
    expect(mine).toEqual(await shape(s.userId));

    const [row] = await sql`SELECT actor_id, after FROM audit_events WHERE action = 'user.create' AND target_id = ${String(u.id)}`;
    expect(Number(row.actor_id)).toBe(admin.id);
    expect(row.after).toMatchObject({ email, roleId: 3, isActive: true, isEmailVerified: true });
    expect(JSON.stringify(row.after)).not.toMatch(/password|hash|\$argon|\$2/i);
  });

  test('an email taken in any case is a field error; a manager adds customers only', async () => {
    const admin = await staff(1);
    const taken = await createUser(sql);
    const a = await act(addBody({ email: taken.email.toUpperCase() }), admin.cookie);
    expect(a.status).toBe(409);
    expect(fieldErrors(a).email).toEqual(['This email is already registered.']);

    const manager = await staff(2);
    const email = uniqueEmail('mgr');
    const r = await act(addBody({ email, roleId: '1' }), manager.cookie);
    expect(r.status).toBe(403);
    expect(r.body?.toast).toBe('Only an admin can add staff users.');
    expect(await sql`SELECT 1 FROM users WHERE email = ${email}`).toHaveLength(0);
    expect((await act(addBody({ email }), manager.cookie)).status).toBe(200);
  });
});

describe('delete', () => {
  let instrumentId: number | null = null;
  async function instrument() {
    if (instrumentId) return instrumentId;
    const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                          VALUES ('CST_USD', 'CST', 'USD', 'forex', 100, 1.1, 1.1)
                          ON CONFLICT (name) DO UPDATE SET base = 'CST' RETURNING id`;
    return (instrumentId = Number(i.id));
  }

  test('refused with an open position or money in a real wallet, saying why; nothing changes', async () => {
    const admin = await staff(1);
    const withOrder = await createUser(sql);
    const demo = await walletFor(sql, withOrder.id, { mode: 'demo' });
    await sql`INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, margin_used, leverage)
              VALUES (${withOrder.id}, ${demo}, ${await instrument()}, 'buy', 'forex', 1000, 1.1, 1, 0, 100)`;
    const a = await act({ intent: 'delete', id: String(withOrder.id) }, admin.cookie);
    expect(a.status).toBe(409);
    expect(a.body?.toast).toBe('This customer has open positions: close them before deleting the customer.');

    const rich = await createUser(sql);
    await walletFor(sql, rich.id, { credit: '0.01' });
    const b = await act({ intent: 'delete', id: String(rich.id) }, admin.cookie);
    expect(b.status).toBe(409);
    expect(b.body?.toast).toBe('This customer has money in a wallet: withdraw or adjust it to zero before deleting the customer.');
    const left = await sql`SELECT deleted_at FROM users WHERE id IN (${withOrder.id}, ${rich.id})`;
    expect(left.every((r) => r.deleted_at === null)).toBe(true);
  });

  test('a customer without money is soft-deleted: ledger kept, sessions revoked, audited; staff and unknown ids are not found', async () => {
    const admin = await staff(1);
    const c = await createUser(sql);
    const w = await walletFor(sql, c.id, { mode: 'demo', credit: '100' }); // demo money is play money
    const s = await sessionFor(sql, c.id);
    const a = await act({ intent: 'delete', id: String(c.id) }, admin.cookie);
    expect(a.status).toBe(200);
    expect(a.body?.toast).toBe('Customers deleted successfully');
    const [u] = await sql`SELECT deleted_at, is_active FROM users WHERE id = ${c.id}`;
    expect(u.deleted_at).not.toBeNull();
    expect(await sql`SELECT 1 FROM ledger_entries WHERE balance_id = ${w}`).toHaveLength(1);
    expect(await getSession(sql, get('/dashboard', s.cookie))).toBeNull();
    expect(await sql`SELECT 1 FROM sessions WHERE user_id = ${c.id} AND revoked_at IS NULL`).toHaveLength(0);
    const [row] = await sql`SELECT before, after FROM audit_events WHERE action = 'user.delete' AND target_id = ${String(c.id)}`;
    expect(row.before).toMatchObject({ email: c.email, roleId: 3 });
    const list = (await load(`/admin/customers/all?search=${encodeURIComponent(c.email)}`, admin.cookie)).body as unknown as ListBody;
    expect(list.rows).toEqual([]);

    // again, a staff member, nonsense: not found / refused, never a 500
    expect((await act({ intent: 'delete', id: String(c.id) }, admin.cookie)).status).toBe(404);
    const other = await createUser(sql, { roleId: 5 });
    expect((await act({ intent: 'delete', id: String(other.id) }, admin.cookie)).status).toBe(404);
    expect((await act({ intent: 'delete', id: 'abc' }, admin.cookie)).status).toBe(400);
    expect((await act({ intent: 'delete', id: '99999999999' }, admin.cookie)).status).toBe(404);
    expect((await act({ intent: 'nope' }, admin.cookie)).status).toBe(400);
  });
});
