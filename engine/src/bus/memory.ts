// In-process bus: the same semantics as the Redis one, for a single engine process.
import { idAfter, type Bus, type BusMessage, type Handler, type SubscribeOptions, type ConsumeOptions } from './bus.ts';

interface Group { delivered: Map<string, { consumer: string; at: number }>; lastId: string; consumers: Map<string, () => void> }
interface Stream { items: BusMessage[]; subs: Set<Handler>; groups: Map<string, Group> }

export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private streams = new Map<string, Stream>();
  private lastMs = 0;
  private seq = 0;
  private closed = false;

  constructor(private maxLen = 10_000) {}

  private stream(name: string): Stream {
    let s = this.streams.get(name);
    if (!s) { s = { items: [], subs: new Set(), groups: new Map() }; this.streams.set(name, s); }
    return s;
  }

  private nextId(): string {
    const now = Date.now();
    if (now > this.lastMs) { this.lastMs = now; this.seq = 0; } else this.seq++;
    return `${this.lastMs}-${this.seq}`;
  }

  async publish<T>(stream: string, data: T): Promise<string> {
    const s = this.stream(stream);
    const msg: BusMessage<T> = { id: this.nextId(), stream, data };
    s.items.push(msg);
    // trim like MAXLEN ~: in chunks, never below maxLen
    if (s.items.length > this.maxLen * 1.1) s.items.splice(0, s.items.length - this.maxLen);
    for (const h of s.subs) safe(h, msg);
    for (const [, g] of s.groups) for (const [, wake] of g.consumers) wake();
    return msg.id;
  }

  subscribe<T>(stream: string, handler: Handler<T>, opts: SubscribeOptions = {}): () => void {
    const s = this.stream(stream);
    const from = opts.from ?? '$';
    if (from !== '$') for (const m of s.items) if (from === '0' || idAfter(m.id, from)) safe(handler as Handler, m);
    s.subs.add(handler as Handler);
    return () => s.subs.delete(handler as Handler);
  }

  consume<T>(stream: string, group: string, consumer: string, handler: Handler<T>, opts: ConsumeOptions = {}): () => void {
    const s = this.stream(stream);
    let g = s.groups.get(group);
    if (!g) { g = { delivered: new Map(), lastId: s.items.at(-1)?.id ?? '0-0', consumers: new Map() }; s.groups.set(group, g); }
    const grp = g;
    const claimIdle = opts.claimIdleMs ?? 30_000;
    let running = false, stopped = false;
    const work = async () => {
      if (running || stopped || this.closed) return;
      running = true;
      try {
        for (;;) {
          // own pending first (a restart), then idle pending of others, then new messages
          let next: BusMessage | undefined;
          const now = Date.now();
          for (const m of s.items) {
            const d = grp.delivered.get(m.id);
            if (d && (d.consumer === consumer && d.at === 0 || now - d.at >= claimIdle)) { next = m; break; }
          }
          if (!next) next = s.items.find((m) => idAfter(m.id, grp.lastId));
          if (!next || stopped) break;
          if (idAfter(next.id, grp.lastId)) grp.lastId = next.id;
          grp.delivered.set(next.id, { consumer, at: now });
          try {
            await handler(next as BusMessage<T>);
            grp.delivered.delete(next.id);
          } catch {
            grp.delivered.set(next.id, { consumer, at: 0 }); // retried by this consumer
            break;
          }
        }
      } finally { running = false; }
    };
    grp.consumers.set(consumer, () => void work());
    const timer = setInterval(() => void work(), Math.min(claimIdle, 1000));
    void work();
    return () => { stopped = true; clearInterval(timer); grp.consumers.delete(consumer); };
  }

  async range<T>(stream: string, afterId: string, count = 1000): Promise<BusMessage<T>[]> {
    return this.stream(stream).items.filter((m) => idAfter(m.id, afterId)).slice(0, count) as BusMessage<T>[];
  }

  async tail(stream: string) { return this.stream(stream).items.at(-1)?.id ?? '0-0'; }

  async ping() { return !this.closed; }
  async close() { this.closed = true; for (const s of this.streams.values()) s.subs.clear(); }
}

function safe(h: Handler, m: BusMessage) {
  try {
    const r = h(m);
    if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch((e) => console.error('[bus] handler', e));
  } catch (e) { console.error('[bus] handler', e); }
}
