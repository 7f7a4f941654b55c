// Shared plumbing for the real market-data adapters: capped exponential backoff, abortable
// sleeps, a stall watchdog, defensive number parsing and a base class that keeps the status
// counters and reports heartbeats for the API status page (docs/specs.md#settings-and-providers).
import type { Tick } from '../../book/book.ts';
import type { FeedProvider, FeedStatus, Heartbeat, HeartbeatApi } from '../feed.ts';

/** A tick as the adapters emit it: the book's Tick, plus OANDA's closeout prices when known. */
// closeout prices travel on the Tick itself (book.ts)
export type ProviderTick = Tick;

export interface ProviderStatus extends FeedStatus {
  /** Heartbeat api this provider reports under. */
  api: HeartbeatApi;
  /** Lines or messages that could not be read (bad JSON, missing or non-positive prices). */
  skipped: number;
  /** Well-formed messages for instruments we do not serve. */
  ignored: number;
  /** Connection attempts after the first. */
  reconnects: number;
  /** Last error seen, if any. */
  lastError: string | null;
  /** Instruments this provider serves (our names). */
  instruments: string[];
}

export interface BackoffOptions {
  /** First delay after a failure (ms). Default 1000. */
  initialMs?: number;
  /** Cap (ms). Default 60000. */
  maxMs?: number;
  /** Multiplier per consecutive failure. Default 2. */
  factor?: number;
  /** Jitter as a fraction of the delay, 0..1 (full delay ± jitter/2). Default 0.2; 0 in tests. */
  jitter?: number;
  /** Random source for the jitter (injectable for determinism). */
  random?: () => number;
}

/** Capped exponential backoff: initial, initial×f, initial×f², … up to max; reset after success. */
export class Backoff {
  private attempt = 0;
  readonly initialMs: number; readonly maxMs: number; readonly factor: number;
  private jitter: number; private random: () => number;

  constructor(o: BackoffOptions = {}) {
    this.initialMs = o.initialMs ?? 1000;
    this.maxMs = o.maxMs ?? 60_000;
    this.factor = o.factor ?? 2;
    this.jitter = o.jitter ?? 0.2;
    this.random = o.random ?? Math.random;
  }

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt++;
    if (!this.jitter) return base;
    const j = base * this.jitter * (this.random() - 0.5);
    return Math.max(0, Math.min(this.maxMs, Math.round(base + j)));
  }

  reset() { this.attempt = 0; }
  get failures() { return this.attempt; }
}

/** Sleeps `ms`, resolving early (without throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() { clearTimeout(t); signal?.removeEventListener('abort', done); resolve(); }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A positive finite number from a number or a numeric string; undefined otherwise. */
export function price(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Unix milliseconds from ms numbers, or undefined. */
export function millis(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? Math.trunc(n) : undefined;
}

/**
 * Milliseconds from an RFC 3339 time with any number of fractional digits
 * ("2016-10-27T08:38:43.094548890Z", as OANDA sends) or a Unix-seconds string ("1478280000.123456789").
 */
export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.trunc(Number(v) * 1000);
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(v);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}.${(m[2] ?? '0').padEnd(3, '0').slice(0, 3)}${m[3]}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A tick only when bid and ask are positive and not crossed. */
export function tick(symbol: string, bid: number | undefined, ask: number | undefined, ts: number | undefined): ProviderTick | undefined {
  if (bid === undefined || ask === undefined || ask < bid) return undefined;
  return { symbol, bid, ask, ts: ts ?? Date.now() };
}

export interface ProviderOptions {
  backoff?: BackoffOptions;
  /** Period of the status heartbeat while running (ms). Default 10000; 0 disables it. */
  heartbeatMs?: number;
  /** Reconnect when nothing at all arrives for this long (ms). 0 disables the watchdog. */
  stallMs?: number;
  /** Clock (ms), injectable. */
  now?: () => number;
}

/**
 * Base of every adapter: status counters, heartbeats, the reconnect loop's backoff and
 * start/stop bookkeeping. Subclasses implement `run(signal)`, one connection's lifetime:
 * it resolves or throws when the connection ends, and the loop reconnects after a backoff.
 */
export abstract class BaseProvider implements FeedProvider {
  abstract readonly name: string;
  abstract readonly api: HeartbeatApi;
  protected emitTick: (t: Tick) => void = () => {};
  private beat: (h: Heartbeat) => void = () => {};
  protected backoff: Backoff;
  protected now: () => number;
  protected heartbeatMs: number;
  protected stallMs: number;
  private controller: AbortController | null = null;
  private loop: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private attempts = 0;
  private lastActivity = 0;
  protected stats = { connected: false, ticks: 0, lastTickAt: null as number | null, message: 'not started', skipped: 0, ignored: 0, lastError: null as string | null };

  constructor(readonly instruments: string[], o: ProviderOptions = {}, stallDefault = 0) {
    this.backoff = new Backoff(o.backoff);
    this.now = o.now ?? Date.now;
    this.heartbeatMs = o.heartbeatMs ?? 10_000;
    this.stallMs = o.stallMs ?? stallDefault;
  }

