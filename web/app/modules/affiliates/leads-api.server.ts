// The leads API (issue 15, docs/specs.md#affiliates-and-the-leads-api): POST /api/v1/leads takes one
// lead or a batch of up to MAX_BATCH, authenticated by an affiliate's key or the broker's leads
// webhook key (keys.server.ts; never a cookie), rate-limited per key, idempotent on a client id
// (the Idempotency-Key header for the request, clientId per lead). Duplicates are decided by the
// normalised email and the phone in E.164 (libphonenumber-js, the lead's country as the default
// region), both index lookups under advisory locks taken in a fixed order, so concurrent posts of one
// email never both create. GET /api/v1/leads pages the affiliate's own leads with status and FTD.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CountryCode } from 'libphonenumber-js';
import type { Sql } from '~/shared/db.server.ts';
import { defaultStore, forgiveSuccess, hitLimit, type Limit, type RateLimitStore } from '~/modules/auth/rate-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { BodyTooLarge, readTextCapped } from '~/shared/body-limit.server.ts';
import { normEmail, phoneE164, resolveCountry } from '~/shared/contact.server.ts';
import { LeadInput } from '~/modules/crm/lead-input.server.ts';
import { authenticateKey, keyFromRequest, type KeyOwner } from './keys.server.ts';

export const MAX_BATCH = 500;
export const MAX_BODY_BYTES = 1_000_000;
/** How long a client id's first answer is replayed. */
export const IDEMPOTENCY_HOURS = 24;
export const API_LIMIT: Limit = { name: 'api:leads', max: 120, windowSeconds: 60 };
/**
 * Failed key attempts per address (issue 22): every attempt is counted before the key is looked
 * at (parallel guesses cannot slip past) and a valid key takes its count back, like sign-in.
 */
export const KEY_FAILURE_LIMIT: Limit = { name: 'api:leads-key-fail:ip', max: 20, windowSeconds: 15 * 60 };
/** The one answer of a duplicate, whoever holds the contact (another affiliate, the broker, a client). */
export const DUPLICATE_MESSAGE = 'This contact is already registered';

export interface FieldError { path: string; message: string }
const issues = (e: z.ZodError, prefix = ''): FieldError[] =>
  e.issues.map((i) => ({ path: prefix + (i.path.length ? i.path.join('.') : ''), message: i.code === 'unrecognized_keys' ? `Unknown field: ${i.keys.join(', ')}` : i.message }));

// ------------------------------------------------------------------ results

export type LeadResult =
  | { index: number; clientId?: string; status: 'created'; id: number }
  | { index: number; clientId?: string; status: 'duplicate'; reason: 'email' | 'phone'; message: string }
  | { index: number; clientId?: string; status: 'rejected'; errors: FieldError[] }
  | { index: number; clientId?: string; status: 'conflict'; message: string };

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers } });
const problem = (status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  json(status, { error: message, ...extra }, headers);

const ownerId = (o: KeyOwner) => (o.kind === 'broker' ? 'broker' : `affiliate:${o.userId}`);
const hashOf = (s: string) => createHash('sha256').update(s).digest('hex');
/** A canonical JSON (sorted keys) so the same body in another key order is the same request. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

export interface ApiOptions {
  store?: RateLimitStore; limit?: Limit; keyFailureLimit?: Limit;
  /** the caller's address (default: the one web/server.mjs hands over; none: no per-address count) */
  ip?: string | null;
}

const tooMany = (retryAfter: number) => problem(429, 'Too many requests', { retryAfter }, { 'retry-after': String(retryAfter) });

/** Key (failures limited per address), then rate limit: the owner, or the refusal to answer. */
async function admit(sql: Sql, request: Request, opts: ApiOptions): Promise<KeyOwner | Response> {
  const store = opts.store ?? (await defaultStore(sql));
  const ip = opts.ip === undefined ? clientIp(request) : opts.ip;
  const failures = opts.keyFailureLimit ?? KEY_FAILURE_LIMIT;
  if (ip) {
    const attempt = await hitLimit(store, failures, ip);
    // over the limit: refused before the key is even looked at, so guessing on is useless
    if (!attempt.allowed) return tooMany(attempt.retryAfterSeconds);
  }
  const owner = await authenticateKey(sql, keyFromRequest(request));
  if (!owner) return problem(401, 'A valid API key is required (Authorization: Bearer <key> or X-API-Key)', {}, { 'www-authenticate': 'Bearer realm="leads"' });
  if (ip) await forgiveSuccess(store, [[failures, ip]], []);
  const hit = await hitLimit(store, opts.limit ?? API_LIMIT, owner.kind === 'broker' ? 'broker' : `key:${owner.keyId}`);
  if (!hit.allowed) return tooMany(hit.retryAfterSeconds);
  return owner;
}

