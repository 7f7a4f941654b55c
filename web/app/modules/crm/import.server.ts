// CSV lead import (issue 15): an admin or manager uploads a CSV (kind lead_csv, the upload
// service), and a background job of the web process reads it with csv-parse, validates every row
// with the leads API's schema (LeadInput) and decides duplicates by the API's own rules (normEmail,
// phoneE164 with the country as default region, under the same advisory locks), against existing
// leads and inside the file. Rows go in batches of BATCH: one transaction per batch writes the
// leads (one multi-row INSERT … SELECT FROM unnest skipping duplicates), the rejected rows with
// their reason (lead_import_errors) and the counters, so an interrupted import resumes after
// rows_read. Work is claimed with FOR UPDATE SKIP LOCKED and owned by a worker token; a stale
// heartbeat (the process died) lets another run resume it, up to MAX_ATTEMPTS.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse/sync';
import type { Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { normEmail, phoneE164, resolveCountry } from '~/shared/contact.server.ts';
import { LeadInput } from './lead-input.server.ts';
import { uploadDir } from '~/modules/uploads/uploads.server.ts';
import { isAdmin, isManager } from '~/shared/roles.ts';

/**
 * Rows per transaction: each takes up to two advisory locks per row, and the shared lock table holds
 * max_locks_per_transaction × max_connections (6,400 by default) for all sessions at once.
 */
export const BATCH = 500;
export const STALE_SECONDS = 30;
export const MAX_ATTEMPTS = 3;

export interface ImportStatus {
  id: number; status: 'queued' | 'running' | 'done' | 'failed'; fileName: string; totalRows: number | null; rowsRead: number;
  created: number; duplicates: number; errors: number; message: string | null; startedAt: string | null; finishedAt: string | null;
}

// ------------------------------------------------------------------ the CSV's columns

/** The columns a file may name (any case, spaces, '_' or '-'), as the API's fields. */
const FIELD_OF: Record<string, keyof LeadInput> = {
  firstname: 'firstName', first: 'firstName', name: 'firstName', lastname: 'lastName', last: 'lastName', surname: 'lastName',
  email: 'email', emailaddress: 'email', mail: 'email', phone: 'phone', phonenumber: 'phone', telephone: 'phone', mobile: 'phone',
  country: 'country', countrycode: 'country', city: 'city', funnellink: 'funnelLink', funnel: 'funnelLink', reference: 'reference',
  leadsourceid: 'leadSourceId', leadsource: 'leadSourceId', source: 'leadSourceId',
};
const headerKey = (h: string) => h.replace(/^\uFEFF/, '').toLowerCase().replace(/[^a-z]/g, '');

/** The delimiter of a header line: ';' when it has more semicolons than commas outside quotes. */
export function detectDelimiter(line: string): ',' | ';' {
  let commas = 0, semis = 0, quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semis++;
  }
  return semis > commas ? ';' : ',';
}

/** Longest line read; a longer one is refused alone. */
const MAX_LINE = 64 * 1024;

/** How a line's CSV problem reads (an i18n key; the parser's own text is neither translated nor meant for users). */
function csvProblem(e: unknown): string {
  const code = (e as { code?: string })?.code ?? '';
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'A quote is opened and not closed';
  if (code === 'CSV_INVALID_CLOSING_QUOTE' || code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE') return 'Text follows a closing quote';
  return 'The line cannot be read as CSV';
}

/** One line of the file: its number in the file (1 = the header) and its cells, or why it cannot be read. */
type Line = { line: number; cells: string[] } | { line: number; problem: string; text: string };

/**
 * The file's non-empty lines, each read alone: a lead is one line (no field of a lead holds a line break), so a
 * broken line (an unclosed quote, text after a closing quote) is refused by itself and never swallows the rest.
 */
async function* lines(file: string, delimiter: string): AsyncGenerator<Line> {
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of rl) {
      n++;
      const text = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (!text.trim()) continue;
      if (text.length > MAX_LINE) { yield { line: n, problem: 'The line is too long', text: text.slice(0, 200) }; continue; }
      try {
        const [cells] = parse(text, { delimiter, relax_column_count: true, trim: true }) as string[][];
        yield { line: n, cells: cells ?? [] };
      } catch (e) {
        yield { line: n, problem: csvProblem(e), text };
      }
    }
  } finally {
    rl.close();
  }
}

