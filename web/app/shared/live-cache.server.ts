// In-process copies of the small tables every page reads (site settings, languages, translations)
// and the ones every dashboard reads (instruments, spreads), kept true across web processes by
// PostgreSQL: a trigger NOTIFYs the channel `web_cache` with the table's name after any change,
// committed by anyone (an admin page, a seed, psql), and every process listening drops its copies
// of that table, so the next request reads it again. (An instrument notifies on any change but
// the last quote the engine saves in bids / asks every few seconds: a copy holds no price.)
// While the listening connection is down nothing is cached (reads go to the database), and all
// copies are dropped when it is back: a notification missed in between never leaves a stale copy.
// Only pools that enable it cache (the app's pool does, in db()); others always read through.
import postgres from 'postgres';
import type { Db, Sql } from './sql.ts';

export const CACHE_CHANNEL = 'web_cache';
export const CACHED_TABLES = ['site_settings', 'languages', 'translations', 'instruments', 'spreads'] as const;
export type CachedTable = (typeof CACHED_TABLES)[number];
const isCachedTable = (t: string): t is CachedTable => (CACHED_TABLES as readonly string[]).includes(t);

interface LiveCache {
  /** true while LISTEN is in force on a connection that has not closed since */
  live: boolean;
  closed: boolean;
  /** a LISTEN loop is running */
  connecting: boolean;
  /** how many times the listening connection has closed: a LISTEN that a close overtook is issued again */
  closes: number;
  /** the app's own pool (db()): its state is what web/page-cache.mjs goes by */
  app: boolean;
  entries: Map<string, Promise<unknown>>;
  listener: postgres.Sql;
  ready: Promise<void>;
}

declare global {
  // survives Vite's hot reloads in development, like the pool it belongs to
  var __brokerLiveCaches: WeakMap<Db, LiveCache> | undefined;
  /**
   * For web/page-cache.mjs, which keeps pages rendered only from these tables: a number that
   * changes whenever any copy is dropped, and whether the app's pool caches now.
   */
  var __brokerLiveCacheState: { epoch: number; live: boolean } | undefined;
}
const caches = (globalThis.__brokerLiveCaches ??= new WeakMap<Db, LiveCache>());
const state = (globalThis.__brokerLiveCacheState ??= { epoch: 0, live: false });

const entryKey = (table: CachedTable, key: string) => `${table}\u0000${key}`;

function dropTable(c: LiveCache, table: string) {
  state.epoch++;
  const prefix = `${table}\u0000`;
  for (const k of c.entries.keys()) if (k.startsWith(prefix)) c.entries.delete(k);
}

function dropAll(c: LiveCache) {
  state.epoch++;
  c.entries.clear();
}

/**
 * Starts caching for this pool: one extra connection LISTENs on `web_cache`. Resolves once the
 * first LISTEN is in force (until then reads go through). Calling it again returns the same promise.
 */
export function enableLiveCache(sql: Sql, opts: { app?: boolean } = {}): Promise<void> {
  const existing = caches.get(sql);
  if (existing) return existing.ready;
  const c = { live: false, closed: false, connecting: false, closes: 0, app: !!opts.app, entries: new Map() } as LiveCache;
  c.listener = postgres({
    ...(sql.options as unknown as postgres.Options<Record<string, never>>),
    max: 1, idle_timeout: null, max_lifetime: null, fetch_types: false,
    onnotify(channel: string, table: string) {
      if (channel !== CACHE_CHANNEL) return;
      if (isCachedTable(table)) dropTable(c, table);
      else dropAll(c);
    },
    onclose() {
      c.closes++;
      c.live = false;
      if (c.app) state.live = false;
      dropAll(c);
      void listen(c);
    },
  } as unknown as postgres.Options<Record<string, never>>);
  caches.set(sql, c);
  c.ready = listen(c);
  return c.ready;
}

/** (Re)issues LISTEN until it is in force; one loop at a time. */
async function listen(c: LiveCache): Promise<void> {
  if (c.connecting) return;
  c.connecting = true;
  try {
    for (let attempt = 0; !c.closed; attempt++) {
      try {
        const closes = c.closes;
        await c.listener.unsafe(`LISTEN ${CACHE_CHANNEL}`);
        // the connection closed meanwhile (its onclose found this loop running and left it to it):
        // this LISTEN may be on the connection that is gone, so it is issued again
        if (c.closes !== closes) continue;
        // whatever changed while nobody listened is read again
        dropAll(c);
        c.live = !c.closed;
        if (c.app) state.live = c.live;
        return;
      } catch (e) {
        if (attempt === 0 && !c.closed) console.warn(`[cache] cannot LISTEN on ${CACHE_CHANNEL} (${(e as Error).message}); reading through until it can`);
        await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** attempt)));
      }
    }
  } finally {
    c.connecting = false;
  }
}

/** Whether this pool caches now (its LISTEN is in force). */
export function isLiveCacheListening(sql: Sql): boolean {
  return caches.get(sql)?.live ?? false;
}

/** Stops caching for this pool and closes its listening connection. */
export async function disableLiveCache(sql: Sql): Promise<void> {
  const c = caches.get(sql);
  if (!c) return;
  caches.delete(sql);
  c.closed = true;
  c.live = false;
  if (c.app) state.live = false;
  dropAll(c);
  await c.listener.end({ timeout: 0 });
}

/**
 * The value `load` reads from `table`, from this process's copy when the pool caches and the copy
 * is current. Concurrent misses share one read; a failed read is not kept.
 */
export function cached<T>(sql: Db, table: CachedTable, key: string, load: () => Promise<T>): Promise<T> {
  const c = caches.get(sql);
  if (!c?.live) return load();
  const k = entryKey(table, key);
  const hit = c.entries.get(k);
  if (hit) return hit as Promise<T>;
  const p = load();
  c.entries.set(k, p);
  p.catch(() => { if (c.entries.get(k) === p) c.entries.delete(k); });
  return p;
}

/**
 * Drops this process's copies of `table` at once, after a write of its own (the NOTIFY does the
 * same moments later, in every process): the writer's next request reads its own change.
 */
export function invalidateCached(sql: Sql, table: CachedTable): void {
  const c = caches.get(sql);
  if (c) dropTable(c, table);
  else state.epoch++;
}
