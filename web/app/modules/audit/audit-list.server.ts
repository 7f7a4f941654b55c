// The audit trail page (/admin/audit, admin only) and its CSV export (/admin/audit/export): every
// row of the append-only audit_events table, newest first, filtered by actor, action, target (kind,
// and id) and a date range. Pages are keyset-paginated on (created_at, id): the next page starts
// after the last row shown, so page 1,000 costs what page 1 does. Each filter has an index that
// gives its rows in that order (migrations/1733040000000_audit-trail-and-notifications.sql).
import { z } from 'zod';
import type postgres from 'postgres';
import type { Sql } from '~/shared/db.server.ts';
import { parseListQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { csvLine } from '~/modules/statements/statements.server.ts';

const ID = /^[1-9][0-9]{0,15}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The actor filter: a user id, or an email address (exact, any case). */
export function parseActor(v: string): { id: number } | { email: string } | null {
  const s = v.trim();
  if (ID.test(s) && Number.isSafeInteger(Number(s))) return { id: Number(s) };
  if (s.length <= 254 && EMAIL.test(s)) return { email: s.toLowerCase() };
  return null;
}

const cursor = z.string().default('').catch('').transform((v) => (ID.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : null));

/**
 * The list's own URL parameters: what selects rows is refused with a message naming it (never
 * dropped: the page or the export would hold rows nobody asked for); the cursors only steer the
 * view and fall back to the first page.
 */
export const AUDIT_FILTERS = {
  actor: z.string().default('').transform((v) => v.trim())
    .refine((v) => v === '' || parseActor(v) !== null, { message: 'Actor must be a user ID or an email address' }),
  action: z.string().default('').transform((v) => v.trim())
    .refine((v) => v === '' || /^[A-Za-z0-9_.:-]{1,100}$/.test(v), { message: 'Action must be an action name such as order.edit' }),
  targetKind: z.string().default('').transform((v) => v.trim())
    .refine((v) => v === '' || /^[A-Za-z_]{1,40}$/.test(v), { message: 'Target kind must be a word such as order or user' }),
  targetId: z.string().default('').transform((v) => v.trim())
    .refine((v) => v.length <= 64, { message: 'Target ID allows at most 64 characters' }),
  /** older than this row (the next page) */
  after: cursor,
  /** newer than this row (the previous page) */
  before: cursor,
};
export const AUDIT_FILTER_KEYS = ['actor', 'action', 'targetKind', 'targetId', 'dateStart', 'dateEnd'] as const;
export type AuditFilters = Record<(typeof AUDIT_FILTER_KEYS)[number], string>;
export type AuditQuery = Pick<ListQuery, 'limit' | 'dateStart' | 'dateEnd'> & Omit<AuditFilters, 'dateStart' | 'dateEnd'> & { after: number | null; before: number | null };

export type ParsedAuditQuery = { ok: true; query: AuditQuery } | { ok: false; field: string; message: string };

/** The URL of the page or of the export, parsed and bounded before any SQL. */
export function parseAuditQuery(params: URLSearchParams): ParsedAuditQuery {
  const r = parseListQuery(params, { dates: true, extra: AUDIT_FILTERS, sortable: ['id'] });
  if (!r.ok) return r;
  const q = r.query;
  if (q.targetId && !q.targetKind) return { ok: false, field: 'targetId', message: 'Choose a target kind to filter by target ID' };
  return {
    ok: true,
    query: {
      limit: q.limit, dateStart: q.dateStart, dateEnd: q.dateEnd, actor: q.actor, action: q.action,
      targetKind: q.targetKind, targetId: q.targetId, after: q.after, before: q.after ? null : q.before,
    },
  };
}

/** One changed field of an audit row: its value before and after, as text. */
export interface AuditChange { field: string; before: string | null; after: string | null }

export interface AuditRow {
  id: number; createdAt: string;
  actorId: number | null; actorEmail: string | null; actorName: string | null;
  action: string; targetKind: string; targetId: string | null; ip: string | null;
  changes: AuditChange[];
}

const MAX_VALUE = 500;

function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}…` : s;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The fields that differ between before and after: every field of either, in the order they
 * first appear, kept when their JSON differs. A create (no before) lists every field of after, a
 * delete every field of before; a value that is not an object is one unnamed field.
 */
export function auditChanges(before: unknown, after: unknown): AuditChange[] {
  const b = before ?? null, a = after ?? null;
  if ((b === null || isRecord(b)) && (a === null || isRecord(a))) {
    const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])];
    return keys
      .filter((k) => JSON.stringify(b?.[k] ?? null) !== JSON.stringify(a?.[k] ?? null))
      .map((k) => ({ field: k, before: text(b?.[k]), after: text(a?.[k]) }));
  }
  return JSON.stringify(b) === JSON.stringify(a) ? [] : [{ field: '', before: text(b), after: text(a) }];
}

/** The actor filter as a user id; undefined: no such user (nothing matches). */
async function actorId(sql: Sql, actor: string): Promise<number | null | undefined> {
  if (!actor) return null;
  const ref = parseActor(actor)!;
  if ('id' in ref) return ref.id;
  const [u] = await sql`SELECT id FROM users WHERE lower(email) = ${ref.email} LIMIT 1`;
  return u ? Number(u.id) : undefined;
}

function where(sql: Sql, q: AuditQuery, actor: number | null): postgres.Fragment {
  return sql`TRUE
    ${actor !== null ? sql`AND a.actor_id = ${actor}` : sql``}
    ${q.action ? sql`AND a.action = ${q.action}` : sql``}
    ${q.targetKind ? sql`AND a.target_kind = ${q.targetKind}` : sql``}
    ${q.targetId ? sql`AND a.target_id = ${q.targetId}` : sql``}
    ${q.dateStart ? sql`AND a.created_at >= (${q.dateStart}::date)::timestamp AT TIME ZONE 'UTC'` : sql``}
    ${q.dateEnd ? sql`AND a.created_at < (${q.dateEnd}::date + 1)::timestamp AT TIME ZONE 'UTC'` : sql``}`;
}

/** Rows counted exactly up to this many; past it the page says 'more than'. */
export const AUDIT_COUNT_LIMIT = 10_000;

export interface AuditPage {
  rows: AuditRow[];
  /** a newer page exists (before=first row), an older one (after=last row) */
  newer: boolean; older: boolean;
  count: number; countCapped: boolean;
}

function auditRow(r: Record<string, unknown>): AuditRow {
  return {
    id: Number(r.id), createdAt: (r.created_at as Date).toISOString(),
    actorId: r.actor_id === null ? null : Number(r.actor_id), actorEmail: (r.actor_email as string | null) ?? null, actorName: (r.actor_name as string | null) ?? null,
    action: r.action as string, targetKind: r.target_kind as string, targetId: (r.target_id as string | null) ?? null, ip: (r.ip as string | null) ?? null,
    changes: auditChanges(r.before, r.after),
  };
}

/** One page of the trail: newest first; `after` gives the next (older) page, `before` the previous one. */
export async function listAudit(sql: Sql, q: AuditQuery, opts: { countLimit?: number } = {}): Promise<AuditPage> {
  const actor = await actorId(sql, q.actor);
  if (actor === undefined) return { rows: [], newer: false, older: false, count: 0, countCapped: false };
  const cond = where(sql, q, actor);
  const limit = opts.countLimit ?? AUDIT_COUNT_LIMIT;
  const at = (id: number) => sql`(SELECT c.created_at, c.id FROM audit_events c WHERE c.id = ${id})`;
  const page = q.after !== null
    ? sql`AND (a.created_at, a.id) < ${at(q.after)} ORDER BY a.created_at DESC, a.id DESC`
    : q.before !== null
      ? sql`AND (a.created_at, a.id) > ${at(q.before)} ORDER BY a.created_at ASC, a.id ASC`
      : sql`ORDER BY a.created_at DESC, a.id DESC`;
  const [found, [count]] = await Promise.all([
    sql`
      SELECT a.id, a.actor_id, u.email AS actor_email, u.full_name AS actor_name, a.action, a.target_kind, a.target_id,
             a.before, a.after, host(a.ip) AS ip, a.created_at
        FROM (SELECT a.id FROM audit_events a WHERE ${cond} ${page} LIMIT ${q.limit + 1}) p
        JOIN audit_events a ON a.id = p.id
        LEFT JOIN users u ON u.id = a.actor_id
       ORDER BY a.created_at DESC, a.id DESC`,
    sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM audit_events a WHERE ${cond} LIMIT ${limit + 1}) x`,
  ]);
  let rows = [...found];
  const more = rows.length > q.limit;
  if (more) rows = q.before !== null ? rows.slice(rows.length - q.limit) : rows.slice(0, q.limit);
  return {
    rows: rows.map(auditRow),
    newer: q.before !== null ? more : q.after !== null,
    older: q.before !== null ? true : more,
    count: Math.min(count.n, limit), countCapped: count.n > limit,
  };
}

