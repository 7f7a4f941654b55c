// /admin/crm-config/teams through the route module against PostgreSQL: admin only, the spec's
// messages, the roles of the manager and the members checked on the server, the generated
// unique code, several teams per agent, delete, the audit rows, and the scope helper the lead
// lists use for managers (managerAgentIds, managerLeadScope).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { action, loader } from '~/routes/_staff.admin.crm-config.teams.tsx';
import { managerAgentIds, managerLeadScope, newTeamCode, TEAM_CODE } from '~/modules/crm-config/teams.server.ts';
import { DEMO_TEAMS } from '../../../seeds/demo.ts';
import { SCALE_TEAMS, scaleTeamCode } from '../../../seeds/scale-teams.ts';
import { createUser, get, post, sessionFor, testSql, unique, uniqueEmail } from '../helpers.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';

const sql = testSql(5);
let admin: { id: number; cookie: string };
let mgr: number, mgr2: number, sales: number, sales2: number, ret: number, customer: number, affiliate: number;
beforeAll(async () => {
  const a = await createUser(sql, { roleId: 1 });
  admin = { id: a.id, cookie: (await sessionFor(sql, a.id)).cookie };
  [mgr, mgr2, sales, sales2, ret, customer, affiliate] = await Promise.all([2, 2, 5, 5, 6, 3, 4].map(async (roleId) => (await createUser(sql, { roleId })).id));
});
afterAll(() => sql.end());

const PATH = '/admin/crm-config/teams';
function form(fields: Record<string, string | string[]>) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) f.append(k, x);
  return f;
}
const act = (fields: Record<string, string | string[]>, cookie = admin.cookie) =>
  answer(action({ request: post(PATH, form(fields), { cookie }), params: {}, context: {} }));
