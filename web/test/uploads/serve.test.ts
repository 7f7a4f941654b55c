// GET /uploads/:id through its route module: who may read which kind, and the headers that keep
// a browser from treating a file as anything but what it was sniffed as.
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loader } from '~/routes/uploads.$id.ts';
import { receiveUploads, uploadDir, type StoredUpload } from '~/modules/uploads/uploads.server.ts';
import { accessFor } from '~/modules/auth/permissions.ts';
import { createUser, get, sessionFor, settle, testSql, type TestUser } from '../helpers.ts';
import { CSV, PDF, png, uploadRequest } from './fixtures.ts';

// read by env() on first use: the route stores and serves from here
const dir = mkdtempSync(path.join(tmpdir(), 'uploads-serve-'));
process.env.UPLOAD_DIR = dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sql = testSql();
afterAll(() => sql.end());

const users: Record<number, { user: TestUser; cookie: string }> = {};
let alice: { user: TestUser; cookie: string };
let bob: { user: TestUser; cookie: string };
const files: Record<string, StoredUpload> = {};
const PICTURE = png(5, 4);

async function store(u: TestUser, field: string, kind: string, file: Uint8Array, filename: string): Promise<StoredUpload> {
  const r = await receiveUploads(sql, uploadRequest([{ name: field, file, filename }]), { id: u.id, roleId: u.roleId }, { [field]: kind });
  if (!r.ok) throw new Error(r.error.message);
  return r.files[field]!;
}

beforeAll(async () => {
  for (const roleId of [1, 2, 3, 4, 5, 6]) {
    const user = await createUser(sql, { roleId });
    users[roleId] = { user, cookie: (await sessionFor(sql, user.id)).cookie };
  }
  alice = users[3];
  const b = await createUser(sql, { roleId: 3 });
  bob = { user: b, cookie: (await sessionFor(sql, b.id)).cookie };
  files.kyc = await store(alice.user, 'front', 'kyc_front', PICTURE, 'passport "front".png');
  files.proof = await store(alice.user, 'proof', 'deposit_proof', PDF, 'virement reçu.pdf');
  files.logo = await store(users[1].user, 'logo', 'logo', PICTURE, 'logo.png');
  files.leads = await store(users[2].user, 'leads', 'lead_csv', CSV, 'leads.csv');
  files.renamed = await store(alice.user, 'proof', 'deposit_proof', PDF, 'statement.exe');
});

async function open(id: number | string, cookie?: string, headers: Record<string, string> = {}): Promise<Response> {
  const request = get(`/uploads/${id}`, cookie);
  for (const [k, v] of Object.entries(headers)) request.headers.set(k, v);
  return (await settle(loader({ request, params: { id: String(id) }, context: {} }))) as Response;
}

test('UPLOAD_DIR from the environment is where the route stores and reads', () => {
  expect(uploadDir()).toBe(dir);
});