/**
 * The distinct values of a column with an index led by it, by a loose index scan (one index probe
 * per value): the action and target-kind choices of the filters, at any table size.
 */
async function distinct(sql: Sql, column: 'action' | 'target_kind', max = 300): Promise<string[]> {
  const c = sql(column);
  const rows = await sql`
    WITH RECURSIVE r(v) AS (
      (SELECT ${c} FROM audit_events ORDER BY ${c} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${c} FROM audit_events WHERE ${c} > r.v ORDER BY ${c} LIMIT 1) FROM r WHERE r.v IS NOT NULL
    ) SELECT v FROM r WHERE v IS NOT NULL LIMIT ${max}`;
  return rows.map((r) => r.v as string);
}

export async function auditChoices(sql: Sql): Promise<{ actions: string[]; kinds: string[] }> {
  const [actions, kinds] = await Promise.all([distinct(sql, 'action'), distinct(sql, 'target_kind')]);
  return { actions, kinds };
}

/** The CSV is for machines: ISO 8601 UTC times, before and after as JSON. */
export const AUDIT_CSV_COLUMNS = ['ID', 'Time (ISO 8601 UTC)', 'Actor ID', 'Actor email', 'Action', 'Target kind', 'Target ID', 'Before (JSON)', 'After (JSON)', 'IP'] as const;

