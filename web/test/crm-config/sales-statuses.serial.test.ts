// /admin/crm-config/sales-statuses through the route module against PostgreSQL: roles 1 and 2,
// the spec's messages, exactly one default (in SQL, also under concurrent switches), the default
// as the status of new leads, renames carried to the leads, delete of a status in use only with
// a replacement (its leads moved in the same transaction), and an audit row for every change.
// Serial: the default status is one for the whole site, and other files' sign-ups read it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { action, loader } from '~/routes/_staff.admin.crm-config.sales-statuses.tsx';
import { saveSalesStatus, defaultSalesStatus } from '~/modules/crm-config/sales-statuses.server.ts';
import { signUp } from '~/modules/auth/auth.server.ts';
import { createUser, get, post, postgresStore, sessionFor, testAuthConfig, testSql, unique, uniqueEmail, uniqueIp } from '../helpers.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';

const sql = testSql(8);
let admin: { id: number; cookie: string };
let manager: { id: number; cookie: string };
beforeAll(async () => {
  const a = await createUser(sql, { roleId: 1 });
  admin = { id: a.id, cookie: (await sessionFor(sql, a.id)).cookie };
  const m = await createUser(sql, { roleId: 2 });
  manager = { id: m.id, cookie: (await sessionFor(sql, m.id)).cookie };
  // a site without statuses gets its first one as the default; make sure one exists
  const [d] = await sql`SELECT id FROM sales_statuses WHERE is_default`;
  if (!d) await saveSalesStatus(sql, { status: unique('Base '), color: '#2f81f7', isDefault: true }, { actorId: a.id, ip: null });
});
afterAll(() => sql.end());

const PATH = '/admin/crm-config/sales-statuses';
const act = (body: Record<string, string>, cookie = admin.cookie) =>
  answer(action({ request: post(PATH, body, { cookie }), params: {}, context: {} }));
