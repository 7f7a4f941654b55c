// Redis Streams bus (ioredis): XADD with an approximate MAXLEN, XREAD for fan-out, consumer
// groups (XREADGROUP / XACK) for shared work, and XAUTOCLAIM to take over the pending entries
// of a consumer that crashed.
import Redis from 'ioredis';
import type { Bus, BusMessage, Handler, SubscribeOptions, ConsumeOptions } from './bus.ts';

type Entry = [id: string, fields: string[]];

function decode<T>(stream: string, [id, fields]: Entry): BusMessage<T> | undefined {
  const i = fields?.indexOf('d') ?? -1;
  if (i < 0) return undefined; // trimmed away while pending
  return { id, stream, data: JSON.parse(fields[i + 1]) as T };
}

export class RedisBus implements Bus {
  readonly kind = 'redis' as const;
  private readers = new Set<Redis>();
  private closed = false;

  /**
   * @param retainMs streams kept by age instead of length (XADD MINID ~ now − ms): the ticks
   *   stream keeps every tick of the last TICK_RETENTION_MS, whatever the tick rate, so a core
   *   that takes a partition over can replay what its dead owner missed (risk/failover.ts takeOver)
   */
  constructor(private redis: Redis, private maxLen = 100_000, private prefix = '', private retainMs: Record<string, number> = {}) {}

  static connect(url: string, opts: { maxLen?: number; prefix?: string; retainMs?: Record<string, number> } = {}) {
    return new RedisBus(new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false }), opts.maxLen, opts.prefix, opts.retainMs);
  }

  private key(stream: string) { return this.prefix + stream; }

  private reader(): Redis {
    const r = this.redis.duplicate();
    this.readers.add(r);
    return r;
  }

  async publish<T>(stream: string, data: T): Promise<string> {
    const ms = this.retainMs[stream];
    if (ms) return (await this.redis.xadd(this.key(stream), 'MINID', '~', String(Date.now() - ms), '*', 'd', JSON.stringify(data)))!;
    return (await this.redis.xadd(this.key(stream), 'MAXLEN', '~', this.maxLen, '*', 'd', JSON.stringify(data)))!;
  }

  subscribe<T>(stream: string, handler: Handler<T>, opts: SubscribeOptions = {}): () => void {
    const key = this.key(stream);
    const conn = this.reader();
    let stopped = false;
    const loop = async () => {
      let last = opts.from ?? '$';
      if (last === '$') {
        const tail = (await conn.xrevrange(key, '+', '-', 'COUNT', 1)) as Entry[];
        last = tail[0]?.[0] ?? '0-0';
      }
      while (!stopped && !this.closed) {
        try {
          const res = (await conn.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', key, last)) as [string, Entry[]][] | null;
          if (!res) continue;
          for (const e of res[0][1]) {
            last = e[0];
            const m = decode<T>(stream, e);
            if (m) try { await handler(m); } catch (err) { console.error('[bus] handler', err); }
          }
        } catch (err) {
          if (stopped || this.closed) break;
          console.error('[bus] xread', (err as Error).message);
          await sleep(500);
        }
      }
    };
    void loop();
    return () => { stopped = true; conn.disconnect(); this.readers.delete(conn); };
  }

  consume<T>(stream: string, group: string, consumer: string, handler: Handler<T>, opts: ConsumeOptions = {}): () => void {
    const key = this.key(stream);
    const conn = this.reader();
    const claimIdle = opts.claimIdleMs ?? 30_000;
    let stopped = false;
    const handle = async (entries: Entry[]) => {
      for (const e of entries) {
        if (stopped) return false;
        const m = decode<T>(stream, e);
        if (!m) { await conn.xack(key, group, e[0]); continue; }
        try {
          await handler(m);
          await conn.xack(key, group, e[0]);
        } catch (err) {
          console.error('[bus] consumer', (err as Error).message);
          return false; // stays pending; retried from our own pending list
        }
      }
      return true;
    };
    const loop = async () => {
      try { await conn.xgroup('CREATE', key, group, '$', 'MKSTREAM'); }
      catch (err) { if (!String((err as Error).message).includes('BUSYGROUP')) throw err; }
      let lastClaim = 0;
      let pendingFirst = true; // after a restart, our own unacknowledged entries come first
      while (!stopped && !this.closed) {
        try {
          if (pendingFirst) {
            const res = (await conn.xreadgroup('GROUP', group, consumer, 'COUNT', 100, 'STREAMS', key, '0')) as [string, Entry[]][] | null;
            const entries = res?.[0]?.[1] ?? [];
            if (!entries.length) pendingFirst = false;
            else if (!(await handle(entries))) await sleep(200);
            continue;
          }
          if (Date.now() - lastClaim >= Math.min(claimIdle, 5_000)) {
            lastClaim = Date.now();
            const [, claimed] = (await conn.xautoclaim(key, group, consumer, claimIdle, '0-0', 'COUNT', 100)) as [string, Entry[]];
            if (claimed.length) { await handle(claimed); continue; }
          }
          const res = (await conn.xreadgroup('GROUP', group, consumer, 'COUNT', 100, 'BLOCK', 500, 'STREAMS', key, '>')) as [string, Entry[]][] | null;
          if (res && !(await handle(res[0][1]))) { pendingFirst = true; await sleep(200); }
        } catch (err) {
          if (stopped || this.closed) break;
          console.error('[bus] xreadgroup', (err as Error).message);
          await sleep(500);
        }
      }
    };
    void loop().catch((e) => console.error('[bus] consume', e));
    return () => { stopped = true; conn.disconnect(); this.readers.delete(conn); };
  }

  async range<T>(stream: string, afterId: string, count = 1000): Promise<BusMessage<T>[]> {
    const entries = (await this.redis.xrange(this.key(stream), `(${afterId}`, '+', 'COUNT', count)) as Entry[];
    return entries.map((e) => decode<T>(stream, e)).filter((m): m is BusMessage<T> => !!m);
  }

  async tail(stream: string) {
    const last = (await this.redis.xrevrange(this.key(stream), '+', '-', 'COUNT', 1)) as Entry[];
    return last[0]?.[0] ?? '0-0';
  }

  /** The id of the oldest message still kept (a replay that starts before it has a gap). */
  async head(stream: string) {
    const first = (await this.redis.xrange(this.key(stream), '-', '+', 'COUNT', 1)) as Entry[];
    return first[0]?.[0] ?? '0-0';
  }

  async ping() {
    try { return (await this.redis.ping()) === 'PONG'; } catch { return false; }
  }

  async close() {
    this.closed = true;
    for (const r of this.readers) r.disconnect();
    this.readers.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
