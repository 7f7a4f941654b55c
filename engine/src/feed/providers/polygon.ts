// Polygon.io (now Massive) websockets for forex and crypto quotes.
//   wss://socket.polygon.io/forex   channel C   {"ev":"C","p":"EUR/USD","x":48,"a":1.0852,"b":1.0851,"t":1536036818784}
//   wss://socket.polygon.io/crypto  channel XQ  {"ev":"XQ","pair":"BTC-USD","bp":67010.1,"bs":0.5,"ap":67012.4,"as":1.2,"t":1536036818784,"x":1,"r":1536036818790}
// Protocol: on connect the server sends [{"ev":"status","status":"connected","message":"Connected Successfully"}];
// the client sends {"action":"auth","params":"<key>"} and gets
// [{"ev":"status","status":"auth_success","message":"authenticated"}] (or "auth_failed"); then
// {"action":"subscribe","params":"C.EUR/USD,C.GBP/USD"} → [{"ev":"status","status":"success","message":"subscribed to: C.EUR/USD"}].
// Every server message is a JSON array of events. Timestamps are Unix milliseconds.
import type { HeartbeatApi } from '../feed.ts';
import { BaseProvider, millis, price, tick, type ProviderOptions } from './common.ts';
import { socketSession, type WebSocketCtor } from './socket.ts';

export type PolygonMarket = 'forex' | 'crypto';

export interface PolygonOptions extends ProviderOptions {
  market: PolygonMarket;
  apiKey: string;
  /** Our instrument names: EUR_USD, XAU_USD (forex); BTC_USD (crypto). */
  instruments: string[];
  /** Overrides the socket URL (tests), e.g. ws://127.0.0.1:1234/forex. */
  url?: string;
  WebSocket?: WebSocketCtor;
}

export const POLYGON_URLS: Record<PolygonMarket, string> = {
  forex: 'wss://socket.polygon.io/forex',
  crypto: 'wss://socket.polygon.io/crypto',
};

/** EUR_USD → EUR/USD (forex), BTC_USD → BTC-USD (crypto). */
export function toPolygonPair(market: PolygonMarket, name: string): string | undefined {
  const parts = name.split('_');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return market === 'forex' ? `${parts[0]}/${parts[1]}` : `${parts[0]}-${parts[1]}`;
}

export class PolygonSocket extends BaseProvider {
  readonly name: string;
  readonly api: HeartbeatApi;
  /** provider pair (upper case) → our name */
  private pairs = new Map<string, string>();
  private failure: string | null = null;

  constructor(private o: PolygonOptions) {
    // Quotes for majors arrive several times a second while the market is open.
    super(o.instruments, o, 120_000);
    this.name = o.market === 'forex' ? 'polygon-forex' : 'polygon-crypto';
    this.api = o.market === 'forex' ? 'polygonForex' : 'polygonCrypto';
    for (const n of o.instruments) {
      const p = toPolygonPair(o.market, n);
      if (p) this.pairs.set(p.toUpperCase(), n);
    }
  }

  get channel() { return this.o.market === 'forex' ? 'C' : 'XQ'; }

  subscribeParams() {
    return [...this.pairs.keys()].map((p) => `${this.channel}.${p}`).join(',');
  }

  protected async run(signal: AbortSignal): Promise<void> {
    if (!this.pairs.size) throw new Error('no instruments to subscribe');
    this.failure = null;
    const url = this.o.url ?? POLYGON_URLS[this.o.market];
    try {
      await socketSession(url, signal, {
        open: (ws) => {
          this.activity();
          // Authenticate straight away; the "connected" status that precedes it is informational.
          ws.send(JSON.stringify({ action: 'auth', params: this.o.apiKey }));
        },
        message: (ws, text) => {
          this.activity();
          this.frame(text, ws);
        },
      }, this.o.WebSocket);
    } catch (e) {
      // The server closes after auth_failed: report why, not how.
      if (this.failure) throw new Error(this.failure, { cause: e });
      throw e;
    }
    if (this.failure) throw new Error(this.failure);
  }

  /** One server message (a JSON array of events). Exposed for tests. */
  frame(text: string, ws?: WebSocket) {
    let events: unknown;
    try { events = JSON.parse(text); } catch { return this.skip(); }
    const list = Array.isArray(events) ? events : [events];
    for (const e of list) this.event(e, ws);
  }

  private event(e: any, ws?: WebSocket) {
    if (!e || typeof e !== 'object') return this.skip();
    if (e.ev === 'status') return this.statusEvent(String(e.status ?? ''), String(e.message ?? ''), ws);
    if (e.ev === 'C' && this.o.market === 'forex') {
      if (typeof e.p !== 'string') return this.skip();
      const name = this.pairs.get(e.p.toUpperCase());
      if (!name) return this.ignore();
      const t = tick(name, price(e.b), price(e.a), millis(e.t));
      return t ? this.emit(t) : this.skip();
    }
    if (e.ev === 'XQ' && this.o.market === 'crypto') {
      if (typeof e.pair !== 'string') return this.skip();
      const name = this.pairs.get(e.pair.toUpperCase());
      if (!name) return this.ignore();
      const t = tick(name, price(e.bp), price(e.ap), millis(e.t));
      return t ? this.emit(t) : this.skip();
    }
    // Other events (aggregates, trades) are not ours.
    this.ignore();
  }

  private statusEvent(status: string, message: string, ws?: WebSocket) {
    switch (status) {
      case 'connected':
        return;
      case 'auth_success':
        ws?.send(JSON.stringify({ action: 'subscribe', params: this.subscribeParams() }));
        return;
      case 'auth_failed':
      case 'auth_timeout':
        this.failure = `authentication failed: ${message || status}`;
        // A wrong key will not fix itself quickly: push the backoff towards its cap.
        this.backoff.next(); this.backoff.next();
        try { ws?.close(1000, 'auth failed'); } catch { /* closed */ }
        return;
      case 'success':
        if (/^subscribed/i.test(message) && !this.stats.connected) this.connected(`subscribed to ${this.pairs.size} pairs`);
        return;
      case 'max_connections':
      case 'error':
        this.fail(`${status}: ${message}`);
        return;
      default:
        this.fail(`${status}${message ? `: ${message}` : ''}`);
    }
  }
}
