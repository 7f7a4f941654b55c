// /admin/audit and /admin/audit/export through the route modules against PostgreSQL: admin only;
// filters by actor (id or email), action, target (kind, id) and date range; keyset pages (older,
// newer); each row's changed fields; the CSV export of what the filters select; refused filters
// are a 400 with their message; the table itself refuses UPDATE, DELETE and TRUNCATE.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loader } from '~/routes/_staff.admin.audit.tsx';
import { loader as exportLoader } from '~/routes/admin.audit.export.ts';
import { audit } from '~/shared/audit.server.ts';
import { auditChanges, type AuditRow } from '~/modules/audit/audit-list.server.ts';
import type { AuditLoaderData } from '~/modules/audit/audit-page.tsx';
import { createUser, get, sessionFor, settle, testSql } from '../helpers.ts';
import { answer } from '../catalog/helpers.ts';

const sql = testSql(5);
let admin: { id: number; email: string; cookie: string };
let other: { id: number; email: string };
const letters = (n: number) => [...randomBytes(n)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
/** a target kind of this file only, so other files' rows never meet these */
const kind = `k_${letters(10)}`;

beforeAll(async () => {
  const u = await createUser(sql, { roleId: 1 });
  admin = { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
  other = await createUser(sql, { roleId: 2 });
  // 20 rows on target 1 (by the admin, 'x.edit'), 3 on target 2 (by the manager, 'x.delete'), 2 dated in 2021
  for (let i = 0; i < 20; i++) {
    await audit(sql, { actorId: admin.id, action: 'x.edit', targetKind: kind, targetId: 1, before: { n: i, same: 'a' }, after: { n: i + 1, same: 'a' }, ip: '10.1.2.3' });
  }
  for (let i = 0; i < 3; i++) await audit(sql, { actorId: other.id, action: 'x.delete', targetKind: kind, targetId: 2, before: { name: 'gone' } });
  await sql`INSERT INTO audit_events (actor_id, action, target_kind, target_id, after, created_at) VALUES
    (${admin.id}, 'x.old', ${kind}, '3', '{"v": 1}', '2021-03-04T10:00:00Z'), (${admin.id}, 'x.old', ${kind}, '3', '{"v": 2}', '2021-03-05T23:59:59Z')`;
});
afterAll(() => sql.end());

const load = async (query: string, cookie = admin.cookie) => {
  const r = await answer(loader({ request: get(`/admin/audit?${query}`, cookie), params: {}, context: {} }));
  return { status: r.status, body: r.body as unknown as AuditLoaderData };
};
const q = (p: Record<string, string>) => new URLSearchParams({ targetKind: kind, ...p }).toString();

describe('roles', () => {
  test('only the admin opens the audit trail or its export', async () => {
    for (const roleId of [2, 3, 4, 5, 6]) {
      const { cookie } = await sessionFor(sql, (await createUser(sql, { roleId })).id);
      expect((await load(q({}), cookie)).status, `role ${roleId}`).toBe(403);
      const r = await settle(exportLoader({ request: get(`/admin/audit/export?${q({})}`, cookie), params: {}, context: {} })) as Response;
      expect(r.status, `role ${roleId}`).toBe(403);
    }
  });
});

describe('filters', () => {
  test('by target kind: every row, newest first, with actor, action, target, IP and the changed fields', async () => {
    const { body } = await load(q({ limit: '50' }));
    expect(body.count).toBe(25);
    expect(body.rows).toHaveLength(25);
    const times = body.rows.map((r) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const newestEdit = body.rows.find((r) => r.action === 'x.edit')!;
    expect(newestEdit).toMatchObject({ actorId: admin.id, actorEmail: admin.email, targetKind: kind, targetId: '1', ip: '10.1.2.3' });
    // only what changed ('same' did not)
    expect(newestEdit.changes).toEqual([{ field: 'n', before: '19', after: '20' }]);
    const del = body.rows.find((r) => r.action === 'x.delete')!;
    expect(del.changes).toEqual([{ field: 'name', before: 'gone', after: null }]);
  });

  test('by target id, actor (id or email), action and date range', async () => {
    const ids = async (p: Record<string, string>) => (await load(q({ limit: '50', ...p }))).body.rows.map((r: AuditRow) => r.targetId);
    expect(new Set(await ids({ targetId: '2' }))).toEqual(new Set(['2']));
    expect(await ids({ targetId: '2' })).toHaveLength(3);
    expect(await ids({ actor: String(other.id) })).toHaveLength(3);
    expect(await ids({ actor: other.email.toUpperCase() })).toHaveLength(3);
    expect(await ids({ actor: 'nobody-here@example.com' })).toHaveLength(0);
    expect(await ids({ action: 'x.edit' })).toHaveLength(20);
    expect(await ids({ dateStart: '2021-03-05', dateEnd: '2021-03-05' })).toEqual(['3']);
    expect(await ids({ dateStart: '2021-01-01', dateEnd: '2021-12-31' })).toHaveLength(2);
    expect(await ids({ dateEnd: '2021-03-04' })).toEqual(['3']);
  });

  test('the entity link other pages use: targetKind and targetId in the URL', async () => {
    await audit(sql, { actorId: admin.id, action: 'order.edit', targetKind: 'order', targetId: 987654321, before: { spread: '1' }, after: { spread: '2' } });
    const { body } = await load('targetKind=order&targetId=987654321');
    expect(body.rows.map((r) => [r.action, r.targetId])).toEqual([['order.edit', '987654321']]);
    expect(body.filters).toMatchObject({ targetKind: 'order', targetId: '987654321' });
  });

  test('refused filters are a 400 with the message, and no rows', async () => {
    const cases: [string, string, string][] = [
      ['actor=not%20a%20user', 'actor', 'Actor must be a user ID or an email address'],
      ['action=drop%20table', 'action', 'Action must be an action name such as order.edit'],
      ['targetKind=a%3Bb', 'targetKind', 'Target kind must be a word such as order or user'],
      ['targetId=5', 'targetId', 'Choose a target kind to filter by target ID'],
      ['dateStart=2021-02-30', 'dateStart', 'The start date must be a date between 1970-01-01 and 2100-12-31.'],
      ['dateStart=2021-03-05&dateEnd=2021-03-01', 'dateEnd', 'End date must be after start date'],
    ];
    for (const [query, field, message] of cases) {
      const r = await load(query);
      expect(r.status, query).toBe(400);
      expect(r.body.filterError).toEqual({ field, message });
      expect(r.body.rows).toEqual([]);
    }
  });
});

describe('keyset pages', () => {
  test('older and newer pages walk the rows without gaps or repeats; a bad cursor is the first page', async () => {
    const p1 = (await load(q({ action: 'x.edit' }))).body;
    expect(p1.rows).toHaveLength(15);
    expect(p1).toMatchObject({ newer: false, older: true, count: 20 });
    const p2 = (await load(q({ action: 'x.edit', after: String(p1.rows[14].id) }))).body;
    expect(p2.rows).toHaveLength(5);
    expect(p2).toMatchObject({ newer: true, older: false });
    const all = [...p1.rows, ...p2.rows].map((r) => r.id);
    expect(new Set(all).size).toBe(20);
    const back = (await load(q({ action: 'x.edit', before: String(p2.rows[0].id) }))).body;
    expect(back.rows.map((r) => r.id)).toEqual(p1.rows.map((r) => r.id));
    expect(back).toMatchObject({ newer: false, older: true });
    const bad = (await load(q({ action: 'x.edit', after: 'drop' }))).body;
    expect(bad.rows.map((r) => r.id)).toEqual(p1.rows.map((r) => r.id));
  });

  test('the count stops at its limit and says so', async () => {
    const { listAudit } = await import('~/modules/audit/audit-list.server.ts');
    const page = await listAudit(sql, { limit: 15, dateStart: '', dateEnd: '', actor: '', action: '', targetKind: kind, targetId: '', after: null, before: null }, { countLimit: 10 });
    expect(page).toMatchObject({ count: 10, countCapped: true });
  });
});

describe('the export', () => {
  test('streams every row the filters select as CSV, newest first', async () => {
    const res = await exportLoader({ request: get(`/admin/audit/export?${q({ targetId: '1' })}`, admin.cookie), params: {}, context: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe('ID,Time (ISO 8601 UTC),Actor ID,Actor email,Action,Target kind,Target ID,Before (JSON),After (JSON),IP');
    expect(lines).toHaveLength(21);
    expect(lines[1]).toContain(`,${admin.id},${admin.email},x.edit,${kind},1,"{""n"": 19, ""same"": ""a""}","{""n"": 20, ""same"": ""a""}",10.1.2.3`);
  });

  test('a refused filter is a 400 before anything streams', async () => {
    const res = await exportLoader({ request: get('/admin/audit/export?dateStart=nope', admin.cookie), params: {}, context: {} });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('The start date must be a date between 1970-01-01 and 2100-12-31.');
  });
});

describe('the table is append-only', () => {
  test('UPDATE, DELETE and TRUNCATE are refused, and nothing changes', async () => {
    const [row] = await sql`SELECT id, action FROM audit_events WHERE target_kind = ${kind} ORDER BY id LIMIT 1`;
    await expect(sql`UPDATE audit_events SET action = 'tampered' WHERE id = ${row.id}`).rejects.toThrow();
    await expect(sql`DELETE FROM audit_events WHERE id = ${row.id}`).rejects.toThrow();
    await expect(sql`TRUNCATE audit_events`).rejects.toThrow();
    const [after] = await sql`SELECT action FROM audit_events WHERE id = ${row.id}`;
    expect(after.action).toBe(row.action);
  });
});

describe('changed fields', () => {
  test('a create lists every field, a non-object value is one unnamed field, long values are cut', () => {
    expect(auditChanges(null, { a: 1, b: 'x' })).toEqual([{ field: 'a', before: null, after: '1' }, { field: 'b', before: null, after: 'x' }]);
    expect(auditChanges({ a: { deep: 1 } }, { a: { deep: 2 } })).toEqual([{ field: 'a', before: '{"deep":1}', after: '{"deep":2}' }]);
    expect(auditChanges('on', 'off')).toEqual([{ field: '', before: 'on', after: 'off' }]);
    expect(auditChanges({ a: 1 }, { a: 1 })).toEqual([]);
    expect(auditChanges(null, { a: 'x'.repeat(600) })[0].after).toHaveLength(501);
  });
});