  /** One connection; returns (or throws) when it ends. `connected()` marks the link healthy. */
  protected abstract run(signal: AbortSignal): Promise<void>;

  async start(emit: (t: Tick) => void, heartbeat: (h: Heartbeat) => void): Promise<void> {
    if (this.loop) return;
    this.emitTick = emit;
    this.beat = heartbeat;
    this.controller = new AbortController();
    this.stats.message = 'connecting';
    if (this.heartbeatMs > 0) {
      this.timer = setInterval(() => this.periodic(), this.heartbeatMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
    this.loop = this.forever(this.controller.signal);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.loop?.catch(() => {});
    this.loop = null;
    this.controller = null;
    this.stats.connected = false;
    this.stats.message = 'stopped';
  }

  status(): ProviderStatus {
    return {
      name: this.name, api: this.api, connected: this.stats.connected, ticks: this.stats.ticks,
      lastTickAt: this.stats.lastTickAt, message: this.stats.message, skipped: this.stats.skipped,
      ignored: this.stats.ignored, reconnects: Math.max(0, this.attempts - 1), lastError: this.stats.lastError,
      instruments: [...this.instruments],
    };
  }

  private async forever(signal: AbortSignal) {
    while (!signal.aborted) {
      this.attempts++;
      // One controller per connection, so the stall watchdog can end just this one.
      const conn = new AbortController();
      const onStop = () => conn.abort();
      signal.addEventListener('abort', onStop, { once: true });
      this.lastActivity = this.now();
      const watchdog = this.stallMs > 0 ? setInterval(() => {
        if (this.now() - this.lastActivity > this.stallMs) {
          this.stats.lastError = `no data for ${this.stallMs} ms`;
          conn.abort();
        }
      }, Math.max(5, Math.min(1000, Math.floor(this.stallMs / 4)))) : null;
      let error: string;
      try {
        await this.run(conn.signal);
        error = conn.signal.aborted && !signal.aborted ? (this.stats.lastError ?? 'connection reset') : 'connection closed by the provider';
      } catch (e) {
        error = conn.signal.aborted && !signal.aborted ? (this.stats.lastError ?? 'connection reset') : errorMessage(e);
      } finally {
        if (watchdog) clearInterval(watchdog);
        signal.removeEventListener('abort', onStop);
      }
      const wasConnected = this.stats.connected;
      this.stats.connected = false;
      if (signal.aborted) break;
      this.stats.lastError = error;
      const delay = this.backoff.next();
      this.stats.message = `${error}; reconnecting in ${delay} ms`;
      this.report(false, this.stats.message, !wasConnected && this.backoff.failures > 1);
      await sleep(delay, signal);
    }
  }

  /** Any bytes or frames arrived: feeds the stall watchdog. */
  protected activity() { this.lastActivity = this.now(); }

  /** The link is up (authenticated and subscribed where that applies). */
  protected connected(msg = 'connected') {
    this.stats.connected = true;
    this.stats.message = msg;
    this.backoff.reset();
    this.report(true, msg);
  }

  protected fail(msg: string) {
    this.stats.lastError = msg;
    this.stats.message = msg;
    this.report(false, msg);
  }

  protected skip() { this.stats.skipped++; }
  protected ignore() { this.stats.ignored++; }

  protected emit(t: ProviderTick) {
    this.stats.ticks++;
    this.stats.lastTickAt = this.now();
    try { this.emitTick(t); } catch { /* a consumer error must not kill the feed */ }
  }

  /** Heartbeat events; repeated identical failures while reconnecting are reported once. */
  private lastReport = '';
  protected report(success: boolean, msg: string, quiet = false) {
    const key = `${success}:${msg.replace(/\d+ ms/, '')}`;
    if (quiet && key === this.lastReport) return;
    this.lastReport = key;
    try { this.beat({ api: this.api, success, msg }); } catch { /* ignore */ }
  }

  private periodic() {
    const s = this.stats;
    if (s.connected) {
      const ago = s.lastTickAt === null ? 'no ticks yet' : `last tick ${Math.round((this.now() - s.lastTickAt) / 1000)} s ago`;
      this.report(true, `connected, ${s.ticks} ticks, ${ago}`);
    } else {
      this.report(false, s.message);
    }
  }
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

/** Reads a byte stream as newline-delimited text lines, calling `line` for each complete line. */
export async function readLines(body: ReadableStream<Uint8Array>, signal: AbortSignal, line: (s: string) => void, chunk?: () => void): Promise<void> {
  const reader = body.getReader();
  const cancel = () => { reader.cancel().catch(() => {}); };
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      chunk?.();
      buf += decoder.decode(value, { stream: true });
      // Guard against a provider that never sends a newline.
      if (buf.length > 1_000_000 && !buf.includes('\n')) buf = '';
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (l) line(l);
      }
    }
    const rest = (buf + decoder.decode()).trim();
    if (rest && !signal.aborted) line(rest);
  } finally {
    signal.removeEventListener('abort', cancel);
    try { reader.releaseLock(); } catch { /* already released */ }
  }
}
