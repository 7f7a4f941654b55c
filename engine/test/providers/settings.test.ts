// loadProviderSettings against the real PostgreSQL (DATABASE_URL). Every row is written inside a
// transaction that is rolled back, so the shared api_settings table is left as it was.
import { afterAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { connect } from '../../src/db.ts';
import { encryptSecret, secretsKey } from '../../src/contract/secrets.ts';
import { loadProviderSettings, parseProviderSettings, saveCurrencyQuota } from '../../src/feed/providers/settings.ts';

const sql = connect(process.env.DATABASE_URL!, { max: 2 });
afterAll(() => sql.end());
const key = secretsKey('test-secrets-key-for-provider-settings-0000');

class Rollback extends Error {}
async function inTx(fn: (tx: postgres.TransactionSql) => Promise<void>) {
  try {
    await sql.begin(async (tx) => { await fn(tx); throw new Rollback(); });
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
}

async function put(tx: postgres.TransactionSql, k: string, v: (string | null)[]) {
  const [v1, v2, v3, v4, v5] = [...v, null, null, null, null, null];
  await tx`
    INSERT INTO api_settings (key, value1, value2, value3, value4, value5)
    VALUES (${k}::api_provider, ${v1}, ${v2}, ${v3}, ${v4}, ${v5})
    ON CONFLICT (key) DO UPDATE SET value1 = EXCLUDED.value1, value2 = EXCLUDED.value2, value3 = EXCLUDED.value3,
      value4 = EXCLUDED.value4, value5 = EXCLUDED.value5`;
}

describe('provider settings from api_settings', () => {
  test('reads and decrypts every provider', async () => {
    await inTx(async (tx) => {
      await tx`DELETE FROM api_settings`;
      await put(tx, 'polygonAPI', [encryptSecret('poly-secret', key)]);
      await put(tx, 'eodAPI', ['eod-plain-key']);
      await put(tx, 'oandaAPI', ['101-004-1234567-001', encryptSecret('oanda-token', key), 'fxtrade']);
      await put(tx, 'currencyAPI', [encryptSecret('cur-key', key), '229', '300']);
      await put(tx, 'voiso', ['cluster-9', encryptSecret('voiso-key', key)]);
      const s = await loadProviderSettings(tx, key);
      expect(s).toEqual({
        polygon: { apiKey: 'poly-secret' },
        eod: { apiKey: 'eod-plain-key' },
        oanda: { accountId: '101-004-1234567-001', apiKey: 'oanda-token', mode: 'fxtrade' },
        currency: { apiKey: 'cur-key', remaining: 229, limit: 300 },
        voiso: { clusterId: 'cluster-9', apiKey: 'voiso-key' },
        problems: [],
      });
    });
  });

  test('empty table, empty values and partial rows give no provider', async () => {
    await inTx(async (tx) => {
      await tx`DELETE FROM api_settings`;
      expect(await loadProviderSettings(tx, key)).toEqual({ problems: [] });
      await put(tx, 'polygonAPI', ['  ']);
      await put(tx, 'eodAPI', [null]);
      await put(tx, 'oandaAPI', ['101-1', null, null]);
      await put(tx, 'currencyAPI', ['k', null, null]);
      const s = await loadProviderSettings(tx, key);
      expect(s.polygon).toBeUndefined();
      expect(s.eod).toBeUndefined();
      expect(s.oanda).toBeUndefined();
      expect(s.currency).toEqual({ apiKey: 'k', remaining: null, limit: null });
      expect(s.problems).toEqual(['oandaAPI needs both the account number and the API key']);
    });
  });

  test('a value encrypted with another key is a problem, never an exception or a leak', async () => {
    await inTx(async (tx) => {
      await tx`DELETE FROM api_settings`;
      await put(tx, 'polygonAPI', [encryptSecret('poly-secret', secretsKey('some other key entirely, 32+ chars'))]);
      await put(tx, 'oandaAPI', ['101-1', 'tok', 'sandbox']);
      const s = await loadProviderSettings(tx, key);
      expect(s.polygon).toBeUndefined();
      expect(s.oanda).toBeUndefined();
      expect(s.problems).toEqual(['polygonAPI.value1 could not be decrypted (wrong SECRETS_KEY?)', 'oandaAPI.value3 must be fxpractice or fxtrade']);
      expect(JSON.stringify(s)).not.toContain('poly-secret');
    });
  });

  test('oanda mode defaults to practice', () => {
    const s = parseProviderSettings([{ key: 'oandaAPI', value1: 'a', value2: 'b', value3: null, value4: null, value5: null }], key);
    expect(s.oanda).toEqual({ accountId: 'a', apiKey: 'b', mode: 'fxpractice' });
  });

  test('saveCurrencyQuota writes remaining and limit to the currencyAPI row only', async () => {
    await inTx(async (tx) => {
      await tx`DELETE FROM api_settings`;
      expect(await saveCurrencyQuota(tx, { remaining: 10, total: 300 })).toBe(false); // no row, nothing created
      await put(tx, 'currencyAPI', [encryptSecret('cur-key', key), null, null]);
      expect(await saveCurrencyQuota(tx, { remaining: 229, total: 300 })).toBe(true);
      expect(await saveCurrencyQuota(tx, { remaining: 229, total: 300 })).toBe(false); // unchanged
      const [row] = await tx`SELECT value2, value3 FROM api_settings WHERE key = 'currencyAPI'`;
      expect(row).toEqual({ value2: '229', value3: '300' });
      expect((await loadProviderSettings(tx, key)).currency).toEqual({ apiKey: 'cur-key', remaining: 229, limit: 300 });
    });
  });
});
