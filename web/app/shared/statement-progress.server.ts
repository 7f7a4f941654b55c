// The progress of one long set-based statement (a bulk move of 100,000 leads), while it runs.
// PostgreSQL reports no progress for an UPDATE, and nothing a transaction writes is visible before
// it commits, but a NOTICE reaches the client at once: the statement calls
// statement_progress_tick(token, every) in its SET list (migration 1733230000000), which raises
// 'progress:<token>:<rows so far>' every `every` rows. connect() hands notices to onNotice; the
// process that runs the statement writes the count into statement_progress through the pool (not
// the statement's own connection), where any web process's poll reads it (its owner only).
import type postgres from 'postgres';
import type { Sql } from './sql.ts';

const NOTICE = /^progress:([0-9a-f-]{36}):(\d+)$/;
const listeners = new Map<string, (done: number) => void>();

/** connect()'s onnotice: a progress notice to its statement's listener; any other notice is dropped. */
export function onNotice(notice: postgres.Notice): void {
  const m = NOTICE.exec(String(notice.message ?? ''));
  if (m) listeners.get(m[1])?.(Number(m[2]));
}

export const PROGRESS_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Progress { done: number; total: number; finished: boolean }

/**
 * Follows one statement's progress under `token` for `actorId`. Its writes go through the pool one
 * after another and are never awaited inside the statement's transaction: a transaction holding a
 * connection must not wait for another one (ten concurrent bulk actions would hold a pool of ten).
 * `start` (inside the transaction, once the rows are counted) records the total and listens;
 * `every` is the notice interval to give statement_progress_tick; `finish` (after the transaction,
 * whatever its outcome) stops listening, waits for the writes and marks the row finished.
 */
export function trackProgress(sql: Sql, token: string, actorId: number) {
  let chain: Promise<unknown> = Promise.resolve();
  const write = (q: () => Promise<unknown>) => { chain = chain.then(q).catch(() => {}); };
  let latest = 0;
  let written = 0;
  let queued = false;
  return {
    every: (total: number) => Math.max(100, Math.ceil(total / 50)),
    start(total: number): void {
      // old rows go as new ones come: a progress is only read while its statement runs
      write(() => sql`DELETE FROM statement_progress WHERE started_at < now() - interval '1 day'`);
      write(() => sql`INSERT INTO statement_progress (token, actor_id, total) VALUES (${token}, ${actorId}, ${total}) ON CONFLICT (token) DO NOTHING`);
      listeners.set(token, (done) => {
        latest = done;
        if (queued) return; // the queued write takes the latest count when it runs
        queued = true;
        write(async () => {
          queued = false;
          if (latest === written) return;
          written = latest;
          await sql`UPDATE statement_progress SET done = ${written} WHERE token = ${token}`;
        });
      });
    },
    async finish(done: number | null): Promise<void> {
      listeners.delete(token);
      const final = Math.max(latest, done ?? 0);
      write(() => sql`UPDATE statement_progress SET done = greatest(done, ${final}), finished_at = now() WHERE token = ${token}`);
      await chain;
    },
  };
}
export type ProgressTracker = ReturnType<typeof trackProgress>;

/** A statement's progress for its owner; null for another user's token or none. */
export async function readProgress(sql: Sql, token: string, actorId: number): Promise<Progress | null> {
  const [r] = await sql`SELECT done, total, finished_at FROM statement_progress WHERE token = ${token} AND actor_id = ${actorId}`;
  return r ? { done: Number(r.done), total: Number(r.total), finished: r.finished_at !== null } : null;
}