async function firstLine(file: string): Promise<string | null> {
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8', end: MAX_LINE }), crlfDelay: Infinity });
  try {
    for await (const l of rl) if (l.replace(/^\uFEFF/, '').trim()) return l.replace(/^\uFEFF/, '');
    return null;
  } finally {
    rl.close();
  }
}

/** Checks a stored upload is a CSV of leads: its header names the required columns (a broken lead line is that line's problem, not the file's). */
export async function inspectCsv(file: string): Promise<{ ok: true; header: string[]; delimiter: ',' | ';'; total: number } | { ok: false; message: string; params?: Record<string, string> }> {
  const first = await firstLine(file);
  if (first === null) return { ok: false, message: 'The file is empty.' };
  const delimiter = detectDelimiter(first);
  let header: string[] | null = null;
  let total = 0;
  for await (const l of lines(file, delimiter)) {
    if (header) { total++; continue; }
    if ('problem' in l) return { ok: false, message: 'The first line (the header) cannot be read as CSV.' };
    header = l.cells;
  }
  if (!header) return { ok: false, message: 'The file is empty.' };
  const fields = new Set(header.map((h) => FIELD_OF[headerKey(h)]).filter(Boolean));
  const missing = (['firstName', 'lastName', 'email', 'phone', 'country'] as const).filter((f) => !fields.has(f));
  if (missing.length) return { ok: false, message: 'The header must name the columns firstName, lastName, email, phone and country (missing: {{missing}}).', params: { missing: missing.join(', ') } };
  if (total === 0) return { ok: false, message: 'The file has no rows.' };
  return { ok: true, header, delimiter, total };
}

// ------------------------------------------------------------------ starting and reading

/** Queues an import of an uploaded lead CSV; refuses a file that is not one (nothing queued). */
export async function queueImport(sql: Sql, caller: { id: number }, upload: { id: number }, opts: { dir?: string; ip?: string | null } = {}):
  Promise<{ ok: true; id: number } | { ok: false; message: string; params?: Record<string, string> }> {
  const [u] = await sql`SELECT stored_name, original_name, kind FROM uploads WHERE id = ${upload.id} AND owner_id = ${caller.id}`;
  if (!u || u.kind !== 'lead_csv') return { ok: false, message: 'Upload a CSV file.' };
  const info = await inspectCsv(path.join(opts.dir ?? uploadDir(), u.stored_name));
  if (!info.ok) return info;
  return sql.begin(async (tx) => {
    const [row] = await tx`
      INSERT INTO lead_imports (upload_id, created_by, header, delimiter, total_rows)
      VALUES (${upload.id}, ${caller.id}, ${tx.json(info.header)}, ${info.delimiter}, ${info.total}) RETURNING id`;
    await audit(tx, { actorId: caller.id, action: 'lead_import.start', targetKind: 'lead_import', targetId: Number(row.id),
      after: { file: u.original_name, uploadId: upload.id, rows: info.total }, ip: opts.ip ?? null });
    return { ok: true as const, id: Number(row.id) };
  });
}

/** Who may see an import, its progress and its report of rejected rows: the importer and admins only (issue 22). */
export interface ImportViewer { id: number; roleId: number }

/** An import's state; with `viewer`, only when that user imported it or is an admin (else null, like a missing one). */
export async function importStatus(sql: Sql, id: number, viewer?: ImportViewer): Promise<ImportStatus | null> {
  const [r] = await sql`
    SELECT i.*, u.original_name FROM lead_imports i JOIN uploads u ON u.id = i.upload_id
     WHERE i.id = ${id} ${viewer ? sql`AND (i.created_by = ${viewer.id} OR ${isAdmin(viewer.roleId)})` : sql``}`;
  if (!r) return null;
  const iso = (d: unknown) => (d ? (d as Date).toISOString() : null);
  return {
    id: Number(r.id), status: r.status, fileName: r.original_name, totalRows: r.total_rows, rowsRead: r.rows_read, created: r.created,
    duplicates: r.duplicates, errors: r.errors, message: r.message, startedAt: iso(r.started_at), finishedAt: iso(r.finished_at),
  };
}

