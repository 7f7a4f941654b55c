// The spec's JSON reads: GET /admin/crm-config/sales-statuses/api (roles 1, 2; the lead lists ask
// page=1&limit=999) and GET /admin/crm-config/teams/api (admin only), `{ data, meta }`.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loader as statusesApi } from '~/routes/admin.crm-config.sales-statuses.api.ts';
import { loader as teamsApi } from '~/routes/admin.crm-config.teams.api.ts';
import { createUser, get, sessionFor, settle, testSql, unique } from '../helpers.ts';

const sql = testSql();
const cookies: Record<number, string> = {};
beforeAll(async () => {
  for (const roleId of [1, 2, 3, 4, 5, 6]) cookies[roleId] = (await sessionFor(sql, (await createUser(sql, { roleId })).id)).cookie;
});
afterAll(() => sql.end());

async function call(fn: typeof statusesApi, path: string, roleId: number) {
  const r = await settle(Promise.resolve(fn({ request: get(path, cookies[roleId]), params: {}, context: {} })));
  const res = r as Response;
  return { status: res.status, body: res.status === 200 ? await res.json() : null };
}

describe('GET /admin/crm-config/sales-statuses/api', () => {
  test('roles 1 and 2 read every status with limit=999; the others are refused', async () => {
    const tag = unique('Api');
    await sql`INSERT INTO sales_statuses (status) SELECT ${tag} || ' ' || g FROM generate_series(1, 20) g`;
    const r = await call(statusesApi, `/admin/crm-config/sales-statuses/api?page=1&limit=999&search=${tag}`, 2);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ total: 20, page: 1, limit: 999 });
    expect(r.body.data).toHaveLength(20);
    expect(r.body.data[0]).toMatchObject({ status: expect.stringContaining(tag), color: '#64748b', isDefault: false });
    const paged = await call(statusesApi, `/admin/crm-config/sales-statuses/api?page=2&limit=15&search=${tag}&sort=status&dir=asc`, 1);
    expect(paged.body.data).toHaveLength(5);
    expect((await call(statusesApi, '/admin/crm-config/sales-statuses/api?limit=abc&page=-3', 1)).status).toBe(200);
    for (const roleId of [3, 4, 5, 6]) expect((await call(statusesApi, '/admin/crm-config/sales-statuses/api', roleId)).status, `role ${roleId}`).toBe(403);
    await sql`DELETE FROM sales_statuses WHERE status LIKE ${tag + ' %'}`;
  });
});

describe('GET /admin/crm-config/teams/api', () => {
  test('the admin reads the teams; every other role is refused', async () => {
    const m = await createUser(sql, { roleId: 2 });
    const name = unique('ApiTeam ');
    await sql`INSERT INTO teams (name, code, manager_id) VALUES (${name}, ${unique('C')}, ${m.id})`;
    const r = await call(teamsApi, `/admin/crm-config/teams/api?search=${encodeURIComponent(name)}`, 1);
    expect(r.status).toBe(200);
    expect(r.body.meta.total).toBe(1);
    expect(r.body.data[0]).toMatchObject({ name, manager: { id: m.id }, members: [] });
    for (const roleId of [2, 3, 4, 5, 6]) expect((await call(teamsApi, '/admin/crm-config/teams/api', roleId)).status, `role ${roleId}`).toBe(403);
  });
});
