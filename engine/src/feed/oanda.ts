// OANDA v20 pricing stream: GET /v3/accounts/{id}/pricing/stream?instruments=A,B with a bearer
// token answers newline-delimited JSON: PRICE lines (bids/asks arrays, closeoutBid/Ask) and
// HEARTBEAT lines every few seconds. Practice and live differ only by host.
import type { Tick } from '../book/book.ts';
import type { FeedProvider, FeedStatus, Heartbeat } from './feed.ts';

export const OANDA_HOSTS = { fxpractice: 'https://stream-fxpractice.oanda.com', fxtrade: 'https://stream-fxtrade.oanda.com' };

export interface OandaOptions {
  accountId: string;
  token: string;
  mode: 'fxpractice' | 'fxtrade';
  instruments: string[];   // OANDA names are ours: EUR_USD
  host?: string;           // override (tests)
  reconnectMs?: number;
}

interface PriceLine { type: 'PRICE'; instrument: string; time: string; bids: { price: string }[]; asks: { price: string }[]; closeoutBid?: string; closeoutAsk?: string; tradeable?: boolean }

/** One line of the stream to a tick, or null for heartbeats and anything unusable. */
export function parseOandaLine(line: string): Tick | null {
  if (!line.trim()) return null;
  const m = JSON.parse(line) as PriceLine | { type: string };
  if (m.type !== 'PRICE') return null;
  const p = m as PriceLine;
  const bid = Number(p.bids?.[0]?.price), ask = Number(p.asks?.[0]?.price);
  if (!(bid > 0) || !(ask >= bid)) return null;
  return { symbol: p.instrument, bid, ask, ts: Date.parse(p.time) || Date.now() };
}

export class OandaStream implements FeedProvider {
  readonly name = 'oanda';
  private abort?: AbortController;
  private stopped = false;
  private ticks = 0;
  private lastTickAt: number | null = null;
  private connected = false;
  private message = 'not started';

  constructor(private o: OandaOptions) {}

  url() {
    const host = this.o.host ?? OANDA_HOSTS[this.o.mode];
    return `${host}/v3/accounts/${encodeURIComponent(this.o.accountId)}/pricing/stream?instruments=${encodeURIComponent(this.o.instruments.join(','))}`;
  }

  async start(emit: (t: Tick) => void, heartbeat: (h: Heartbeat) => void) {
    this.stopped = false;
    void this.loop(emit, heartbeat);
  }

  private async loop(emit: (t: Tick) => void, heartbeat: (h: Heartbeat) => void) {
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        const res = await fetch(this.url(), { headers: { Authorization: `Bearer ${this.o.token}`, 'Accept-Datetime-Format': 'RFC3339' }, signal: this.abort.signal });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
        this.connected = true; this.message = 'connected';
        heartbeat({ api: 'oandaRest', success: true, msg: 'connected' });
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = '';
        for (;;) {
          const r = await reader.read();
          if (r.done) break;
          buf += dec.decode(r.value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i); buf = buf.slice(i + 1);
            if (line.includes('"HEARTBEAT"')) { heartbeat({ api: 'oandaRest', success: true, msg: 'heartbeat' }); continue; }
            const t = parseOandaLine(line);
            if (t) { emit(t); this.ticks++; this.lastTickAt = t.ts; }
          }
        }
        throw new Error('stream ended');
      } catch (e) {
        if (this.stopped) break;
        this.connected = false; this.message = (e as Error).message;
        heartbeat({ api: 'oandaRest', success: false, msg: this.message });
        await new Promise((r) => setTimeout(r, this.o.reconnectMs ?? 5000));
      }
    }
  }

  async stop() { this.stopped = true; this.abort?.abort(); }

  status(): FeedStatus {
    return { name: this.name, connected: this.connected, ticks: this.ticks, lastTickAt: this.lastTickAt, message: this.message };
  }
}