export async function latestImport(sql: Sql, userId: number): Promise<ImportStatus | null> {
  const [r] = await sql`SELECT id FROM lead_imports WHERE created_by = ${userId} ORDER BY id DESC LIMIT 1`;
  return r ? importStatus(sql, Number(r.id)) : null;
}

/** The import's header for its report, when `viewer` may read it (the importer, an admin); else null. */
export async function reportableImport(sql: Sql, id: number, viewer: ImportViewer): Promise<{ id: number; header: string[] } | null> {
  const [job] = await sql`SELECT id, header FROM lead_imports WHERE id = ${id} AND (created_by = ${viewer.id} OR ${isAdmin(viewer.roleId)})`;
  return job ? { id: Number(job.id), header: (job.header as string[]) ?? [] } : null;
}

// ------------------------------------------------------------------ the job

interface Row { rowNo: number; line: number; raw: string[]; problem?: string }
/** A rejected row's reason: i18n keys with their values and the field each is about; the report translates them. */
type ReasonPart = { f?: string; k: string; p?: Record<string, string | number> };
interface Rejected { rowNo: number; kind: 'invalid' | 'duplicate'; reason: ReasonPart[]; raw: string[] }

/**
 * Claims one import to run (queued, or running with a stale heartbeat) for this worker: any, or only
 * `only` (the import a request just queued: a process never runs another's fresh upload by accident).
 */
export async function claimImport(sql: Sql, worker: string, opts: { only?: number } = {}): Promise<number | null> {
  const only = opts.only === undefined ? sql`` : sql`AND id = ${opts.only}`;
  // an import that keeps dying is given up
  await sql`UPDATE lead_imports SET status = 'failed', finished_at = now(), message = 'The import was interrupted too many times.'
             WHERE status = 'running' AND heartbeat_at < now() - make_interval(secs => ${STALE_SECONDS}) AND attempts >= ${MAX_ATTEMPTS} ${only}`;
  const [r] = await sql`
    UPDATE lead_imports SET status = 'running', worker = ${worker}, attempts = attempts + 1, heartbeat_at = now(),
                            started_at = coalesce(started_at, now())
     WHERE id = (SELECT id FROM lead_imports
                  WHERE (status = 'queued' OR (status = 'running' AND heartbeat_at < now() - make_interval(secs => ${STALE_SECONDS}))) ${only}
                  ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
    RETURNING id`;
  return r ? Number(r.id) : null;
}

class Lost extends Error {}

/** Runs a claimed import to its end (from rows_read on): done, or failed with a message. */
export async function runImport(sql: Sql, id: number, worker: string, opts: { dir?: string; batch?: number; stopAfterBatches?: number } = {}): Promise<void> {
  const [job] = await sql`
    SELECT i.*, u.stored_name, u.original_name FROM lead_imports i JOIN uploads u ON u.id = i.upload_id WHERE i.id = ${id} AND i.worker = ${worker}`;
  if (!job) return;
  const file = path.join(opts.dir ?? uploadDir(), job.stored_name);
  const header = job.header as string[];
  const fields = header.map((h) => FIELD_OF[headerKey(h)] ?? null);
  const skip = job.rows_read as number;
  // where the new leads land (docs/specs.md#crm-lead-lists): a manager's import in their own scope (they manage
  // the leads); an admin's in the pool every manager sees and assigns from
  const [importer] = await sql`SELECT role_id FROM users WHERE id = ${job.created_by}`;
  const managerId = importer && isManager(Number(importer.role_id)) ? Number(job.created_by) : null;
  const size = opts.batch ?? BATCH;
  let batches = 0;
  try {
    let rowNo = 0;
    let batch: Row[] = [];
    let first = true;
    for await (const l of lines(file, job.delimiter)) {
      if (first) { first = false; continue; }
      rowNo++;
      if (rowNo <= skip) continue;
      // a broken line keeps its text (the report shows it in the file's first column)
      batch.push('problem' in l ? { rowNo, line: l.line, raw: [l.text], problem: l.problem } : { rowNo, line: l.line, raw: l.cells });
      if (batch.length >= size) {
        await writeBatch(sql, id, worker, batch, fields, managerId);
        batch = [];
        if (opts.stopAfterBatches && ++batches >= opts.stopAfterBatches) return; // a simulated crash (tests)
      }
    }
    if (batch.length) await writeBatch(sql, id, worker, batch, fields, managerId);
    await finish(sql, id, worker, 'done', null);
  } catch (e) {
    if (e instanceof Lost) return;
    await finish(sql, id, worker, 'failed', e instanceof Error ? e.message.slice(0, 500) : 'The import failed.');
  }
}

