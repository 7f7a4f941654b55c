// The CRM lead lists (docs/specs.md#crm-lead-lists) against PostgreSQL: each screen's rows by role (admins all,
// managers their teams', agents their own, affiliates refused), masking of agents' contacts, the
// bulk moves the state rules allow and refuse, 'all' acting on exactly the filtered rows in one
// statement, and the row actions' validation and scope.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresStore, testSql, unique, uniqueEmail } from '../helpers.ts';
import { resetPassword } from '~/modules/auth/auth.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { maskEmail, maskPhone } from '~/shared/mask.ts';
import { crmSupport, ROUTES, type Staff } from './support.ts';

const sql = testSql();
const { staff, lead, team, list, ids, act, groupOf } = crmSupport(sql);

let admin: Staff, manager: Staff, otherManager: Staff, agentA: Staff, agentB: Staff, ret: Staff, affiliate: Staff;

beforeAll(async () => {
  [admin, manager, otherManager, agentA, agentB, ret, affiliate] = await Promise.all([
    staff(1), staff(2), staff(2), staff(5), staff(5), staff(6), staff(4),
  ]);
  await team(manager.id, [agentA.id, ret.id]);
  await sql`INSERT INTO sales_statuses (status, color) VALUES ('CRM Test Hot', '#d73a49') ON CONFLICT DO NOTHING`;
});
afterAll(async () => { await sql.end(); });

describe('masking helpers', () => {
  test('email keeps 2 + 2 characters of the local part, phone the last 2 digits', () => {
    expect(maskEmail('johndoe@example.com')).toBe('jo****oe@example.com');
    expect(maskEmail('abcd@example.com')).toBe('abcd@example.com');
    expect(maskEmail('abcde@x.io')).toBe('ab****de@x.io');
    expect(maskPhone('+44 7700 900123')).toBe('******23');
    expect(maskPhone('')).toBe('');
  });
});