const load = (query = '', cookie = admin.cookie) => answer(loader({ request: get(`${PATH}${query}`, cookie), params: {}, context: {} }));
const byName = async (status: string) => (await sql`SELECT * FROM sales_statuses WHERE status = ${status}`)[0];
const defaults = () => sql`SELECT id, status FROM sales_statuses WHERE is_default`;
const auditOf = (id: number) => sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = 'sales_status' AND target_id = ${String(id)} ORDER BY id`;

async function created(over: Record<string, string> = {}) {
  const body = { intent: 'save', status: unique('St '), color: '#a371f7', isDefault: 'false', ...over };
  const r = await act(body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return byName(body.status);
}
async function leadWith(status: string) {
  const [l] = await sql`INSERT INTO leads (first_name, email, lead_status) VALUES ('L', ${uniqueEmail('lead')}, ${status}) RETURNING id`;
  return Number(l.id);
}
const statusOf = async (leadId: number) => (await sql`SELECT lead_status FROM leads WHERE id = ${leadId}`)[0].lead_status as string;

describe('roles', () => {
  test('admins and managers open and change it; every other role is refused and nothing changes', async () => {
    expect((await load('', manager.cookie)).status).toBe(200);
    const mine = await created();
    expect(mine).toBeDefined();
    const name = unique('No ');
    for (const roleId of [3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await load('', cookie)).status, `role ${roleId}`).toBe(403);
      expect((await act({ intent: 'save', status: name, color: '#000000', isDefault: 'false' }, cookie)).status, `role ${roleId}`).toBe(403);
      expect((await act({ intent: 'delete', id: String(mine.id) }, cookie)).status, `role ${roleId}`).toBe(403);
    }
    expect(await byName(name)).toBeUndefined();
    expect(await byName(mine.status)).toBeDefined();
  });

  test('a manager adds, edits and deletes too (roles 1 and 2)', async () => {
    const status = unique('Mgr ');
    expect((await act({ intent: 'save', status, color: '#d29922', isDefault: 'false' }, manager.cookie)).status).toBe(200);
    const row = await byName(status);
    expect((await act({ intent: 'save', id: String(row.id), status, color: '#000000', isDefault: 'false' }, manager.cookie)).status).toBe(200);
    expect((await act({ intent: 'delete', id: String(row.id) }, manager.cookie)).body?.toast).toBe('Sales Status deleted successfully');
  });
});

describe('the form', () => {
  test("the spec's messages: 'Status is required', 'isDefault is required'; nothing is written", async () => {
    const [{ n: before }] = await sql`SELECT count(*)::int AS n FROM sales_statuses`;
    let r = await act({ intent: 'save', status: '   ', color: '#000000', isDefault: 'false' });
    expect(r.status).toBe(400);
    expect(fieldErrors(r).status).toEqual(['Status is required']);
    expect(r.body?.toast).toBe('Status is required');
    r = await act({ intent: 'save', status: unique('X '), color: '#000000' });
    expect(fieldErrors(r).isDefault).toEqual(['isDefault is required']);
    r = await act({ intent: 'save', status: unique('X '), color: '#000000', isDefault: 'maybe' });
    expect(fieldErrors(r).isDefault).toEqual(['isDefault is required']);
    r = await act({ intent: 'save', status: 'x'.repeat(61), color: '#000000', isDefault: 'false' });
    expect(fieldErrors(r).status).toEqual(['Status allows at most 60 characters']);
    r = await act({ intent: 'save', status: unique('X '), color: 'red', isDefault: 'false' });
    expect(fieldErrors(r).color).toEqual(['Color must be a hex colour like #2f81f7']);
    r = await act({ intent: 'nope' });
    expect(r.status).toBe(400);
    const [{ n: after }] = await sql`SELECT count(*)::int AS n FROM sales_statuses`;
    expect(after).toBe(before);
  });

  test('a name another status has (any case) is refused under the field', async () => {
    const row = await created();
    const r = await act({ intent: 'save', status: row.status.toUpperCase(), color: '#000000', isDefault: 'false' });
    expect(r.status).toBe(409);
    expect(fieldErrors(r).status).toEqual(['A sales status with this name already exists']);
  });

  test('an id that is not a status is a message, never a 500', async () => {
    for (const id of ['999999999', 'abc', '-1', '1e3']) {
      const r = await act({ intent: 'save', id, status: unique('Z '), color: '#000000', isDefault: 'false' });
      expect([400, 404], id).toContain(r.status);
      const d = await act({ intent: 'delete', id });
      expect([400, 404], id).toContain(d.status);
    }
  });
});

describe('the list', () => {
  test('server-paged, searched, sorted by status and by is default; in-use flag; every status for the selects', async () => {
    const tag = unique('Lst');
    const a = await created({ status: `${tag} b` });
    await created({ status: `${tag} a` });
    await created({ status: `${tag} c` });
    await leadWith(a.status);
    const r = await load(`?search=${encodeURIComponent(tag)}&sort=status&dir=asc&limit=15`);
    const body = r.body as unknown as { total: number; rows: { status: string; inUse: boolean; isDefault: boolean; color: string }[]; choices: { status: string; isDefault: boolean }[] };
    expect(body.total).toBe(3);
    expect(body.rows.map((x) => x.status)).toEqual([`${tag} a`, `${tag} b`, `${tag} c`]);
    expect(body.rows.map((x) => x.inUse)).toEqual([false, true, false]);
    expect(body.rows[0].color).toBe('#a371f7');
    expect(body.choices[0].isDefault).toBe(true);
    expect(body.choices.map((c) => c.status)).toEqual(expect.arrayContaining([`${tag} a`, `${tag} b`, `${tag} c`]));
    const sorted = await load('?sort=isDefault&dir=desc');
    expect((sorted.body as unknown as { rows: { isDefault: boolean }[] }).rows[0].isDefault).toBe(true);
    // a sort the list does not know falls back to id
    expect((await load('?sort=password&dir=asc')).status).toBe(200);
  });
});

describe('exactly one default', () => {
  test('making a status the default unsets the previous one, in one transaction, audited', async () => {
    const [old] = await defaults();
    const row = await created({ isDefault: 'true' });
    const now = await defaults();
    expect(now.map((d) => d.status)).toEqual([row.status]);
    const [a] = await auditOf(Number(row.id));
    expect(a).toMatchObject({ action: 'sales_status.create', actor_id: admin.id, after: { status: row.status, isDefault: true, previousDefault: old.status } });
    // switched back by an edit
    const r = await act({ intent: 'save', id: String(old.id), status: old.status, color: '#2f81f7', isDefault: 'true' });
    expect(r.body?.toast).toBe('Sales status updated successfully');
    expect((await defaults()).map((d) => d.status)).toEqual([old.status]);
  });

  test('the default cannot be unset: another status must be made the default', async () => {
    const [d] = await defaults();
    const r = await act({ intent: 'save', id: String(d.id), status: d.status, color: '#2f81f7', isDefault: 'false' });
    expect(r.status).toBe(409);
    expect(fieldErrors(r).isDefault).toEqual(['One status is always the default: make another status the default instead']);
    expect((await defaults()).map((x) => x.id)).toEqual([d.id]);
  });

  test('PostgreSQL itself refuses a second default and a commit without one', async () => {
    const row = await created();
    await expect(sql`UPDATE sales_statuses SET is_default = true WHERE id = ${row.id}`).rejects.toMatchObject({ code: '23505' });
    await expect(sql`UPDATE sales_statuses SET is_default = false WHERE is_default`).rejects.toMatchObject({ code: '23514' });
    await expect(sql`DELETE FROM sales_statuses WHERE is_default`).rejects.toMatchObject({ code: '23514' });
    expect(await defaults()).toHaveLength(1);
  });

  test('concurrent switches: each succeeds in turn and exactly one default remains', async () => {
    const rows = await Promise.all([1, 2, 3, 4, 5, 6].map(() => created()));
    const rounds = await Promise.all(rows.flatMap((r) => [r, r].map((x) =>
      saveSalesStatus(sql, { id: Number(x.id), status: x.status, color: '#3fb950', isDefault: true }, { actorId: admin.id, ip: null }))));
    expect(rounds.every((r) => r.ok)).toBe(true);
    const now = await defaults();
    expect(now).toHaveLength(1);
    expect(rows.map((r) => r.id)).toContain(now[0].id);
    // concurrent adds of new defaults too
    const names = [1, 2, 3, 4].map(() => unique('Race '));
    const adds = await Promise.all(names.map((status) => saveSalesStatus(sql, { status, color: '#000000', isDefault: true }, { actorId: admin.id, ip: null })));
    expect(adds.every((r) => r.ok)).toBe(true);
    const after = await defaults();
    expect(after).toHaveLength(1);
    expect(names).toContain(after[0].status);
  });

  test('new leads get the default: the column default and a sign-up', async () => {
    const row = await created({ isDefault: 'true' });
    expect(await defaultSalesStatus(sql)).toBe(row.status);
    const [l] = await sql`INSERT INTO leads (first_name, email) VALUES ('Col', ${uniqueEmail('col')}) RETURNING lead_status`;
    expect(l.lead_status).toBe(row.status);
    const email = uniqueEmail('signup');
    const r = await signUp(sql, testAuthConfig(), postgresStore(sql), {
      fullName: 'New Client', email, password: 'Abcdefg-123', passwordConfirmation: 'Abcdefg-123', phone: '612 345 678', country: 'Spain', city: 'Madrid',
      address: 'Calle 1', postalCode: '28001', currency: 'USD', birthDate: undefined, promoCode: undefined, humanKey: undefined, ip: uniqueIp(),
    });
    const [lead] = await sql`SELECT lead_status FROM leads WHERE user_id = ${r.userId}`;
    expect(lead.lead_status).toBe(row.status);
  });
});

describe('rename and delete', () => {
  test('a renamed status is renamed on its leads, audited with the count', async () => {
    const row = await created();
    const lead = await leadWith(row.status);
    const renamed = unique('Renamed ');
    const r = await act({ intent: 'save', id: String(row.id), status: renamed, color: '#f85149', isDefault: 'false' });
    expect(r.status).toBe(200);
    expect(await statusOf(lead)).toBe(renamed);
    const a = (await auditOf(Number(row.id))).at(-1);
    expect(a).toMatchObject({ action: 'sales_status.update', before: { status: row.status, color: '#a371f7' }, after: { status: renamed, color: '#f85149', leadsRenamed: 1 } });
  });

  test('a status without leads is deleted after the confirmation, audited', async () => {
    const row = await created();
    const r = await act({ intent: 'delete', id: String(row.id) });
    expect(r.body).toMatchObject({ ok: true, toast: 'Sales Status deleted successfully' });
    expect(await byName(row.status)).toBeUndefined();
    const [a] = (await auditOf(Number(row.id))).slice(-1);
    expect(a).toMatchObject({ action: 'sales_status.delete', actor_id: admin.id, before: { status: row.status }, after: null });
  });

  test('a status in use needs a replacement; its leads move there in the same transaction', async () => {
    const row = await created();
    const target = await created();
    const leads = [await leadWith(row.status), await leadWith(row.status), await leadWith(row.status)];
    let r = await act({ intent: 'delete', id: String(row.id) });
    expect(r.status).toBe(409);
    expect(fieldErrors(r).replacementId).toEqual(['Leads have this status. Choose the status they move to.']);
    r = await act({ intent: 'delete', id: String(row.id), replacementId: String(row.id) });
    expect(fieldErrors(r).replacementId).toEqual(['Choose another status for its leads']);
    r = await act({ intent: 'delete', id: String(row.id), replacementId: '999999999' });
    expect(fieldErrors(r).replacementId).toEqual(['Choose another status for its leads']);
    r = await act({ intent: 'delete', id: String(row.id), replacementId: 'x' });
    expect(fieldErrors(r).replacementId).toEqual(['Choose the status its leads move to']);
    expect(await byName(row.status)).toBeDefined();
    for (const l of leads) expect(await statusOf(l)).toBe(row.status);

    r = await act({ intent: 'delete', id: String(row.id), replacementId: String(target.id) });
    expect(r.body).toMatchObject({ ok: true, toast: 'Sales Status deleted successfully' });
    expect(await byName(row.status)).toBeUndefined();
    for (const l of leads) expect(await statusOf(l)).toBe(target.status);
    const [a] = (await auditOf(Number(row.id))).slice(-1);
    expect(a).toMatchObject({ action: 'sales_status.delete', before: { status: row.status }, after: { leadsMovedTo: target.status, leadsMoved: 3 } });
  });

  test('the default status cannot be deleted', async () => {
    const [d] = await defaults();
    const r = await act({ intent: 'delete', id: String(d.id), replacementId: String((await created()).id) });
    expect(r.status).toBe(409);
    expect(r.body?.toast).toBe('The default status cannot be deleted. Make another status the default first.');
    expect(await defaults()).toHaveLength(1);
  });
});