async function finish(sql: Sql, id: number, worker: string, status: 'done' | 'failed', message: string | null) {
  await sql.begin(async (tx) => {
    const [r] = await tx`UPDATE lead_imports SET status = ${status}, message = ${message}, finished_at = now(), heartbeat_at = now()
                          WHERE id = ${id} AND worker = ${worker} AND status = 'running'
                          RETURNING created_by, upload_id, rows_read, created, duplicates, errors`;
    if (!r) return;
    await audit(tx, { actorId: Number(r.created_by), action: `lead_import.${status}`, targetKind: 'lead_import', targetId: id,
      after: { uploadId: Number(r.upload_id), rows: r.rows_read, created: r.created, duplicates: r.duplicates, errors: r.errors, message } });
  });
}

const issueParts = (e: import('zod').ZodError): ReasonPart[] => e.issues.map((i) => {
  const part: ReasonPart = i.code === 'unrecognized_keys' ? { k: 'Unknown field: {{fields}}', p: { fields: i.keys.join(', ') } } : { k: i.message };
  return i.path.length ? { f: i.path.join('.'), ...part } : part;
});

/** One batch in one transaction: the leads, the rejected rows and the counters (owned by `worker`). */
async function writeBatch(sql: Sql, id: number, worker: string, rows: Row[], fields: (keyof LeadInput | null)[], managerId: number | null) {
  const rejected: Rejected[] = [];
  type Ok = { rowNo: number; raw: string[]; v: LeadInput; email: string; phone: string; country: string };
  const ok: Ok[] = [];
  const emails = new Map<string, number>(), phones = new Map<string, number>();
  const inFile = (what: 'email' | 'phone', row: number): ReasonPart[] =>
    [{ k: what === 'email' ? 'Duplicate email (row {{row}} of the file)' : 'Duplicate phone (row {{row}} of the file)', p: { row } }];
  for (const r of rows) {
    if (r.problem) {
      rejected.push({ rowNo: r.rowNo, kind: 'invalid', reason: [{ k: 'Line {{line}} of the file cannot be read', p: { line: r.line } }, { k: r.problem }], raw: r.raw });
      continue;
    }
    const input: Record<string, string> = {};
    fields.forEach((f, i) => { const v = r.raw[i]; if (f && v !== undefined && v !== '' && input[f] === undefined) input[f] = v; });
    const p = LeadInput.safeParse(input);
    if (!p.success) { rejected.push({ rowNo: r.rowNo, kind: 'invalid', reason: issueParts(p.error), raw: r.raw }); continue; }
    const country = resolveCountry(p.data.country)!;
    const email = normEmail(p.data.email), phone = phoneE164(p.data.phone, country.code)!;
    // inside the batch: the first row of an email or phone wins (earlier batches' rows are found in leads below)
    const e = emails.get(email), ph = phones.get(phone);
    if (e !== undefined) { rejected.push({ rowNo: r.rowNo, kind: 'duplicate', reason: inFile('email', e), raw: r.raw }); continue; }
    if (ph !== undefined) { rejected.push({ rowNo: r.rowNo, kind: 'duplicate', reason: inFile('phone', ph), raw: r.raw }); continue; }
    emails.set(email, r.rowNo); phones.set(phone, r.rowNo);
    ok.push({ rowNo: r.rowNo, raw: r.raw, v: p.data, email, phone, country: country.name });
  }
  await sql.begin(async (tx) => {
    // the API's locks (same keys, one fixed order) so an import and API posts never both create
    const keys = [...new Set(ok.flatMap((x) => [`lead-email:${x.email}`, `lead-phone:${x.phone}`]))].sort();
    // (taken in the array's order, the API's JS sort: WITH ORDINALITY, not a collation's)
    if (keys.length) await tx`SELECT count(pg_advisory_xact_lock(hashtext(k))) FROM (SELECT k FROM unnest(${keys}::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n) s`;
    // an existing lead written by this very import is a row of the file: its row is named
    const [haveE, haveP] = ok.length ? await Promise.all([
      tx`SELECT email_norm AS k, min(import_row) FILTER (WHERE import_id = ${id}) AS row FROM leads
          WHERE email_norm = ANY(${ok.map((x) => x.email)}::text[]) AND deleted_at IS NULL AND email_norm <> '' GROUP BY email_norm`,
      tx`SELECT phone_e164 AS k, min(import_row) FILTER (WHERE import_id = ${id}) AS row FROM leads
          WHERE phone_e164 = ANY(${ok.map((x) => x.phone)}::text[]) AND deleted_at IS NULL GROUP BY phone_e164`,
    ]) : [[], []];
    const se = new Map(haveE.map((r) => [r.k as string, r.row as number | null])), sp = new Map(haveP.map((r) => [r.k as string, r.row as number | null]));
    const fresh: Ok[] = [];
    for (const x of ok) {
      if (se.has(x.email)) {
        const row = se.get(x.email);
        rejected.push({ rowNo: x.rowNo, kind: 'duplicate', reason: row != null ? inFile('email', row) : [{ k: 'Duplicate email (an existing lead)' }], raw: x.raw });
      } else if (sp.has(x.phone)) {
        const row = sp.get(x.phone);
        rejected.push({ rowNo: x.rowNo, kind: 'duplicate', reason: row != null ? inFile('phone', row) : [{ k: 'Duplicate phone (an existing lead)' }], raw: x.raw });
      } else fresh.push(x);
    }
    let created = 0;
    if (fresh.length) {
      const col = <T>(f: (x: Ok) => T) => fresh.map(f);
      const res = await tx`
        INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, funnel_link, reference, lead_source_id,
                           lead_status, "group", is_live, manager_id, import_id, import_row)
        SELECT f, l, e, p, pe, c, ci, fl, r, ls, 'New', 'sales', false, ${managerId}::bigint, ${id}::bigint, rn
          FROM unnest(${col((x) => x.v.firstName)}::text[], ${col((x) => x.v.lastName)}::text[], ${col((x) => x.email)}::text[],
                      ${col((x) => x.v.phone)}::text[], ${col((x) => x.phone)}::text[], ${col((x) => x.country)}::text[],
                      ${col((x) => x.v.city ?? '')}::text[], ${col((x) => x.v.funnelLink ?? null) as string[]}::text[],
                      ${col((x) => x.v.reference ?? null) as string[]}::text[], ${col((x) => x.v.leadSourceId ?? null) as string[]}::text[],
                      ${col((x) => x.rowNo)}::int[])
               AS t(f, l, e, p, pe, c, ci, fl, r, ls, rn)
         WHERE NOT EXISTS (SELECT 1 FROM leads x WHERE x.email_norm = lower(btrim(t.e)) AND x.deleted_at IS NULL AND x.email_norm <> '')
           AND NOT EXISTS (SELECT 1 FROM leads x WHERE x.phone_e164 = t.pe AND x.deleted_at IS NULL)`;
      created = res.count;
    }
    if (rejected.length) {
      rejected.sort((a, b) => a.rowNo - b.rowNo);
      await tx`
        INSERT INTO lead_import_errors (import_id, row_no, kind, reason, raw)
        SELECT ${id}, n, k, r, raw::jsonb FROM unnest(${rejected.map((x) => x.rowNo)}::int[], ${rejected.map((x) => x.kind)}::text[],
                                                    ${rejected.map((x) => JSON.stringify(x.reason))}::text[], ${rejected.map((x) => JSON.stringify(x.raw))}::text[]) AS t(n, k, r, raw)
        ON CONFLICT (import_id, row_no) DO NOTHING`;
    }
    const dups = rejected.filter((x) => x.kind === 'duplicate').length;
    const [u] = await tx`
      UPDATE lead_imports SET rows_read = rows_read + ${rows.length}, created = created + ${created}, duplicates = duplicates + ${dups},
                              errors = errors + ${rejected.length - dups}, heartbeat_at = now()
       WHERE id = ${id} AND worker = ${worker} AND status = 'running' RETURNING id`;
    // another process took the import over (this one was thought dead): its batch is undone
    if (!u) throw new Lost();
  });
}