describe('role scoping of every list', () => {
  test('sales screens: admin all, manager via team and own, agents their own, affiliate refused', async () => {
    const tok = unique('sc');
    const l1 = await lead(tok, { agent: agentA.id });
    const l2 = await lead(tok, { agent: agentB.id });
    const l3 = await lead(tok, { manager: manager.id });
    const l4 = await lead(tok, { agent: agentB.id, manager: otherManager.id, live: true });
    for (const path of ['/admin/crm/sales/all', '/admin/crm/sales/manual', '/admin/crm/sales/live'] as const) {
      const want = (xs: number[]) => xs.filter((id) => (path.endsWith('live') ? id === l4 : path.endsWith('manual') ? id !== l4 : true));
      expect(await ids(path, admin.cookie, tok)).toEqual(want([l1, l2, l3, l4]));
      expect(await ids(path, manager.cookie, tok)).toEqual(want([l1, l3]));
      expect(await ids(path, otherManager.cookie, tok)).toEqual(want([l4]));
      expect(await ids(path, agentA.cookie, tok)).toEqual(want([l1]));
      expect(await ids(path, agentB.cookie, tok)).toEqual(want([l2, l4]));
      expect(await ids(path, affiliate.cookie, tok)).toBe(403);
      expect(await ids(path, ret.cookie, tok)).toBe(403);
    }
  });

  test('retention, archived, clients and the leads screens', async () => {
    const tok = unique('sr');
    const r1 = await lead(tok, { group: 'retentions', ret: ret.id });
    const r2 = await lead(tok, { group: 'retentions' });
    const a1 = await lead(tok, { group: 'archived', agent: agentA.id });
    const customer = await staff(3);
    const c1 = await lead(tok, { user: customer.id, manager: manager.id });
    const n1 = await lead(tok, { live: true, affiliate: affiliate.id });
    const n2 = await lead(tok, {});
    expect(await ids('/admin/crm/retention', admin.cookie, tok)).toEqual([r1, r2]);
    expect(await ids('/admin/crm/retention', manager.cookie, tok)).toEqual([r1]);
    expect(await ids('/admin/crm/retention', ret.cookie, tok)).toEqual([r1]);
    expect(await ids('/admin/crm/retention', agentA.cookie, tok)).toBe(403);
    expect(await ids('/admin/crm/archived', admin.cookie, tok)).toEqual([a1]);
    expect(await ids('/admin/crm/archived', manager.cookie, tok)).toEqual([a1]);
    expect(await ids('/admin/crm/clients', admin.cookie, tok)).toEqual([c1]);
    expect(await ids('/admin/crm/clients', manager.cookie, tok)).toEqual([c1]);
    expect(await ids('/admin/leads/live', admin.cookie, tok)).toEqual([n1]);
    expect(await ids('/admin/leads/manual', admin.cookie, tok)).toEqual([n2]);
    expect(await ids('/admin/leads/all', admin.cookie, tok)).toEqual([n1]);
    // n1 came in by the API and nobody holds it: the pool every manager sees
    expect(await ids('/admin/leads/all', manager.cookie, tok)).toEqual([n1]);
    expect(await ids('/admin/leads/manual', manager.cookie, tok)).toEqual([]);
    for (const path of Object.keys(ROUTES)) expect(await ids(path, affiliate.cookie, tok)).toBe(403);
  });

  test('the pool: API leads nobody holds reach every manager, who assigns them; assigned, they leave the others\' lists', async () => {
    const tok = unique('pool');
    const p1 = await lead(tok, { live: true });
    const p2 = await lead(tok, { live: true });
    const held = await lead(tok, { live: true, agent: agentB.id }); // another team's agent holds it
    const manual = await lead(tok, {}); // an admin's manual lead: the admin's own to assign
    expect(await ids('/admin/crm/sales/live', manager.cookie, tok)).toEqual([p1, p2]);
    expect(await ids('/admin/crm/sales/live', otherManager.cookie, tok)).toEqual([p1, p2]);
    expect(await ids('/admin/crm/sales/all', manager.cookie, tok)).toEqual([p1, p2]);
    expect(await ids('/admin/crm/sales/all', admin.cookie, tok)).toEqual([p1, p2, held, manual]);
    // agents see only their own: the pool is not theirs
    expect(await ids('/admin/crm/sales/all', agentA.cookie, tok)).toEqual([]);
    // a manager assigns one to their team's agent: it is theirs now, gone from the other manager's lists
    const r = await act('/admin/crm/sales/live', { intent: 'assign', agentId: String(agentA.id), ids: String(p1) }, manager.cookie);
    expect(r.data).toMatchObject({ ok: true });
    expect(await ids('/admin/crm/sales/live', manager.cookie, tok)).toEqual([p1, p2]);
    expect(await ids('/admin/crm/sales/live', otherManager.cookie, tok)).toEqual([p2]);
    expect(await ids('/admin/crm/sales/all', agentA.cookie, tok)).toEqual([p1]);
    // the list's scope keeps its indexes: the pool arm has its own partial index
    const [ix] = await sql`SELECT indexdef FROM pg_indexes WHERE indexname = 'leads_pool_idx'`;
    expect(ix.indexdef).toMatch(/WHERE \(is_live AND \(manager_id IS NULL\) AND \(agent_id IS NULL\) AND \(ret_id IS NULL\) AND \(deleted_at IS NULL\)\)/);
  });

  test('the agent filter narrows for admins and is ignored for agents', async () => {
    const tok = unique('af');
    const l1 = await lead(tok, { agent: agentA.id });
    const l2 = await lead(tok, { agent: agentB.id });
    expect(await ids('/admin/crm/sales/all', admin.cookie, tok, `&agent=${agentA.id}`)).toEqual([l1]);
    expect(await ids('/admin/crm/sales/all', agentB.cookie, tok, `&agent=${agentA.id}`)).toEqual([l2]);
    const r = await list(`/admin/crm/sales/all?search=${tok}&agent=x1`, admin.cookie);
    expect(r.status).toBe(400);
  });

  test('sorts by every column but actions, and bad sort values fall back to id', async () => {
    const tok = unique('so');
    await lead(tok, { status: 'New' });
    await lead(tok, { status: 'CRM Test Hot' });
    for (const sort of ['firstName', 'lastName', 'email', 'phone', 'notes', 'country', 'status', 'group', 'manager', 'agent', 'registeredAt', 'city',
      'retAgent', 'depositedAt', 'lastAccess', 'funnelLink', 'reference', 'leadSourceId', 'ftdAt', 'affiliator', 'nope']) {
      for (const dir of ['asc', 'desc']) {
        const r = await list(`/admin/crm/sales/all?search=${tok}&sort=${sort}&dir=${dir}`, admin.cookie);
        expect(r.status).toBe(200);
        expect(r.data.rows).toHaveLength(2);
      }
    }
  });
});

