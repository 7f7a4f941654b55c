// SSE fan-out. Prices are coalesced: at most one 'priceUpdate' every 250 ms per client,
// carrying only the instruments that changed, encoded once and shared by every client. A
// client whose buffer is full skips a round and later gets the snapshot of every price (also
// encoded once and shared, like the one a new client starts with): nothing on the hot path is
// serialised per client, and one timer serves every client's 250 ms window.
// User events carry the bus id as the SSE id so a client resumes with Last-Event-ID; a client
// that cannot keep up with them is disconnected (and resumes) rather than buffered forever.
import type { Quote } from '../book/book.ts';
import type { Bus, BusMessage } from '../bus/index.ts';
import { EVENTS, type RealtimeEvent } from '../bus/streams.ts';
import { idAfter } from '../bus/bus.ts';
import { PRICE_EVENT } from '../contract/events.ts';

export const PRICE_INTERVAL_MS = 250;
const TRAILING_GRACE_MS = 100;
const enc = new TextEncoder();

interface PriceItem { name: string; bids: number; asks: number; closeoutBid: number; closeoutAsk: number; t: number }

export interface Client {
  id: number;
  userId: number;
  topics: Set<string>;
  /** Bun's direct stream: a write goes to the socket, no queue of its own in between */
  sink: DirectSink;
  /** the last write did not fit the socket: the client is behind until it drains */
  blocked: boolean;
  /** ends the stream */
  end: () => void;
  missed: boolean;                 // skipped a round while its buffer was full
  backlog: BusMessage<RealtimeEvent>[] | null; // live events held while resuming
  lastSent: string;                // last event id sent
  closed: boolean;
  /** called once when the stream ends (the realtime route's presence count) */
  onClose?: () => void;
}

interface DirectSink { write(data: Uint8Array): number | Promise<number>; close(error?: Error): void }

export class Hub {
  private clients = new Set<Client>();
  private byTopic = new Map<string, Set<Client>>();
  private latest = new Map<string, PriceItem>();
  private changed = new Set<string>();
  private timer?: ReturnType<typeof setTimeout>;
  private immediate?: ReturnType<typeof setImmediate>;
  private lastFlush = 0;
  private keepalive: ReturnType<typeof setInterval>;
  private unsub?: () => void;
  private seq = 0;
  /** the last heartbeat per feed api: a status page opened between two beats sees it at once */
  private beats = new Map<string, Uint8Array>();
  /** every latest price, encoded once until the next price changes it */
  private snapshotFrame: Uint8Array | null = null;
  messagesSent = 0;
  /** price rounds a client skipped because its buffer was full (it was slower than the prices) */
  roundsSkipped = 0;

  constructor(private bus: Bus) {
    this.unsub = bus.subscribe<RealtimeEvent>(EVENTS, (m) => this.onEvent(m));
    this.keepalive = setInterval(() => this.broadcastRaw(enc.encode(': keep-alive\n\n')), 15_000);
  }

  get clientCount() { return this.clients.size; }

  close() {
    this.unsub?.();
    clearInterval(this.keepalive);
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    for (const c of [...this.clients]) this.drop(c);
  }