// ------------------------------------------------------------------ the runner of a web process

const WORKER = `${process.pid}:${randomBytes(6).toString('hex')}`;
let running = false;
let timer: ReturnType<typeof setInterval> | null = null;

/** Runs every import there is to run (or only `only`), one after another, in this process. */
export async function drainImports(sql: Sql, opts: { dir?: string; worker?: string; only?: number } = {}): Promise<number> {
  if (running) return 0;
  running = true;
  let n = 0;
  try {
    for (;;) {
      const id = await claimImport(sql, opts.worker ?? WORKER, { only: opts.only });
      if (id === null) return n;
      await runImport(sql, id, opts.worker ?? WORKER, opts);
      n++;
    }
  } finally {
    running = false;
  }
}

/** Called once at boot: resumes interrupted imports and then looks for work every few seconds. */
export function startImportJob(sql: Sql, everyMs = 3_000): void {
  if (timer) return;
  const tick = () => { drainImports(sql).catch((e) => console.error('[lead-import] job failed', e)); };
  timer = setInterval(tick, everyMs);
  timer.unref?.();
  tick();
}

/**
 * Runs the import a request just queued now instead of at the next tick. Only that one: the others
 * are the periodic job's (startImportJob), so a process never claims an import it was not asked for.
 * (If this process's runner is busy, the periodic job picks it up.)
 */