async function readBody(request: Request): Promise<{ text: string } | Response> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) return problem(415, 'The body must be JSON (Content-Type: application/json)');
  // read up to the cap and no further (a chunked body has no length to check first)
  try {
    return { text: await readTextCapped(request, MAX_BODY_BYTES) };
  } catch (e) {
    if (e instanceof BodyTooLarge) return problem(413, `The body exceeds ${MAX_BODY_BYTES} bytes`);
    throw e;
  }
}

// ------------------------------------------------------------------ POST

interface Ready { index: number; input: LeadInput; email: string; phone: string; country: { code: CountryCode; name: string }; itemHash: string }

/** POST /api/v1/leads: one lead (an object) or a batch ({ "leads": [...] } or an array). */
export async function postLeads(sql: Sql, request: Request, opts: ApiOptions = {}): Promise<Response> {
  const owner = await admit(sql, request, opts);
  if (owner instanceof Response) return owner;
  const body = await readBody(request);
  if (body instanceof Response) return body;
  let parsed: unknown;
  try { parsed = JSON.parse(body.text); } catch { return problem(400, 'The body is not valid JSON'); }
  const batch = Array.isArray(parsed) || (!!parsed && typeof parsed === 'object' && 'leads' in parsed);
  const items: unknown[] = Array.isArray(parsed) ? parsed : batch ? (parsed as { leads: unknown }).leads as unknown[] : [parsed];
  if (!Array.isArray(items)) return problem(422, 'Invalid request', { errors: [{ path: 'leads', message: 'Expected an array of leads' }] });
  if (items.length === 0) return problem(422, 'Invalid request', { errors: [{ path: 'leads', message: 'At least one lead is required' }] });
  if (items.length > MAX_BATCH) return problem(422, 'Invalid request', { errors: [{ path: 'leads', message: `At most ${MAX_BATCH} leads per request` }] });
  if (!batch && (!parsed || typeof parsed !== 'object')) return problem(422, 'Invalid request', { errors: [{ path: '', message: 'Expected a lead object' }] });

  const idemKey = request.headers.get('idempotency-key')?.trim() || null;
  if (idemKey !== null && idemKey.length > 200) return problem(422, 'Invalid request', { errors: [{ path: 'Idempotency-Key', message: 'At most 200 characters' }] });
  const who = ownerId(owner);
  const requestHash = hashOf(canonical(parsed));

  return sql.begin(async (t) => {
    // an id past its window starts afresh
    const upsert = () => t`ON CONFLICT (owner, idem_key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status,
                       response = EXCLUDED.response, created_at = now()`;
    if (idemKey) {
      await t`SELECT pg_advisory_xact_lock(hashtext(${`idem:${who}:${idemKey}`}))`;
      const [seen] = await t`SELECT request_hash, status, response FROM api_idempotency WHERE owner = ${who} AND idem_key = ${`req:${idemKey}`}
                                    AND created_at > now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`;
      if (seen) {
        if (seen.request_hash !== requestHash) return problem(409, 'This Idempotency-Key was used with another request body');
        return json(Number(seen.status), seen.response, { 'idempotent-replayed': 'true' });
      }
    }
    const results: LeadResult[] = new Array(items.length);
    const ready: Ready[] = [];
    items.forEach((raw, index) => {
      const r = LeadInput.safeParse(raw);
      const clientId = raw && typeof raw === 'object' && typeof (raw as { clientId?: unknown }).clientId === 'string' ? (raw as { clientId: string }).clientId : undefined;
      if (!r.success) { results[index] = { index, ...(clientId ? { clientId } : {}), status: 'rejected', errors: issues(r.error, batch ? `leads.${index}.` : '') }; return; }
      const country = resolveCountry(r.data.country)!;
      ready.push({ index, input: r.data, email: normEmail(r.data.email), phone: phoneE164(r.data.phone, country.code)!, country, itemHash: hashOf(canonical(raw)) });
    });
    if (!batch && ready.length === 0) {
      const r = results[0] as Extract<LeadResult, { status: 'rejected' }>;
      return problem(422, 'Invalid lead', { errors: r.errors });
    }
    // the locks of every email and phone, in one order: concurrent posts wait, never deadlock
    const lockKeys = [...new Set(ready.flatMap((x) => [`lead-email:${x.email}`, `lead-phone:${x.phone}`]))].sort();
    for (const k of lockKeys) await t`SELECT pg_advisory_xact_lock(hashtext(${k}))`;

    const affiliateId = owner.kind === 'affiliate' ? owner.userId : null;
    for (const x of ready) {
      const cid = x.input.clientId;
      const base = { index: x.index, ...(cid ? { clientId: cid } : {}) };
      if (cid) {
        const [seen] = await t`SELECT request_hash, response FROM api_idempotency WHERE owner = ${who} AND idem_key = ${`lead:${cid}`}
                                      AND created_at > now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`;
        if (seen) {
          results[x.index] = seen.request_hash === x.itemHash
            ? { ...(seen.response as LeadResult), index: x.index }
            : { ...base, status: 'conflict', message: 'This clientId was used with another lead' };
          continue;
        }
      }
      const dup = await t`
        (SELECT id, affiliate_id, 'email' AS reason FROM leads WHERE email_norm = ${x.email} AND deleted_at IS NULL AND email_norm <> '' ORDER BY id LIMIT 1)
        UNION ALL
        (SELECT id, affiliate_id, 'phone' AS reason FROM leads WHERE phone_e164 = ${x.phone} AND deleted_at IS NULL ORDER BY id LIMIT 1)`;
      let result: LeadResult;
      if (dup.length) {
        // one neutral answer: nothing tells whose contact it is (this affiliate's, another's, the broker's or a client's)
        result = { ...base, status: 'duplicate', reason: dup[0].reason, message: DUPLICATE_MESSAGE };
      } else {
        const v = x.input;
        const [row] = await t`
          INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, city, funnel_link, reference, lead_source_id,
                             lead_status, "group", is_live, affiliate_id)
          VALUES (${v.firstName}, ${v.lastName}, ${x.email}, ${v.phone}, ${x.phone}, ${x.country.name}, ${v.city ?? ''},
                  ${v.funnelLink ?? null}, ${v.reference ?? null}, ${v.leadSourceId ?? null}, 'New', 'sales', true, ${affiliateId})
          RETURNING id`;
        result = { ...base, status: 'created', id: Number(row.id) };
      }
      results[x.index] = result;
      if (cid) {
        await t`INSERT INTO api_idempotency (owner, idem_key, request_hash, status, response)
                VALUES (${who}, ${`lead:${cid}`}, ${x.itemHash}, 200, ${t.json(result as never)}) ${upsert()}`;
      }
    }
    let status: number;
    let response: unknown;
    if (!batch) {
      const r = results[0];
      status = r.status === 'created' ? 201 : r.status === 'conflict' ? 409 : 200;
      response = r.status === 'conflict' ? { error: r.message } : stripIndex(r);
    } else {
      const count = (s: LeadResult['status']) => results.filter((r) => r.status === s).length;
      status = count('rejected') === results.length ? 422 : 200;
      response = { created: count('created'), duplicates: count('duplicate'), rejected: count('rejected'), conflicts: count('conflict'), results };
    }
    if (idemKey) {
      await t`INSERT INTO api_idempotency (owner, idem_key, request_hash, status, response)
              VALUES (${who}, ${`req:${idemKey}`}, ${requestHash}, ${status}, ${t.json(response as never)}) ${upsert()}`;
    }
    // now and then, the answers past their window go (api_idempotency_created_idx)
    if (Math.random() < 0.01) await t`DELETE FROM api_idempotency WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`;
    return json(status, response);
  });
}

