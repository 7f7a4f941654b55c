// KYC (modules/kyc) through the /kyc and /admin/kyc routes against PostgreSQL, the engine's live
// events mocked at the network boundary: a customer sees and submits only their own documents,
// with their own uploads; a new document only after a decline; only admins read the files and
// decide; a decision is audited, notified and made exactly once whatever races.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { env } from '~/shared/env.server.ts';
import { action as clientAction, loader as clientLoader } from '~/routes/_client.kyc.tsx';
import { action as staffAction, loader as staffLoader } from '~/routes/_staff.admin.kyc.tsx';
import { loader as uploadLoader } from '~/routes/uploads.$id.ts';
import { decideKyc, latestKyc, listKyc, submitKyc, type KycListQuery } from '~/modules/kyc/kyc.server.ts';
import { isKycApproved } from '~/modules/kyc/kyc-gate.server.ts';
import { receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { createUser, get, post, sessionFor, settle, testSql, unique, type TestUser } from '../helpers.ts';
import { PDF, png, uploadRequest, type Part } from '../uploads/fixtures.ts';

// read by env() on first use: the routes store and serve from here
const dir = mkdtempSync(path.join(tmpdir(), 'kyc-'));
process.env.UPLOAD_DIR = dir;

const sql = testSql(12);
const published: { topic: string; event: string; data: { data?: { kind?: string } } }[] = [];
mockServer(
  http.post(`${env().ENGINE_URL}/v1/events`, async ({ request }) => {
    published.push(await request.json() as (typeof published)[number]);
    return HttpResponse.json({ ok: true, id: 1 });
  }),
);
afterEach(() => { published.length = 0; });
afterAll(async () => {
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

interface Who extends TestUser { cookie: string }
async function person(roleId = 3, fullName?: string): Promise<Who> {
  const u = await createUser(sql, { roleId });
  if (fullName) await sql`UPDATE users SET full_name = ${fullName} WHERE id = ${u.id}`;
  return { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
}

/** What a route answered: the status and the Reply (or the thrown Response's status). */
async function answer(p: Promise<unknown>): Promise<{ status: number; body: { ok: boolean; toast?: string | null; values?: Record<string, string>; result?: { error?: Record<string, string[]> } } | null }> {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null };
  return { status: r.init?.status ?? 200, body: r.data as never };
}

const FRONT = png(6, 4);
const submitParts = (over: Partial<Record<'type' | 'front' | 'back' | 'address', Part | null>> = {}): Part[] => {
  const parts: Record<string, Part | null> = {
    type: { name: 'type', value: 'passport' },
    front: { name: 'front', file: FRONT, filename: 'front.png', type: 'image/png' },
    back: null,
    address: null,
    ...over,
  };
  return Object.values(parts).filter((p): p is Part => !!p);
};
const submit = (who: Who, parts = submitParts()) =>
  answer(clientAction({ request: uploadRequest(parts, { cookie: who.cookie, path: '/kyc' }), params: {}, context: {} }));
const pageOf = async (who: Who) => (await clientLoader({ request: get('/kyc', who.cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof clientLoader>>;
const rowsOf = (userId: number) => sql`SELECT id, status, type, front_upload_id, back_upload_id, address_upload_id FROM kyc_documents WHERE user_id = ${userId} ORDER BY id`;
const uploadsOf = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM uploads WHERE owner_id = ${userId}`)[0].n as number;
const filesOnDisk = () => readdirSync(dir).length;

async function store(who: TestUser, kind: string, file: Uint8Array = png(3, 3)) {
  const r = await receiveUploads(sql, uploadRequest([{ name: 'f', file, filename: 'x.png' }]), { id: who.id, roleId: who.roleId }, { f: kind });
  if (!r.ok) throw new Error(r.error.message);
  return r.files.f!.id;
}

const decide = (who: Who, form: Record<string, string>) =>
  answer(staffAction({ request: post('/admin/kyc', form, { cookie: who.cookie }), params: {}, context: {} }));

let admin: Who;
beforeAll(async () => {
  admin = await person(1);
});

describe('the customer submits', () => {
  test('the form with no document; after submitting, the pending document with its files, and only their own', async () => {
    const alice = await person();
    const bob = await person();
    expect((await pageOf(alice)).document).toBeNull();
    const r = await submit(alice, submitParts({
      back: { name: 'back', file: png(5, 5), filename: 'back.png', type: 'image/png' },
      address: { name: 'address', file: PDF, filename: 'bill.pdf', type: 'application/pdf' },
    }));
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Documents submitted successfully' } });
    const doc = (await pageOf(alice)).document!;
    expect(doc).toMatchObject({ type: 'passport', status: 'pending', declineReason: null });
    expect(doc.files.front).toMatchObject({ name: 'front.png', image: true });
    expect(doc.files.back).toMatchObject({ name: 'back.png', image: true });
    expect(doc.files.address).toMatchObject({ name: 'bill.pdf', image: false });
    const [row] = await rowsOf(alice.id);
    const kinds = await sql`SELECT id, kind, owner_id FROM uploads WHERE id IN (${row.front_upload_id}, ${row.back_upload_id}, ${row.address_upload_id}) ORDER BY kind`;
    expect(kinds.map((k) => [k.kind, Number(k.owner_id)])).toEqual([['kyc_address', alice.id], ['kyc_back', alice.id], ['kyc_front', alice.id]]);
    // Bob sees nothing of Alice's
    expect((await pageOf(bob)).document).toBeNull();
    expect(await latestKyc(sql, bob.id)).toBeNull();
  });

  test('the type is required and must be one of the three; nothing is kept of a refused form', async () => {
    const c = await person();
    const files = filesOnDisk();
    for (const type of [null, { name: 'type', value: '' }, { name: 'type', value: 'selfie' }]) {
      const r = await submit(c, submitParts({ type }));
      expect(r.status, JSON.stringify(type)).toBe(400);
      expect(r.body).toMatchObject({ ok: false, toast: 'Document type is required', result: { error: { type: ['Document type is required'] } } });
    }
    expect(await rowsOf(c.id)).toHaveLength(0);
    expect(await uploadsOf(c.id)).toBe(0);
    expect(filesOnDisk()).toBe(files);
  });

  test('at least the front side is required (a deliberate addition to the spec): back and address alone are refused', async () => {
    const c = await person();
    const r = await submit(c, submitParts({ front: null, back: { name: 'back', file: png(), filename: 'back.png' } }));
    expect(r).toMatchObject({ status: 400, body: { ok: false, toast: 'Front side is required', result: { error: { front: ['Front side is required'] } } } });
    // an empty file input is no file
    const empty = await submit(c, submitParts({ front: { name: 'front', file: new Uint8Array(0), filename: '' } }));
    expect(empty.body).toMatchObject({ ok: false, toast: 'Front side is required' });
    expect(await rowsOf(c.id)).toHaveLength(0);
    expect(await uploadsOf(c.id)).toBe(0);
  });

  test("the upload service's refusal is answered under the field, with its values", async () => {
    const c = await person();
    const r = await submit(c, submitParts({ front: { name: 'front', file: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), filename: 'x.png' } }));
    expect(r).toMatchObject({ status: 422, body: { ok: false, toast: 'SVG and HTML files are not accepted.', result: { error: { front: ['SVG and HTML files are not accepted.'] } } } });
    const gif = await submit(c, submitParts({ front: { name: 'front', file: new Uint8Array(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')), filename: 'x.gif' } }));
    expect(gif).toMatchObject({ status: 422, body: { toast: 'This file type is not accepted. Allowed: {{types}}.', values: { types: 'PNG, JPEG, WEBP, PDF' } } });
    expect(await rowsOf(c.id)).toHaveLength(0);
  });

  test("another customer's upload, or an upload of another kind, cannot be attached to my KYC", async () => {
    const me = await person();
    const other = await person();
    const theirs = await store(other, 'kyc_front');
    const mineProof = await store(me, 'deposit_proof', PDF);
    const mine = await store(me, 'kyc_front');
    expect(await submitKyc(sql, { userId: me.id, type: 'passport', front: theirs })).toMatchObject({ ok: false, status: 400, message: 'File not found', field: 'front' });
    expect(await submitKyc(sql, { userId: me.id, type: 'passport', front: mineProof })).toMatchObject({ ok: false, message: 'File not found', field: 'front' });
    expect(await submitKyc(sql, { userId: me.id, type: 'passport', front: mine, back: theirs })).toMatchObject({ ok: false, message: 'File not found', field: 'back' });
    expect(await submitKyc(sql, { userId: me.id, type: 'passport', front: mine, address: 999_999_999 })).toMatchObject({ ok: false, field: 'address' });
    expect(await submitKyc(sql, { userId: me.id, type: 'passport', front: -1 })).toMatchObject({ ok: false, field: 'front' });
    expect(await rowsOf(me.id)).toHaveLength(0);
    // through the page: an id posted as a text field is not a file
    const r = await submit(me, submitParts({ front: { name: 'front', value: String(theirs) } }));
    expect(r.body).toMatchObject({ ok: false, toast: 'Front side is required' });
    expect(await rowsOf(me.id)).toHaveLength(0);
    // the own upload of the right kind is accepted
    expect(await submitKyc(sql, { userId: me.id, type: 'national_id', front: mine })).toMatchObject({ ok: true });
  });

  test('no new document while one is under review or approved; after a decline, a new row (the old one stays)', async () => {
    const c = await person();
    expect((await submit(c)).body).toMatchObject({ ok: true });
    const uploads = await uploadsOf(c.id);
    const files = filesOnDisk();
    const again = await submit(c);
    expect(again).toMatchObject({ status: 409, body: { ok: false, toast: 'Your documents are under review' } });
    expect(await uploadsOf(c.id)).toBe(uploads); // refused before any file was received
    expect(filesOnDisk()).toBe(files);
    const mine = await store(c, 'kyc_front');
    expect(await submitKyc(sql, { userId: c.id, type: 'passport', front: mine })).toMatchObject({ ok: false, status: 409, message: 'Your documents are under review' });

    const [first] = await rowsOf(c.id);
    expect((await decideKyc(sql, { id: Number(first.id), actorId: admin.id, decision: 'decline', from: 'pending', reason: 'Blurry photo' })).ok).toBe(true);
    const page = await pageOf(c);
    expect(page.document).toMatchObject({ id: Number(first.id), status: 'declined', declineReason: 'Blurry photo' });

    expect((await submit(c, submitParts({ type: { name: 'type', value: 'driver_license' } }))).body).toMatchObject({ ok: true });
    const rows = await rowsOf(c.id);
    expect(rows.map((r) => [r.status, r.type])).toEqual([['declined', 'passport'], ['pending', 'driver_license']]);
    expect((await pageOf(c)).document).toMatchObject({ id: Number(rows[1].id), status: 'pending' });

    expect((await decideKyc(sql, { id: Number(rows[1].id), actorId: admin.id, decision: 'approve', from: 'pending' })).ok).toBe(true);
    expect(await submit(c)).toMatchObject({ status: 409, body: { toast: 'Your KYC is already approved' } });
    expect(await rowsOf(c.id)).toHaveLength(2);
  });

  test('two submissions at once make one document', async () => {
    const c = await person();
    const ids = await Promise.all([store(c, 'kyc_front'), store(c, 'kyc_front'), store(c, 'kyc_front')]);
    const results = await Promise.all(ids.map((front) => submitKyc(sql, { userId: c.id, type: 'passport', front })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.message)).toEqual(['Your documents are under review', 'Your documents are under review']);
    expect(await rowsOf(c.id)).toHaveLength(1);
  });
});

describe('the files', () => {
  test("served to their owner and to admins only: another customer's GET of my KYC file is refused, as are managers and agents", async () => {
    const owner = await person();
    const other = await person();
    expect((await submit(owner)).body).toMatchObject({ ok: true });
    const doc = (await latestKyc(sql, owner.id))!;
    const open = async (who: Who) => ((await settle(uploadLoader({ request: get(`/uploads/${doc.files.front!.id}`, who.cookie), params: { id: String(doc.files.front!.id) }, context: {} }))) as Response).status;
    expect(await open(owner)).toBe(200);
    expect(await open(admin)).toBe(200);
    expect(await open(other)).toBe(404);
    for (const role of [2, 4, 5, 6]) expect(await open(await person(role)), `role ${role}`).toBe(404);
  });
});

describe('staff decide', () => {
  async function pending(name?: string) {
    const c = await person(3, name);
    expect((await submit(c)).body).toMatchObject({ ok: true });
    const [row] = await rowsOf(c.id);
    return { c, id: Number(row.id) };
  }

  test('only the admin opens the list and decides: managers, agents, affiliates and customers are refused', async () => {
    const { id } = await pending();
    for (const role of [2, 3, 4, 5, 6]) {
      const who = await person(role);
      expect((await settle(staffLoader({ request: get('/admin/kyc', who.cookie), params: {}, context: {} })) as Response).status, `role ${role}`).toBe(403);
      expect((await decide(who, { intent: 'approve', id: String(id), from: 'pending' })).status, `role ${role}`).toBe(403);
    }
    expect((await sql`SELECT status FROM kyc_documents WHERE id = ${id}`)[0].status).toBe('pending');
    // an admin signed in as a customer (login-as) is not staff
    const { cookie } = await sessionFor(sql, (await createUser(sql)).id, { impersonatorId: admin.id });
    expect((await decide({ ...admin, cookie }, { intent: 'approve', id: String(id), from: 'pending' })).status).toBe(403);
  });

  test('approve: audited with before and after, the customer notified (row and live event), verified at once', async () => {
    const { c, id } = await pending();
    expect(await isKycApproved(sql, c.id)).toBe(false);
    const r = await decide(admin, { intent: 'approve', id: String(id), from: 'pending' });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Document approved successfully' } });
    expect(await isKycApproved(sql, c.id)).toBe(true);
    const [doc] = await sql`SELECT status, decided_by, decided_at FROM kyc_documents WHERE id = ${id}`;
    expect(doc).toMatchObject({ status: 'approved', decided_by: admin.id });
    const audits = await sql`SELECT actor_id, action, target_kind, before, after FROM audit_events WHERE target_kind = 'kyc_document' AND target_id = ${String(id)}`;
    expect(audits).toEqual([{ actor_id: admin.id, action: 'kyc.approve', target_kind: 'kyc_document', before: { status: 'pending', declineReason: null }, after: { status: 'approved', declineReason: null, userId: c.id, type: 'passport' } }]);
    const notes = await sql`SELECT title, url, data FROM notifications WHERE user_id = ${c.id}`;
    expect(notes).toEqual([{ title: 'KYC approved', url: '/kyc', data: { kind: 'kyc.decided', id, decision: 'approved', reason: null } }]);
    // (the admins were told of the upload: kyc.submitted)
    expect(published.filter((p) => p.data.data?.kind !== 'kyc.submitted')).toMatchObject([{ topic: `user:${c.id}`, event: 'notification', data: { data: { kind: 'kyc.decided' } } }]);
    // approve is not offered (nor accepted) on an approved document
    expect(await decide(admin, { intent: 'approve', id: String(id), from: 'approved' })).toMatchObject({ status: 409, body: { toast: 'This document was already approved' } });
  });

  test('decline requires a reason (bounded), keeps it, and is offered on an approved document too', async () => {
    const { c, id } = await pending();
    for (const reason of [undefined, '', '   ']) {
      const form: Record<string, string> = { intent: 'decline', id: String(id), from: 'pending' };
      if (reason !== undefined) form.declineReason = reason;
      const r = await decide(admin, form);
      expect(r.status, JSON.stringify(reason)).toBe(400);
      expect(r.body).toMatchObject({ ok: false, toast: 'Decline reason is required', result: { error: { declineReason: ['Decline reason is required'] } } });
    }
    const long = await decide(admin, { intent: 'decline', id: String(id), from: 'pending', declineReason: 'x'.repeat(501) });
    expect(long).toMatchObject({ status: 400, body: { toast: 'Decline reason allows at most 500 characters' } });
    expect(await decideKyc(sql, { id, actorId: admin.id, decision: 'decline', from: 'pending', reason: ' ' })).toMatchObject({ ok: false, field: 'declineReason' });
    expect((await sql`SELECT status FROM kyc_documents WHERE id = ${id}`)[0].status).toBe('pending');
    expect(await sql`SELECT 1 FROM audit_events WHERE target_kind = 'kyc_document' AND target_id = ${String(id)}`).toHaveLength(0);

    expect((await decide(admin, { intent: 'approve', id: String(id), from: 'pending' })).body).toMatchObject({ ok: true });
    const r = await decide(admin, { intent: 'decline', id: String(id), from: 'approved', declineReason: '  The photo is expired  ' });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'KYC declined successfully' } });
    expect((await sql`SELECT status, decline_reason FROM kyc_documents WHERE id = ${id}`)[0]).toEqual({ status: 'declined', decline_reason: 'The photo is expired' });
    expect(await isKycApproved(sql, c.id)).toBe(false);
    const [note] = await sql`SELECT title, description, data FROM notifications WHERE user_id = ${c.id} ORDER BY id DESC LIMIT 1`;
    expect(note).toEqual({ title: 'KYC declined', description: 'Reason: The photo is expired', data: { kind: 'kyc.decided', id, decision: 'declined', reason: 'The photo is expired' } });
  });

  test('bad ids and bad input are answered, never a 500, and change nothing', async () => {
    const { id } = await pending();
    for (const form of [
      { intent: 'approve', id: 'abc', from: 'pending' } as Record<string, string>, { intent: 'approve', id: '-1', from: 'pending' }, { intent: 'approve', id: String(id), from: 'maybe' },
      { intent: 'approve', id: String(id) }, { intent: 'delete', id: String(id) }, { intent: 'approve', id: '99999999999999999999', from: 'pending' },
    ]) {
      const r = await decide(admin, form);
      expect(r.status, JSON.stringify(form)).toBe(400);
      expect(r.body?.ok).toBe(false);
    }
    expect(await decide(admin, { intent: 'approve', id: '999999999', from: 'pending' })).toMatchObject({ status: 404, body: { toast: 'Document not found' } });
    expect((await sql`SELECT status FROM kyc_documents WHERE id = ${id}`)[0].status).toBe('pending');
  });

  test('concurrent approve and decline: one decision, the other is told what happened', async () => {
    for (let i = 0; i < 5; i++) {
      const { c, id } = await pending();
      const admins = await Promise.all([person(1), person(1)]);
      const results = await Promise.all([
        decideKyc(sql, { id, actorId: admins[0].id, decision: 'approve', from: 'pending' }),
        decideKyc(sql, { id, actorId: admins[1].id, decision: 'decline', from: 'pending', reason: 'Not readable' }),
      ]);
      const won = results.filter((r) => r.ok);
      expect(won).toHaveLength(1);
      const lost = results.find((r) => !r.ok)!;
      const [doc] = await sql`SELECT status FROM kyc_documents WHERE id = ${id}`;
      expect(lost).toMatchObject({ ok: false, status: 409, message: doc.status === 'approved' ? 'This document was already approved' : 'This document was already declined' });
      expect(await sql`SELECT 1 FROM audit_events WHERE target_kind = 'kyc_document' AND target_id = ${String(id)}`).toHaveLength(1);
      expect(await sql`SELECT 1 FROM notifications WHERE user_id = ${c.id}`).toHaveLength(1);
    }
  });

  test("only a customer's latest document is decided: an older one is refused, changing nothing", async () => {
    const { c, id } = await pending();
    expect((await decideKyc(sql, { id, actorId: admin.id, decision: 'decline', from: 'pending', reason: 'Blurry' })).ok).toBe(true);
    expect((await submit(c)).body).toMatchObject({ ok: true });
    expect(await decideKyc(sql, { id, actorId: admin.id, decision: 'approve', from: 'declined' })).toMatchObject({ ok: false, status: 409, message: 'The customer has submitted a newer document' });
    expect(await decideKyc(sql, { id, actorId: admin.id, decision: 'decline', from: 'declined', reason: 'again' })).toMatchObject({ ok: false, status: 409 });
    expect((await rowsOf(c.id)).map((r) => r.status)).toEqual(['declined', 'pending']);
    expect(await isKycApproved(sql, c.id)).toBe(false);
  });
});

describe('the staff list', () => {
  const base: KycListQuery = { offset: 0, limit: 15, sort: 'id', dir: 'desc', search: '', status: 'all', dateStart: '', dateEnd: '' };

  test('every document with its customer and files, filtered by status, name or e-mail prefix and upload date; older ones marked', async () => {
    const tag = unique('Kycname');
    const a = await person(3, `${tag} Alpha`);
    const b = await person(3, `${tag} Beta`);
    expect((await submit(a)).body).toMatchObject({ ok: true });
    const [first] = await rowsOf(a.id);
    await decideKyc(sql, { id: Number(first.id), actorId: admin.id, decision: 'decline', from: 'pending', reason: 'Blurry' });
    expect((await submit(a)).body).toMatchObject({ ok: true });
    expect((await submit(b)).body).toMatchObject({ ok: true });

    const mine = await listKyc(sql, { ...base, search: tag.toLowerCase() });
    expect(mine.total).toBe(3);
    expect(mine.rows.map((r) => [r.fullName, r.status, r.latest])).toEqual([
      [`${tag} Beta`, 'pending', true], [`${tag} Alpha`, 'pending', true], [`${tag} Alpha`, 'declined', false],
    ]);
    expect(mine.rows[2]).toMatchObject({ declineReason: 'Blurry', email: a.email, type: 'passport' });
    expect(mine.rows[0].files.front).toMatchObject({ image: true, name: 'front.png' });
    expect((await listKyc(sql, { ...base, search: tag.toUpperCase(), status: 'declined' })).rows.map((r) => r.id)).toEqual([Number(first.id)]);
    expect((await listKyc(sql, { ...base, search: b.email.slice(0, 12) })).rows.map((r) => r.userId)).toContain(b.id);
    expect((await listKyc(sql, { ...base, search: `${tag} Alp` })).total).toBe(2);
    // LIKE's wildcards are literal
    expect((await listKyc(sql, { ...base, search: '%' })).total).toBe(0);
    expect((await listKyc(sql, { ...base, search: `${tag}_` })).total).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await listKyc(sql, { ...base, search: tag, dateStart: today, dateEnd: today })).total).toBe(3);
    expect((await listKyc(sql, { ...base, search: tag, dateEnd: '2000-01-01' })).total).toBe(0);
    const asc = await listKyc(sql, { ...base, search: tag, sort: 'created_at', dir: 'asc', limit: 15 });
    expect(asc.rows.map((r) => r.status)).toEqual(['declined', 'pending', 'pending']);
    const page2 = await listKyc(sql, { ...base, search: tag, limit: 2, offset: 2 });
    expect(page2.rows.map((r) => r.id)).toEqual([Number(first.id)]);
  });

  test('the page reads its URL: filters, sort and page; a bad date is a 400 naming the field', async () => {
    const tag = unique('Kycurl');
    const c = await person(3, `${tag} One`);
    expect((await submit(c)).body).toMatchObject({ ok: true });
    const open = (qs: string) => settle(staffLoader({ request: get(`/admin/kyc?${qs}`, admin.cookie), params: {}, context: {} }));
    const r = (await open(`search=${encodeURIComponent(tag)}&status=pending&sort=created_at&dir=asc&limit=25`)) as Awaited<ReturnType<typeof staffLoader>>;
    expect(r).toMatchObject({ total: 1, status: 'pending', range: { dateStart: '', dateEnd: '' } });
    expect(r.rows[0]).toMatchObject({ userId: c.id, latest: true });
    const junk = (await open(`search=${encodeURIComponent(tag)}&status=nonsense&sort=password_hash&limit=9999&page=-4`)) as Awaited<ReturnType<typeof staffLoader>>;
    expect(junk).toMatchObject({ total: 1, status: 'all' });
    const bad = (await open('dateStart=2024-02-30')) as Response;
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-invalid-field')).toBe('dateStart');
  });
});