export function kickImports(sql: Sql, id: number): void {
  setImmediate(() => { drainImports(sql, { only: id }).catch((e) => console.error('[lead-import] job failed', e)); });
}

// ------------------------------------------------------------------ the report

const cell = (v: unknown) => {
  const s = String(v ?? '');
  // a cell a spreadsheet would run as a formula is quoted with a leading apostrophe
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n;]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** Translates a key with its values (the importer's language; the report route passes i18next's t). */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** A stored reason in the reader's language: its parts ('field: message'), or the text itself (rows stored before reasons had parts). */
export function reasonText(stored: string, t: Translate): string {
  let parts: ReasonPart[];
  try { parts = JSON.parse(stored) as ReasonPart[]; } catch { return stored; }
  if (!Array.isArray(parts)) return stored;
  return parts.map((x) => `${x.f ? `${x.f}: ` : ''}${t(x.k, x.p)}`).join('; ');
}

const KIND_LABELS = { invalid: 'Invalid', duplicate: 'Duplicate' } as const;

/** The rejected rows of an import as CSV (row, kind, reason, then the file's own columns) in the reader's language, streamed. */
export function reportStream(sql: Sql, id: number, header: string[], t: Translate = (k) => k): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const cursor = sql`SELECT row_no, kind, reason, raw FROM lead_import_errors WHERE import_id = ${id} ORDER BY row_no`.cursor(1000);
  const it = cursor[Symbol.asyncIterator]();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      if (!started) {
        started = true;
        ctrl.enqueue(enc.encode(`\uFEFF${[t('Row'), t('Kind'), t('Reason'), ...header].map(cell).join(',')}\r\n`));
        return;
      }
      const { done, value } = await it.next();
      if (done) { ctrl.close(); return; }
      ctrl.enqueue(enc.encode(value.map((r) => [r.row_no, t(KIND_LABELS[r.kind as keyof typeof KIND_LABELS] ?? r.kind), reasonText(r.reason, t), ...(r.raw as string[])]
        .map(cell).join(',')).join('\r\n') + '\r\n'));
    },
    async cancel() { await it.return?.(); },
  });
}
