// The feed picks the admin's provider settings up without a restart (migration
// provider-settings-notify, feed/providers/manager.ts): saving an OANDA key starts the OANDA
// stream with it, a new key restarts it with the new one, removing it stops it and gives its
// instruments back to the simulator; the currency quota the engine writes notifies nothing.
// Rows with no key answer the status page with 'not configured'.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { encryptSecret, secretsKey } from '../../src/contract/secrets.ts';
import { FeedManager, NOT_CONFIGURED } from '../../src/feed/providers/manager.ts';
import type { Heartbeat } from '../../src/feed/feed.ts';
import { db, within } from '../helpers.ts';

const sql = db(4);
const KEY = secretsKey('test-secrets-key-0123456789abcdef0123');
type Row = Record<string, unknown>;
let saved: Row[] = [];

beforeAll(async () => {
  saved = await sql`SELECT * FROM api_settings`;
  await sql`DELETE FROM api_settings WHERE key IN ('oandaAPI', 'polygonAPI', 'eodAPI', 'currencyAPI')`;
});
afterAll(async () => {
  await sql`DELETE FROM api_settings`;
  for (const r of saved) await sql`INSERT INTO api_settings ${sql(r as Record<string, never>)}`;
  await sql.end();
});

describe('feed manager', () => {
  test('a saved key starts, restarts and stops its adapter; the quota write does not', async () => {
    const beats: Heartbeat[] = [];
    const uncovered: string[][] = [];
    // the OANDA stream as a fake fetch: each call is one open stream until the adapter aborts it
    const calls: { auth: string; url: string; aborted: () => boolean }[] = [];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      const signal = init.signal!;
      calls.push({ auth: String((init.headers as Record<string, string>).authorization), url: String(url), aborted: () => signal.aborted });
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(JSON.stringify({ type: 'HEARTBEAT', time: '2024-05-01T12:00:05.000000000Z' }) + '\n'));
          signal.addEventListener('abort', () => { try { c.error(new Error('aborted')); } catch { /* closed */ } });
        },
      });
      return new Response(body, { status: 200 });
    }) as unknown as typeof fetch;

    const m = new FeedManager({
      sql, secretsKey: KEY, heartbeatMs: 0,
      instruments: async () => ({ forex: ['EUR_USD'], crypto: ['BTC_USD'] }),
      emit: () => {}, heartbeat: (h) => beats.push(h),
      onUncovered: (names) => { uncovered.push(names); },
      overrides: { fetch: fakeFetch, oandaBaseUrl: 'http://oanda.test', heartbeatMs: 0, backoff: { initialMs: 10, jitter: 0 } },
    });
    await m.start();
    await m.listen();
    try {
      // nothing configured: every row says so, everything is simulated
      expect(m.providers()).toEqual([]);
      // the rows of the simulated markets say the simulator serves them (prices move), not 'Disconnected'
      expect(beats.filter((b) => b.success && b.msg === `simulator (${NOT_CONFIGURED})`).map((b) => b.api).sort())
        .toEqual(['oandaRest', 'polygonCrypto', 'polygonForex']);
      expect(beats.filter((b) => !b.success && b.msg === NOT_CONFIGURED).map((b) => b.api)).toEqual(['eodStock']);
      expect(uncovered.at(-1)).toEqual(['EUR_USD', 'BTC_USD']);

      // the admin saves an OANDA account and key (encrypted, as web stores it)
      await sql`INSERT INTO api_settings (key, value1, value2, value3)
                VALUES ('oandaAPI', '101-1', ${encryptSecret('first-key', KEY)}, 'fxpractice')`;
      await within(3000, () => calls.length === 1);
      expect(calls[0].auth).toBe('Bearer first-key');
      expect(calls[0].url).toContain('/v3/accounts/101-1/pricing/stream');
      expect(m.providers().map((p) => p.name)).toEqual(['oanda']);
      expect(uncovered.at(-1)).toEqual(['BTC_USD']);
      await within(3000, () => beats.some((b) => b.api === 'oandaRest' && b.success));

      // a new key restarts the stream with it; the old connection is closed
      await sql`UPDATE api_settings SET value2 = ${encryptSecret('second-key', KEY)} WHERE key = 'oandaAPI'`;
      await within(3000, () => calls.length === 2);
      expect(calls[1].auth).toBe('Bearer second-key');
      expect(calls[0].aborted()).toBe(true);
      expect(calls[1].aborted()).toBe(false);

      // the currency API's quota, written by the engine, reloads nothing
      await sql`INSERT INTO api_settings (key, value1, value2, value3) VALUES ('currencyAPI', '', '10', '300')`;
      await within(3000, () => m.reloads >= 4);
      const reloads = m.reloads;
      await sql`UPDATE api_settings SET value2 = '9' WHERE key = 'currencyAPI'`;
      await Bun.sleep(300);
      expect(m.reloads).toBe(reloads);
      expect(calls.length).toBe(2);

      // the key removed: the stream stops, EUR_USD goes back to the simulator, the row says why
      beats.length = 0;
      await sql`DELETE FROM api_settings WHERE key = 'oandaAPI'`;
      await within(3000, () => m.providers().length === 0);
      expect(calls[1].aborted()).toBe(true);
      expect(uncovered.at(-1)).toEqual(['EUR_USD', 'BTC_USD']);
      expect(beats).toContainEqual({ api: 'oandaRest', success: true, msg: `simulator (${NOT_CONFIGURED})` });
    } finally {
      await m.stop();
    }
  });
});
