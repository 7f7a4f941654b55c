// /admin/pricing: the plans table, add, 'Edit Plan' and delete through the route module against
// PostgreSQL. Admin only; refusals are messages that change nothing; a plan in use stays; every
// change is audited; a leverage or stop-out change notifies the engine.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { action, loader } from '~/routes/_staff.admin.pricing.tsx';
import { createUser, get, post, sessionFor, testSql, unique } from '../helpers.ts';
import { answer, engineNotices, fieldErrors } from './helpers.ts';

const sql = testSql(5);
let admin: { id: number; cookie: string };
beforeAll(async () => {
  const u = await createUser(sql, { roleId: 1 });
  admin = { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
});
afterAll(() => sql.end());

const valid = (over: Record<string, string> = {}) => ({
  intent: 'save', name: unique('Plan '), description: 'For tests', price: '99.5',
  forexLeverage: '100', commodityLeverage: '', stockLeverage: '10', indexLeverage: '', cryptoLeverage: '5',
  forexStopout: '40', commodityStopout: '', stockStopout: '12.5', indexStopout: '', cryptoStopout: '0', ...over,
});
const act = (body: Record<string, string>, cookie = admin.cookie) =>
  answer(action({ request: post('/admin/pricing', body, { cookie }), params: {}, context: {} }));
const load = (query = '', cookie = admin.cookie) => answer(loader({ request: get(`/admin/pricing${query}`, cookie), params: {}, context: {} }));
const byName = async (name: string) => (await sql`SELECT * FROM pricing_plans WHERE name = ${name}`)[0];
const auditOf = (id: number) => sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = 'plan' AND target_id = ${String(id)} ORDER BY id`;

async function created(over: Record<string, string> = {}) {
  const body = valid(over);
  const r = await act(body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return byName(body.name);
}

describe('roles', () => {
  test('admins and managers open the plans list (the spec: admin or manager); only the admin changes a plan', async () => {
    const name = unique('Plan ');
    for (const roleId of [3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await load('', cookie)).status, `role ${roleId}`).toBe(403);
      expect((await act(valid({ name }), cookie)).status, `role ${roleId}`).toBe(403);
    }
    // a manager reads the list, without the edit controls, and every change is refused on the server
    const m = await createUser(sql, { roleId: 2 });
    const { cookie } = await sessionFor(sql, m.id);
    const list = await load('', cookie);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ canEdit: false });
    const existing = await created();
    for (const body of [valid({ name }), valid({ id: String(existing.id), name }), { intent: 'delete', id: String(existing.id) }]) {
      const r = await act(body, cookie);
      expect(r.status, body.intent).toBe(403);
      expect(r.body).toMatchObject({ toast: 'Only an admin can change pricing plans' });
    }
    expect(await byName(name)).toBeUndefined();
    expect(await byName(existing.name)).toBeDefined();
    expect((await load()).body).toMatchObject({ canEdit: true });
  });
});

describe('the list', () => {
  test('the five leverages and the five stop-outs, searched by name, sorted by a leverage', async () => {
    const tag = unique('Tier');
    await created({ name: `${tag} A`, forexLeverage: '300' });
    await created({ name: `${tag} B`, forexLeverage: '' });
    await created({ name: `${tag} C`, forexLeverage: '50' });
    const r = await load(`?search=${encodeURIComponent(tag)}&sort=forexLeverage&dir=desc`);
    const body = r.body as unknown as { total: number; rows: { name: string; price: string; currency: string; leverage: Record<string, number | null>; stopout: Record<string, string | null> }[] };
    expect(body.total).toBe(3);
    expect(body.rows.map((p) => p.name)).toEqual([`${tag} A`, `${tag} C`, `${tag} B`]); // empty last
    expect(body.rows[0]).toMatchObject({
      price: '99.50', currency: 'USD',
      leverage: { forex: 300, commodity: null, stock: 10, index: null, crypto: 5 },
      stopout: { forex: '40.00', commodity: null, stock: '12.50', index: null, crypto: '0.00' },
    });
  });
});

describe('add and edit', () => {
  test('a plan is added with empty values as null, audited', async () => {
    const row = await created();
    expect(row).toMatchObject({
      description: 'For tests', price: '99.50', price_currency: 'USD', forex_leverage: 100, commodity_leverage: null, stock_leverage: 10,
      index_leverage: null, crypto_leverage: 5, forex_stopout: '40.00', commodity_stopout: null, stock_stopout: '12.50', crypto_stopout: '0.00',
    });
    const [a] = await auditOf(Number(row.id));
    expect(a).toMatchObject({ action: 'plan.create', actor_id: admin.id, before: null, after: { name: row.name, price: '99.50', forex_leverage: 100 } });
  });

  test("'Edit Plan' changes it, audits before and after, and the engine is told of a leverage change (not of a name change)", async () => {
    const row = await created();
    const id = Number(row.id);
    let r!: Awaited<ReturnType<typeof act>>;
    const notes = await engineNotices(sql, async () => { r = await act(valid({ id: String(id), name: row.name, forexLeverage: '200', price: '0' })); });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Plan updated successfully' } });
    expect(notes.filter((n) => n.kind === 'plan' && n.id === id)).toEqual([{ kind: 'plan', id, op: 'update' }]);
    expect(await byName(row.name)).toMatchObject({ forex_leverage: 200, price: '0.00' });
    const renamed = `${row.name} renamed`;
    const quiet = await engineNotices(sql, () => act(valid({ id: String(id), name: renamed, forexLeverage: '200', price: '0' })));
    expect(quiet.filter((n) => n.kind === 'plan' && n.id === id)).toEqual([]);
    const trail = await auditOf(id);
    expect(trail.map((a) => a.action)).toEqual(['plan.create', 'plan.update', 'plan.update']);
    expect(trail[1]).toMatchObject({ before: { forex_leverage: 100, price: '99.50' }, after: { forex_leverage: 200, price: '0.00' } });
  });

  const refusals: [string, Record<string, string>, string, string][] = [
    ['no name', { name: ' ' }, 'name', 'Name is required'],
    ['a 121-character name', { name: 'n'.repeat(121) }, 'name', 'Name allows at most 120 characters'],
    ['a 501-character description', { description: 'd'.repeat(501) }, 'description', 'Description allows at most 500 characters'],
    ['no price', { price: '' }, 'price', 'Price is required'],
    ['a negative price', { price: '-1' }, 'price', 'Price must be a number of at least 0 with at most 2 decimals'],
    ['a price with 3 decimals', { price: '1.234' }, 'price', 'Price must be a number of at least 0 with at most 2 decimals'],
    ['a huge price', { price: '12345678901234567' }, 'price', 'Price must be a number of at least 0 with at most 2 decimals'],
    ['a price in exponent form', { price: '1e5' }, 'price', 'Price must be a number of at least 0 with at most 2 decimals'],
    ['a zero leverage', { forexLeverage: '0' }, 'forexLeverage', 'Forex leverage must be a whole number from 1 to 10000, or empty'],
    ['a negative leverage', { commodityLeverage: '-5' }, 'commodityLeverage', 'Commodity leverage must be a whole number from 1 to 10000, or empty'],
    ['a fractional leverage', { stockLeverage: '2.5' }, 'stockLeverage', 'Stock leverage must be a whole number from 1 to 10000, or empty'],
    ['a word as leverage', { indexLeverage: 'ten' }, 'indexLeverage', 'Index leverage must be a whole number from 1 to 10000, or empty'],
    ['a huge leverage', { cryptoLeverage: '99999999999999999999' }, 'cryptoLeverage', 'Crypto leverage must be a whole number from 1 to 10000, or empty'],
    ['a stop-out above 100', { forexStopout: '100.01' }, 'forexStopout', 'Forex stop-out must be a number from 0 to 100 with at most 2 decimals, or empty'],
    ['a negative stop-out', { commodityStopout: '-1' }, 'commodityStopout', 'Commodity stop-out must be a number from 0 to 100 with at most 2 decimals, or empty'],
    ['a stop-out with 3 decimals', { stockStopout: '1.234' }, 'stockStopout', 'Stock stop-out must be a number from 0 to 100 with at most 2 decimals, or empty'],
    ['a huge stop-out', { indexStopout: '1000000' }, 'indexStopout', 'Index stop-out must be a number from 0 to 100 with at most 2 decimals, or empty'],
  ];
  test.each(refusals)('%s is refused with its message, nothing written', async (_, over, field, message) => {
    const body = valid(over);
    const r = await act(body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ok: false, toast: message });
    expect(fieldErrors(r)[field]).toEqual([message]);
    expect(await sql`SELECT 1 FROM pricing_plans WHERE name = ${body.name}`).toHaveLength(0);
  });

  test('a duplicate name, whatever its case, and an unknown id are refused', async () => {
    const row = await created();
    expect(await act(valid({ name: String(row.name).toUpperCase() }))).toMatchObject({ status: 409, body: { toast: 'A plan with this name already exists' } });
    const other = await created();
    expect(await act(valid({ id: String(other.id), name: row.name }))).toMatchObject({ status: 409, body: { toast: 'A plan with this name already exists' } });
    expect(await act(valid({ id: '999999999999' }))).toMatchObject({ status: 404, body: { toast: 'Plan not found' } });
    expect((await act(valid({ id: 'abc' }))).status).toBe(400);
    expect((await byName(other.name)).name).toBe(other.name);
  });
});

describe('delete', () => {
  test('a plan customers are on is refused, saying how many; once nobody is on it, it is deleted and audited', async () => {
    const row = await created();
    const id = Number(row.id);
    const users = [await createUser(sql), await createUser(sql)];
    await sql`UPDATE users SET pricing_plan_id = ${id} WHERE id IN ${sql(users.map((u) => u.id))}`;
    const r = await act({ intent: 'delete', id: String(id) });
    expect(r).toMatchObject({ status: 409, body: { ok: false, toast: 'Customers on this plan: {{count}}. Move them to another plan before deleting it.', values: { count: 2 } } });
    expect(await byName(row.name)).toBeDefined();

    await sql`UPDATE users SET pricing_plan_id = NULL WHERE id IN ${sql(users.map((u) => u.id))}`;
    let ok!: Awaited<ReturnType<typeof act>>;
    const notes = await engineNotices(sql, async () => { ok = await act({ intent: 'delete', id: String(id) }); });
    expect(ok).toMatchObject({ status: 200, body: { ok: true, toast: 'Plan deleted successfully' } });
    expect(await byName(row.name)).toBeUndefined();
    expect(notes).toContainEqual({ kind: 'plan', id, op: 'delete' });
    expect((await auditOf(id)).at(-1)).toMatchObject({ action: 'plan.delete', before: { name: row.name }, after: null });
  });

  test('an unknown or a bad id is refused', async () => {
    expect(await act({ intent: 'delete', id: '999999999999' })).toMatchObject({ status: 404, body: { toast: 'Plan not found' } });
    expect((await act({ intent: 'delete', id: '1; DROP TABLE pricing_plans' })).status).toBe(400);
  });
});

