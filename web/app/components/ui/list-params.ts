// The URL state of a server-backed list, parsed by one schema for the table and for every list
// loader and export. The rule: what only steers the view (page, page size, sort, direction,
// search, tab) is clamped to the nearest valid value; what selects the data (the date range) is
// refused with 400 and a message naming the field, since dropping a filter would show or
// export rows the user did not ask for. Nothing from the URL reaches SQL unparsed.
import { z } from 'zod';

export const PAGE_SIZES = [15, 25, 50] as const;
export const DEFAULT_PAGE_SIZE = 15;
export const SEARCH_DEBOUNCE_MS = 1500;
/** Highest page: keeps OFFSET a small safe integer (≤ 5,000,000 rows at the largest page size). */
export const MAX_PAGE = 100_000;
export const MAX_SEARCH = 200;
/** Dates a filter may name (UTC days, inclusive): PostgreSQL and Date agree on every day between. */
export const DATE_MIN = '1970-01-01';
export const DATE_MAX = '2100-12-31';

export interface ListState { page: number; limit: number; sort: string; dir: 'asc' | 'desc'; search: string }
/** dateStart / dateEnd as YYYY-MM-DD, or '' for no bound. */
export interface DateRange { dateStart: string; dateEnd: string }
export type ListQuery = ListState & DateRange & { offset: number };

/** A real calendar day (2024-02-30 is not) written YYYY-MM-DD, within DATE_MIN..DATE_MAX. */
function isDay(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || v < DATE_MIN || v > DATE_MAX) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

const clampedInt = (min: number, max: number, fallback: number) =>
  z.coerce.number().finite().transform((n) => Math.min(max, Math.max(min, Math.floor(n)))).catch(fallback);

function schema(sortable: readonly string[] | undefined, defaultSort: string) {
  return z.object({
    page: clampedInt(1, MAX_PAGE, 1),
    limit: z.coerce.number().refine((n) => (PAGE_SIZES as readonly number[]).includes(n)).catch(DEFAULT_PAGE_SIZE),
    sort: z.string().regex(/^[A-Za-z0-9_.]{1,64}$/).refine((s) => !sortable || sortable.includes(s)).catch(defaultSort),
    dir: z.enum(['asc', 'desc']).catch('desc'),
    // control characters (NUL above all: PostgreSQL text cannot hold it) are never searched for
    // eslint-disable-next-line no-control-regex
    search: z.string().catch('').transform((s) => s.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_SEARCH)),
    dateStart: z.string().default('').refine((v) => v === '' || isDay(v), { message: 'The start date must be a date between 1970-01-01 and 2100-12-31.' }),
    dateEnd: z.string().default('').refine((v) => v === '' || isDay(v), { message: 'The end date must be a date between 1970-01-01 and 2100-12-31.' }),
  }).superRefine((q, ctx) => {
    if (q.dateStart && q.dateEnd && q.dateEnd < q.dateStart) ctx.addIssue({ code: 'custom', path: ['dateEnd'], message: 'End date must be after start date' });
  });
}

export interface ListQueryOptions<E extends z.ZodRawShape> {
  /** prefix of the URL parameters, for two tables on one page */
  prefix?: string;
  /** the columns the query can sort by; anything else falls back to defaultSort */
  sortable?: readonly string[];
  defaultSort?: string;
  /** whether the list filters by dateStart / dateEnd; a list that does not never reads (or refuses) them */
  dates?: boolean;
  /** a list's own parameters (a tab, a status), each with its own .catch() or refusal */
  extra?: E;
}

export type ParsedListQuery<E extends z.ZodRawShape> =
  | { ok: true; query: ListQuery & z.infer<z.ZodObject<E>> }
  | { ok: false; field: string; message: string };