describe('sorting by a person column', () => {
  test('orders by the person\'s name (then person, then lead), people-less leads last, the same whether the list is small or large', async () => {
    const tok = unique('sp');
    const [zed, amy, bob] = await Promise.all([staff(5), staff(5), staff(5)]);
    // ids in the opposite order of the names, so an id sort could not pass
    await sql`UPDATE users SET full_name = CASE id WHEN ${zed.id} THEN 'Aaron Zed' WHEN ${amy.id} THEN 'Mia Amy' ELSE 'Zoe Bob' END
               WHERE id IN (${zed.id}, ${amy.id}, ${bob.id})`;
    const b1 = await lead(tok, { agent: bob.id });
    const z1 = await lead(tok, { agent: zed.id });
    const n1 = await lead(tok, { agent: null });
    const a1 = await lead(tok, { agent: amy.id });
    const z2 = await lead(tok, { agent: zed.id });
    const asc = [z1, z2, a1, b1, n1];
    const desc = [b1, a1, z2, z1, n1];
    const rows = async (dir: string) => ((await list(`/admin/crm/sales/all?search=${tok}&sort=agent&dir=${dir}&limit=50`, admin.cookie)).data.rows as { id: number }[]).map((r) => r.id);
    expect(await rows('asc')).toEqual(asc);
    expect(await rows('desc')).toEqual(desc);
    // the large-list path (loose index scan over the people, then each one's leads) picks the same pages
    const { leadCondition, pickPage } = await import('~/modules/crm/leads.server.ts');
    const { SCREENS } = await import('~/modules/crm/screens.ts');
    const ctx = { caller: { id: admin.id, roleId: 1 }, screen: SCREENS['sales-all'], masked: false };
    const cond = () => leadCondition(sql, ctx, { status: '', agent: '', dateStart: '', dateEnd: '', search: tok }, { kind: 'all' });
    for (const [dir, want] of [['asc', asc], ['desc', desc]] as const) {
      for (const small of [true, false]) {
        const pages = [];
        for (let offset = 0; offset < 5; offset += 2) pages.push(...await pickPage(sql, cond(), { sort: 'agent', dir, limit: 2 }, offset, small));
        expect(pages).toEqual(want);
      }
    }
  });
});

describe('masking', () => {
  test('with the switch off, agents never receive the email or phone; admins do', async () => {
    if ((await getSetting(sql, 'showUserInfoAgent')).enabled === 'on') return; // the serial file flips it
    const tok = unique('mk');
    const email = uniqueEmail('secretlocal').toLowerCase();
    const id = await lead(tok, { agent: agentA.id, email, phone: '+1 555 0100 987' });
    const agentView = await list(`/admin/crm/sales/all?search=${tok}`, agentA.cookie);
    const json = JSON.stringify(agentView.data);
    expect(json).not.toContain(email);
    expect(json).not.toContain('0100 987');
    expect(json).not.toContain('+1 555');
    const row = agentView.data.rows.find((r: { id: number }) => r.id === id);
    expect(row.email).toBe(maskEmail(email));
    expect(row.phone).toBe('******87');
    // a search by the hidden email finds nothing for the agent
    expect(await ids('/admin/crm/sales/all', agentA.cookie, encodeURIComponent(email))).toEqual([]);
    const adminView = await list(`/admin/crm/sales/all?search=${tok}`, admin.cookie);
    expect(JSON.stringify(adminView.data)).toContain(email);
  });
});

