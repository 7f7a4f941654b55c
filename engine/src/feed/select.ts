// FEED=providers: choose a provider per category from the provider settings (admin.md §2.14).
// OANDA serves forex, commodities and indices (its names are ours: EUR_USD, XAU_USD, SPX500_USD);
// without it Polygon serves forex; Polygon crypto serves crypto; EOD serves stocks. Whatever
// no configured provider covers stays on the simulator, so every instrument has prices.
import type { Sql } from '../db.ts';
import type { Instrument } from '../book/book.ts';
import { decryptSecret, secretsKey } from '../crypto/secrets.ts';
import type { FeedProvider } from './feed.ts';
import { OandaStream } from './oanda.ts';
import { WebSocketFeed, polygonForex, polygonCrypto, eodStocks } from './websocket.ts';

export interface ProviderKeys {
  oanda?: { accountId: string; token: string; mode: 'fxpractice' | 'fxtrade' };
  polygon?: string;
  eod?: string;
}

export async function readProviderKeys(sql: Sql, rawKey: string): Promise<ProviderKeys> {
  const key = secretsKey(rawKey);
  const rows = await sql<{ key: string; value1: string | null; value2: string | null; value3: string | null }[]>`
    SELECT key::text, value1, value2, value3 FROM api_settings`;
  const get = (k: string) => rows.find((r) => r.key === k);
  const plain = (v: string | null | undefined) => (v ? decryptSecret(v, key) : '');
  const out: ProviderKeys = {};
  const o = get('oandaAPI');
  if (o && plain(o.value1) && plain(o.value2)) {
    out.oanda = { accountId: plain(o.value1), token: plain(o.value2), mode: o.value3 === 'fxtrade' ? 'fxtrade' : 'fxpractice' };
  }
  const p = plain(get('polygonAPI')?.value1);
  if (p) out.polygon = p;
  const e = plain(get('eodAPI')?.value1);
  if (e) out.eod = e;
  return out;
}

/** The real providers for what they cover, and the instruments left to the simulator. */
export function chooseProviders(keys: ProviderKeys, instruments: Instrument[]): { providers: FeedProvider[]; rest: Instrument[] } {
  const providers: FeedProvider[] = [];
  const covered = new Set<number>();
  const take = (pred: (i: Instrument) => boolean) => {
    const list = instruments.filter((i) => pred(i) && !covered.has(i.id));
    for (const i of list) covered.add(i.id);
    return list;
  };
  if (keys.oanda) {
    const list = take((i) => i.category === 'forex' || i.category === 'commodity' || i.category === 'index');
    if (list.length) providers.push(new OandaStream({ ...keys.oanda, instruments: list.map((i) => i.name) }));
  }
  if (keys.polygon) {
    const fx = take((i) => i.category === 'forex');
    if (fx.length) providers.push(new WebSocketFeed(polygonForex(keys.polygon), fx.map((i) => i.name)));
    const crypto = take((i) => i.category === 'crypto');
    if (crypto.length) providers.push(new WebSocketFeed(polygonCrypto(keys.polygon), crypto.map((i) => i.name)));
  }
  if (keys.eod) {
    const stocks = take((i) => i.category === 'stock');
    if (stocks.length) providers.push(new WebSocketFeed(eodStocks(keys.eod), stocks.map((i) => i.name)));
  }
  return { providers, rest: instruments.filter((i) => !covered.has(i.id)) };
}
