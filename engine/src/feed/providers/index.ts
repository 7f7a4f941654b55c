// Which real provider serves which instruments, from the keys configured in api_settings.
//
// The choice, per category (docs/specs.md#settings-and-providers: the status page has rows for Polygon (Forex),
// Polygon (Crypto), EOD Historical Data (Stock) and Oanda Rest (Others)):
//   forex      → OANDA when configured (one account stream covers every pair, with closeout
//                prices), else Polygon forex.
//   commodity  → OANDA when configured (XAU_USD, BCO_USD, … are OANDA instrument names); without
//                OANDA the precious metals (XAU, XAG, XPT, XPD against a currency) go to Polygon
//                forex, which quotes them as currency pairs; other commodities have no provider.
//   index      → OANDA when configured (SPX500_USD, DE30_EUR, …); no other provider quotes them.
//   crypto     → Polygon crypto.
//   stock      → EOD Historical Data (websocket us-quote).
// Anything left without a provider is returned in `uncovered`, for the simulator to serve.
//
// Wiring (engine main, feed role):
//   const settings = await loadProviderSettings(sql, secretsKey(config.SECRETS_KEY));
//   const plan = createProviders(settings, byCategory);             // names from the instruments table
//   for (const p of plan.providers) await p.start(emit, heartbeat);  // emit → bus/core ingest
//   simulator for plan.uncovered;                                     p.status() for /v1/health
//   await plan.currency?.start((q) => saveCurrencyQuota(sql, q));     rates: withFallback(book.rate, plan.currency)
//   on shutdown: await Promise.all(plan.providers.map((p) => p.stop())); plan.currency?.stop();
// The currency API, when configured, is returned separately: it is a conversion-rate fallback,
// not a tick source.
import type { FeedProvider } from '../feed.ts';
import type { BackoffOptions } from './common.ts';
import { CurrencyApi } from './currency.ts';
import { EodRestPoller, EodSocket } from './eod.ts';
import { OandaStream } from './oanda.ts';
import { PolygonSocket } from './polygon.ts';
import type { ProviderSettings } from './settings.ts';
import type { WebSocketCtor } from './socket.ts';

export * from './common.ts';
export * from './currency.ts';
export * from './eod.ts';
export * from './oanda.ts';
export * from './polygon.ts';
export * from './settings.ts';

export type Category = 'forex' | 'commodity' | 'index' | 'stock' | 'crypto';
export type InstrumentsByCategory = Partial<Record<Category, string[]>>;

export interface ProviderOverrides {
  /** Base URLs / socket URLs, for tests or proxies. */
  oandaBaseUrl?: string;
  polygonForexUrl?: string;
  polygonCryptoUrl?: string;
  eodUrl?: string;
  eodRestUrl?: string;
  currencyBaseUrl?: string;
  /** Use the EOD REST poller instead of the websocket (plans without websocket access). */
  eodRest?: boolean;
  eodRestIntervalMs?: number;
  backoff?: BackoffOptions;
  heartbeatMs?: number;
  fetch?: typeof fetch;
  WebSocket?: WebSocketCtor;
}

export interface ProviderPlan {
  /** Providers with keys and at least one instrument; start each with the engine's emit/heartbeat. */
  providers: FeedProvider[];
  /** Our instrument name → provider name. */
  assignment: Map<string, string>;
  /** Instruments no real provider serves (the simulator's share). */
  uncovered: string[];
  /** Currency API client when configured (not started). */
  currency: CurrencyApi | null;
}

const METALS = new Set(['XAU', 'XAG', 'XPT', 'XPD']);
const isMetalPair = (name: string) => {
  const [base, quote] = name.split('_');
  return METALS.has(base) && !!quote && /^[A-Z]{3}$/.test(quote);
};

export function createProviders(settings: ProviderSettings, instrumentsByCategory: InstrumentsByCategory, o: ProviderOverrides = {}): ProviderPlan {
  const list = (c: Category) => [...new Set(instrumentsByCategory[c] ?? [])];
  const common = { backoff: o.backoff, heartbeatMs: o.heartbeatMs };
  const providers: FeedProvider[] = [];
  const assignment = new Map<string, string>();
  const uncovered: string[] = [];
  const assign = (p: FeedProvider, names: string[]) => { for (const n of names) assignment.set(n, p.name); };

  const oandaNames: string[] = [];
  const polygonForexNames: string[] = [];
  if (settings.oanda) {
    oandaNames.push(...list('forex'), ...list('commodity'), ...list('index'));
  } else {
    if (settings.polygon) {
      polygonForexNames.push(...list('forex'), ...list('commodity').filter(isMetalPair));
    }
  }

  if (settings.oanda && oandaNames.length) {
    const p = new OandaStream({
      accountId: settings.oanda.accountId, token: settings.oanda.apiKey, mode: settings.oanda.mode,
      instruments: oandaNames, baseUrl: o.oandaBaseUrl, fetch: o.fetch, ...common,
    });
    providers.push(p); assign(p, oandaNames);
  }
  if (settings.polygon && polygonForexNames.length) {
    const p = new PolygonSocket({ market: 'forex', apiKey: settings.polygon.apiKey, instruments: polygonForexNames, url: o.polygonForexUrl, WebSocket: o.WebSocket, ...common });
    providers.push(p); assign(p, polygonForexNames);
  }
  const crypto = list('crypto');
  if (settings.polygon && crypto.length) {
    const p = new PolygonSocket({ market: 'crypto', apiKey: settings.polygon.apiKey, instruments: crypto, url: o.polygonCryptoUrl, WebSocket: o.WebSocket, ...common });
    providers.push(p); assign(p, crypto);
  }
  const stocks = list('stock');
  if (settings.eod && stocks.length) {
    const p = o.eodRest
      ? new EodRestPoller({ apiKey: settings.eod.apiKey, instruments: stocks, baseUrl: o.eodRestUrl, intervalMs: o.eodRestIntervalMs, fetch: o.fetch, ...common })
      : new EodSocket({ apiKey: settings.eod.apiKey, instruments: stocks, url: o.eodUrl, WebSocket: o.WebSocket, ...common });
    providers.push(p); assign(p, stocks);
  }

  for (const c of ['forex', 'commodity', 'index', 'stock', 'crypto'] as const) {
    for (const n of list(c)) if (!assignment.has(n)) uncovered.push(n);
  }
  const currency = settings.currency
    ? new CurrencyApi({ apiKey: settings.currency.apiKey, baseUrl: o.currencyBaseUrl, fetch: o.fetch })
    : null;
  return { providers, assignment, uncovered, currency };
}
