// Provider settings from api_settings (docs/specs.md#settings-and-providers), decrypted.
//   polygonAPI  value1 API key
//   eodAPI      value1 API key
//   oandaAPI    value1 account number, value2 API key, value3 'fxpractice' | 'fxtrade'
//   currencyAPI value1 API key, value2 remaining quota (read-only), value3 monthly limit (read-only)
//   voiso       value1 cluster ID, value2 API key (telephony; loaded for completeness, not a feed)
// Secrets may be stored encrypted (`enc:v1:…`, see contract/secrets.ts); plain values pass through.
// A provider is present only when its required values are non-empty and decrypt.
import type postgres from 'postgres';
import type { Sql } from '../../db.ts';
import { decryptSecret } from '../../contract/secrets.ts';
import type { OandaMode } from './oanda.ts';

export interface ProviderSettings {
  polygon?: { apiKey: string };
  eod?: { apiKey: string };
  oanda?: { accountId: string; apiKey: string; mode: OandaMode };
  currency?: { apiKey: string; remaining: number | null; limit: number | null };
  voiso?: { clusterId: string; apiKey: string };
  /** Rows that exist but could not be used (never contains a secret). */
  problems: string[];
}

/** A connection or a transaction. */
type Db = Sql | postgres.TransactionSql;

type Row = { key: string; value1: string | null; value2: string | null; value3: string | null; value4: string | null; value5: string | null };

export async function loadProviderSettings(sql: Db, secretsKey: Buffer): Promise<ProviderSettings> {
  const rows = await sql<Row[]>`SELECT key::text AS key, value1, value2, value3, value4, value5 FROM api_settings`;
  return parseProviderSettings(rows, secretsKey);
}

/** The pure part of loadProviderSettings (rows → settings). */
export function parseProviderSettings(rows: Row[], secretsKey: Buffer): ProviderSettings {
  const out: ProviderSettings = { problems: [] };
  const by = new Map(rows.map((r) => [r.key, r]));
  const reveal = (key: string, field: string, v: string | null | undefined): string | undefined => {
    const s = (v ?? '').trim();
    if (!s) return undefined;
    try {
      return decryptSecret(s, secretsKey).trim() || undefined;
    } catch {
      out.problems.push(`${key}.${field} could not be decrypted (wrong SECRETS_KEY?)`);
      return undefined;
    }
  };
  const plain = (v: string | null | undefined) => (v ?? '').trim() || undefined;
  const num = (v: string | null | undefined) => {
    const n = Number(plain(v));
    return plain(v) !== undefined && Number.isFinite(n) ? n : null;
  };

  const polygon = by.get('polygonAPI');
  if (polygon) {
    const apiKey = reveal('polygonAPI', 'value1', polygon.value1);
    if (apiKey) out.polygon = { apiKey };
  }

  const eod = by.get('eodAPI');
  if (eod) {
    const apiKey = reveal('eodAPI', 'value1', eod.value1);
    if (apiKey) out.eod = { apiKey };
  }

  const oanda = by.get('oandaAPI');
  if (oanda) {
    const accountId = reveal('oandaAPI', 'value1', oanda.value1);
    const apiKey = reveal('oandaAPI', 'value2', oanda.value2);
    const rawMode = (plain(oanda.value3) ?? 'fxpractice').toLowerCase();
    const mode: OandaMode | undefined = rawMode === 'fxtrade' ? 'fxtrade' : rawMode === 'fxpractice' ? 'fxpractice' : undefined;
    if (!mode) out.problems.push(`oandaAPI.value3 must be fxpractice or fxtrade`);
    else if (accountId && apiKey) out.oanda = { accountId, apiKey, mode };
    else if (accountId || apiKey) out.problems.push('oandaAPI needs both the account number and the API key');
  }

  const currency = by.get('currencyAPI');
  if (currency) {
    const apiKey = reveal('currencyAPI', 'value1', currency.value1);
    if (apiKey) out.currency = { apiKey, remaining: num(currency.value2), limit: num(currency.value3) };
  }

  const voiso = by.get('voiso');
  if (voiso) {
    const clusterId = reveal('voiso', 'value1', voiso.value1);
    const apiKey = reveal('voiso', 'value2', voiso.value2);
    if (clusterId && apiKey) out.voiso = { clusterId, apiKey };
  }
  return out;
}

/**
 * Writes the currency API's quota back to its row (value2 remaining, value3 monthly limit), the
 * read-only figures the admin form and the API status page show. Creates nothing: without a
 * currencyAPI row there is no key and nothing to record.
 */
export async function saveCurrencyQuota(sql: Db, q: { remaining: number; total: number }): Promise<boolean> {
  const r = await sql`
    UPDATE api_settings SET value2 = ${String(q.remaining)}, value3 = ${String(q.total)}
    WHERE key = 'currencyAPI' AND (value2 IS DISTINCT FROM ${String(q.remaining)} OR value3 IS DISTINCT FROM ${String(q.total)})`;
  return r.count > 0;
}
