// The one upload service. `receiveUploads` reads a multipart form as it streams in: each file
// part is counted against its kind's limit (held in memory up to it) and the parse stops at the
// first chunk over it; the whole body is capped too, so nothing is buffered without bound. A
// file is accepted only when its bytes are a type its kind allows (sniff.server.ts); it is
// stored under a random name in UPLOAD_DIR (outside the web root) and recorded in `uploads` with
// its owner. `serveUpload` is the only way back out: it applies the kind's read policy
// (kinds.ts) and sends the file with headers that keep a browser from treating it as anything
// but what it was sniffed as.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { createReadableStreamFromReadable, unstable_parseMultipartFormData, type AppLoadContext, type UploadHandlerPart } from '@remix-run/node';
import { db, type Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { FILE_TYPES, kindPolicy, type FileType, type KindPolicy, type UploadKind } from './kinds.ts';
import { MAX_SIDE, sniff } from './sniff.server.ts';

export interface StoredUpload {
  id: number;
  kind: UploadKind;
  originalName: string;
  mime: string;
  size: number;
  sha256: string;
}

/** A refusal, for the field it concerns; `message` is an i18n key, `params` its values. */
export interface UploadRefusal {
  status: 400 | 403 | 413 | 422;
  field: string;
  message: string;
  params?: Record<string, string>;
}

export type ReceiveResult =
  | { ok: true; form: FormData; files: Partial<Record<string, StoredUpload>> }
  | { ok: false; error: UploadRefusal };

/** Text fields beside the files: each at most this long, and at most this many parts in all. */
const MAX_TEXT_BYTES = 64 * 1024;
const MAX_PARTS = 50;
/** Room for the part headers and boundaries on top of the files' and the text fields' limits. */
const FORM_OVERHEAD = 64 * 1024;

const EXT: Record<FileType, string> = { png: 'png', jpeg: 'jpg', webp: 'webp', gif: 'gif', ico: 'ico', pdf: 'pdf', csv: 'csv' };
const STORED_NAME = /^[0-9a-f]{32}\.[a-z]{3,4}$/;

class Refused extends Error {
  constructor(readonly refusal: UploadRefusal) {
    super(refusal.message);
  }
}
/** A failure of ours (disk, database): not the sender's fault, so it is not answered as a refusal. */
class Internal extends Error {}

export function uploadDir(): string {
  return env().UPLOAD_DIR;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.ceil(n / 1024)} KB`;
}

/**
 * Reads `request`'s multipart body. `fields` names the file inputs the form may carry and the
 * kind of each; any other file is refused, text fields come back in `form`. Every refusal
 * leaves nothing behind (no file on disk, no row). A field sent without a file is absent from
 * `files`: whether it is required is the page's rule.
 */
export async function receiveUploads(
  sql: Sql,
  request: Request,
  owner: { id: number; roleId: number },
  fields: Record<string, string>,
  opts: { dir?: string } = {},
): Promise<ReceiveResult> {
  const names = Object.keys(fields);
  const first = names[0] ?? 'file';
  const policies: Record<string, { kind: UploadKind; policy: KindPolicy }> = {};
  for (const [field, kind] of Object.entries(fields)) {
    const policy = kindPolicy(kind);
    if (!policy) return refusal(422, field, { message: 'Unknown upload kind.' });
    if (!(policy.upload as readonly number[]).includes(owner.roleId)) return refusal(403, field, { message: 'You may not upload this kind of file.' });
    policies[field] = { kind: kind as UploadKind, policy };
  }
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(request.headers.get('content-type') ?? '') || !request.body) {
    return refusal(400, first, { message: 'Send the form as multipart/form-data.' });
  }
  const cap = names.reduce((n, f) => n + policies[f].policy.maxBytes, 0) + MAX_PARTS * 1024 + MAX_TEXT_BYTES * 4 + FORM_OVERHEAD;
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > cap) return refusal(413, first, { message: 'The form is too large.' });

  const dir = opts.dir ?? uploadDir();
  const written: { path: string; row: Omit<StoredUpload, 'id'> & { storedName: string }; field: string }[] = [];
  const cleanup = () => Promise.all(written.map((w) => unlink(w.path).catch(() => {})));
  let parts = 0;

  const handler = async (part: UploadHandlerPart): Promise<string | null> => {
    if (++parts > MAX_PARTS) throw new Refused({ status: 413, field: first, message: 'The form has too many fields.' });
    if (part.filename === undefined) {
      const bytes = await readAtMost(part.data, MAX_TEXT_BYTES, () => new Refused({ status: 413, field: part.name, message: 'The field is too long.' }));
      return new TextDecoder().decode(bytes);
    }
    const target = policies[part.name];
    if (!target) throw new Refused({ status: 422, field: part.name, message: 'Unexpected file.' });
    if (written.some((w) => w.field === part.name)) throw new Refused({ status: 422, field: part.name, message: 'Send one file only.' });
    const { kind, policy } = target;
    const max = policy.maxBytes;
    const bytes = await readAtMost(part.data, max, () => new Refused({ status: 413, field: part.name, message: 'The file is larger than {{max}}.', params: { max: formatBytes(max) } }));
    // a file input left empty sends a part with an empty file name and no bytes: no file
    if (part.filename === '' && bytes.length === 0) return null;
    const originalName = part.filename.normalize('NFC');
    if (!validFileName(originalName)) throw new Refused({ status: 422, field: part.name, message: 'The file name is not valid.' });
    if (bytes.length === 0) throw new Refused({ status: 422, field: part.name, message: 'The file is empty.' });
    const sniffed = sniff(bytes, policy.types);
    if (!sniffed.ok) throw new Refused(sniffRefusal(part.name, sniffed.reason, policy));
    const storedName = `${randomBytes(16).toString('hex')}.${EXT[sniffed.type]}`;
    const file = path.join(dir, storedName);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const handle = await open(file, 'wx', 0o600);
      written.push({ path: file, field: part.name, row: {
        kind, storedName, originalName, mime: FILE_TYPES[sniffed.type].mime, size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      } });
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
    } catch (e) {
      throw new Internal('storing an upload failed', { cause: e });
    }
    return null;
  };

  let form: FormData;
  const body = capped(request, cap, first);
  try {
    form = await unstable_parseMultipartFormData(body.request, handler);
  } catch (e) {
    // stop reading the rest of the body: a refused upload is not received in full
    body.abort();
    await cleanup();
    if (e instanceof Refused) return { ok: false, error: e.refusal };
    if (e instanceof Internal) throw e.cause;
    return refusal(400, first, { message: 'The form could not be read.' });
  }
  if (!written.length) return { ok: true, form, files: {} };
  try {
    const rows = await sql<{ id: number; stored_name: string }[]>`
      INSERT INTO uploads ${sql(written.map(({ row }) => ({
        owner_id: owner.id, kind: row.kind, original_name: row.originalName, stored_name: row.storedName,
        mime: row.mime, size: row.size, sha256: row.sha256,
      })))}
      RETURNING id, stored_name`;
    const files: Record<string, StoredUpload> = {};
    for (const { field, row } of written) {
      const id = rows.find((r) => r.stored_name === row.storedName)!.id;
      files[field] = { id, kind: row.kind, originalName: row.originalName, mime: row.mime, size: row.size, sha256: row.sha256 };
    }
    return { ok: true, form, files };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * Removes files this request stored that the page then did not keep (its form was refused after
 * the files were received): the rows and the bytes. Only the owner's ids are touched; an upload
 * a record points at is never passed here.
 */
export async function discardUploads(sql: Sql, ownerId: number, ids: readonly number[], opts: { dir?: string } = {}): Promise<void> {
  if (!ids.length) return;
  const rows = await sql<{ stored_name: string }[]>`
    DELETE FROM uploads WHERE id = ANY(${ids as number[]}::bigint[]) AND owner_id = ${ownerId} RETURNING stored_name`;
  const dir = opts.dir ?? uploadDir();
  await Promise.all(rows.filter((r) => STORED_NAME.test(r.stored_name)).map((r) => unlink(path.join(dir, r.stored_name)).catch(() => {})));
}

function refusal(status: UploadRefusal['status'], field: string, m: { message: string; params?: Record<string, string> }): ReceiveResult {
  return { ok: false, error: { status, field, ...m } };
}

function sniffRefusal(field: string, reason: 'markup' | 'type' | 'damaged' | 'dimensions' | 'text', policy: KindPolicy): UploadRefusal {
  switch (reason) {
    case 'markup':
      return { status: 422, field, message: 'SVG and HTML files are not accepted.' };
    case 'type':
      return { status: 422, field, message: 'This file type is not accepted. Allowed: {{types}}.', params: { types: policy.types.map((t) => t.toUpperCase()).join(', ') } };
    case 'damaged':
      return { status: 422, field, message: 'The file is damaged or incomplete.' };
    case 'dimensions':
      return { status: 422, field, message: 'The image must be at most {{max}} pixels wide and high.', params: { max: String(MAX_SIDE) } };
    case 'text':
      return { status: 422, field, message: 'The CSV file must be UTF-8 text.' };
  }
}

/**
 * A file's own name: what a browser sends (the parser keeps only the last path segment). Control
 * characters and bidirectional overrides (which make 'x\u202Egpj.exe' read as 'xexe.jpg') are refused.
 */
function validFileName(name: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  return name.length >= 1 && name.length <= 255 && name !== '.' && name !== '..' && !/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069/\\]/.test(name);
}

/** The part's bytes, or `tooBig()` thrown at the first chunk that passes `max`. */
async function readAtMost(data: AsyncIterable<Uint8Array>, max: number, tooBig: () => Error): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of data) {
    size += chunk.byteLength;
    if (size > max) throw tooBig();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The request with its body cut off after `cap` bytes (part headers and text are bounded too),
 * and `abort()`, which cancels the original body (the server stops receiving it).
 */
function capped(request: Request, cap: number, field: string): { request: Request; abort: () => void } {
  let seen = 0;
  const source = request.body!.getReader();
  const abort = () => void source.cancel().catch(() => {});
  const body = new ReadableStream<Uint8Array>({
    async pull(out) {
      const { done, value } = await source.read();
      if (done) return out.close();
      seen += value.byteLength;
      if (seen > cap) {
        out.error(new Refused({ status: 413, field, message: 'The form is too large.' }));
        abort();
      } else out.enqueue(value);
    },
    cancel: abort,
  }, { highWaterMark: 0 });
  return {
    request: new Request(request.url, { method: request.method, headers: request.headers, body, duplex: 'half' } as RequestInit),
    abort,
  };
}

// ------------------------------------------------------------------ reading back

interface UploadRow {
  id: number;
  owner_id: number;
  kind: string;
  original_name: string;
  stored_name: string;
  mime: string;
  size: number;
  sha256: string;
}

/**
 * Whether the session's user may read this file: the owner always, staff by the kind's roles.
 * Inside a login-as session the reader is the staff member (docs/specs.md#login-as): the
 * customer's own files, and only those of kinds the staff member's role may read (identity
 * documents stay the admins').
 */
export function mayRead(s: CurrentSession, row: { owner_id: number; kind: string }): boolean {
  const policy = kindPolicy(row.kind);
  if (!policy) return false;
  if (policy.read === 'public') return true;
  const readers = policy.read as readonly number[];
  if (s.impersonatorId !== null) return row.owner_id === s.user.id && s.impersonatorRoleId !== null && readers.includes(s.impersonatorRoleId);
  return row.owner_id === s.user.id || readers.includes(s.user.roleId);
}

/**
 * GET /uploads/:id. A public kind is sent to anyone; any other id needs a signed-in user (a
 * signed-out request is sent to sign in, whether the id exists or not) who may read it, else
 * 404, the same answer as for an id that does not exist.
 */
export async function serveUpload(
  request: Request, idParam: string | undefined, opts: { sql?: Sql; dir?: string; context?: AppLoadContext | null } = {},
): Promise<Response> {
  const sql = opts.sql ?? db();
  const id = idParam && /^[1-9][0-9]{0,15}$/.test(idParam) && Number.isSafeInteger(Number(idParam)) ? Number(idParam) : null;
  const [row] = id === null ? [] : await sql<UploadRow[]>`
    SELECT id, owner_id, kind, original_name, stored_name, mime, size, sha256 FROM uploads WHERE id = ${id}`;
  const policy = row ? kindPolicy(row.kind) : null;
  const isPublic = policy?.read === 'public';
  if (!isPublic) {
    const s = await requireAccess(request, sql, opts.context);
    if (!row || !mayRead(s, row)) throw notFound();
  }
  if (!row || !policy || !STORED_NAME.test(row.stored_name)) throw notFound();

  const type = (Object.keys(FILE_TYPES) as FileType[]).find((t) => FILE_TYPES[t].mime === row.mime);
  const inline = !!type && FILE_TYPES[type].image;
  const headers = new Headers({
    'content-type': row.mime,
    'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', downloadName(row.original_name, type)),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'cross-origin-resource-policy': isPublic ? 'cross-origin' : 'same-origin',
    'cache-control': isPublic ? 'public, max-age=31536000, immutable' : 'private, no-store',
    etag: `"${row.sha256}"`,
  });
  if (request.headers.get('if-none-match') === `"${row.sha256}"`) return new Response(null, { status: 304, headers });

  const dir = opts.dir ?? uploadDir();
  let handle;
  try {
    handle = await open(path.join(dir, row.stored_name), 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    console.error(`[uploads] file of upload ${row.id} is missing from ${dir}`);
    throw notFound();
  }
  headers.set('content-length', String(row.size));
  return new Response(createReadableStreamFromReadable(handle.createReadStream()), { status: 200, headers });
}

/** The original name, its extension made the sniffed type's: a download opens as what it is. */
export function downloadName(name: string, type: FileType | undefined): string {
  if (!type) return name;
  const ext = /\.([^.]{1,10})$/.exec(name)?.[1]?.toLowerCase();
  const same: Record<FileType, string[]> = { png: ['png'], jpeg: ['jpg', 'jpeg'], webp: ['webp'], gif: ['gif'], ico: ['ico'], pdf: ['pdf'], csv: ['csv'] };
  if (ext && same[type].includes(ext)) return name;
  return `${ext ? name.slice(0, -ext.length - 1) : name}.${EXT[type]}`;
}

/** RFC 6266: an ASCII fallback name and the exact name percent-encoded as UTF-8. */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^A-Za-z0-9._ -]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `${type}; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
