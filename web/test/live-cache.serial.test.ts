// Settings, languages, translations, instruments and spreads are kept in each web process and
// dropped on the NOTIFY of their tables' trigger: two pools stand for two web processes, a third
// connection is the admin (or psql) writing; each edit must show through the modules within a
// bounded wait. The engine's saving of an instrument's last quote is not an edit: it notifies nobody.
// A serial file (run alone, after the others): it ends every listener of the database, and what it
// checks (that a copy hides a change sent without NOTIFY) holds only while no other file writes
// these tables (web/test/i18n.test.ts and languages/ do: their notifications drop our copies too).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { disableLiveCache, enableLiveCache, isLiveCacheListening } from '~/shared/live-cache.server.ts';
import { listLanguages, loadResources } from '~/modules/i18n/i18n.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { categorySpreads, listInstruments } from '~/modules/trading/trading.server.ts';
import { testSql } from './helpers.ts';

const web1 = testSql(2), web2 = testSql(2), writer = testSql(1);
// a language of this file only: two lowercase letters and a random region
const code = `zq-${[...randomBytes(4)].map((b) => String.fromCharCode(97 + (b % 26))).join('')}`;
const key = 'Dashboard'; // a key of the code's list (others are never shipped)

beforeAll(async () => {
  await writer`INSERT INTO languages (code, name) VALUES (${code}, 'Cache test')`;
  await writer`INSERT INTO translations (language_code, key, value) VALUES (${code}, ${key}, 'one')`;
  await Promise.all([enableLiveCache(web1), enableLiveCache(web2)]);
});
afterAll(async () => {
  await writer`DELETE FROM languages WHERE code = ${code}`;
  await writer`DELETE FROM site_settings WHERE key = 'webhookApiKeyLeads' AND value->>'key' LIKE 'cache-test-%'`;
  await Promise.all([disableLiveCache(web1), disableLiveCache(web2)]);
  await Promise.all([web1.end(), web2.end(), writer.end()]);
});

/** The bounded wait for a change to show (generous: a loaded machine delays the notification, not the rule). */
const WAIT_MS = 10_000;

/** Polls `read` until it returns `want`, for at most WAIT_MS. */
async function eventually<T>(read: () => Promise<T>, want: T): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const got = await read();
    if (JSON.stringify(got) === JSON.stringify(want)) return Date.now() - t0;
    if (Date.now() - t0 > WAIT_MS) expect(got).toEqual(want);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until every pool keeps a copy: each reads a value (filling its copy), `change(n)` writes
 * a new one without NOTIFY, and each must still read what it read before. A notification still on
 * its way (of an earlier write) drops a copy in between, and the pool reads the new value: then it
 * is tried again (change(n + 1)), for at most WAIT_MS, after which the difference fails the test.
 * Returns the values the pools kept.
 */
async function keepsCopies<T>(pools: (typeof writer)[], read: (sql: typeof writer) => Promise<T>, change: (n: number) => Promise<unknown>): Promise<T[]> {
  const t0 = Date.now();
  for (let n = 0; ; n++) {
    const before = await Promise.all(pools.map(read));
    await change(n);
    const after = await Promise.all(pools.map(read));
    if (JSON.stringify(after) === JSON.stringify(before)) return after;
    if (Date.now() - t0 > WAIT_MS) expect(after).toEqual(before);
  }
}

