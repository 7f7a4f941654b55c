// Polygon (forex, crypto) and EOD Historical Data (US stocks) real-time websockets. Each
// authenticates, subscribes to our instruments under its own names, and maps quotes to ticks.
import type { Tick } from '../book/book.ts';
import type { FeedProvider, FeedStatus, Heartbeat, HeartbeatApi } from './feed.ts';

interface Dialect {
  api: HeartbeatApi;
  url: string;
  /** messages to send once open */
  hello(symbols: string[]): string[];
  /** one incoming frame to ticks (our names) plus an auth outcome when the frame carries one */
  parse(data: string): { ticks: Tick[]; auth?: { ok: boolean; msg: string } };
}

// ---- Polygon: [{"ev":"status",...}], forex quotes {"ev":"C","p":"EUR/USD","a":..,"b":..,"t":..},
//      crypto quotes {"ev":"XQ","pair":"BTC-USD","bp":..,"ap":..,"t":..}
export function polygonForex(key: string, url = 'wss://socket.polygon.io/forex'): Dialect {
  return {
    api: 'polygonForex', url,
    hello: (symbols) => [JSON.stringify({ action: 'auth', params: key }),
      JSON.stringify({ action: 'subscribe', params: symbols.map((s) => `C.${s.replace('_', '/')}`).join(',') })],
    parse: (data) => polygonFrames(data, (m) => (m.ev === 'C' && m.p ? { symbol: String(m.p).replace('/', '_'), bid: Number(m.b), ask: Number(m.a), ts: Number(m.t) } : null)),
  };
}

export function polygonCrypto(key: string, url = 'wss://socket.polygon.io/crypto'): Dialect {
  return {
    api: 'polygonCrypto', url,
    hello: (symbols) => [JSON.stringify({ action: 'auth', params: key }),
      JSON.stringify({ action: 'subscribe', params: symbols.map((s) => `XQ.${s.replace('_', '-')}`).join(',') })],
    parse: (data) => polygonFrames(data, (m) => (m.ev === 'XQ' && m.pair ? { symbol: String(m.pair).replace('-', '_'), bid: Number(m.bp), ask: Number(m.ap), ts: Number(m.t) } : null)),
  };
}

function polygonFrames(data: string, quote: (m: Record<string, unknown>) => Tick | null) {
  const out: { ticks: Tick[]; auth?: { ok: boolean; msg: string } } = { ticks: [] };
  for (const m of JSON.parse(data) as Record<string, unknown>[]) {
    if (m.ev === 'status') {
      if (m.status === 'auth_success') out.auth = { ok: true, msg: String(m.message ?? 'authenticated') };
      else if (m.status === 'auth_failed') out.auth = { ok: false, msg: String(m.message ?? 'authentication failed') };
      continue;
    }
    const t = quote(m);
    if (t && t.bid > 0 && t.ask >= t.bid) out.ticks.push(t);
  }
  return out;
}

// ---- EOD Historical Data US quotes: wss://ws.eodhistoricaldata.com/ws/us-quote?api_token=KEY,
//      {"action":"subscribe","symbols":"AAPL,MSFT"}; quotes {"s":"AAPL","ap":..,"bp":..,"t":..};
//      status {"status_code":200,"message":"Authorized"}
export function eodStocks(key: string, base = 'wss://ws.eodhistoricaldata.com/ws/us-quote'): Dialect {
  return {
    api: 'eodStock', url: `${base}?api_token=${encodeURIComponent(key)}`,
    hello: (symbols) => [JSON.stringify({ action: 'subscribe', symbols: symbols.join(',') })],
    parse: (data) => {
      const m = JSON.parse(data) as Record<string, unknown>;
      if ('status_code' in m) return { ticks: [], auth: { ok: m.status_code === 200, msg: String(m.message ?? '') } };
      if (typeof m.s === 'string' && +(m.bp as number) > 0 && +(m.ap as number) >= +(m.bp as number)) {
        return { ticks: [{ symbol: m.s, bid: +(m.bp as number), ask: +(m.ap as number), ts: +(m.t as number) || Date.now() }] };
      }
      return { ticks: [] };
    },
  };
}

export class WebSocketFeed implements FeedProvider {
  readonly name: string;
  private ws?: WebSocket;
  private stopped = false;
  private ticks = 0;
  private lastTickAt: number | null = null;
  private connected = false;
  private message = 'not started';

  constructor(private d: Dialect, private symbols: string[], private reconnectMs = 5000) { this.name = d.api; }

  async start(emit: (t: Tick) => void, heartbeat: (h: Heartbeat) => void) {
    this.stopped = false;
    const connect = () => {
      const ws = new WebSocket(this.d.url);
      this.ws = ws;
      ws.onopen = () => { for (const m of this.d.hello(this.symbols)) ws.send(m); };
      ws.onmessage = (ev) => {
        try {
          const { ticks, auth } = this.d.parse(typeof ev.data === 'string' ? ev.data : new TextDecoder().decode(ev.data as ArrayBuffer));
          if (auth) {
            this.connected = auth.ok; this.message = auth.msg;
            heartbeat({ api: this.d.api, success: auth.ok, msg: auth.msg });
          }
          for (const t of ticks) { emit(t); this.ticks++; this.lastTickAt = t.ts; }
        } catch (e) { this.message = `bad message: ${(e as Error).message}`; }
      };
      ws.onclose = () => {
        this.connected = false;
        if (this.stopped) return;
        heartbeat({ api: this.d.api, success: false, msg: 'disconnected' });
        setTimeout(connect, this.reconnectMs);
      };
      ws.onerror = () => { this.message = 'connection error'; };
    };
    connect();
  }

  async stop() { this.stopped = true; this.ws?.close(); }

  status(): FeedStatus {
    return { name: this.name, connected: this.connected, ticks: this.ticks, lastTickAt: this.lastTickAt, message: this.message };
  }
}
