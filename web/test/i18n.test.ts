// Every key the UI uses exists in every language file of seeds/translations, and the
// translations the database holds are what the server renders.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { collectKeys } from './i18n-keys.ts';
import { detectLocale, loadResources, saveMissingKey, translationBundle } from '~/modules/i18n/i18n.server.ts';
import { bundleUrl } from '~/modules/i18n/i18n.ts';
import { PAGE_TITLE_KEYS } from '~/modules/i18n/meta.ts';
import { loader as rootLoader } from '~/root.tsx';
import { loader as bundleLoader } from '~/routes/i18n.$lng.ts';
// route modules register their page titles as they load (a server build loads them all)
import '~/routes/_client.dashboard.tsx';
import '~/routes/_client.statements.tsx';
import { get, testSql, unique } from './helpers.ts';

const sql = testSql();
afterAll(() => sql.end());

const dir = path.resolve(import.meta.dirname, '../../seeds/translations');

describe('translation files', () => {
  const keys = [...collectKeys()];
  test('the collector finds the UI strings', () => {
    expect(keys.length).toBeGreaterThan(150);
    expect(keys).toContain('Invalid Credentials');
    expect(keys).toContain('Total: {{count}}');
  });
  for (const lng of ['en', 'es', 'fr', 'de']) {
    test(`${lng}.json holds every key`, () => {
      const file = JSON.parse(readFileSync(path.join(dir, `${lng}.json`), 'utf8')) as Record<string, string>;
      expect(keys.filter((k) => !(k in file))).toEqual([]);
      for (const k of keys) {
        // interpolations survive translation
        const vars = (s: string) => (s.match(/\{\{\w+\}\}/g) ?? []).sort().join();
        expect(vars(file[k]), `${lng}: ${k}`).toBe(vars(k));
      }
    });
  }
});

describe('languages from the database', () => {
  test('the lang cookie picks a supported language, else Accept-Language, else en', async () => {
    const langs = [{ code: 'en', name: 'English' }, { code: 'fr', name: 'Français' }, { code: 'de', name: 'Deutsch' }];
    const req = (h: Record<string, string>) => new Request('http://app.test/', { headers: h });
    expect(await detectLocale(req({ cookie: 'lang=fr' }), langs)).toBe('fr');
    expect(await detectLocale(req({ cookie: 'lang=xx', 'accept-language': 'de-DE,de;q=0.9' }), langs)).toBe('de');
    expect(await detectLocale(req({ 'accept-language': 'ja' }), langs)).toBe('en');
  });

  test('an edit in the translations table is served on the next request', async () => {
    const code = 'z' + unique('').slice(-1).replace(/[^a-z]/, 'q');
    await sql`INSERT INTO languages (code, name) VALUES (${code}, 'Test') ON CONFLICT (code) DO NOTHING`;
    const key = 'Dashboard'; // only keys of the code's key list are recorded
    expect(await saveMissingKey(sql, code, unique('Key '))).toBe(false);
    await sql`DELETE FROM translations WHERE language_code = ${code} AND key = ${key}`;
    expect(await saveMissingKey(sql, code, key)).toBe(true);
    expect((await loadResources(sql, code))[code][key]).toBeUndefined(); // empty: falls back
    await sql`UPDATE translations SET value = 'Übersetzt' WHERE language_code = ${code} AND key = ${key}`;
    expect((await loadResources(sql, code))[code][key]).toBe('Übersetzt');
  });

  test('a key outside the code\'s list already in the table is never shipped to a page', async () => {
    const junk = unique('junk key ');
    await sql`INSERT INTO languages (code, name) VALUES ('en', 'English') ON CONFLICT (code) DO NOTHING`;
    await sql`INSERT INTO translations (language_code, key, value) VALUES ('en', ${junk}, 'spam'), ('en', 'Dashboard', 'Dashboard')
              ON CONFLICT (language_code, key) DO NOTHING`;
    const en = (await loadResources(sql, 'en')).en;
    expect(en[junk]).toBeUndefined();
    expect(en['Dashboard']).toBe('Dashboard');
  });
});

describe('what a page carries of the translations', () => {
  // a language of its own, translated for every key the code uses
  const code = 'x' + unique('').replace(/[^a-z]/g, '').slice(-1).padEnd(1, 'q');
  const keys = [...collectKeys()];
  const text = (k: string) => `«${k}»`;

  test('a page carries the version and its titles, not the texts; GET /i18n/{lng} has every key the code uses', async () => {
    await sql`INSERT INTO languages (code, name) VALUES (${code}, 'Test') ON CONFLICT (code) DO NOTHING`;
    await sql`INSERT INTO translations (language_code, key, value) SELECT ${code}, k, '«' || k || '»' FROM unnest(${keys}::text[]) k
              ON CONFLICT (language_code, key) DO UPDATE SET value = excluded.value`;
    // the app's pool keeps copies, dropped on NOTIFY: wait for the language to be seen
    const root = async () => {
      const r = (await rootLoader({ request: get('/dashboard', `lang=${code}`), params: {}, context: {} })) as unknown as { data: Record<string, unknown> };
      return r.data;
    };
    await expect.poll(async () => (await root()).locale, { timeout: 5000 }).toBe(code);
    const data = await root();
    expect(data).not.toHaveProperty('resources');
    const bundle = await translationBundle(sql, code);
    expect(data.i18n).toBe(bundle.version);
    // the titles of the route modules loaded, in the page's language
    expect(PAGE_TITLE_KEYS.has('Dashboard') && PAGE_TITLE_KEYS.has('Statements')).toBe(true);
    expect(data.titles).toMatchObject({ Dashboard: text('Dashboard'), Statements: text('Statements'), Admin: text('Admin') });

    const res = (await bundleLoader({ request: get(bundleUrl(code, bundle.version)), params: { lng: code }, context: {} })) as Response;
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const shipped = (await res.json()) as Record<string, Record<string, string>>;
    expect(keys.filter((k) => shipped[code][k] !== text(k))).toEqual([]);
    expect(Object.keys(shipped).sort()).toEqual(['en', code].sort());

    // any other version: the current texts, not kept
    const stale = (await bundleLoader({ request: get(bundleUrl(code, 'old')), params: { lng: code }, context: {} })) as Response;
    expect(stale.headers.get('cache-control')).toBe('no-cache');
    const unknown = await bundleLoader({ request: get('/i18n/qq?v=1'), params: { lng: 'qq' }, context: {} }).catch((e: unknown) => e);
    expect((unknown as Response).status).toBe(404);
  });

  test('an edit of a translation makes a new version (a new URL the browser has not kept)', async () => {
    await sql`INSERT INTO languages (code, name) VALUES (${code}, 'Test') ON CONFLICT (code) DO NOTHING`;
    await sql`INSERT INTO translations (language_code, key, value) VALUES (${code}, 'Balance', 'Solde') ON CONFLICT (language_code, key) DO UPDATE SET value = 'Solde'`;
    const before = await translationBundle(sql, code);
    await sql`UPDATE translations SET value = 'Saldo' WHERE language_code = ${code} AND key = 'Balance'`;
    const after = await translationBundle(sql, code);
    expect(after.version).not.toBe(before.version);
    expect(JSON.parse(after.json)[code].Balance).toBe('Saldo');
  });
});