/** A write whose trigger does not fire (no NOTIFY): only a cache can hide it. */
async function silently(write: (tx: typeof writer) => Promise<unknown>) {
  await writer.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`;
    await write(tx as unknown as typeof writer);
  });
}

const word = (sql: typeof writer) => loadResources(sql, code).then((r) => r[code][key]);

describe('the process copy of settings, languages and translations', () => {
  test('is what a page reads: a change that sends no NOTIFY is not seen', async () => {
    // (once the insert's own notification is in)
    await keepsCopies([web1], word, (n) => silently((tx) => tx`UPDATE translations SET value = ${`unseen ${n}`} WHERE language_code = ${code} AND key = ${key}`));
    // a notified change drops the copy
    await writer`UPDATE translations SET value = 'one again' WHERE language_code = ${code} AND key = ${key}`;
    await eventually(() => word(web1), 'one again');
  });

  test('an edit of a translation shows on the next read in every process', async () => {
    expect([await word(web1), await word(web2)]).toEqual(['one again', 'one again']);
    await writer`UPDATE translations SET value = 'two' WHERE language_code = ${code} AND key = ${key}`;
    await eventually(() => word(web1), 'two');
    await eventually(() => word(web2), 'two');
  });

  test('a new language and a deleted one show in every process', async () => {
    const other = `zq-${[...randomBytes(4)].map((b) => String.fromCharCode(65 + (b % 26))).join('')}`; // upper case: not `code`
    const has = (sql: typeof writer, c: string) => listLanguages(sql).then((l) => l.some((x) => x.code === c));
    expect(await has(web1, code)).toBe(true);
    expect(await has(web2, code)).toBe(true);
    await writer`DELETE FROM languages WHERE code = ${other}`;
    await writer`INSERT INTO languages (code, name) VALUES (${other}, 'Cache test 2')`;
    await eventually(() => has(web1, other), true);
    await eventually(() => has(web2, other), true);
    await writer`DELETE FROM languages WHERE code = ${other}`;
    await eventually(() => has(web1, other), false);
    await eventually(() => has(web2, other), false);
  });

  test('a site setting written over SQL shows in every process', async () => {
    const value = `cache-test-${randomBytes(4).toString('hex')}`;
    await getSetting(web1, 'webhookApiKeyLeads');
    await getSetting(web2, 'webhookApiKeyLeads');
    await writer`INSERT INTO site_settings (key, value) VALUES ('webhookApiKeyLeads', ${writer.json({ key: value })})
                 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
    await eventually(() => getSetting(web1, 'webhookApiKeyLeads'), { key: value });
    await eventually(() => getSetting(web2, 'webhookApiKeyLeads'), { key: value });
  });

  test('a pool that lost its listening connection reads through, then caches again', async () => {
    const listeners = async () => (await writer`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE query = 'LISTEN web_cache' AND datname = current_database()`)[0].n as number;
    expect(await listeners()).toBeGreaterThanOrEqual(2);
    // end every listener of this database, ours among them (any other reconnects as well)
    await writer`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN web_cache' AND datname = current_database()`;
    await silently((tx) => tx`UPDATE translations SET value = 'three' WHERE language_code = ${code} AND key = ${key}`);
    // the silent change is seen: while down nothing was cached, and on LISTEN again every copy was dropped
    await eventually(() => word(web1), 'three');
    await eventually(() => word(web2), 'three');
    // both listen again, and cache again: a change without NOTIFY is hidden by both copies
    await eventually(async () => isLiveCacheListening(web1) && isLiveCacheListening(web2), true);
    // (each may have cached again at a different round: what each keeps may differ)
    await keepsCopies([web1, web2], word,
      (n) => silently((tx) => tx`UPDATE translations SET value = ${`four ${n}`} WHERE language_code = ${code} AND key = ${key}`));
    expect(isLiveCacheListening(web1) && isLiveCacheListening(web2)).toBe(true);
  });
});

describe('the process copy of instruments and spreads', () => {
  const name = `LCT_${randomBytes(4).toString('hex').toUpperCase()}`;
  const alias = (sql: typeof writer) => listInstruments(sql).then((l) => l.find((i) => i.name === name)?.alias ?? null);
  beforeAll(async () => {
    await writer`INSERT INTO instruments (name, base, quote, alias, category, bids, asks) VALUES (${name}, 'LCT', 'USD', 'one', 'forex', 1, 1.1)`;
  });
  afterAll(async () => {
    await writer`DELETE FROM instruments WHERE name = ${name}`;
  });

  test('a new instrument and an edit of one show in every process', async () => {
    await eventually(() => alias(web1), 'one');
    await eventually(() => alias(web2), 'one');
    // the copy is what is read: a change without NOTIFY is not seen (once the insert's own notification is in)
    await keepsCopies([web1], alias, (n) => silently((tx) => tx`UPDATE instruments SET alias = ${`unseen ${n}`} WHERE name = ${name}`));
    await writer`UPDATE instruments SET alias = 'two' WHERE name = ${name}`;
    await eventually(() => alias(web1), 'two');
    await eventually(() => alias(web2), 'two');
  });

  test("the engine saving an instrument's last quote notifies nobody; any other change does", async () => {
    const heard: string[] = [];
    const fences: string[] = [];
    const fence = `web_cache_fence_${randomBytes(4).toString('hex')}`;
    const listener = testSql(1);
    try {
      await listener.listen('web_cache', (table) => { heard.push(table); });
      await listener.listen(fence, (token) => { fences.push(token); });
      // what the engine's flush does every few seconds
      await writer`UPDATE instruments SET bids = 1.2, asks = 1.3 WHERE name = ${name}`;
      await writer`UPDATE instruments SET leverage = leverage WHERE name = ${name}`; // no change at all
      // notifications reach a listener in commit order: once the fence, committed after both
      // updates, is heard, any notification of theirs would have been heard before it
      await writer`SELECT pg_notify(${fence}, 'after the updates')`;
      await eventually(async () => fences, ['after the updates']);
      expect(heard).toEqual([]);
      await writer`UPDATE instruments SET tradable = false, bids = 1.25 WHERE name = ${name}`;
      await eventually(async () => heard, ['instruments']);
    } finally {
      await listener.end();
    }
  });

  test('a spread written over SQL shows in every process', async () => {
    const [before] = await writer`SELECT value::text AS value FROM spreads WHERE category = 'index'`;
    try {
      await categorySpreads(web1);
      await categorySpreads(web2);
      await writer`INSERT INTO spreads (category, value) VALUES ('index', 7.5) ON CONFLICT (category) DO UPDATE SET value = 7.5`;
      await eventually(() => categorySpreads(web1).then((s) => s.index), '7.50000000');
      await eventually(() => categorySpreads(web2).then((s) => s.index), '7.50000000');
    } finally {
      if (before) await writer`UPDATE spreads SET value = ${before.value} WHERE category = 'index'`;
      else await writer`DELETE FROM spreads WHERE category = 'index'`;
    }
  });
});

