// EOD Historical Data (eodhd.com) real-time prices for US stocks.
//
// Websocket (primary), "Real-Time Data API via WebSockets":
//   wss://ws.eodhistoricaldata.com/ws/us-quote?api_token=<key>
//   server: {"status_code":200,"message":"Authorized"}   (a subscribe sent before it is refused)
//   client: {"action":"subscribe","symbols":"AAPL,MSFT"}
//   server: {"s":"AAPL","ap":190.14,"as":3,"bp":190.1,"bs":2,"t":1725198451165}   (t in Unix ms)
//   errors: {"status_code":422,"message":"Symbols limit reached"}, {"status":500,"message":"Server error"}
//   Up to 50 symbols per key by default.
//
// REST poller (fallback, "Live (Delayed) Stock Prices API"):
//   GET https://eodhd.com/api/real-time/AAPL.US?api_token=<key>&fmt=json&s=MSFT.US,TSLA.US
//   → {"code":"AAPL.US","timestamp":1704398400,"close":243.84,…} or an array of those (timestamp in seconds).
//   It carries a last price, not a bid/ask, so ticks have bid = ask = close (the book's spread applies).
//
// Our stock names are TICKER_USD (AAPL_USD ↔ AAPL, AAPL.US for REST).
import { BaseProvider, errorMessage, millis, price, sleep, tick, type ProviderOptions } from './common.ts';
import { socketSession, type WebSocketCtor } from './socket.ts';

export const EOD_WS_URL = 'wss://ws.eodhistoricaldata.com/ws/us-quote';
export const EOD_REST_URL = 'https://eodhd.com/api';

/** AAPL_USD → AAPL; undefined for names that are not TICKER_USD. */
export function toEodTicker(name: string): string | undefined {
  const m = /^([A-Z0-9.-]+)_USD$/i.exec(name);
  return m ? m[1].toUpperCase() : undefined;
}

export interface EodOptions extends ProviderOptions {
  apiKey: string;
  instruments: string[];
  /** Overrides the websocket URL without the query (tests). */
  url?: string;
  WebSocket?: WebSocketCtor;
  /** Subscribe anyway when no "Authorized" frame came within this time (ms). Default 5000. */
  authWaitMs?: number;
}

export class EodSocket extends BaseProvider {
  readonly name = 'eod';
  readonly api = 'eodStock' as const;
  private tickers = new Map<string, string>();
  private failure: string | null = null;

  constructor(private o: EodOptions) {
    super(o.instruments, o, 120_000);
    for (const n of o.instruments) {
      const t = toEodTicker(n);
      if (t) this.tickers.set(t, n);
    }
  }

  url() {
    return `${this.o.url ?? EOD_WS_URL}?api_token=${encodeURIComponent(this.o.apiKey)}`;
  }

  protected async run(signal: AbortSignal): Promise<void> {
    if (!this.tickers.size) throw new Error('no instruments to subscribe');
    this.failure = null;
    let subscribed = false;
    let authTimer: ReturnType<typeof setTimeout> | null = null;
    const subscribe = (ws: WebSocket) => {
      if (subscribed) return;
      subscribed = true;
      if (authTimer) clearTimeout(authTimer);
      ws.send(JSON.stringify({ action: 'subscribe', symbols: [...this.tickers.keys()].join(',') }));
      this.connected(`subscribed to ${this.tickers.size} symbols`);
    };
    try {
      await socketSession(this.url(), signal, {
        open: (ws) => {
          this.activity();
          authTimer = setTimeout(() => subscribe(ws), this.o.authWaitMs ?? 5000);
        },
        message: (ws, text) => {
          this.activity();
          this.frame(text, ws, () => subscribe(ws));
        },
      }, this.o.WebSocket);
    } catch (e) {
      if (this.failure) throw new Error(this.failure, { cause: e });
      throw e;
    } finally {
      if (authTimer) clearTimeout(authTimer);
    }
    if (this.failure) throw new Error(this.failure);
  }