// A list's schema is built once per set of options and kept (building a zod schema costs more than
// parsing with it): by sortable columns and default sort, and by the `extra` object's identity, so a
// list whose loader passes the same `extra` object (a module constant) reuses it.
// The answer for a URL that names none of the list's parameters (most requests) is kept with it.
type ListSchema = { schema: z.ZodTypeAny; keys: string[]; none?: ParsedListQuery<z.ZodRawShape> };
const plainSchemas = new Map<string, ListSchema>();
const extraSchemas = new WeakMap<z.ZodRawShape, Map<string, ListSchema>>();

function listSchema(opts: ListQueryOptions<z.ZodRawShape>): ListSchema {
  const id = `${opts.dates ? 1 : 0}\u0000${opts.defaultSort ?? 'id'}\u0000${opts.sortable ? opts.sortable.join('\u0000') : '\u0001'}`;
  let kept = plainSchemas;
  if (opts.extra) {
    kept = extraSchemas.get(opts.extra) ?? new Map();
    extraSchemas.set(opts.extra, kept);
  }
  let s = kept.get(id);
  if (!s) {
    const base = schema(opts.sortable, opts.defaultSort ?? 'id');
    const keys = [...Object.keys(base.innerType().shape), ...Object.keys(opts.extra ?? {})]
      .filter((k) => opts.dates || (k !== 'dateStart' && k !== 'dateEnd'));
    s = { schema: base.and(z.object(opts.extra ?? {})), keys };
    kept.set(id, s);
  }
  return s;
}

export function parseListQuery<E extends z.ZodRawShape = Record<never, never>>(params: URLSearchParams, opts: ListQueryOptions<E> = {}): ParsedListQuery<E> {
  const prefix = opts.prefix ?? '';
  const kept = listSchema(opts);
  const raw: Record<string, string> = {};
  let named = false;
  for (const k of kept.keys) {
    const v = params.get(prefix + k);
    if (v !== null) {
      raw[k] = v;
      named = true;
    }
  }
  let out: ParsedListQuery<E>;
  const r = !named && kept.none ? null : kept.schema.safeParse(raw);
  if (!r) out = copy(kept.none as ParsedListQuery<E>);
  else if (!r.success) {
    const issue = r.error.issues[0];
    out = { ok: false, field: String(issue.path[0] ?? ''), message: issue.message };
  } else {
    const q = r.data as ListQuery & z.infer<z.ZodObject<E>>;
    out = { ok: true, query: { ...q, offset: (q.page - 1) * q.limit } };
  }
  if (!named && !kept.none) kept.none = copy(out) as ParsedListQuery<z.ZodRawShape>;
  // the field is named as the URL names it
  return out.ok ? out : { ...out, field: prefix + out.field };
}

const copy = <E extends z.ZodRawShape>(p: ParsedListQuery<E>): ParsedListQuery<E> => (p.ok ? { ok: true, query: { ...p.query } } : { ...p });

/** The view state alone (the table's own controls): clamped, never refused. */
export function readListState(params: URLSearchParams, prefix = ''): ListState {
  const r = parseListQuery(params, { prefix });
  if (!r.ok) return { page: 1, limit: DEFAULT_PAGE_SIZE, sort: 'id', dir: 'desc', search: '' };
  const { page, limit, sort, dir, search } = r.query;
  return { page, limit, sort, dir, search };
}

/**
 * For loaders and exports: the list query of a request, the sort column checked against the
 * columns the query can sort by, `offset` ready for SQL. A refused field throws a 400 Response
 * whose text is the message (an i18n key), before anything is read or streamed.
 */
export function listQuery<E extends z.ZodRawShape = Record<never, never>>(
  from: Request | URLSearchParams, sortable: readonly string[] = [], prefix = '', opts: Pick<ListQueryOptions<E>, 'dates' | 'extra' | 'defaultSort'> = {},
): ListQuery & z.infer<z.ZodObject<E>> {
  const r = parseListQuery(from instanceof URLSearchParams ? from : new URL(from.url).searchParams, { ...opts, sortable, prefix });
  if (!r.ok) throw new Response(r.message, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-invalid-field': r.field } });
  return r.query;
}