describe('the server render', () => {
  test("its t answers what i18next answers, a key alone from the instance's copy", async () => {
    const { serverI18n } = await import('~/modules/i18n/i18n.server.ts');
    const { createInstance } = await import('i18next');
    const { i18nOptions } = await import('~/modules/i18n/i18n.ts');
    const resources = {
      en: { 'Total: {{count}}': 'Total: {{count}}', Balance: 'Balance', 'Add {{name}} to favorites': 'Add {{name}} to favorites', 'Ticket #{{id}} · open rate {{rate}}': 'Ticket #{{id}} · open rate {{rate}}', 'Page {{page}} of {{pages}}': 'Page {{page}} of {{pages}}' },
      de: { Balance: 'Saldo', 'Hello {{name}}': 'Hallo {{name}}', 'Add {{name}} to favorites': '{{ name }} zu den Favoriten, {{name}}!', 'Formatted {{n, number}}': 'Formatiert {{n, number}}', 'Empty {{x}}': '' },
    };
    const plainI18next = createInstance();
    await plainI18next.init(i18nOptions('de', resources));
    const want = plainI18next.getFixedT(null, 'translation');
    const t = (await serverI18n('de', { en: Object.freeze(resources.en), de: Object.freeze(resources.de) })).getFixedT(null, 'translation');
    for (let i = 0; i < 2; i++) {
      expect(t('Balance')).toBe('Saldo');
      for (const [key, opts] of [['Balance'], ['Missing key'], ['Hello {{name}}', { name: 'Ana' }], ['Total: {{count}}', { count: 3 }],
        // values filled in by the server's t: translated, fallen back to English, missing, repeated, spaced, a number, $ signs
        ['Add {{name}} to favorites', { name: 'EUR/USD' }], ['Ticket #{{id}} · open rate {{rate}}', { id: 7, rate: '1.08' }],
        ['Page {{page}} of {{pages}}', { page: 1, pages: 3 }], ['Missing {{thing}}', { thing: '$& $1' }], ['Empty {{x}}', { x: 'y' }],
        // left to i18next: a format, a value not given, an option of i18next's own
        ['Formatted {{n, number}}', { n: 5 }], ['Hello {{name}}', { other: 'x' }], ['Hello {{name}}', { name: 'Ana', defaultValue: 'd' }]] as const) {
        expect(opts ? t(key, opts) : t(key), key).toBe(opts ? want(key, opts) : want(key));
      }
    }
  });

  test('shares one i18next instance per language until its translations change', async () => {
    const { serverI18n } = await import('~/modules/i18n/i18n.server.ts');
    const first = await serverI18n(code, await loadResources(web1, code));
    expect(await serverI18n(code, await loadResources(web1, code))).toBe(first);
    await writer`UPDATE translations SET value = 'five' WHERE language_code = ${code} AND key = ${key}`;
    await eventually(() => word(web1), 'five');
    const next = await serverI18n(code, await loadResources(web1, code));
    expect(next).not.toBe(first);
    expect(next.getResource(code, 'translation', key)).toBe('five');
  });
});
