// Every key the UI uses exists in every language file of seeds/translations, and the
// translations the database holds are what the server renders.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { collectKeys } from './i18n-keys.ts';
import { detectLocale, loadResources, saveMissingKey } from '~/modules/i18n/i18n.server.ts';
import { testSql, unique } from './helpers.ts';

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