function stripIndex(r: LeadResult) {
  const { index: _index, ...rest } = r;
  return rest;
}

// ------------------------------------------------------------------ GET

const ListQuery = z.object({
  page: z.coerce.number({ invalid_type_error: 'page must be a number' }).int('page must be an integer').min(1, 'page must be at least 1').max(10_000, 'page must be at most 10000').default(1),
  limit: z.coerce.number({ invalid_type_error: 'limit must be a number' }).int('limit must be an integer').min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').default(25),
});

/** GET /api/v1/leads?page=&limit=: the affiliate's own leads, newest first, with status and FTD. */
export async function getLeads(sql: Sql, request: Request, opts: ApiOptions = {}): Promise<Response> {
  const owner = await admit(sql, request, opts);
  if (owner instanceof Response) return owner;
  if (owner.kind !== 'affiliate') return problem(403, 'Listing leads needs an affiliate key');
  const params = new URL(request.url).searchParams;
  const q = ListQuery.safeParse({ page: params.get('page') ?? undefined, limit: params.get('limit') ?? undefined });
  if (!q.success) return problem(422, 'Invalid query', { errors: issues(q.error) });
  const { page, limit } = q.data;
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE affiliate_id = ${owner.userId} AND deleted_at IS NULL`;
  const rows = await sql`
    SELECT id, first_name, last_name, email, phone, country, city, funnel_link, reference, lead_source_id, lead_status,
           created_at, ftd_at, deposited_at, user_id IS NOT NULL AS registered
      FROM leads WHERE affiliate_id = ${owner.userId} AND deleted_at IS NULL
     ORDER BY id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`;
  const iso = (d: unknown) => (d ? (d as Date).toISOString() : null);
  return json(200, {
    data: rows.map((r) => ({
      id: Number(r.id), firstName: r.first_name, lastName: r.last_name, email: r.email, phone: r.phone, country: r.country, city: r.city,
      funnelLink: r.funnel_link, reference: r.reference, leadSourceId: r.lead_source_id, status: r.lead_status,
      registered: r.registered, createdAt: iso(r.created_at), ftdAt: iso(r.ftd_at), depositedAt: iso(r.deposited_at),
    })),
    meta: { page, limit, total: n },
  });
}
