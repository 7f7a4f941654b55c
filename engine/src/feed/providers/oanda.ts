// OANDA v20 pricing stream (developer.oanda.com, "Pricing Endpoints" → Price Stream):
//   GET https://stream-fxpractice.oanda.com/v3/accounts/{accountID}/pricing/stream?instruments=EUR_USD,USD_JPY
//   (live: stream-fxtrade.oanda.com; the REST hosts api-fx*.oanda.com serve the non-streaming endpoints)
//   Authorization: Bearer <token>, Accept-Datetime-Format: RFC3339
// The body is a chunked stream of newline-delimited JSON objects:
//   {"type":"PRICE","instrument":"EUR_USD","time":"2016-10-27T08:38:43.094548890Z","tradeable":true,
//    "bids":[{"price":"1.09124","liquidity":1000000},…],"asks":[{"price":"1.09136","liquidity":1000000},…],
//    "closeoutBid":"1.09120","closeoutAsk":"1.09140","status":"tradeable"}
//   {"type":"HEARTBEAT","time":"2016-10-27T08:38:48.094548890Z"}          (every 5 s)
// OANDA's instrument names are ours (EUR_USD, XAU_USD, SPX500_USD, …), so no mapping is needed.
// At most 4 prices a second per instrument; the first lines are a snapshot of each instrument.
import { BaseProvider, parseTime, price, readLines, tick, type ProviderOptions } from './common.ts';

export type OandaMode = 'fxpractice' | 'fxtrade';

export interface OandaOptions extends ProviderOptions {
  accountId: string;
  token: string;
  mode: OandaMode;
  instruments: string[];
  /** Overrides the stream host (tests): e.g. 'http://oanda.test'. */
  baseUrl?: string;
  /** fetch to use; resolved at call time so test interceptors apply. */
  fetch?: typeof fetch;
}

export function oandaStreamHost(mode: OandaMode) {
  return mode === 'fxtrade' ? 'https://stream-fxtrade.oanda.com' : 'https://stream-fxpractice.oanda.com';
}

export class OandaStream extends BaseProvider {
  readonly name = 'oanda';
  readonly api = 'oandaRest' as const;
  private served: Set<string>;

  constructor(private o: OandaOptions) {
    // OANDA heartbeats every 5 s: 20 s of silence means a dead link.
    super(o.instruments, o, 20_000);
    this.served = new Set(o.instruments);
  }

  url() {
    const base = (this.o.baseUrl ?? oandaStreamHost(this.o.mode)).replace(/\/$/, '');
    const q = new URLSearchParams({ instruments: this.o.instruments.join(',') });
    return `${base}/v3/accounts/${encodeURIComponent(this.o.accountId)}/pricing/stream?${q.toString().replace(/%2C/g, ',')}`;
  }

  protected async run(signal: AbortSignal): Promise<void> {
    if (!this.o.instruments.length) throw new Error('no instruments to stream');
    const f = this.o.fetch ?? fetch;
    const res = await f(this.url(), {
      headers: { authorization: `Bearer ${this.o.token}`, 'accept-datetime-format': 'RFC3339', accept: 'application/json' },
      signal,
    });
    if (!res.ok || !res.body) {
      let detail = '';
      try { detail = ((await res.json()) as { errorMessage?: string })?.errorMessage ?? ''; } catch { /* not JSON */ }
      const msg = `HTTP ${res.status}${detail ? `: ${detail}` : ''}`;
      // A refused key will not fix itself quickly: push the backoff towards its cap.
      if (res.status === 401 || res.status === 403) { this.backoff.next(); this.backoff.next(); }
      throw new Error(msg);
    }
    this.connected(`streaming ${this.o.instruments.length} instruments (${this.o.mode})`);
    await readLines(res.body, signal, (l) => this.line(l), () => this.activity());
  }

  /** One line of the stream. Exposed for tests. */
  line(l: string) {
    let m: any;
    try { m = JSON.parse(l); } catch { return this.skip(); }
    if (!m || typeof m !== 'object') return this.skip();
    if (m.type === 'HEARTBEAT') {
      this.report(true, `heartbeat ${typeof m.time === 'string' ? m.time : ''}`.trim());
      return;
    }
    // PRICE lines; older payloads omitted "type", so an instrument plus prices is enough.
    if (m.type !== undefined && m.type !== 'PRICE') return this.ignore();
    if (typeof m.instrument !== 'string') return this.skip();
    if (!this.served.has(m.instrument)) return this.ignore();
    const closeoutBid = price(m.closeoutBid);
    const closeoutAsk = price(m.closeoutAsk);
    // Buckets are ordered best first; an empty side (market closed) falls back to the closeout.
    const bid = price(Array.isArray(m.bids) ? m.bids[0]?.price : undefined) ?? closeoutBid;
    const ask = price(Array.isArray(m.asks) ? m.asks[0]?.price : undefined) ?? closeoutAsk;
    const t = tick(m.instrument, bid, ask, parseTime(m.time));
    if (!t) return this.skip();
    if (closeoutBid !== undefined) t.closeoutBid = closeoutBid;
    if (closeoutAsk !== undefined) t.closeoutAsk = closeoutAsk;
    this.emit(t);
  }
}
