// The upload service's refusals, each leaving nothing behind, and what it keeps when it accepts.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { receiveUploads, type ReceiveResult } from '~/modules/uploads/uploads.server.ts';
import { sniff } from '~/modules/uploads/sniff.server.ts';
import { UPLOAD_KINDS, type FileType } from '~/modules/uploads/kinds.ts';
import { BASE, createUser, testSql, type TestUser } from '../helpers.ts';
import { chunk, concat, CSV, GIF, ICO, JPEG, multipartBody, PDF, png, text, uploadRequest, WEBP, WEBP_LOSSLESS } from './fixtures.ts';

const sql = testSql();
afterAll(() => sql.end());

const dir = mkdtempSync(path.join(tmpdir(), 'uploads-receive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let customer: TestUser;
let admin: TestUser;
beforeAll(async () => {
  customer = await createUser(sql, { roleId: 3 });
  admin = await createUser(sql, { roleId: 1 });
});

const owner = (u: TestUser) => ({ id: u.id, roleId: u.roleId });
const rows = async (u: TestUser) => sql`SELECT * FROM uploads WHERE owner_id = ${u.id} ORDER BY id`;

/** Uploads one file as `field` of `kind` and checks that a refusal left no file and no row. */
async function upload(kind: string, file: Uint8Array, filename = 'file.png', type = 'image/png', u = customer): Promise<ReceiveResult> {
  const before = (await rows(u)).length;
  const files = readdirSync(dir).length;
  const r = await receiveUploads(sql, uploadRequest([{ name: 'doc', file, filename, type }]), owner(u), { doc: kind }, { dir });
  if (!r.ok) {
    expect(readdirSync(dir).length, 'a refused upload leaves no file').toBe(files);
    expect((await rows(u)).length, 'a refused upload leaves no row').toBe(before);
  }
  return r;
}

function refused(r: ReceiveResult) {
  if (r.ok) throw new Error('expected a refusal, the upload was accepted');
  return r.error;
}

describe('refusals', () => {
  test('a file over its kind\'s limit: 413 naming the field and the limit', async () => {
    const big = concat(png(), new Uint8Array(UPLOAD_KINDS.logo.maxBytes));
    const e = refused(await upload('logo', big, 'logo.png', 'image/png', admin));
    expect(e).toMatchObject({ status: 413, field: 'doc', message: 'The file is larger than {{max}}.', params: { max: '2 MB' } });
  });

  test('the parse stops at the first chunk over the limit: an endless body is not read on', async () => {
    const { body: head, boundary } = multipartBody([{ name: 'doc', filename: 'x.png', type: 'image/png', file: png() }]);
    const opening = head.subarray(0, head.indexOf(0x89)); // up to the file's first byte
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      cancel() { cancelled = true; },
      start(c) { c.enqueue(opening); },
      pull(c) {
        pulled += 64 * 1024;
        if (pulled > 200 * 1024 * 1024) c.error(new Error('read far past the limit'));
        else c.enqueue(new Uint8Array(64 * 1024).fill(0x41));
      },
    });
    const request = new Request(BASE + '/kyc', {
      method: 'POST', body: endless, duplex: 'half',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, origin: BASE },
    } as RequestInit);
    const e = refused(await receiveUploads(sql, request, owner(customer), { doc: 'kyc_front' }, { dir }));
    expect(e.status).toBe(413);
    // read ends within a few chunks of the 10 MB limit
    expect(pulled).toBeLessThan(UPLOAD_KINDS.kyc_front.maxBytes + 1024 * 1024);
    // and the rest of the body is cancelled: the server stops receiving it
    await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toBe(true);
  });

  test('the whole body is capped too: part headers that never end are not buffered without bound', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      start(c) { c.enqueue(text('--x\r\nContent-Disposition: form-data; name="doc"; filename="a.png"\r\nX-Pad: ')); },
      pull(c) {
        pulled += 64 * 1024;
        if (pulled > 200 * 1024 * 1024) c.error(new Error('read far past the cap'));
        else c.enqueue(new Uint8Array(64 * 1024).fill(0x41));
      },
    }, { highWaterMark: 0 });
    const request = new Request(BASE + '/kyc', {
      method: 'POST', body, duplex: 'half', headers: { 'content-type': 'multipart/form-data; boundary=x', origin: BASE },
    } as RequestInit);
    const e = refused(await receiveUploads(sql, request, owner(customer), { doc: 'kyc_front' }, { dir }));
    expect(e).toMatchObject({ status: 413, message: 'The form is too large.' });
    expect(pulled).toBeLessThan(UPLOAD_KINDS.kyc_front.maxBytes + 2 * 1024 * 1024);
  });

  test('a declared Content-Length over what the form may hold is refused before reading', async () => {
    let pulled = false;
    const body = new ReadableStream<Uint8Array>({ pull(c) { pulled = true; c.close(); } }, { highWaterMark: 0 });
    const request = new Request(BASE + '/kyc', {
      method: 'POST', body, duplex: 'half',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(50 * 1024 * 1024), origin: BASE },
    } as RequestInit);
    const e = refused(await receiveUploads(sql, request, owner(customer), { doc: 'kyc_front' }, { dir }));
    expect(e).toMatchObject({ status: 413, message: 'The form is too large.' });
    expect(pulled).toBe(false);
  });

  test('the type comes from the bytes: a PDF or text named .png and sent as image/png is refused for a logo', async () => {
    for (const bytes of [PDF, text('GIF? no: just words, not a picture'), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])]) {
      const e = refused(await upload('logo', bytes, 'logo.png', 'image/png', admin));
      expect(e).toMatchObject({ status: 422, field: 'doc', message: 'This file type is not accepted. Allowed: {{types}}.', params: { types: 'PNG, JPEG, WEBP, GIF' } });
    }
    // and a real picture of a type the kind does not take (a GIF as a KYC document)
    expect(refused(await upload('kyc_front', GIF, 'id.jpg', 'image/jpeg')).message).toBe('This file type is not accepted. Allowed: {{types}}.');
  });

  test('SVG is refused, whatever it is called and however it starts', async () => {
    const svgs = [
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>',
      '\uFEFF  \n<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
      '<!DOCTYPE svg><svg/>',
    ];
    for (const s of svgs) {
      for (const kind of ['logo', 'kyc_front', 'lead_csv']) {
        const e = refused(await upload(kind, text(s), 'image.png', 'image/png', admin));
        expect(e, `${kind}: ${s}`).toMatchObject({ status: 422, message: 'SVG and HTML files are not accepted.' });
      }
    }
  });

  test('HTML is refused, a CSV that is HTML included', async () => {
    for (const kind of ['qr_code', 'deposit_proof', 'lead_csv']) {
      const e = refused(await upload(kind, text('<!doctype html><html><body onload="alert(1)">hi</body></html>'), 'leads.csv', 'text/csv', admin));
      expect(e, kind).toMatchObject({ status: 422, message: 'SVG and HTML files are not accepted.' });
    }
  });

  test('polyglots: a PNG signature before HTML, HTML after IEND, HTML in a text chunk, in a JPEG comment, in a GIF comment', async () => {
    const html = '<html><script>alert(1)</script></html>';
    const sig = png().subarray(0, 8);
    const damaged = [concat(sig, text(html)), concat(png(), text(html))];
    for (const bytes of damaged) {
      expect(refused(await upload('logo', bytes, 'logo.png', 'image/png', admin))).toMatchObject({ status: 422, message: 'The file is damaged or incomplete.' });
    }
    const inText = png(4, 3, [chunk('tEXt', `Comment\0${html}`)]);
    // the same chunk with harmless text is fine: the chunk structure is not the reason
    expect((await upload('logo', png(4, 3, [chunk('tEXt', 'Comment\0made by hand')]), 'logo.png', 'image/png', admin)).ok).toBe(true);
    const com = Buffer.alloc(4 + html.length);
    com.writeUInt16BE(0xfffe, 0);
    com.writeUInt16BE(2 + html.length, 2);
    com.write(html, 4, 'latin1');
    const inJpegComment = concat(JPEG.subarray(0, 2), com, JPEG.subarray(2));
    const gifComment = concat(GIF.subarray(0, GIF.length - 1), new Uint8Array([0x21, 0xfe, html.length]), text(html), new Uint8Array([0, 0x3b]));
    for (const bytes of [inText, inJpegComment, gifComment]) {
      expect(refused(await upload('logo', bytes, 'logo.png', 'image/png', admin))).toMatchObject({ status: 422, message: 'SVG and HTML files are not accepted.' });
    }
  });

  test('an empty file is refused; an input left empty is no file at all', async () => {
    expect(refused(await upload('kyc_front', new Uint8Array(0), 'id.png'))).toMatchObject({ status: 422, field: 'doc', message: 'The file is empty.' });
    const r = await receiveUploads(sql, uploadRequest([{ name: 'doc', file: new Uint8Array(0), filename: '' }, { name: 'note', value: 'hello' }]), owner(customer), { doc: 'kyc_front' }, { dir });
    expect(r.ok && r.files.doc).toBeUndefined();
    expect(r.ok && r.form.get('note')).toBe('hello');
  });

  test('path traversal in the name never reaches the disk: the file lands under a random name in UPLOAD_DIR', async () => {
    const target = path.join(dir, '..', 'evil-' + process.pid + '.png');
    for (const name of [`../${path.basename(target)}`, `..\\..\\${path.basename(target)}`, `/etc/../../${path.basename(target)}`]) {
      const r = await upload('kyc_front', png(), name);
      expect(r.ok, name).toBe(true);
      if (!r.ok) continue;
      expect(r.files.doc!.originalName).toBe(path.basename(target));
      const [row] = await sql`SELECT stored_name FROM uploads WHERE id = ${r.files.doc!.id}`;
      expect(row.stored_name).toMatch(/^[0-9a-f]{32}\.png$/);
      expect(existsSync(path.join(dir, row.stored_name))).toBe(true);
    }
    expect(existsSync(target)).toBe(false);
    // names that are only a path step, or carry control characters, are refused
    for (const name of ['..', '.', 'a\tb.png', 'invoice\u202Egpj.exe']) {
      expect(refused(await upload('kyc_front', png(), name)), JSON.stringify(name)).toMatchObject({ status: 422, message: 'The file name is not valid.' });
    }
  });

  test('an unknown kind, a kind the role may not upload, an unexpected file field, two files in one field', async () => {
    expect(refused(await upload('avatar', png()))).toMatchObject({ status: 422, field: 'doc', message: 'Unknown upload kind.' });
    expect(refused(await upload('__proto__', png()))).toMatchObject({ message: 'Unknown upload kind.' });
    expect(refused(await upload('logo', png()))).toMatchObject({ status: 403, message: 'You may not upload this kind of file.' });
    const other = await receiveUploads(sql, uploadRequest([{ name: 'other', file: png(), filename: 'a.png' }]), owner(customer), { doc: 'kyc_front' }, { dir });
    expect(refused(other)).toMatchObject({ status: 422, field: 'other', message: 'Unexpected file.' });
    const two = await receiveUploads(sql, uploadRequest([{ name: 'doc', file: png(), filename: 'a.png' }, { name: 'doc', file: png(), filename: 'b.png' }]), owner(customer), { doc: 'kyc_front' }, { dir });
    expect(refused(two)).toMatchObject({ status: 422, field: 'doc', message: 'Send one file only.' });
  });

  test('a form that is not multipart, or is malformed, answers 400', async () => {
    const urlencoded = new Request(BASE + '/kyc', { method: 'POST', body: new URLSearchParams({ a: 'b' }), headers: { origin: BASE } });
    expect(refused(await receiveUploads(sql, urlencoded, owner(customer), { doc: 'kyc_front' }, { dir }))).toMatchObject({ status: 400, message: 'Send the form as multipart/form-data.' });
    const broken = new Request(BASE + '/kyc', { method: 'POST', body: '--x\r\nContent-Disposition: form-data; name="doc"; filename="a.png\r\n\r\nabc', headers: { origin: BASE, 'content-type': 'multipart/form-data; boundary=x' } });
    expect(refused(await receiveUploads(sql, broken, owner(customer), { doc: 'kyc_front' }, { dir }))).toMatchObject({ status: 400, message: 'The form could not be read.' });
  });

  test('a refusal of the second file removes the first: nothing is kept from a refused form', async () => {
    const before = readdirSync(dir).length;
    const r = await receiveUploads(sql, uploadRequest([
      { name: 'front', file: JPEG, filename: 'front.jpg', type: 'image/jpeg' },
      { name: 'back', file: text('<svg/>'), filename: 'back.jpg', type: 'image/jpeg' },
    ]), owner(customer), { front: 'kyc_front', back: 'kyc_back' }, { dir });
    expect(refused(r)).toMatchObject({ field: 'back', message: 'SVG and HTML files are not accepted.' });
    expect(readdirSync(dir).length).toBe(before);
  });

  test('damaged images and documents: cut short, bad checksum, no end marker', async () => {
    const good = png();
    const badCrc = new Uint8Array(good);
    badCrc[30] ^= 0xff;
    const cases: [string, Uint8Array][] = [
      ['kyc_front', good.subarray(0, good.length - 6)],
      ['kyc_front', badCrc],
      ['kyc_front', JPEG.subarray(0, JPEG.length - 2)],
      ['kyc_front', WEBP.subarray(0, WEBP.length - 4)],
      ['logo', GIF.subarray(0, GIF.length - 1)],
      ['favicon', ICO.subarray(0, ICO.length - 10)],
      ['kyc_front', PDF.subarray(0, PDF.length - 7)],
    ];
    for (const [kind, bytes] of cases) {
      expect(refused(await upload(kind, bytes, 'x.png', 'image/png', admin)), kind).toMatchObject({ status: 422, message: 'The file is damaged or incomplete.' });
    }
  });

  test('image dimensions must be sane', async () => {
    for (const [w, h] of [[0, 5], [20_000, 1], [10_000, 10_000]]) {
      expect(refused(await upload('logo', png(w, h), 'x.png', 'image/png', admin)), `${w}x${h}`).toMatchObject({ status: 422, message: 'The image must be at most {{max}} pixels wide and high.' });
    }
  });

  test('a CSV must be UTF-8 text without NUL or control bytes', async () => {
    for (const bytes of [text('email,name\na@b.c,x\0y\n'), new Uint8Array([0x61, 0x2c, 0xff, 0xfe, 0x0a]), text('a,b\n\u0007bell\n')]) {
      expect(refused(await upload('lead_csv', bytes, 'leads.csv', 'text/csv', admin))).toMatchObject({ status: 422, message: 'The CSV file must be UTF-8 text.' });
    }
  });
});