  /** One server frame. Exposed for tests. */
  frame(text: string, ws?: WebSocket, authorized?: () => void) {
    let m: any;
    try { m = JSON.parse(text); } catch { return this.skip(); }
    if (!m || typeof m !== 'object' || Array.isArray(m)) return this.skip();
    const code = m.status_code ?? m.status;
    if (code !== undefined && m.s === undefined) {
      const msg = String(m.message ?? '');
      if (Number(code) === 200) { authorized?.(); return; }
      if (Number(code) === 401 || Number(code) === 403) {
        this.failure = `refused (${code}${msg ? `: ${msg}` : ''})`;
        this.backoff.next(); this.backoff.next();
        try { ws?.close(1000, 'refused'); } catch { /* closed */ }
        return;
      }
      // 422 "Symbols limit reached" and the like: the link stays up, the status page shows it.
      this.fail(`${code}${msg ? `: ${msg}` : ''}`);
      return;
    }
    if (typeof m.s !== 'string') return this.skip();
    const name = this.tickers.get(m.s.toUpperCase());
    if (!name) return this.ignore();
    const t = tick(name, price(m.bp), price(m.ap), millis(m.t));
    if (!t) return this.skip();
    this.emit(t);
  }
}

export interface EodRestOptions extends ProviderOptions {
  apiKey: string;
  instruments: string[];
  /** Poll period (ms). Default 60000 (each poll costs API calls: one per symbol). */
  intervalMs?: number;
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** The REST fallback: polls the live (delayed) endpoint and emits a tick when a price changes. */
export class EodRestPoller extends BaseProvider {
  readonly name = 'eod-rest';
  readonly api = 'eodStock' as const;
  private codes = new Map<string, string>();
  private lastSeen = new Map<string, number>();

  constructor(private o: EodRestOptions) {
    super(o.instruments, { ...o, stallMs: 0 });
    for (const n of o.instruments) {
      const t = toEodTicker(n);
      if (t) this.codes.set(`${t}.US`, n);
    }
  }

  url() {
    const [first, ...rest] = [...this.codes.keys()];
    const q = new URLSearchParams({ api_token: this.o.apiKey, fmt: 'json' });
    if (rest.length) q.set('s', rest.join(','));
    return `${(this.o.baseUrl ?? EOD_REST_URL).replace(/\/$/, '')}/real-time/${encodeURIComponent(first)}?${q.toString().replace(/%2C/g, ',')}`;
  }

  protected async run(signal: AbortSignal): Promise<void> {
    if (!this.codes.size) throw new Error('no instruments to poll');
    for (;;) {
      await this.poll(signal);
      if (signal.aborted) return;
      await sleep(this.o.intervalMs ?? 60_000, signal);
      if (signal.aborted) return;
    }
  }

  /** One request; throws on HTTP or body errors so the loop backs off. */
  async poll(signal?: AbortSignal) {
    const f = this.o.fetch ?? fetch;
    const res = await f(this.url(), { headers: { accept: 'application/json' }, signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    let body: unknown;
    try { body = await res.json(); } catch (e) { throw new Error(`unreadable body: ${errorMessage(e)}`, { cause: e }); }
    const rows = Array.isArray(body) ? body : [body];
    if (!this.stats.connected) this.connected(`polling ${this.codes.size} symbols`);
    for (const r of rows as any[]) {
      if (!r || typeof r !== 'object' || typeof r.code !== 'string') { this.skip(); continue; }
      const name = this.codes.get(r.code.toUpperCase());
      if (!name) { this.ignore(); continue; }
      const close = price(r.close);
      const ts = millis(r.timestamp);
      if (close === undefined || ts === undefined) { this.skip(); continue; }
      if (this.lastSeen.get(name) === ts) continue;
      this.lastSeen.set(name, ts);
      const t = tick(name, close, close, ts * 1000);
      if (t) this.emit(t);
    }
  }
}
