// A list's total that costs at most `limit` rows: counted exactly up to the limit (a count that
// stops there), else PostgreSQL's estimate of the same query, never below the rows already seen
// (the limit: count-limits.ts). The page says when its total is an estimate.
import type postgres from 'postgres';
import type { Db } from './db.server.ts';

/** A searched list is counted exactly up to this many rows, then estimated (a prefix that matches everything costs what 1,000 rows do). */
export const SEARCH_COUNT_LIMIT = 1_000;

export async function boundedCount(sql: Db, from: postgres.Fragment, cond: postgres.Fragment, limit: number): Promise<{ total: number; estimated: boolean }> {
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${from} WHERE ${cond} LIMIT ${limit + 1}) x`;
  if (n <= limit) return { total: n, estimated: false };
  const [plan] = await sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from} WHERE ${cond}`;
  const rows = Number((plan['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0]?.Plan?.['Plan Rows']);
  return { total: Math.max(n, Number.isFinite(rows) ? Math.round(rows) : 0), estimated: true };
}