describe('accepted files', () => {
  test('every accepted type, stored under a random name with its owner, kind, sniffed mime, size and sha256', async () => {
    const cases: [string, Uint8Array, string, FileType][] = [
      ['kyc_front', png(), 'image/png', 'png'],
      ['kyc_back', JPEG, 'image/jpeg', 'jpeg'],
      ['kyc_address', WEBP, 'image/webp', 'webp'],
      ['deposit_proof', WEBP_LOSSLESS, 'image/webp', 'webp'],
      ['deposit_proof', PDF, 'application/pdf', 'pdf'],
      ['qr_code', GIF, 'image/gif', 'gif'],
      ['favicon', ICO, 'image/x-icon', 'ico'],
      ['lead_csv', CSV, 'text/csv; charset=utf-8', 'csv'],
    ];
    for (const [kind, bytes, mime] of cases) {
      // the name and the browser's type are deliberately wrong: neither decides anything
      const r = await upload(kind, bytes, 'Scan (1) – ünïcode.bin', 'application/octet-stream', admin);
      if (!r.ok) throw new Error(`${kind} refused: ${r.error.message}`);
      const f = r.files.doc!;
      expect(f).toMatchObject({ kind, mime, size: bytes.length, originalName: 'Scan (1) – ünïcode.bin' });
      const [row] = await sql`SELECT * FROM uploads WHERE id = ${f.id}`;
      expect(row).toMatchObject({ owner_id: admin.id, kind, mime, size: bytes.length, original_name: 'Scan (1) – ünïcode.bin' });
      expect(row.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(new Uint8Array(readFileSync(path.join(dir, row.stored_name)))).toEqual(bytes);
    }
  });

  test('several files and text fields in one form', async () => {
    const r = await receiveUploads(sql, uploadRequest([
      { name: 'type', value: 'passport' },
      { name: 'front', file: JPEG, filename: 'front.jpg', type: 'image/jpeg' },
      { name: 'back', file: png(), filename: 'back.png', type: 'image/png' },
    ]), owner(customer), { front: 'kyc_front', back: 'kyc_back' }, { dir });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.form.get('type')).toBe('passport');
    expect(r.files.front!.kind).toBe('kyc_front');
    expect(r.files.back!.kind).toBe('kyc_back');
  });
});

describe('sniff', () => {
  test('reports the dimensions of each image format', () => {
    const all: FileType[] = ['png', 'jpeg', 'webp', 'gif', 'ico'];
    expect(sniff(png(4, 3), all)).toEqual({ ok: true, type: 'png', width: 4, height: 3 });
    expect(sniff(JPEG, all)).toEqual({ ok: true, type: 'jpeg', width: 8, height: 6 });
    expect(sniff(WEBP, all)).toEqual({ ok: true, type: 'webp', width: 8, height: 6 });
    expect(sniff(WEBP_LOSSLESS, all)).toEqual({ ok: true, type: 'webp', width: 8, height: 6 });
    expect(sniff(GIF, all)).toEqual({ ok: true, type: 'gif', width: 1, height: 1 });
    expect(sniff(ICO, all)).toEqual({ ok: true, type: 'ico', width: 16, height: 16 });
  });
});