/**
 * Every row the filters select (newest first) as CSV, read with a cursor and written as it is
 * read: memory stays flat for a million rows, and the client's back-pressure pauses the query.
 */
export function auditCsv(sql: Sql, q: AuditQuery): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let iterator: AsyncIterator<Record<string, unknown>[]> | undefined;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(enc.encode(csvLine([...AUDIT_CSV_COLUMNS])));
      const actor = await actorId(sql, q.actor);
      if (actor === undefined) {
        done = true;
        return;
      }
      iterator = sql`
        SELECT a.id, a.created_at, a.actor_id, u.email AS actor_email, a.action, a.target_kind, a.target_id,
               a.before::text AS before, a.after::text AS after, host(a.ip) AS ip
          FROM audit_events a LEFT JOIN users u ON u.id = a.actor_id
         WHERE ${where(sql, q, actor)}
         ORDER BY a.created_at DESC, a.id DESC`.cursor(1000)[Symbol.asyncIterator]();
    },
    async pull(controller) {
      if (done || !iterator) return controller.close();
      try {
        const next = await iterator.next();
        if (next.done) return controller.close();
        let chunk = '';
        for (const r of next.value) {
          chunk += csvLine([r.id, (r.created_at as Date).toISOString(), r.actor_id, r.actor_email, r.action, r.target_kind, r.target_id, r.before, r.after, r.ip]);
        }
        controller.enqueue(enc.encode(chunk));
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await iterator?.return?.();
    },
  }, { highWaterMark: 1 });
}
