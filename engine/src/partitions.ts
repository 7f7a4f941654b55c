// Partition failover: ownership of a balance partition is a PostgreSQL advisory lock held on this
// process's own session connection, so it dies with the process (or its connection). Every
// core polls about once a second:
//   - live cores are the sessions holding the cluster's shared "member" lock; N of them;
//   - a partition nobody locks is an orphan: a core owning fewer than ceil(P / N) takes it
//     (pg_try_advisory_lock: two cores never both get it), rebuilds it from PostgreSQL and
//     replays the ticks since the last id its previous owner saved (Core.takeOver: risk/failover.ts);
//   - balance: a core owning more than ceil(P / N) gives one up; and while the busiest core owns
//     two or more than the idlest, the busiest (lowest pid on a tie) gives one up, which it
//     will not take back for a few seconds, so a restarted core gets its share without stopping
//     the others. One partition moves per poll.
// The owner saves the partition's last processed tick id (Core.safeTickId) in
// engine_partitions every ~200 ms when it moved.
import type { Sql } from './db.ts';
import type { Core } from './core.ts';

export interface LeaseOptions {
  /** a small pool of its own (max 1 is enough): one connection is reserved for the locks */
  sql: Sql;
  core: Core;
  /** ENGINE_CLUSTER: independent engine groups on one database */
  cluster: string;
  /** this process, as /v1/health shows it */
  owner: string;
  /** the partition this process takes first when free (ENGINE_PARTITION) */
  prefer?: number;
  pollMs?: number;
  saveMs?: number;
  log?: (m: string) => void;
}

type Reserved = Awaited<ReturnType<Sql['reserve']>>;

/** Two 31-bit advisory lock keys from the cluster name (FNV-1a). */
function keys(cluster: string) {
  let h = 0x811c9dc5;
  for (const c of `engine-partitions:${cluster}`) { h ^= c.charCodeAt(0); h = Math.imul(h, 0x01000193); }
  const part = (h >>> 1) & 0x7ffffffe;
  return { part, member: part + 1 };
}

export class PartitionLeases {
  private conn?: Reserved;
  private pid = 0;
  private timers: ReturnType<typeof setInterval>[] = [];
  private busy = Promise.resolve();
  private cooldown = new Map<number, number>();
  private saved = new Map<number, string>();
  private stopped = false;
  readonly keys: { part: number; member: number };
  readonly count: number;
  /** live members and who holds what, as of the last poll (health) */
  view: { members: number; holders: Record<number, number>; at: number } = { members: 0, holders: {}, at: 0 };

  constructor(private opts: LeaseOptions) {
    this.keys = keys(opts.cluster);
    this.count = opts.core.partition.count;
  }

  async start() {
    const { sql, cluster } = this.opts;
    await sql`INSERT INTO engine_partitions (cluster, partition)
              SELECT ${cluster}, g FROM generate_series(0, ${this.count - 1}::int) g ON CONFLICT DO NOTHING`;
    await this.connect();
    await this.poll();
    this.timers.push(setInterval(() => this.serial(() => this.poll()), this.opts.pollMs ?? 1000));
    this.timers.push(setInterval(() => this.serial(() => this.save()), this.opts.saveMs ?? 200));
  }

  private serial(fn: () => Promise<void>) {
    this.busy = this.busy.then(fn).catch((e) => this.opts.log?.(`partitions: ${(e as Error).message}`));
  }

  private async connect() {
    this.conn = await this.opts.sql.reserve();
    const [r] = await this.conn<{ pid: number }[]>`
      SELECT pg_backend_pid() AS pid, pg_try_advisory_lock_shared(${this.keys.member}::int, 0) AS member`;
    this.pid = r.pid;
  }

  /** The session was lost: so are its locks. Stop evaluating every partition at once. */
  private async lost(e: unknown) {
    this.opts.log?.(`partitions: lock session lost (${(e as Error).message}); giving up ${[...this.opts.core.owned].join(', ') || 'nothing'}`);
    for (const p of [...this.opts.core.owned]) await this.opts.core.giveUp(p);
    // a session that still answers must not go back to the pool holding locks
    if (this.conn) await this.conn`SELECT pg_advisory_unlock_all()`.catch(() => {});
    try { this.conn?.release(); } catch { /* gone */ }
    this.conn = undefined;
  }

