// Helpers of the trading-configuration tests: the answer of a route's action or loader as
// { status, body }, an open position on an instrument, and the engine_cache notifications.
import type { Sql } from '~/shared/db.server.ts';
import { createUser, settle } from '../helpers.ts';

export interface Answer {
  status: number;
  body: {
    ok?: boolean; toast?: string | null; values?: Record<string, string | number>;
    result?: { error?: Record<string, string[] | null> };
  } | null;
  /** a thrown Response's text (403, 400 of a list query) */
  text?: string;
}

/** An action's or loader's answer: a Reply (data()), a thrown or returned Response, or plain data. */
export async function answer(p: Promise<unknown> | unknown): Promise<Answer> {
  const r = await settle(Promise.resolve().then(() => p));
  if (r instanceof Response) return { status: r.status, body: null, text: await r.text() };
  const d = r as { data?: unknown; init?: { status?: number } | null; type?: string };
  if (d && typeof d === 'object' && 'data' in d && 'init' in d) return { status: d.init?.status ?? 200, body: d.data as Answer['body'] };
  return { status: 200, body: r as Answer['body'] };
}

/** The field errors of a refused form. */
export const fieldErrors = (a: Answer) => a.body?.result?.error ?? {};

/** A customer with a wallet and `n` open positions on the instrument. */
export async function openPositions(sql: Sql, instrumentId: number, n: number, opts: { planId?: number } = {}) {
  const u = await createUser(sql);
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'USD') RETURNING id`;
  if (opts.planId) await sql`UPDATE users SET pricing_plan_id = ${opts.planId} WHERE id = ${u.id}`;
  const [i] = await sql`SELECT category FROM instruments WHERE id = ${instrumentId}`;
  const rows = await sql`
    INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, spread, margin_used, leverage)
    SELECT ${u.id}, ${b.id}, ${instrumentId}, 'buy', ${i.category}, 1000, 1.1, 1, 0, 11, 100 FROM generate_series(1, ${n}) RETURNING id`;
  return { userId: u.id, balanceId: Number(b.id), orderIds: rows.map((r) => Number(r.id)) };
}

/** Collects the engine_cache notifications while it runs fn (delivered on commit). */
export async function engineNotices(sql: Sql, fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const got: Record<string, unknown>[] = [];
  const listener = await sql.listen('engine_cache', (p) => got.push(JSON.parse(p)));
  // a notification is delivered after its transaction commits, to each listener in commit order:
  // once a fence notified after fn is heard on the same listening connection, fn's are in
  const channel = `engine_cache_fence_${process.pid}_${Date.now().toString(36)}`;
  let heard!: () => void;
  const fenced = new Promise<void>((r) => { heard = r; });
  const fence = await sql.listen(channel, () => heard());
  try {
    await fn();
    await sql.notify(channel, 'after');
    await fenced;
  } finally {
    await listener.unlisten();
    await fence.unlisten();
  }
  return got;
}
