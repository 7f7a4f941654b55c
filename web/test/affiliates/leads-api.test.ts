// The leads API (issue 15): key authentication (never a cookie), validation per field, duplicates by
// normalised email and by phone in E.164 whatever the spelling, batches with partial success,
// idempotency (Idempotency-Key and clientId), the per-key rate limit, the affiliate's own list, and
// concurrent posts of one email creating one lead.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser, postgresStore, sessionFor, testSql, unique, uniqueEmail, uniqueIp } from '../helpers.ts';
import { DUPLICATE_MESSAGE, getLeads, postLeads } from '~/modules/affiliates/leads-api.server.ts';
import { normEmail, phoneE164 } from '~/shared/contact.server.ts';
import { authenticateKey, generateKey, sha256 } from '~/modules/affiliates/keys.server.ts';
import { openApiDocument } from '~/modules/affiliates/openapi.ts';
import { accessFor } from '~/modules/auth/permissions.ts';
import { affiliate, apiGet, apiPost, lead, ukMobile, type Affiliate } from './support.ts';

const sql = testSql(6);
const store = postgresStore(sql);
const post = (req: Request, limit?: { name: string; max: number; windowSeconds: number }) => postLeads(sql, req, { store, limit });
let a: Affiliate, b: Affiliate;

beforeAll(async () => { [a, b] = await Promise.all([affiliate(sql), affiliate(sql)]); });
afterAll(async () => { await sql.end(); });

describe('normalisation', () => {
  test('one UK mobile in every spelling is one E.164 number', () => {
    for (const [raw, cc] of [['+44 7700 900123', 'GB'], ['07700 900123', 'GB'], ['0044 7700 900123', 'GB'], ['+44 (0)7700-900123', undefined], ['0044-7700-900-123', undefined]] as const) {
      expect(phoneE164(raw, cc), raw).toBe('+447700900123');
    }
    expect(phoneE164('12345', 'GB')).toBeNull();
    expect(phoneE164('07700 900123')).toBeNull(); // no country: a national number cannot be read
    expect(normEmail('  Jane.Doe@Example.COM ')).toBe('jane.doe@example.com');
  });
});

