// The progress of one long set-based statement (a bulk move of 100,000 leads), while it runs.
// PostgreSQL reports no progress for an UPDATE, and nothing a transaction writes is visible before
// it commits, but a NOTICE reaches the client at once: the statement calls
// statement_progress_tick(token, every) in its SET list (migration 1733230000000), which raises
// 'progress:<token>:<rows so far>' every `every` rows. connect() hands notices to onNotice; the
// process that runs the statement writes the count into statement_progress through another
// connection, where any web process's poll reads it (its owner only).
import type postgres from 'postgres';
import type { Sql } from './db.server.ts';

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
 * Runs `work` (which should call statement_progress_tick(token, every) once per row it changes) with
 * its progress recorded under `token` for `actorId`: the row counts `total` up front, each notice's
 * count as it arrives (one write in flight at a time, the latest wins), finished at the end.
 */
export async function withProgress<T>(sql: Sql, token: string, actorId: number, total: number, work: (every: number) => Promise<T>): Promise<T> {
  // old rows go as new ones come: a progress is only read while its statement runs
  await sql`DELETE FROM statement_progress WHERE started_at < now() - interval '1 day'`;
  await sql`INSERT INTO statement_progress (token, actor_id, total) VALUES (${token}, ${actorId}, ${total})
            ON CONFLICT (token) DO NOTHING`;
  let latest = 0;
  let writing: Promise<unknown> = Promise.resolve();
  let written = 0;
  const flush = () => {
    if (latest === written) return;
    written = latest;
    writing = sql`UPDATE statement_progress SET done = ${written} WHERE token = ${token}`.catch(() => {});
  };
  listeners.set(token, (done) => { latest = done; void writing.then(flush); });
  try {
    return await work(Math.max(100, Math.ceil(total / 50)));
  } finally {
    listeners.delete(token);
    await writing;
    await sql`UPDATE statement_progress SET done = greatest(done, ${latest}), finished_at = now() WHERE token = ${token}`;
  }
}

/** A statement's progress for its owner; null for another user's token or none. */
export async function readProgress(sql: Sql, token: string, actorId: number): Promise<Progress | null> {
  const [r] = await sql`SELECT done, total, finished_at FROM statement_progress WHERE token = ${token} AND actor_id = ${actorId}`;
  return r ? { done: Number(r.done), total: Number(r.total), finished: r.finished_at !== null } : null;
}