describe('a large bulk action shows its progress', () => {
  test('the one UPDATE reports its rows as it goes; only the caller reads them; without a token nothing is recorded', async () => {
    const tok = unique('pg');
    const n = 6000;
    await sql`INSERT INTO leads (first_name, last_name, email, phone, country, city, lead_status, "group")
              SELECT 'Bulk', ${tok}, 'bulk' || g || '.' || ${tok} || '@example.com', '+44 7700 900123', 'Spain', 'Madrid', 'New', 'sales'
                FROM generate_series(1, ${n}) g`;
    // a fresh token: a row left by an interrupted run under the same token (another admin's) would hide this one's
    const token = randomUUID();
    const seen: number[] = [];
    let running = true;
    const watcher = (async () => {
      while (running) {
        const r = await list(`/admin/crm/sales/all?bulkProgress=${token}`, admin.cookie);
        if (r.data.progress) seen.push(r.data.progress.done);
        await new Promise((res) => setTimeout(res, 2));
      }
    })();
    const r = await act(`/admin/crm/sales/all?search=${tok}`, { intent: 'move', target: 'archived', all: '1', progress: token }, admin.cookie);
    running = false;
    await watcher;
    expect(r.status).toBe(200);
    expect(r.data.count).toBe(n);
    const final = await list(`/admin/crm/sales/all?bulkProgress=${token}`, admin.cookie);
    expect(final.data.progress).toEqual({ done: n, total: n, finished: true });
    // it moved while the page watched: counts between none and all, never going back
    expect(seen.some((d) => d > 0 && d < n)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // another user, a malformed token: nothing to read, no error
    expect((await list(`/admin/crm/sales/all?bulkProgress=${token}`, manager.cookie)).data.progress).toBeNull();
    for (const q of ['%27%3Bdrop', 'abc', '', '-1', '1e308', '0000-01-01']) {
      const bad = await list(`/admin/crm/sales/all?bulkProgress=${q}`, admin.cookie);
      expect([bad.status, bad.data.progress, bad.data.message]).toEqual([400, null, 'Invalid progress token']);
    }
    // a bad token is refused before anything moves
    const refused = await act(`/admin/crm/archived?search=${tok}`, { intent: 'move', target: 'sales', all: '1', progress: 'nope' }, admin.cookie);
    expect(refused.status).toBe(400);
    expect(Number((await sql`SELECT count(*)::int AS c FROM leads WHERE last_name = ${tok} AND "group" = 'archived'`)[0].c)).toBe(n);
    // without a token (a small selection) the move records no progress
    const before = Number((await sql`SELECT count(*)::int AS c FROM statement_progress`)[0].c);
    expect((await act(`/admin/crm/archived?search=${tok}`, { intent: 'move', target: 'sales', all: '1' }, admin.cookie)).data.count).toBe(n);
    expect(Number((await sql`SELECT count(*)::int AS c FROM statement_progress`)[0].c)).toBe(before);
  });
});

describe('progress never starves the pool', () => {
  test('concurrent large moves on a pool of two all finish (a transaction never waits for a second connection)', async () => {
    const { connect } = await import('~/shared/db.server.ts');
    const { bulkMove } = await import('~/modules/crm/leads.server.ts');
    const { SCREENS } = await import('~/modules/crm/screens.ts');
    const small = connect(process.env.DATABASE_URL!, 2);
    try {
      const toks = [unique('p1'), unique('p2'), unique('p3')];
      for (const tok of toks) {
        await sql`INSERT INTO leads (first_name, last_name, email, phone, country, city, lead_status, "group")
                  SELECT 'Bulk', ${tok}, 'b' || g || '.' || ${tok} || '@example.com', '', 'Spain', 'Madrid', 'New', 'sales' FROM generate_series(1, 300) g`;
      }
      const ctx = { caller: { id: admin.id, roleId: 1 }, screen: SCREENS['sales-all'], masked: false };
      const tokens = ['1b7e2c1a-3f4d-4e5a-9b6c-7d8e9f0a1b2c', '2b7e2c1a-3f4d-4e5a-9b6c-7d8e9f0a1b2c', '3b7e2c1a-3f4d-4e5a-9b6c-7d8e9f0a1b2c'];
      const moves = toks.map((tok, i) => bulkMove(small, ctx, { status: '', agent: '', dateStart: '', dateEnd: '', search: tok }, { all: true, ids: [] }, 'archived', null, tokens[i]));
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the moves did not finish: the pool starved')), 10_000));
      const results = await Promise.race([Promise.all(moves), timeout]);
      expect(results.map((r) => (r.ok ? r.count : r.message))).toEqual([300, 300, 300]);
      const rows = await sql`SELECT done, total, finished_at FROM statement_progress WHERE token IN ${sql(tokens)}`;
      expect(rows.map((r) => [Number(r.done), Number(r.total), r.finished_at !== null])).toEqual([[300, 300, true], [300, 300, true], [300, 300, true]]);
    } finally {
      await small.end();
    }
  });
});

describe('bulk moves by the state rules', () => {
  const move = (path: string, cookie: string, target: string, idsOrAll: number[] | 'all', query = '') =>
    act(`${path}${query}`, { intent: 'move', target, ...(idsOrAll === 'all' ? { all: '1' } : { all: '0', ids: idsOrAll.join(',') }) }, cookie);

  test('allowed: sales → retentions / archived, retentions → sales / archived, archived → sales, clients → any', async () => {
    const tok = unique('mv');
    const s1 = await lead(tok);
    const s2 = await lead(tok);
    expect((await move('/admin/crm/sales/all', admin.cookie, 'retentions', [s1])).data).toMatchObject({ ok: true, count: 1, toast: 'Lead moved successfully' });
    expect((await groupOf(s1)).group).toBe('retentions');
    expect((await move('/admin/crm/sales/all', admin.cookie, 'archived', [s2])).data).toMatchObject({ ok: true, count: 1 });
    expect((await groupOf(s2)).group).toBe('archived');
    expect((await move('/admin/crm/retention', admin.cookie, 'sales', [s1])).data).toMatchObject({ ok: true, count: 1 });
    expect((await groupOf(s1)).group).toBe('sales');
    expect((await move('/admin/crm/archived', admin.cookie, 'sales', [s2])).data).toMatchObject({ ok: true, count: 1 });
    expect((await groupOf(s2)).group).toBe('sales');
    const r1 = await lead(tok, { group: 'retentions' });
    expect((await move('/admin/crm/retention', admin.cookie, 'archived', [r1])).data).toMatchObject({ ok: true, count: 1 });
    expect((await groupOf(r1)).group).toBe('archived');
    const customer = await staff(3);
    const c1 = await lead(tok, { user: customer.id });
    for (const g of ['retentions', 'sales', 'archived']) {
      const r = await move('/admin/crm/clients', admin.cookie, g, [c1]);
      expect(r.data.ok).toBe(true);
      expect((await groupOf(c1)).group).toBe(g);
      if (g === 'archived') break;
    }
    const [a] = await sql`SELECT before, after FROM audit_events WHERE action = 'lead.bulk_move' AND actor_id = ${admin.id} ORDER BY id DESC LIMIT 1`;
    expect(a.after).toMatchObject({ group: 'archived', count: 1 });
    expect(a.before).toMatchObject({ screen: 'clients', selection: { ids: [c1] } });
  });

  test('refused: moves a screen does not offer, agents sending to sales, out-of-scope ids; nothing changes', async () => {
    const tok = unique('rf');
    const s1 = await lead(tok, { agent: agentA.id });
    const s2 = await lead(tok, { agent: agentB.id });
    const a1 = await lead(tok, { group: 'archived' });
    const r1 = await lead(tok, { group: 'retentions', ret: ret.id });
    expect((await move('/admin/crm/sales/all', admin.cookie, 'sales', [s1])).status).toBe(403);
    expect((await move('/admin/crm/archived', admin.cookie, 'retentions', [a1])).status).toBe(403);
    expect((await move('/admin/crm/archived', admin.cookie, 'archived', [a1])).status).toBe(403);
    expect((await move('/admin/crm/retention', ret.cookie, 'sales', [r1])).status).toBe(403);
    // an agent moving another agent's lead, or a manager one outside their teams: 404, no change
    expect((await move('/admin/crm/sales/all', agentA.cookie, 'archived', [s1, s2])).status).toBe(404);
    expect((await move('/admin/crm/sales/all', manager.cookie, 'archived', [s2])).status).toBe(404);
    // an id from another screen (archived lead moved from the sales screen): 404
    expect((await move('/admin/crm/sales/all', admin.cookie, 'retentions', [a1])).status).toBe(404);
    expect((await move('/admin/crm/sales/all', admin.cookie, 'retentions', [])).status).toBe(400);
    expect((await move('/admin/crm/sales/all', admin.cookie, 'retentions', [])).status).toBe(400);
    expect((await act('/admin/crm/sales/all', { intent: 'move', target: 'retentions', ids: '1,abc' }, admin.cookie)).status).toBe(400);
    for (const [id, g] of [[s1, 'sales'], [s2, 'sales'], [a1, 'archived'], [r1, 'retentions']] as const) expect((await groupOf(id)).group).toBe(g);
    // the agent may archive their own, and retention agents theirs
    expect((await move('/admin/crm/sales/all', agentA.cookie, 'archived', [s1])).data).toMatchObject({ ok: true, count: 1 });
    expect((await move('/admin/crm/retention', ret.cookie, 'archived', [r1])).data).toMatchObject({ ok: true, count: 1 });
  });

  test("'all' moves exactly the rows of the filtered list, in one statement, and is audited with its filter", async () => {
    const tok = unique('al');
    const old = '2024-03-10T12:00:00Z';
    const hit = [await lead(tok, { status: 'CRM Test Hot', createdAt: old }), await lead(tok, { status: 'CRM Test Hot', createdAt: old })];
    const missStatus = await lead(tok, { status: 'New', createdAt: old });
    const missDate = await lead(tok, { status: 'CRM Test Hot' });
    const missGroup = await lead(tok, { status: 'CRM Test Hot', createdAt: old, group: 'retentions' });
    const q = `?search=${tok}&status=CRM%20Test%20Hot&dateStart=2024-03-01&dateEnd=2024-03-31`;
    expect(await ids('/admin/crm/sales/all', admin.cookie, tok, '&status=CRM%20Test%20Hot&dateStart=2024-03-01&dateEnd=2024-03-31')).toEqual(hit);
    const r = await move('/admin/crm/sales/all', admin.cookie, 'archived', 'all', q);
    expect(r.data).toMatchObject({ ok: true, count: 2 });
    for (const id of hit) expect((await groupOf(id)).group).toBe('archived');
    expect((await groupOf(missStatus)).group).toBe('sales');
    expect((await groupOf(missDate)).group).toBe('sales');
    expect((await groupOf(missGroup)).group).toBe('retentions');
    const [a] = await sql`SELECT before, after FROM audit_events WHERE action = 'lead.bulk_move' AND actor_id = ${admin.id} ORDER BY id DESC LIMIT 1`;
    expect(a.before.selection).toMatchObject({ all: true, filter: { status: 'CRM Test Hot', dateStart: '2024-03-01', dateEnd: '2024-03-31', search: tok } });
    expect(a.after).toMatchObject({ count: 2, group: 'archived' });
    // an agent's 'all' is their own rows only
    const mine = await lead(tok, { agent: agentA.id });
    const theirs = await lead(tok, { agent: agentB.id });
    expect((await move('/admin/crm/sales/all', agentA.cookie, 'archived', 'all', `?search=${tok}`)).data).toMatchObject({ ok: true, count: 1 });
    expect((await groupOf(mine)).group).toBe('archived');
    expect((await groupOf(theirs)).group).toBe('sales');
  });

  test('bulk assign: admins and managers (their team agents), agentId on sales, retId on retention; agents refused', async () => {
    const tok = unique('as');
    const s1 = await lead(tok, { manager: manager.id });
    const s2 = await lead(tok, { manager: manager.id });
    const r1 = await lead(tok, { group: 'retentions', manager: manager.id });
    expect((await act(`/admin/crm/sales/all?search=${tok}`, { intent: 'assign', agentId: String(agentA.id), all: '1' }, manager.cookie)).data)
      .toMatchObject({ ok: true, count: 2, toast: 'Agents assigned successfully' });
    expect((await groupOf(s1)).agent_id).toBe(agentA.id);
    expect((await groupOf(s2)).agent_id).toBe(agentA.id);
    // an agent outside the manager's teams is refused
    expect((await act('/admin/crm/sales/all', { intent: 'assign', agentId: String(agentB.id), ids: String(s1) }, manager.cookie)).status).toBe(400);
    expect((await act('/admin/crm/retention', { intent: 'assign', agentId: String(ret.id), ids: String(r1) }, admin.cookie)).data).toMatchObject({ ok: true, count: 1 });
    expect((await groupOf(r1)).ret_id).toBe(ret.id);
    // a sales agent id is not a retention agent
    expect((await act('/admin/crm/retention', { intent: 'assign', agentId: String(agentA.id), ids: String(r1) }, admin.cookie)).status).toBe(400);
    expect((await act('/admin/crm/sales/all', { intent: 'assign', agentId: String(agentA.id), ids: String(s1) }, agentA.cookie)).status).toBe(403);
  });
});

describe('row actions', () => {
  test('edit: validated on the server, fields per role, out of scope 404', async () => {
    const tok = unique('ed');
    const id = await lead(tok, { agent: agentA.id, manager: manager.id });
    const base = { intent: 'edit', id: String(id), firstName: 'Ann', lastName: tok, email: 'ann@example.com', phone: '+34 600 000 000', country: 'Spain', city: 'Madrid', leadStatus: 'CRM Test Hot' };
    expect((await act('/admin/crm/sales/all', { ...base, email: 'not-an-email' }, admin.cookie)).data.result.error.email).toEqual(['Invalid email address']);
    // the lead schema of the API and the import: a phone of a possible length in the country, a country from the list
    const refused = async (over: Record<string, string>, field: string, message: string) => {
      const r = await act('/admin/crm/sales/all', { ...base, ...over }, admin.cookie);
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.data.result.error[field], JSON.stringify(over)).toEqual([message]);
    };
    await refused({ phone: '12' }, 'phone', 'Invalid phone number for this country');
    await refused({ country: 'Narnia' }, 'country', 'Unknown country (an ISO 3166 code such as GB, or the country name)');
    await refused({ phone: '' }, 'phone', 'Phone is required');
    await refused({ lastName: '' }, 'lastName', 'Last name is required');
    await refused({ funnelLink: 'javascript:alert(1)' }, 'funnelLink', 'Invalid URL');
    expect((await sql`SELECT phone, country FROM leads WHERE id = ${id}`)[0]).toEqual({ phone: '+44 7700 900123', country: 'Spain' });
    expect((await act('/admin/crm/sales/all', { ...base, leadStatus: 'No such status' }, admin.cookie)).data.result.error.leadStatus).toEqual(['Status not found']);
    expect((await act('/admin/crm/sales/all', { ...base, agentId: String(ret.id) }, admin.cookie)).status).toBe(400);
    expect((await act('/admin/crm/sales/all', { ...base, managerId: String(agentA.id) }, admin.cookie)).status).toBe(400);
    const ok = await act('/admin/crm/sales/all', { ...base, agentId: String(agentB.id), managerId: String(manager.id) }, admin.cookie);
    expect(ok.data).toMatchObject({ ok: true, toast: 'Lead edited successfully' });
    const [row] = await sql`SELECT first_name, email, lead_status, agent_id, manager_id FROM leads WHERE id = ${id}`;
    expect(row).toMatchObject({ first_name: 'Ann', email: 'ann@example.com', lead_status: 'CRM Test Hot', agent_id: agentB.id, manager_id: manager.id });
    // an agent changes the status only, whatever else is posted
    await sql`UPDATE leads SET agent_id = ${agentA.id} WHERE id = ${id}`;
    expect((await act('/admin/crm/sales/all', { ...base, firstName: 'Hacked', email: 'hacked@example.org', leadStatus: 'New', agentId: String(agentB.id) }, agentA.cookie)).data.ok).toBe(true);
    const [after] = await sql`SELECT first_name, email, lead_status, agent_id FROM leads WHERE id = ${id}`;
    expect(after).toMatchObject({ first_name: 'Ann', email: 'ann@example.com', lead_status: 'New', agent_id: agentA.id });
    // a manager cannot set the sale manager
    expect((await act('/admin/crm/sales/all', { ...base, managerId: String(otherManager.id) }, manager.cookie)).data.ok).toBe(true);
    expect((await sql`SELECT manager_id FROM leads WHERE id = ${id}`)[0].manager_id).toBe(manager.id);
    // out of scope: another agent, a bad id
    expect((await act('/admin/crm/sales/all', { ...base, leadStatus: 'New' }, agentB.cookie)).status).toBe(404);
    expect((await act('/admin/crm/sales/all', { ...base, id: '99999999999' }, admin.cookie)).status).toBe(404);
    expect((await act('/admin/crm/sales/all', { ...base, id: 'abc' }, admin.cookie)).status).toBe(400);
    const [a] = await sql`SELECT before, after FROM audit_events WHERE action = 'lead.update' AND target_id = ${String(id)} ORDER BY id LIMIT 1`;
    expect(a.before.first_name).toBe('Lee');
    expect(a.after.first_name).toBe('Ann');
  });

  test('delete: a soft delete by admins and managers in scope; the lead leaves every list', async () => {
    const tok = unique('dl');
    const id = await lead(tok, { agent: agentA.id });
    const other = await lead(tok, { agent: agentB.id });
    expect((await act('/admin/crm/sales/all', { intent: 'delete', id: String(id) }, agentA.cookie)).status).toBe(403);
    expect((await act('/admin/crm/sales/all', { intent: 'delete', id: String(other) }, manager.cookie)).status).toBe(404);
    expect((await act('/admin/crm/sales/all', { intent: 'delete', id: String(id) }, manager.cookie)).data).toMatchObject({ ok: true, toast: 'Lead deleted successfully' });
    expect((await groupOf(id)).deleted_at).not.toBeNull();
    expect(await ids('/admin/crm/sales/all', admin.cookie, tok)).toEqual([other]);
    expect((await act('/admin/crm/sales/all', { intent: 'delete', id: String(id) }, admin.cookie)).status).toBe(404);
  });

  test('notes: created in scope, listed newest first with author', async () => {
    const tok = unique('nt');
    const id = await lead(tok, { agent: agentA.id });
    expect((await act('/admin/crm/sales/all', { intent: 'note', leadId: String(id), content: 'first call done' }, agentA.cookie)).data)
      .toMatchObject({ ok: true, toast: 'Notes created successfully' });
    expect((await act('/admin/crm/sales/all', { intent: 'note', leadId: String(id), content: 'second' }, admin.cookie)).data.ok).toBe(true);
    expect((await act('/admin/crm/sales/all', { intent: 'note', leadId: String(id), content: '   ' }, admin.cookie)).status).toBe(400);
    expect((await act('/admin/crm/sales/all', { intent: 'note', leadId: String(id), content: 'x' }, agentB.cookie)).status).toBe(404);
    const r = await list(`/admin/crm/sales/all?notesFor=${id}`, agentA.cookie);
    expect(r.data.notes.map((n: { content: string }) => n.content)).toEqual(['second', 'first call done']);
    expect(r.data.notes[1].author).toMatch(/^Test /);
    expect((await list(`/admin/crm/sales/all?notesFor=${id}`, agentB.cookie)).status).toBe(404);
    // the first note is the list's preview
    const rows = (await list(`/admin/crm/sales/all?search=${tok}`, admin.cookie)).data.rows;
    expect(rows[0].note).toBe('first call done');
  });

  test('add: admin form with the default status; validation; agents refused', async () => {
    const tok = unique('ad');
    const body = { intent: 'add', firstName: 'Nia', lastName: tok, email: `${tok}@example.com`, phone: '+1 202 555 0100', city: 'Austin', country: 'United States', leadStatus: 'New' };
    expect((await act('/admin/crm/sales/all', { ...body, firstName: '' }, admin.cookie)).data.result.error.firstName).toEqual(['First name is required']);
    expect((await act('/admin/crm/sales/all', { ...body, phone: 'call me' }, admin.cookie)).data.result.error.phone).toEqual(['Invalid phone number for this country']);
    expect((await act('/admin/crm/sales/all', { ...body, phone: '12' }, admin.cookie)).data.result.error.phone).toEqual(['Invalid phone number for this country']);
    expect((await act('/admin/crm/sales/all', { ...body, country: 'Narnia' }, admin.cookie)).data.result.error.country).toEqual(['Unknown country (an ISO 3166 code such as GB, or the country name)']);
    expect(await sql`SELECT 1 FROM leads WHERE last_name = ${tok}`).toHaveLength(0);
    expect((await act('/admin/crm/sales/all', { ...body, leadStatus: 'Nope nope' }, admin.cookie)).status).toBe(400);
    expect((await act('/admin/crm/sales/all', body, agentA.cookie)).status).toBe(403);
    expect((await act('/admin/crm/sales/all', body, manager.cookie)).data).toMatchObject({ ok: true, toast: 'Leads added successfully' });
    const [row] = await sql`SELECT "group", is_live, manager_id, lead_status FROM leads WHERE last_name = ${tok}`;
    expect(row).toMatchObject({ group: 'sales', is_live: false, manager_id: manager.id, lead_status: 'New' });
    expect(await ids('/admin/leads/manual', manager.cookie, tok)).toHaveLength(1);
  });

  test('convert: a customer with the sign-up wallets, linked to the lead; refusals change nothing', async () => {
    const tok = unique('cv');
    const email = `${tok}@example.com`;
    const id = await lead(tok, { email, manager: manager.id });
    expect((await act('/admin/crm/sales/all', { intent: 'convert', id: String(id), password: 'short' }, admin.cookie)).data.result.error.password).toEqual(['Password must be at least 8 characters']);
    expect((await act('/admin/crm/sales/all', { intent: 'convert', id: String(id), password: 'Long-enough-1' }, agentA.cookie)).status).toBe(403);
    const r = await act('/admin/crm/sales/all', { intent: 'convert', id: String(id), password: 'Long-enough-1' }, manager.cookie);
    expect(r.data).toMatchObject({ ok: true, toast: 'Lead converted: the customer was mailed a link to choose their password and sign in' });
    // the customer's way in: a mail with a link that sets their password and verifies the address
    const [mail] = await sql`SELECT text_body FROM email_outbox WHERE to_address = ${email} ORDER BY id DESC LIMIT 1`;
    const token = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail?.text_body ?? '')?.[1];
    expect(token).toBeTruthy();
    // staff see the state: the linked customer's address is not verified yet
    const shown = (await list(`/admin/crm/clients?search=${tok}`, admin.cookie)).data.rows.find((x: { id: number }) => x.id === id);
    expect(shown).toMatchObject({ linkedVerified: false });
    await resetPassword(sql, postgresStore(sql), { token: token!, password: 'Chosen-by-me-1', ip: null });
    const [verified] = await sql`SELECT is_email_verified FROM users WHERE email = ${email}`;
    expect(verified.is_email_verified).toBe(true);
    expect((await list(`/admin/crm/clients?search=${tok}`, admin.cookie)).data.rows.find((x: { id: number }) => x.id === id)).toMatchObject({ linkedVerified: true });
    const [u] = await sql`SELECT u.id, u.role_id, u.active_balance_id, l.user_id FROM users u JOIN leads l ON l.user_id = u.id WHERE l.id = ${id}`;
    expect(u.role_id).toBe(3);
    const wallets = await sql`SELECT id, mode, balance::text FROM balances WHERE user_id = ${u.id} ORDER BY mode`;
    expect(wallets.map((w) => w.mode)).toEqual(['demo', 'real']);
    expect(u.active_balance_id).toBe(wallets[0].id);
    const [ledger] = await sql`SELECT count(*)::int AS n FROM ledger_entries WHERE balance_id = ${wallets[0].id} AND kind = 'demo_credit'`;
    expect(ledger.n).toBe(Number((await getSetting(sql, 'branding')).demoInitialBalance) > 0 ? 1 : 0);
    expect((await act('/admin/crm/sales/all', { intent: 'convert', id: String(id), password: 'Long-enough-1' }, admin.cookie)).status).toBe(409);
    // a second lead with the same email cannot become a second user
    const twin = await lead(tok, { email });
    expect((await act('/admin/crm/sales/all', { intent: 'convert', id: String(twin), password: 'Long-enough-1' }, admin.cookie)).status).toBe(409);
    expect((await groupOf(twin)).deleted_at).toBeNull();
    expect((await sql`SELECT user_id FROM leads WHERE id = ${twin}`)[0].user_id).toBeNull();
  });
});