  onQuote(q: Quote) {
    this.latest.set(q.name, {
      name: q.name, bids: q.bid, asks: q.ask, closeoutBid: q.closeoutBid, closeoutAsk: q.closeoutAsk,
      t: Math.round(performance.timeOrigin + q.ingestedAt), // whole ms: 60 quotes × 4 a second × every client
    });
    this.changed.add(q.name);
    this.snapshotFrame = null;
    // Leading edge: the first tick 250 ms after the last message goes out at once (after the
    // rest of its batch), so what a client receives is fresh; a trailing timer sends what is
    // left when no further tick comes.
    const since = Date.now() - this.lastFlush;
    if (since >= PRICE_INTERVAL_MS) {
      if (!this.immediate) this.immediate = setImmediate(() => this.flushPrices());
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flushPrices(), PRICE_INTERVAL_MS - since + TRAILING_GRACE_MS);
    }
  }

  /**
   * Open a stream for verified claims and allowed topics; `lastEventId` resumes user events;
   * `signal` closes it from outside.
   */
  open(userId: number, topics: string[], lastEventId?: string, onClose?: () => void, signal?: AbortSignal): ReadableStream<Uint8Array> {
    let client: Client | undefined;
    // the caller ends the stream (its session ended): closed as a client that went away
    signal?.addEventListener('abort', () => { if (client) this.drop(client); }, { once: true });
    // A direct stream (Bun): pull() runs once when the response starts and stays pending while
    // the stream is open; writes go straight to the connection, and one that does not fit
    // returns a promise (the client is behind) instead of growing a queue per client.
    const source = {
      type: 'direct' as const,
      pull: (sink: DirectSink) => new Promise<void>((end) => {
        if (client) return; // pulled again by a reader: the stream is already open
        client = {
          id: ++this.seq, userId, topics: new Set(topics), sink, blocked: false, end, missed: false,
          backlog: lastEventId ? [] : null, lastSent: lastEventId ?? '0-0', closed: false, onClose,
        };
        this.clients.add(client);
        for (const t of topics) {
          let set = this.byTopic.get(t);
          if (!set) this.byTopic.set(t, (set = new Set()));
          set.add(client);
        }
        this.send(client, enc.encode(`retry: 2000\n: connected\n\n`));
        if (topics.includes('prices') && this.latest.size) {
          this.send(client, this.snapshot());
        }
        if (topics.includes('heartbeat')) for (const b of this.beats.values()) this.send(client, b);
        if (lastEventId) void this.resume(client, lastEventId);
      }),
      cancel: () => { if (client) this.drop(client); },
    };
    return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  }

  drop(c: Client) {
    if (!c || c.closed) return;
    c.closed = true;
    c.onClose?.();
    this.clients.delete(c);
    for (const t of c.topics) this.byTopic.get(t)?.delete(c);
    try { c.sink.close(); } catch { /* already closed */ }
    c.end();
  }

  private async resume(c: Client, after: string) {
    try {
      const past = await this.bus.range<RealtimeEvent>(EVENTS, after, 10_000);
      for (const m of past) if (c.topics.has(m.data.topic)) this.sendEvent(c, m);
    } catch (e) { console.error('[hub] resume', (e as Error).message); }
    const held = c.backlog ?? [];
    c.backlog = null;
    for (const m of held) this.sendEvent(c, m);
  }

  private onEvent(m: BusMessage<RealtimeEvent>) {
    if (m.data.topic === 'heartbeat') {
      const api = (m.data.data as { api?: unknown } | null)?.api;
      // a handful of apis; the bound keeps a stray publisher from growing the map
      if (typeof api === 'string' && (this.beats.has(api) || this.beats.size < 20)) {
        this.beats.set(api, enc.encode(`event: ${m.data.event}\ndata: ${JSON.stringify({ topic: m.data.topic, ...wrap(m.data.data) })}\n\n`));
      }
    }
    const set = this.byTopic.get(m.data.topic);
    if (!set?.size) return;
    let bytes: Uint8Array | undefined; // encoded once for every subscriber (a heartbeat has many)
    for (const c of set) {
      if (c.backlog) c.backlog.push(m);
      else this.sendEvent(c, m, (bytes ??= eventFrame(m)));
    }
  }

  private sendEvent(c: Client, m: BusMessage<RealtimeEvent>, bytes?: Uint8Array) {
    if (!idAfter(m.id, c.lastSent)) return; // already sent while resuming
    if (c.blocked) { this.drop(c); return; } // it resumes with Last-Event-ID
    c.lastSent = m.id;
    this.send(c, bytes ?? eventFrame(m));
  }

  private snapshot(): Uint8Array {
    return (this.snapshotFrame ??= priceFrame([...this.latest.values()]));
  }

  private flushPrices() {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.lastFlush = Date.now();
    const names = [...this.changed];
    this.changed.clear();
    const subs = this.byTopic.get('prices');
    if (!names.length || !subs?.size) return;
    const shared = priceFrame(names.map((n) => this.latest.get(n)!));
    for (const c of subs) {
      if (c.blocked) {
        // slow client: remember what it missed instead of queueing more
        c.missed = true;
        this.roundsSkipped++;
        continue;
      }
      if (c.missed) {
        this.send(c, this.snapshot());
        c.missed = false;
      } else this.send(c, shared);
    }
  }

  private send(c: Client, bytes: Uint8Array) {
    try {
      const r = c.sink.write(bytes);
      this.messagesSent++;
      if (typeof r !== 'number') {
        c.blocked = true;
        r.then(() => { c.blocked = false; }, () => this.drop(c));
      }
    } catch { this.drop(c); }
  }

  private broadcastRaw(bytes: Uint8Array) {
    for (const c of this.clients) if (!c.blocked) this.send(c, bytes);
  }
}

function priceFrame(items: PriceItem[]): Uint8Array {
  return enc.encode(`event: ${PRICE_EVENT}\ndata: ${JSON.stringify(items)}\n\n`);
}

function eventFrame(m: BusMessage<RealtimeEvent>): Uint8Array {
  return enc.encode(`id: ${m.id}\nevent: ${m.data.event}\ndata: ${JSON.stringify({ topic: m.data.topic, ...wrap(m.data.data) })}\n\n`);
}

const wrap = (d: unknown) => (d && typeof d === 'object' && !Array.isArray(d) ? (d as object) : { data: d });