const load = (query = '', cookie = admin.cookie) => answer(loader({ request: get(`${PATH}${query}`, cookie), params: {}, context: {} }));
const byName = async (name: string) => (await sql`SELECT * FROM teams WHERE name = ${name}`)[0];
const membersOf = async (id: number) => (await sql`SELECT user_id FROM team_members WHERE team_id = ${id} ORDER BY user_id`).map((r) => Number(r.user_id));
const auditOf = (id: number) => sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = 'team' AND target_id = ${String(id)} ORDER BY id`;

async function created(over: Record<string, string | string[]> = {}) {
  const body = { intent: 'save', name: unique('Team '), userId: String(mgr), userIds: [String(sales), String(ret)], ...over };
  const r = await act(body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return byName(body.name as string);
}

describe('roles', () => {
  test('only the admin opens the page or changes a team (role 1)', async () => {
    const team = await created();
    const name = unique('Nope ');
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await load('', cookie)).status, `role ${roleId}`).toBe(403);
      expect((await act({ intent: 'save', name, userId: String(mgr) }, cookie)).status, `role ${roleId}`).toBe(403);
      expect((await act({ intent: 'delete', id: String(team.id) }, cookie)).status, `role ${roleId}`).toBe(403);
    }
    expect(await byName(name)).toBeUndefined();
    expect(await byName(team.name)).toBeDefined();
  });
});

describe('add, edit, delete', () => {
  test('a team is added with a generated code, its manager and members, audited', async () => {
    const team = await created();
    expect(team.code).toMatch(/^TM-[A-Z2-9]{6}$/);
    expect(Number(team.manager_id)).toBe(mgr);
    expect(await membersOf(Number(team.id))).toEqual([sales, ret].sort((a, b) => a - b));
    const [a] = await auditOf(Number(team.id));
    expect(a).toMatchObject({ action: 'team.create', actor_id: admin.id, before: null, after: { name: team.name, code: team.code, managerId: mgr } });
    expect(a.after.memberIds.sort()).toEqual([sales, ret].sort());
  });

  test('codes are unique: many teams, as many codes; a posted code is ignored', async () => {
    const teams = await Promise.all([1, 2, 3, 4, 5].map(() => created({ code: 'MINE' })));
    expect(new Set(teams.map((t) => t.code)).size).toBe(5);
    expect(teams.some((t) => t.code === 'MINE')).toBe(false);
    const many = new Set(Array.from({ length: 2000 }, newTeamCode));
    expect(many.size).toBeGreaterThan(1990);
  });

  test('seeded team codes follow the rule of generated ones (TM- and 6 characters)', () => {
    for (const code of Array.from({ length: 50 }, newTeamCode)) expect(code).toMatch(TEAM_CODE);
    for (const [, code] of DEMO_TEAMS) expect(code).toMatch(TEAM_CODE);
    const scale = Array.from({ length: SCALE_TEAMS }, (_, t) => scaleTeamCode(t));
    for (const code of scale) expect(code).toMatch(TEAM_CODE);
    expect(new Set(scale).size).toBe(SCALE_TEAMS);
  });

  test('edit changes the name, manager and members (added and removed), keeps the code, audits before and after', async () => {
    const team = await created();
    const id = Number(team.id);
    const name = unique('Renamed ');
    const r = await act({ intent: 'save', id: String(id), name, userId: String(mgr2), userIds: [String(sales2), String(ret)] });
    expect(r.body).toMatchObject({ ok: true, toast: 'Team updated successfully' });
    const after = (await sql`SELECT * FROM teams WHERE id = ${id}`)[0];
    expect(after).toMatchObject({ name, code: team.code });
    expect(Number(after.manager_id)).toBe(mgr2);
    expect(await membersOf(id)).toEqual([sales2, ret].sort((a, b) => a - b));
    const a = (await auditOf(id)).at(-1)!;
    expect(a).toMatchObject({ action: 'team.update', before: { name: team.name, managerId: mgr }, after: { name, managerId: mgr2, code: team.code } });
    // no members at all
    expect((await act({ intent: 'save', id: String(id), name, userId: String(mgr2) })).status).toBe(200);
    expect(await membersOf(id)).toEqual([]);
  });

  test('an agent may be in several teams', async () => {
    const a = await created({ userIds: [String(sales)] });
    const b = await created({ userIds: [String(sales)] });
    expect(await membersOf(Number(a.id))).toEqual([sales]);
    expect(await membersOf(Number(b.id))).toEqual([sales]);
  });

  test("'Are you sure to delete this team?' then deleted with its memberships, audited; the people stay", async () => {
    const team = await created();
    const r = await act({ intent: 'delete', id: String(team.id) });
    expect(r.body).toMatchObject({ ok: true, toast: 'Team deleted successfully' });
    expect(await byName(team.name)).toBeUndefined();
    expect(await membersOf(Number(team.id))).toEqual([]);
    expect((await sql`SELECT count(*)::int AS n FROM users WHERE id IN (${mgr}, ${sales}, ${ret})`)[0].n).toBe(3);
    const [a] = (await auditOf(Number(team.id))).slice(-1);
    expect(a).toMatchObject({ action: 'team.delete', actor_id: admin.id, before: { name: team.name, managerId: mgr }, after: null });
    expect((await act({ intent: 'delete', id: String(team.id) })).status).toBe(404);
  });
});

describe('validation', () => {
  test("the spec's messages: 'Name is required', 'Manager is required'; nothing is written", async () => {
    const [{ n: before }] = await sql`SELECT count(*)::int AS n FROM teams`;
    let r = await act({ intent: 'save', name: ' ', userId: String(mgr) });
    expect(fieldErrors(r).name).toEqual(['Name is required']);
    r = await act({ intent: 'save', name: unique('T '), userId: '' });
    expect(fieldErrors(r).userId).toEqual(['Manager is required']);
    r = await act({ intent: 'save', name: unique('T '), userId: 'abc' });
    expect(fieldErrors(r).userId).toEqual(['Manager is required']);
    r = await act({ intent: 'save', name: 'n'.repeat(121), userId: String(mgr) });
    expect(fieldErrors(r).name).toEqual(['Name allows at most 120 characters']);
    r = await act({ intent: 'save', name: unique('T '), userId: String(mgr), userIds: ['1', 'x'] });
    expect(fieldErrors(r).userIds).toEqual(['Members must be sales or retention agents']);
    const [{ n: after }] = await sql`SELECT count(*)::int AS n FROM teams`;
    expect(after).toBe(before);
  });

  test('roles on the server: a non-manager as manager, a customer or a manager as member → field errors, nothing written', async () => {
    const name = unique('Roles ');
    for (const userId of [sales, ret, customer, affiliate, admin.id, 999999999]) {
      const r = await act({ intent: 'save', name, userId: String(userId) });
      expect(r.status, `manager ${userId}`).toBe(422);
      expect(fieldErrors(r).userId).toEqual(['The manager must be a user with the Manager role']);
    }
    for (const member of [customer, affiliate, mgr2, admin.id, 999999999]) {
      const r = await act({ intent: 'save', name, userId: String(mgr), userIds: [String(sales), String(member)] });
      expect(r.status, `member ${member}`).toBe(422);
      expect(fieldErrors(r).userIds).toEqual(['Members must be sales or retention agents']);
    }
    // a deleted manager is no manager
    const gone = await createUser(sql, { roleId: 2 });
    await sql`UPDATE users SET deleted_at = now() WHERE id = ${gone.id}`;
    expect(fieldErrors(await act({ intent: 'save', name, userId: String(gone.id) })).userId).toEqual(['The manager must be a user with the Manager role']);
    expect(await byName(name)).toBeUndefined();
  });

  test('a name another team has (any case) is refused', async () => {
    const team = await created();
    const r = await act({ intent: 'save', name: team.name.toUpperCase(), userId: String(mgr) });
    expect(r.status).toBe(409);
    expect(fieldErrors(r).name).toEqual(['A team with this name already exists']);
  });

  test('ids from outside are a message, never a 500', async () => {
    for (const id of ['999999999', 'abc', '0']) {
      expect([400, 404], id).toContain((await act({ intent: 'save', id, name: unique('T '), userId: String(mgr) })).status);
      expect([400, 404], id).toContain((await act({ intent: 'delete', id })).status);
    }
  });
});

describe('the list', () => {
  test('server-paged and searched: name, code, manager name and members in one answer', async () => {
    const tag = unique('Lst');
    const team = await created({ name: `${tag} one` });
    await created({ name: `${tag} two`, userIds: [] });
    const r = await load(`?search=${encodeURIComponent(tag)}&sort=name&dir=asc`);
    const body = r.body as unknown as { total: number; rows: { name: string; code: string; manager: { id: number; fullName: string } | null; members: { id: number }[] }[]; managers: { id: number }[]; agents: { id: number; roleId: number }[] };
    expect(body.total).toBe(2);
    expect(body.rows.map((x) => x.name)).toEqual([`${tag} one`, `${tag} two`]);
    expect(body.rows[0]).toMatchObject({ code: team.code, manager: { id: mgr } });
    expect(body.rows[0].manager!.fullName).toMatch(/^Test /);
    expect(body.rows[0].members.map((m) => m.id).sort()).toEqual([sales, ret].sort());
    expect(body.rows[1].members).toEqual([]);
    // by code too
    expect((await load(`?search=${team.code}`)).body).toMatchObject({ total: 1 });
    // the pickers: managers are role 2, agents roles 5 and 6
    expect(body.managers.map((m) => m.id)).toEqual(expect.arrayContaining([mgr, mgr2]));
    expect(body.managers.map((m) => m.id)).not.toContain(sales);
    expect(body.agents.map((m) => m.id)).toEqual(expect.arrayContaining([sales, sales2, ret]));
    expect(new Set(body.agents.map((m) => m.roleId))).toEqual(new Set([5, 6]));
    expect(body.agents.map((m) => m.id)).not.toContain(customer);
  });
});

describe('what a manager sees (the lead lists\' scope)', () => {
  test('managerAgentIds: the agents of the teams they manage, each once', async () => {
    const boss = (await createUser(sql, { roleId: 2 })).id;
    const [a1, a2, r1, other] = await Promise.all([5, 5, 6, 5].map(async (roleId) => (await createUser(sql, { roleId })).id));
    await created({ userId: String(boss), userIds: [String(a1), String(r1)] });
    await created({ userId: String(boss), userIds: [String(a1), String(a2)] });
    await created({ userId: String(mgr), userIds: [String(other)] });
    expect(await managerAgentIds(sql, boss)).toEqual([a1, a2, r1].sort((x, y) => x - y));
    expect(await managerAgentIds(sql, (await createUser(sql, { roleId: 2 })).id)).toEqual([]);
  });

  test('managerLeadScope: their own leads and those of their teams\' sales and retention agents, nobody else\'s', async () => {
    const boss = (await createUser(sql, { roleId: 2 })).id;
    const [agent, retAgent, outsider] = await Promise.all([5, 6, 5].map(async (roleId) => (await createUser(sql, { roleId })).id));
    await created({ userId: String(boss), userIds: [String(agent), String(retAgent)] });
    const tag = unique('scope');
    const lead = async (cols: { manager_id?: number; agent_id?: number; ret_id?: number }) => {
      const [l] = await sql`INSERT INTO leads ${sql({ first_name: tag, email: uniqueEmail('scope'), ...cols })} RETURNING id`;
      return Number(l.id);
    };
    const own = await lead({ manager_id: boss });
    const byAgent = await lead({ agent_id: agent, manager_id: mgr });
    const byRet = await lead({ ret_id: retAgent });
    await lead({ agent_id: outsider, manager_id: mgr });
    await lead({});
    const seen = await sql`SELECT l.id FROM leads l WHERE l.first_name = ${tag} AND ${managerLeadScope(sql, boss, 'l')} ORDER BY l.id`;
    expect(seen.map((r) => Number(r.id))).toEqual([own, byAgent, byRet]);
    // the default alias is the table's name
    const plain = await sql`SELECT id FROM leads WHERE first_name = ${tag} AND ${managerLeadScope(sql, boss)}`;
    expect(plain).toHaveLength(3);
    // once the agent leaves the team, their leads leave the manager's lists
    await sql`DELETE FROM team_members WHERE user_id = ${agent}`;
    const after = await sql`SELECT l.id FROM leads l WHERE l.first_name = ${tag} AND ${managerLeadScope(sql, boss, 'l')} ORDER BY l.id`;
    expect(after.map((r) => Number(r.id))).toEqual([own, byRet]);
  });
});
