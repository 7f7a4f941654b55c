// /admin/languages and /admin/languages/:code through the route modules against PostgreSQL: admin
// only; the languages list with its missing keys (against the code's key list), add and edit;
// the translations table with search and paging, add, edit and delete with the spec's messages;
// refusals change nothing; every change is audited; an edit reaches another web process's copy
// of the translations through the table's NOTIFY, without a restart.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { action as languagesAction, loader as languagesLoader } from '~/routes/_staff.admin.languages._index.tsx';
import { action as translationsAction, loader as translationsLoader } from '~/routes/_staff.admin.languages.$code.tsx';
import { codeKeys, loadResources } from '~/modules/i18n/i18n.server.ts';
import { disableLiveCache, enableLiveCache } from '~/shared/live-cache.server.ts';
import { db } from '~/shared/db.server.ts';
import { createUser, get, post, sessionFor, testSql } from '../helpers.ts';
import { answer, fieldErrors } from '../catalog/helpers.ts';

const sql = testSql(5);
const otherProcess = testSql(2);
let admin: { id: number; cookie: string };

const letters = (n: number) => [...randomBytes(n)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
/** a language code of this test only: two letters and a random four-letter region */
const newCode = () => `q${letters(1)}-${letters(4)}`;
const codes: string[] = [];

beforeAll(async () => {
  const u = await createUser(sql, { roleId: 1 });
  admin = { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
  await enableLiveCache(otherProcess);
});
afterAll(async () => {
  if (codes.length) await sql`DELETE FROM languages WHERE code IN ${sql(codes)}`;
  await disableLiveCache(otherProcess);
  await Promise.all([sql.end(), otherProcess.end()]);
});

const langAct = (body: Record<string, string>, cookie = admin.cookie) =>
  answer(languagesAction({ request: post('/admin/languages', body, { cookie }), params: {}, context: {} }));
const langLoad = (cookie = admin.cookie) => answer(languagesLoader({ request: get('/admin/languages', cookie), params: {}, context: {} }));
const trAct = (code: string, body: Record<string, string>, cookie = admin.cookie) =>
  answer(translationsAction({ request: post(`/admin/languages/${code}`, body, { cookie }), params: { code }, context: {} }));
const trLoad = (code: string, query = '', cookie = admin.cookie) =>
  answer(translationsLoader({ request: get(`/admin/languages/${code}${query}`, cookie), params: { code }, context: {} }));

type LangBody = { languages: { code: string; name: string; missing: number; translated: number; total: number }[]; total: number };
type TrBody = { language: { code: string; name: string }; total: number; rows: { id: number; key: string; value: string }[]; missing: { count: number; page: number; pages: number; keys: string[] } };

async function language(name = 'Test language') {
  const code = newCode();
  codes.push(code);
  const r = await langAct({ intent: 'save', code, name });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return code;
}
const auditOf = (kind: string, id: string | number) =>
  sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = ${kind} AND target_id = ${String(id)} ORDER BY id`;
const rowOf = async (code: string, key: string) => (await sql`SELECT id, value FROM translations WHERE language_code = ${code} AND key = ${key}`)[0];

describe('roles', () => {
  test('only the admin opens either page or changes anything', async () => {
    const code = await language();
    const name = `Nope ${letters(5)}`;
    for (const roleId of [2, 3, 4, 5, 6]) {
      const { cookie } = await sessionFor(sql, (await createUser(sql, { roleId })).id);
      expect((await langLoad(cookie)).status, `role ${roleId}`).toBe(403);
      expect((await trLoad(code, '', cookie)).status, `role ${roleId}`).toBe(403);
      expect((await langAct({ intent: 'save', code: newCode(), name }, cookie)).status).toBe(403);
      expect((await trAct(code, { intent: 'save', code, key: 'Dashboard', value: 'x' }, cookie)).status).toBe(403);
    }
    expect(await sql`SELECT 1 FROM languages WHERE name = ${name}`).toHaveLength(0);
    expect(await rowOf(code, 'Dashboard')).toBeUndefined();
  });
});

describe('languages', () => {
  test('the list shows each language and how many of the code\'s keys it lacks', async () => {
    const code = await language('Listed');
    await sql`INSERT INTO translations (language_code, key, value) VALUES (${code}, 'Dashboard', 'Tableau'), (${code}, 'Balance', '')`;
    const r = await langLoad();
    const body = r.body as unknown as LangBody;
    expect(body.total).toBe(codeKeys().length);
    const row = body.languages.find((l) => l.code === code)!;
    // an empty value is not a translation
    expect(row).toMatchObject({ name: 'Listed', translated: 1, missing: codeKeys().length - 1 });
  });

  test('add: code and name validated, unique code; saved with the spec\'s toast and audited', async () => {
    const code = newCode();
    codes.push(code);
    let r = await langAct({ intent: 'save', code: 'English!', name: 'X' });
    expect(r.status).toBe(400);
    expect(fieldErrors(r).code).toEqual(['Code must be a language code such as en, fr or pt-BR']);
    r = await langAct({ intent: 'save', code, name: '' });
    expect(r.status).toBe(400);
    expect(fieldErrors(r).name).toEqual(['Name is required']);
    expect(await sql`SELECT 1 FROM languages WHERE code = ${code}`).toHaveLength(0);
    r = await langAct({ intent: 'save', code, name: 'Quenya' });
    expect(r.body).toMatchObject({ ok: true, toast: 'Languages updated successfully' });
    r = await langAct({ intent: 'save', code, name: 'Again' });
    expect(r.status).toBe(409);
    expect(fieldErrors(r).code).toEqual(['A language with this code already exists']);
    expect((await sql`SELECT name FROM languages WHERE code = ${code}`)[0].name).toBe('Quenya');
    expect(await auditOf('language', code)).toEqual([
      { action: 'language.create', actor_id: admin.id, before: null, after: { code, name: 'Quenya' } },
    ]);
  });

  test('edit: the name and the code change (translations follow), English keeps its code', async () => {
    const code = await language('Before');
    await sql`INSERT INTO translations (language_code, key, value) VALUES (${code}, 'Dashboard', 'Dash')`;
    const next = newCode();
    codes.push(next);
    const r = await langAct({ intent: 'save', id: code, code: next, name: 'After' });
    expect(r.body).toMatchObject({ ok: true, toast: 'Languages updated successfully' });
    expect((await rowOf(next, 'Dashboard')).value).toBe('Dash');
    const [a] = await auditOf('language', next);
    expect(a).toMatchObject({ action: 'language.update', before: { code, name: 'Before' }, after: { code: next, name: 'After' } });
    await sql`INSERT INTO languages (code, name) VALUES ('en', 'English') ON CONFLICT (code) DO NOTHING`;
    const en = await langAct({ intent: 'save', id: 'en', code: newCode(), name: 'English' });
    expect(en.status).toBe(409);
    expect(fieldErrors(en).code).toEqual(['English is the fallback language: its code cannot change']);
    expect(await sql`SELECT 1 FROM languages WHERE code = 'en'`).toHaveLength(1);
  });
});

describe('translations', () => {
  test('an unknown or malformed code is a 404', async () => {
    expect((await trLoad(newCode())).status).toBe(404);
    expect((await trLoad('not a code')).status).toBe(404);
    expect((await trAct(newCode(), { intent: 'save', code: 'xx', key: 'Dashboard', value: 'x' })).status).toBe(404);
  });

  test('the table pages and searches; the missing keys are counted and listed', async () => {
    const code = await language();
    const keys = codeKeys().slice(0, 20);
    await sql`INSERT INTO translations ${sql(keys.map((key, i) => ({ language_code: code, key, value: `v${i} ${key}` })))}`;
    let body = (await trLoad(code)).body as unknown as TrBody;
    expect(body.language.code).toBe(code);
    expect(body.total).toBe(20);
    expect(body.rows).toHaveLength(15);
    expect(body.missing.count).toBe(codeKeys().length - 20);
    expect(body.missing.keys).toEqual(codeKeys().slice(20, 40));
    body = (await trLoad(code, '?page=2')).body as unknown as TrBody;
    expect(body.rows).toHaveLength(5);
    body = (await trLoad(code, '?mpage=2')).body as unknown as TrBody;
    expect(body.missing.keys).toEqual(codeKeys().slice(40, 60));
    body = (await trLoad(code, `?search=${encodeURIComponent('v7 ')}`)).body as unknown as TrBody;
    expect(body.rows.map((r) => r.key)).toEqual([keys[7]]);
  });

  test('add, edit and delete with the spec\'s toasts, each audited; a missing key added is no longer missing', async () => {
    const code = await language();
    const before = ((await trLoad(code)).body as unknown as TrBody).missing.count;
    let r = await trAct(code, { intent: 'save', code, key: 'Dashboard', value: 'Tablero' });
    expect(r.body).toMatchObject({ ok: true, toast: 'Translation added successfully' });
    const row = await rowOf(code, 'Dashboard');
    expect(row.value).toBe('Tablero');
    expect(((await trLoad(code)).body as unknown as TrBody).missing.count).toBe(before - 1);
    r = await trAct(code, { intent: 'save', id: String(row.id), code, key: 'Dashboard', value: 'Panel' });
    expect(r.body).toMatchObject({ ok: true, toast: 'Translation updated successfully' });
    r = await trAct(code, { intent: 'delete', id: String(row.id) });
    expect(r.body).toMatchObject({ ok: true, toast: 'Translation deleted successfully' });
    expect(await rowOf(code, 'Dashboard')).toBeUndefined();
    expect((await auditOf('translation', row.id)).map((a) => [a.action, a.before?.value ?? null, a.after?.value ?? null])).toEqual([
      ['translation.create', null, 'Tablero'], ['translation.update', 'Tablero', 'Panel'], ['translation.delete', 'Panel', null],
    ]);
  });

  test('a key recorded as missing (empty value) is filled in by an add', async () => {
    const code = await language();
    await sql`INSERT INTO translations (language_code, key, value) VALUES (${code}, 'Balance', '')`;
    const r = await trAct(code, { intent: 'save', code, key: 'Balance', value: 'Saldo' });
    expect(r.body).toMatchObject({ ok: true, toast: 'Translation added successfully' });
    expect((await rowOf(code, 'Balance')).value).toBe('Saldo');
  });

  test('refusals name the field and change nothing', async () => {
    const code = await language();
    const other = await language();
    await sql`INSERT INTO translations (language_code, key, value) VALUES (${code}, 'Dashboard', 'One'), (${other}, 'Balance', 'Theirs')`;
    const mine = await rowOf(code, 'Dashboard');
    const theirs = await rowOf(other, 'Balance');
    const cases: [Record<string, string>, number, string, string][] = [
      [{ code, key: '', value: 'x' }, 400, 'key', 'Key is required'],
      [{ code, key: 'Balance', value: '' }, 400, 'value', 'Value is required'],
      [{ code: '', key: 'Balance', value: 'x' }, 400, 'code', 'Code is required'],
      [{ code, key: 'Not a key of the code', value: 'x' }, 422, 'key', 'The application does not use this key'],
      [{ code, key: 'Total: {{count}}', value: 'Total' }, 422, 'value', 'Keep every placeholder of the key (the names in double braces) unchanged'],
      [{ code, key: 'Dashboard', value: 'Two' }, 409, 'key', 'This key already has a translation in this language'],
    ];
    for (const [body, status, field, message] of cases) {
      const r = await trAct(code, { intent: 'save', ...body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(fieldErrors(r)[field], JSON.stringify(body)).toEqual([message]);
    }
    // another language's row, by id: not found here
    let r = await trAct(code, { intent: 'save', id: String(theirs.id), code, key: 'Balance', value: 'Mine now' });
    expect(r.status).toBe(404);
    r = await trAct(code, { intent: 'delete', id: String(theirs.id) });
    expect(r.body).toMatchObject({ ok: false, toast: 'Translation not found' });
    r = await trAct(code, { intent: 'delete', id: 'abc' });
    expect(r.status).toBe(400);
    // a code in the form that is not the page's
    r = await trAct(code, { intent: 'save', code: other, key: 'Dashboard', value: 'x' });
    expect(r.status).toBe(404);
    expect((await rowOf(other, 'Balance')).value).toBe('Theirs');
    expect((await rowOf(code, 'Dashboard')).value).toBe('One');
    expect(await rowOf(other, 'Dashboard')).toBeUndefined();
    expect(await auditOf('translation', mine.id)).toEqual([]);
  });

  test('an edit shows on the next page view in every web process, without a restart', async () => {
    const code = await language();
    await sql`INSERT INTO translations (language_code, key, value) VALUES (${code}, 'Dashboard', 'Old text')`;
    const id = (await rowOf(code, 'Dashboard')).id;
    const word = (s: typeof sql) => loadResources(s, code).then((r) => r[code].Dashboard);
    // both processes hold their copy
    expect(await word(db())).toBe('Old text');
    expect(await word(otherProcess)).toBe('Old text');
    const r = await trAct(code, { intent: 'save', id: String(id), code, key: 'Dashboard', value: 'New text' });
    expect(r.body).toMatchObject({ ok: true });
    // the process that made the edit reads it at once
    expect(await word(db())).toBe('New text');
    // the other one once the NOTIFY arrives
    const t0 = Date.now();
    while ((await word(otherProcess)) !== 'New text') {
      expect(Date.now() - t0, 'the other process still serves the old text').toBeLessThan(3000);
      await new Promise((res) => setTimeout(res, 25));
    }
  });
});
