// One Bus interface for ticks and events: Redis Streams when REDIS_URL is set (several engine
// processes), in-process otherwise. Both pass test/bus.contract.ts.

export interface BusMessage<T = unknown> { id: string; stream: string; data: T }

export type Handler<T = unknown> = (msg: BusMessage<T>) => void | Promise<void>;

export interface SubscribeOptions {
  /** '$' (default): only new messages; '0': from the start of what is kept; or an id to resume after. */
  from?: string;
}

export interface ConsumeOptions {
  /** A pending message idle this long (ms) is taken over from a consumer that died. */
  claimIdleMs?: number;
}

export interface Bus {
  readonly kind: 'memory' | 'redis';
  /** Append a message; resolves to its id. Streams are capped (approximately) at maxLen. */
  publish<T>(stream: string, data: T): Promise<string>;
  /** Fan-out: every subscriber sees every message, in order. */
  subscribe<T>(stream: string, handler: Handler<T>, opts?: SubscribeOptions): () => void;
  /**
   * Work sharing: each message goes to one consumer of the group and is acknowledged when the
   * handler resolves; a handler that throws, or a consumer that dies, leaves it pending and it
   * is delivered again (to this consumer on restart, or claimed by another after claimIdleMs).
   */
  consume<T>(stream: string, group: string, consumer: string, handler: Handler<T>, opts?: ConsumeOptions): () => void;
  /** Messages after `afterId` still kept in the stream (for resuming a client). */
  range<T>(stream: string, afterId: string, count?: number): Promise<BusMessage<T>[]>;
  /** The id of the newest message kept in a stream ('0-0' when empty). */
  tail(stream: string): Promise<string>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Compare stream ids "ms-seq". */
export function idAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number), [bm, bs] = b.split('-').map(Number);
  return am > bm || (am === bm && (as ?? 0) > (bs ?? 0));
}