  async poll() {
    if (this.stopped) return;
    if (!this.conn) { try { await this.connect(); } catch { return; } }
    const conn = this.conn!;
    let locks: { pid: number; objid: number; member: boolean }[];
    try {
      locks = await conn<{ pid: number; objid: number; member: boolean }[]>`
        SELECT pid, objid::int AS objid, classid::bigint = ${this.keys.member}::bigint AS member
          FROM pg_locks
         WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND classid::bigint IN (${this.keys.part}::bigint, ${this.keys.member}::bigint)`;
    } catch (e) { return this.lost(e); }
    const core = this.opts.core;
    const members = new Set(locks.filter((l) => l.member).map((l) => l.pid));
    members.add(this.pid);
    const holders: Record<number, number> = {};
    const perPid = new Map<number, number>([...members].map((m) => [m, 0]));
    for (const l of locks) if (!l.member && l.objid < this.count) { holders[l.objid] = l.pid; perPid.set(l.pid, (perPid.get(l.pid) ?? 0) + 1); }
    this.view = { members: members.size, holders, at: Date.now() };
    const n = members.size, hi = Math.ceil(this.count / n);
    const now = Date.now();
    const mine = core.owned.size;
    const orphans: number[] = [];
    const start = (this.opts.prefer ?? 0) % this.count;
    for (let k = 0; k < this.count; k++) {
      const p = (start + k) % this.count;
      if (holders[p] === undefined && !core.owned.has(p) && (this.cooldown.get(p) ?? 0) <= now) orphans.push(p);
    }
    if (orphans.length && mine < hi) {
      let owned = mine;
      for (const p of orphans) {
        if (owned >= hi) break;
        if (await this.acquire(p)) owned++;
      }
      return;
    }
    const counts = [...perPid.entries()];
    const max = Math.max(...counts.map(([, c]) => c)), min = Math.min(...counts.map(([, c]) => c));
    const busiest = Math.min(...counts.filter(([, c]) => c === max).map(([pid]) => pid));
    // rebalance only when every partition is owned: one move at a time, no two cores giving up at once
    const unowned = this.count - Object.keys(holders).length;
    if (mine > hi || (unowned === 0 && max - min >= 2 && busiest === this.pid && mine === max)) {
      const live = core.livePartitions();
      const p = live[live.length - 1];
      if (p !== undefined) await this.release(p, `rebalance: ${mine} partitions, ${n} live cores`);
    }
  }

  private async acquire(p: number): Promise<boolean> {
    const conn = this.conn!;
    const [r] = await conn<{ ok: boolean }[]>`SELECT pg_try_advisory_lock(${this.keys.part}::int, ${p}::int) AS ok`;
    if (!r.ok) return false;
    const [row] = await conn<{ last_tick_id: string | null; owner: string | null }[]>`
      UPDATE engine_partitions n SET owner = ${this.opts.owner}, updated_at = now()
        FROM (SELECT last_tick_id, owner FROM engine_partitions WHERE cluster = ${this.opts.cluster} AND partition = ${p}) o
       WHERE n.cluster = ${this.opts.cluster} AND n.partition = ${p}
      RETURNING o.last_tick_id, o.owner`;
    const from = row?.last_tick_id ?? null;
    this.opts.log?.(`partitions: took partition ${p} (previous owner ${row?.owner ?? 'none'}, replay after ${from ?? 'nothing saved'})`);
    try {
      await this.opts.core.takeOver(p, from);
    } catch (e) {
      this.opts.log?.(`partitions: takeover of ${p} failed: ${(e as Error).message}`);
      await this.opts.core.giveUp(p);
      await conn`SELECT pg_advisory_unlock(${this.keys.part}::int, ${p}::int)`;
      return false;
    }
    return true;
  }

  private async release(p: number, why: string) {
    const id = await this.opts.core.giveUp(p);
    await this.opts.sql`UPDATE engine_partitions SET last_tick_id = ${id}, owner = NULL, updated_at = now()
                         WHERE cluster = ${this.opts.cluster} AND partition = ${p}`;
    this.saved.delete(p);
    await this.conn!`SELECT pg_advisory_unlock(${this.keys.part}::int, ${p}::int)`;
    this.cooldown.set(p, Date.now() + 5000);
    this.opts.log?.(`partitions: gave up partition ${p} (${why})`);
  }

  /** The owned, live partitions' last processed tick id, when it moved. */
  async save() {
    if (!this.conn) return;
    const id = this.opts.core.safeTickId();
    const parts = this.opts.core.livePartitions().filter((p) => this.saved.get(p) !== id);
    if (!parts.length) return;
    await this.opts.sql`UPDATE engine_partitions SET last_tick_id = ${id}, owner = ${this.opts.owner}, updated_at = now()
                         WHERE cluster = ${this.opts.cluster} AND partition = ANY(${parts}::int[])`;
    for (const p of parts) this.saved.set(p, id);
  }

  /** Clean shutdown: save, give every partition up (the others take them at once). */
  async stop() {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.busy;
    if (!this.conn) return;
    for (const p of this.opts.core.livePartitions()) await this.release(p, 'shutdown').catch(() => {});
    await this.conn`SELECT pg_advisory_unlock_all()`.catch(() => {});
    try { this.conn.release(); } catch { /* gone */ }
    this.conn = undefined;
  }

  /** Who owns what (GET /v1/health). */
  async status() {
    const rows = await this.opts.sql<{ partition: number; owner: string | null; last_tick_id: string | null; updated_at: Date }[]>`
      SELECT partition, owner, last_tick_id, updated_at FROM engine_partitions
       WHERE cluster = ${this.opts.cluster} AND partition < ${this.count} ORDER BY partition`;
    return {
      cluster: this.opts.cluster, count: this.count, self: this.opts.owner,
      owned: [...this.opts.core.owned].sort((a, b) => a - b), replaying: this.opts.core.replaying(), liveCores: this.view.members,
      partitions: rows.map((r) => ({
        partition: r.partition, locked: this.view.holders[r.partition] !== undefined,
        owner: this.view.holders[r.partition] !== undefined ? r.owner : null, lastTickId: r.last_tick_id, updatedAt: r.updated_at,
      })),
    };
  }
}