describe('keys', () => {
  test('only the sha-256 and a prefix are stored; a new key revokes the old one at once', async () => {
    const u = await createUser(sql, { roleId: 4 });
    const first = await generateKey(sql, u.id, null);
    expect(first.key).toMatch(/^ak_[A-Za-z0-9_-]{40,}$/);
    const rows = await sql`SELECT key_hash, key_prefix, key_encrypted, revoked_at FROM affiliate_api_keys WHERE user_id = ${u.id}`;
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(sha256(first.key));
    expect(rows[0].key_prefix).toBe(first.key.slice(0, 10));
    expect(rows[0].key_encrypted).toBeNull();
    expect(JSON.stringify(rows)).not.toContain(first.key);
    expect(await authenticateKey(sql, first.key)).toMatchObject({ kind: 'affiliate', userId: u.id });

    const second = await generateKey(sql, u.id, null);
    expect(await authenticateKey(sql, first.key)).toBeNull();
    expect((await post(apiPost(first.key, lead()))).status).toBe(401);
    expect((await post(apiPost(second.key, lead()))).status).toBe(201);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM affiliate_api_keys WHERE user_id = ${u.id} AND revoked_at IS NULL`;
    expect(n).toBe(1);
  });

  test('/api/v1/* is outside the pages\' permission map: the key is its only check', () => {
    for (const role of [0, 1, 3, 4]) expect(accessFor('/api/v1/leads', role)).toMatchObject({ allowed: true, area: 'public' });
  });

  test('no key, a wrong key, a cookie instead of a key, a key of a non-affiliate or a deactivated one: 401', async () => {
    expect((await post(apiPost(null, lead()))).status).toBe(401);
    expect((await post(apiPost('ak_nope', lead()))).status).toBe(401);
    const { cookie } = await sessionFor(sql, a.id);
    const r = await post(apiPost(null, lead(), { cookie }));
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('Bearer');
    const gone = await affiliate(sql);
    await sql`UPDATE users SET is_active = false WHERE id = ${gone.id}`;
    expect((await post(apiPost(gone.key, lead()))).status).toBe(401);
    // X-API-Key works as well as Bearer
    expect((await post(apiPost(null, lead(), { 'x-api-key': a.key }))).status).toBe(201);
  });
});

describe('POST /api/v1/leads', () => {
  test('a lead is created, credited to the key\'s affiliate, a live sales lead with its E.164 phone', async () => {
    const l = lead({ email: `  ${unique('Mixed')}@Example.COM `, phone: `0${ukMobile()}`, city: 'London', funnelLink: 'https://ex.com/l', reference: 'r1', leadSourceId: 's1' });
    const r = await post(apiPost(a.key, l));
    expect(r.status).toBe(201);
    const body = await r.json();
    expect(body).toMatchObject({ status: 'created' });
    const [row] = await sql`SELECT * FROM leads WHERE id = ${body.id}`;
    expect(row).toMatchObject({ is_live: true, group: 'sales', lead_status: 'New', country: 'United Kingdom', city: 'London',
      email: normEmail(l.email), phone_e164: `+44${l.phone.slice(1)}`, funnel_link: 'https://ex.com/l', reference: 'r1', lead_source_id: 's1' });
    expect(Number(row.affiliate_id)).toBe(a.id);
  });

  test('each bad field is named with its path (422), and nothing is stored', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ firstName: '' }, 'firstName'], [{ lastName: undefined }, 'lastName'], [{ email: 'not-an-email' }, 'email'],
      [{ phone: '12' }, 'phone'], [{ country: 'Atlantis' }, 'country'], [{ funnelLink: 'javascript:alert(1)' }, 'funnelLink'],
      [{ city: 'x'.repeat(101) }, 'city'], [{ reference: 'x'.repeat(201) }, 'reference'], [{ leadSourceId: 5 }, 'leadSourceId'],
      [{ extra: 'x' }, ''],
    ];
    for (const [over, path] of cases) {
      const l = lead(over);
      const r = await post(apiPost(a.key, l));
      expect(r.status, JSON.stringify(over)).toBe(422);
      const body = await r.json();
      expect(body.errors.map((e: { path: string }) => e.path), JSON.stringify(over)).toContain(path);
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE email = ${normEmail(String(l.email))}`;
      expect(n).toBe(0);
    }
    expect((await post(apiPost(a.key, '{nope'))).status).toBe(400);
    expect((await post(new Request('http://app.test/api/v1/leads', { method: 'POST', body: 'a=1', headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/x-www-form-urlencoded' } }))).status).toBe(415);
    expect((await post(apiPost(a.key, { leads: [] }))).status).toBe(422);
    expect((await post(apiPost(a.key, { leads: [lead({ city: 'x'.repeat(1_100_000) })] }))).status).toBe(413);
    expect((await post(apiPost(a.key, { leads: Array.from({ length: 501 }, () => lead()) }))).status).toBe(422);
  });

  test('duplicates by email (any case and spacing) and by phone in other spellings; one neutral answer whoever holds the contact', async () => {
    const n = ukMobile();
    const first = lead({ phone: `+44 ${n}` });
    const created = await (await post(apiPost(a.key, first))).json();
    expect(created.status).toBe('created');
    // same email, other case and spaces, other phone
    const byEmail = await post(apiPost(a.key, lead({ email: ` ${first.email.toUpperCase()} ` })));
    expect(byEmail.status).toBe(200);
    expect(await byEmail.json()).toEqual({ status: 'duplicate', reason: 'email', message: DUPLICATE_MESSAGE });
    // same phone, written nationally with GB, with 0044, with spaces and dashes
    for (const phone of [`0${n}`, `0044 ${n.slice(0, 4)} ${n.slice(4)}`, `+44-${n.slice(0, 4)}-${n.slice(4)}`]) {
      const r = await post(apiPost(a.key, lead({ phone })));
      expect(await r.json(), phone).toEqual({ status: 'duplicate', reason: 'phone', message: DUPLICATE_MESSAGE });
    }
    // another affiliate gets the very same answer: nothing tells whose contact it is (issue 22)
    const other = await (await post(apiPost(b.key, lead({ phone: `0${n}` })))).json();
    expect(other).toEqual({ status: 'duplicate', reason: 'phone', message: DUPLICATE_MESSAGE });
    // and so does a client's contact (the broker's own lead, no affiliate)
    const client = lead();
    await sql`INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, lead_status, "group", is_live)
              VALUES ('C', 'L', ${normEmail(client.email)}, ${client.phone}, ${phoneE164(client.phone, 'GB')}, 'United Kingdom', 'Client', 'retentions', false)`;
    expect(await (await post(apiPost(a.key, lead({ email: client.email })))).json()).toEqual({ status: 'duplicate', reason: 'email', message: DUPLICATE_MESSAGE });
    // a deleted lead is no longer a duplicate
    await sql`UPDATE leads SET deleted_at = now() WHERE id = ${created.id}`;
    expect((await post(apiPost(b.key, lead({ phone: `0${n}` })))).status).toBe(201);
  });

  test('a batch: created, duplicates (also inside the batch) and rejected items side by side', async () => {
    const x = lead();
    const r = await post(apiPost(a.key, { leads: [x, lead({ email: 'bad' }), { ...lead(), email: x.email.toUpperCase() }, lead(), lead({ phone: x.phone.replace('+44 ', '0') })] }));
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toMatchObject({ created: 2, duplicates: 2, rejected: 1, conflicts: 0 });
    expect(body.results.map((i: { status: string }) => i.status)).toEqual(['created', 'rejected', 'duplicate', 'created', 'duplicate']);
    expect(body.results[1].errors).toEqual([{ path: 'leads.1.email', message: 'Invalid email address' }]);
    expect(body.results[2]).toEqual({ index: 2, status: 'duplicate', reason: 'email', message: DUPLICATE_MESSAGE });
    expect(body.results[4]).toEqual({ index: 4, status: 'duplicate', reason: 'phone', message: DUPLICATE_MESSAGE });
    // an array works as a batch too; all rejected → 422
    expect((await post(apiPost(a.key, [lead({ country: '' })]))).status).toBe(422);
  });

  test('Idempotency-Key: the same body replays the first answer, another body is 409', async () => {
    const idem = unique('idem');
    const body = lead();
    const r1 = await post(apiPost(a.key, body, { 'idempotency-key': idem }));
    expect(r1.status).toBe(201);
    const first = await r1.json();
    // the same body with its keys in another order
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const r2 = await post(apiPost(a.key, reordered, { 'idempotency-key': idem }));
    expect(r2.status).toBe(201);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(await r2.json()).toEqual(first);
    const r3 = await post(apiPost(a.key, lead(), { 'idempotency-key': idem }));
    expect(r3.status).toBe(409);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE email = ${body.email}`;
    expect(n).toBe(1);
    // another affiliate's same idempotency key is theirs alone
    expect((await post(apiPost(b.key, lead(), { 'idempotency-key': idem }))).status).toBe(201);
  });

  test('clientId per lead: a retried lead gets its first result, the same clientId with another lead is a conflict', async () => {
    const cid = unique('cid');
    const l = lead({ clientId: cid });
    const first = await (await post(apiPost(a.key, { leads: [l] }))).json();
    expect(first.results[0]).toMatchObject({ status: 'created', clientId: cid });
    const again = await (await post(apiPost(a.key, { leads: [lead(), l] }))).json();
    expect(again.results[1]).toEqual({ ...first.results[0], index: 1 });
    const conflict = await post(apiPost(a.key, { ...lead(), clientId: cid }));
    expect(conflict.status).toBe(409);
  });

  test('concurrent posts of one email create one lead', async () => {
    const email = uniqueEmail('race');
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(apiPost(a.key, lead({ email }))).then((r) => r.json())));
    expect(answers.filter((x) => x.status === 'created')).toHaveLength(1);
    expect(answers.filter((x) => x.status === 'duplicate')).toHaveLength(4);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE email_norm = ${email} AND deleted_at IS NULL`;
    expect(n).toBe(1);
  });

  test('rate limit per key: 429 with Retry-After, another key unaffected', async () => {
    const limit = { name: unique('rl'), max: 2, windowSeconds: 60 };
    const c = await affiliate(sql);
    expect((await post(apiPost(c.key, lead()), limit)).status).toBe(201);
    expect((await post(apiPost(c.key, lead()), limit)).status).toBe(201);
    const r = await post(apiPost(c.key, lead()), limit);
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post(apiPost(b.key, lead()), limit)).status).toBe(201);
  });
});

describe('wrong keys per address (issue 22)', () => {
  test('failed key attempts are limited per address: then 429 even with a valid key; valid keys do not count; another address is unaffected', async () => {
    const keyFailureLimit = { name: unique('kf'), max: 3, windowSeconds: 60 };
    const ip = uniqueIp(), other = uniqueIp();
    const go = (key: string | null, from = ip) => postLeads(sql, apiPost(key, lead()), { store, keyFailureLimit, ip: from });
    // valid calls are taken back: they never use the allowance up
    for (let i = 0; i < 4; i++) expect((await go(a.key)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await go(`ak_guess_${i}`)).status).toBe(401);
    const refused = await go('ak_guess_4');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // the right key from that address is refused too until the window ends: guessing on is useless
    expect((await go(a.key)).status).toBe(429);
    expect((await getLeads(sql, apiGet(a.key), { store, keyFailureLimit, ip })).status).toBe(429);
    expect((await go(a.key, other)).status).toBe(201);
  });

  test('the address comes from the header web/server.mjs sets when no address is given', async () => {
    const keyFailureLimit = { name: unique('kf'), max: 1, windowSeconds: 60 };
    const header = process.env.CLIENT_IP_HEADER;
    process.env.CLIENT_IP_HEADER = 'x-broker-client-ip';
    try {
      const ip = uniqueIp();
      const go = (key: string) => postLeads(sql, apiPost(key, lead(), { 'x-broker-client-ip': ip }), { store, keyFailureLimit });
      expect((await go('ak_wrong')).status).toBe(401);
      expect((await go('ak_wrong')).status).toBe(429);
    } finally {
      if (header === undefined) delete process.env.CLIENT_IP_HEADER; else process.env.CLIENT_IP_HEADER = header;
    }
  });
});

describe('GET /api/v1/leads', () => {
  test('the affiliate\'s own leads only, paged, with status and FTD', async () => {
    const c = await affiliate(sql);
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await (await post(apiPost(c.key, lead()))).json()).id);
    await post(apiPost(b.key, lead()));
    await sql`UPDATE leads SET ftd_at = now(), lead_status = 'Deposited' WHERE id = ${mine[0]}`;
    const r = await getLeads(sql, apiGet(c.key, '?page=1&limit=2'), { store });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.meta).toEqual({ page: 1, limit: 2, total: 3 });
    expect(body.data.map((l: { id: number }) => l.id)).toEqual([mine[2], mine[1]]);
    const p2 = await (await getLeads(sql, apiGet(c.key, '?page=2&limit=2'), { store })).json();
    expect(p2.data).toHaveLength(1);
    expect(p2.data[0]).toMatchObject({ id: mine[0], status: 'Deposited' });
    expect(p2.data[0].ftdAt).toMatch(/^\d{4}-/);
    expect((await getLeads(sql, apiGet(c.key, '?limit=1000'), { store })).status).toBe(422);
    expect((await getLeads(sql, apiGet(c.key, '?page=x'), { store })).status).toBe(422);
    expect((await getLeads(sql, apiGet(null), { store })).status).toBe(401);
  });
});

describe('the OpenAPI description', () => {
  test('documents both operations, the key headers and every lead field', () => {
    const doc = openApiDocument('http://x');
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths['/api/v1/leads']).sort()).toEqual(['get', 'post']);
    expect(doc.components.securitySchemes.apiKey.name).toBe('X-API-Key');
    expect(Object.keys(doc.components.schemas.Lead.properties)).toEqual(
      ['firstName', 'lastName', 'email', 'phone', 'country', 'city', 'funnelLink', 'reference', 'leadSourceId', 'clientId']);
    for (const code of ['201', '401', '409', '422', '429']) expect(Object.keys(doc.paths['/api/v1/leads'].post.responses)).toContain(code);
  });
});