describe('who may read', () => {
  test('a customer reads their own KYC document and deposit proof', async () => {
    const r = await open(files.kyc.id, alice.cookie);
    expect(r.status).toBe(200);
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(PICTURE);
    expect((await open(files.proof.id, alice.cookie)).status).toBe(200);
  });

  test("another customer's id answers 404, the same as an id that does not exist or is not an id", async () => {
    expect((await open(files.kyc.id, bob.cookie)).status).toBe(404);
    expect((await open(files.proof.id, bob.cookie)).status).toBe(404);
    expect((await open(files.leads.id, alice.cookie)).status).toBe(404);
    expect((await open(999_999_999, alice.cookie)).status).toBe(404);
    for (const id of ['abc', '0', '-1', '1.5', '01', '99999999999999999999', '..%2F..%2Fetc%2Fpasswd']) {
      expect((await open(id, alice.cookie)).status, id).toBe(404);
    }
  });

  test('staff by role per kind: proofs to admins and managers, lead files to their importer and admins, KYC documents to admins only', async () => {
    const otherManager = await createUser(sql, { roleId: 2 });
    // a lead file: its importer (a manager, the owner) and admins; never another manager (issue 22)
    expect((await open(files.leads.id, (await sessionFor(sql, otherManager.id)).cookie)).status).toBe(404);
    expect((await open(files.leads.id, users[2].cookie)).status).toBe(200);
    for (const [role, expected] of [[1, 200], [2, 200], [4, 404], [5, 404], [6, 404]] as const) {
      for (const f of [files.proof, files.leads]) {
        expect((await open(f.id, users[role].cookie)).status, `role ${role} on ${f.kind}`).toBe(expected);
      }
    }
    for (const [role, expected] of [[1, 200], [2, 404], [4, 404], [5, 404], [6, 404]] as const) {
      expect((await open(files.kyc.id, users[role].cookie)).status, `role ${role} on kyc_front`).toBe(expected);
    }
  });

  test('an admin signed in as a customer (login-as) reads as that customer, not as staff', async () => {
    const { cookie } = await sessionFor(sql, bob.user.id, { impersonatorId: users[1].user.id });
    expect((await open(files.kyc.id, cookie)).status).toBe(404);
  });

  test('signed out: a private file or an unknown id sends to sign in (the answer does not tell which ids exist)', async () => {
    for (const id of [files.kyc.id, 999_999_999, 'abc']) {
      const r = await open(id);
      expect(r.status, String(id)).toBe(302);
      expect(r.headers.get('location')).toBe('/');
    }
  });

  test('branding is public: a logo is served to visitors and to every role', async () => {
    expect((await open(files.logo.id)).status).toBe(200);
    for (const role of [1, 2, 3, 4, 5, 6]) expect((await open(files.logo.id, users[role].cookie)).status).toBe(200);
  });

  test('a row of a kind the policy no longer knows is served to no one', async () => {
    const [row] = await sql`INSERT INTO uploads (owner_id, kind, original_name, stored_name, mime, size, sha256)
                            VALUES (${alice.user.id}, 'retired_kind', 'a.png', ${'f'.repeat(32) + '.png'}, 'image/png', 1, ${'0'.repeat(64)})
                            RETURNING id`;
    expect((await open(row.id, alice.cookie)).status).toBe(404);
    expect((await open(row.id, users[1].cookie)).status).toBe(404);
  });

  test('a file missing from the disk answers 404, not 500', async () => {
    const f = await store(alice.user, 'back', 'kyc_back', png(2, 2), 'back.png');
    const [row] = await sql`SELECT stored_name FROM uploads WHERE id = ${f.id}`;
    unlinkSync(path.join(dir, row.stored_name));
    expect((await open(f.id, alice.cookie)).status).toBe(404);
  });

  test('the permission map lets every signed-in role through to the module, which decides per file', () => {
    for (const role of [1, 2, 3, 4, 5, 6]) expect(accessFor(`/uploads/${files.kyc.id}`, role)).toMatchObject({ allowed: true, area: 'public' });
  });
});

describe('headers', () => {
  test('an image: its sniffed type, inline, nosniff, a CSP that allows nothing, private and not cached', async () => {
    const r = await open(files.kyc.id, alice.cookie);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('content-length')).toBe(String(PICTURE.length));
    expect(r.headers.get('content-disposition')).toBe(`inline; filename="passport _front_.png"; filename*=UTF-8''passport%20%22front%22.png`);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(r.headers.get('cache-control')).toBe('private, no-store');
    expect(r.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });

  test('documents download as attachments: a PDF proof and a lead CSV', async () => {
    const pdf = await open(files.proof.id, alice.cookie);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="virement re_u.pdf"; filename*=UTF-8''virement%20re%C3%A7u.pdf`);
    expect(pdf.headers.get('x-content-type-options')).toBe('nosniff');
    const csv = await open(files.leads.id, users[1].cookie);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="leads.csv"/);
    expect(csv.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
  });

  test("a download is named with the sniffed type's extension, whatever the name it came with", async () => {
    const r = await open(files.renamed.id, alice.cookie);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="statement.pdf"; filename*=UTF-8''statement.pdf`);
  });

  test('public branding is cacheable by anyone and may be embedded elsewhere (e-mails); an unchanged copy answers 304', async () => {
    const r = await open(files.logo.id);
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(r.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const again = await open(files.logo.id, undefined, { 'if-none-match': r.headers.get('etag')! });
    expect(again.status).toBe(304);
  });
});
