// The CSV lead import (issue 15) against PostgreSQL, through its routes: a file of good rows, bad
// rows, duplicates inside the file (email in another case, phone in other spellings) and of
// existing leads gives exact counts and a report naming each rejected row's reason; BOM and
// semicolon files; a file that is not a CSV refused; agents and affiliates refused; an import
// interrupted after a batch (its process died) resumed by another worker without double rows.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { blockedBy, get, settle, testSql, unique } from '../helpers.ts';
import { uploadRequest, PDF } from '../uploads/fixtures.ts';
import * as importRoute from '~/routes/admin.crm.lead-import.ts';
import * as reportRoute from '~/routes/admin.crm.lead-import.$id.report.ts';
import * as uploadRoute from '~/routes/uploads.$id.ts';
import { claimImport, drainImports, queueImport, runImport, detectDelimiter, reasonText } from '~/modules/crm/import.server.ts';
import { receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { crmSupport, type Staff } from './support.ts';

const sql = testSql();
const { staff, lead } = crmSupport(sql);
let admin: Staff, manager: Staff, agent: Staff, affiliate: Staff;

beforeAll(async () => {
  [admin, manager, agent, affiliate] = await Promise.all([staff(1), staff(2), staff(5), staff(4)]);
});
afterAll(async () => { await sql.end(); });

/** A fresh UK mobile number (07 + 9 digits): national and international spellings of it. */
function mobile() {
  const rest = String(randomInt(100_000_000, 999_999_999));
  return { national: `07${rest.slice(0, 3)} ${rest.slice(3)}`, intl: `+44 7${rest.slice(0, 3)} ${rest.slice(3)}`, zeros: `0044 7${rest}`, e164: `+447${rest}` };
}

async function upload(csv: string | Uint8Array, who: Staff, filename = 'leads.csv') {
  const file = typeof csv === 'string' ? new TextEncoder().encode(csv) : csv;
  const r = await settle(importRoute.action({ request: uploadRequest([{ name: 'file', file, filename, type: 'text/csv' }], { cookie: who.cookie, path: '/admin/crm/lead-import' }), params: {}, context: {} }));
  if (r instanceof Response) return { status: r.status, data: null as any };
  const d = r as { data: any; init: { status?: number } | null };
  return { status: d.init?.status ?? 200, data: d.data };
}

/** An import queued straight through the upload service and queueImport: no request kicks a runner. */
async function queued(csv: string, who: Staff): Promise<{ id: number }> {
  const got = await receiveUploads(sql, uploadRequest([{ name: 'file', file: new TextEncoder().encode(csv), filename: 'leads.csv', type: 'text/csv' }],
    { cookie: who.cookie, path: '/admin/crm/lead-import' }), { id: who.id, roleId: 1 }, { file: 'lead_csv' });
  if (!got.ok || !got.files.file) throw new Error('upload refused');
  const q = await queueImport(sql, { id: who.id }, { id: got.files.file.id });
  if (!q.ok) throw new Error(q.message);
  return { id: q.id };
}

async function status(id: number, who: Staff = admin) {
  const r = await settle(importRoute.loader({ request: get(`/admin/crm/lead-import?id=${id}`, who.cookie), params: {}, context: {} }));
  if (r instanceof Response) return { httpStatus: r.status } as any;
  return (r as { data: { status: any } }).data.status;
}

/** Runs the job until the import is finished. */
async function finished(id: number) {
  for (let i = 0; i < 200; i++) {
    await drainImports(sql, { worker: 'test-worker', only: id });
    const s = await status(id);
    if (s.status === 'done' || s.status === 'failed') return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the import did not finish');
}

async function report(id: number, who: Staff = admin): Promise<{ status: number; text: string }> {
  const r = await settle(reportRoute.loader({ request: get(`/admin/crm/lead-import/${id}/report`, who.cookie), params: { id: String(id) }, context: {} })) as Response;
  return { status: r.status, text: r.status === 200 ? await r.text() : '' };
}

describe('lead CSV import', () => {
  test('exact counts: good rows, bad rows, duplicates in the file and of existing leads; the report names each reason', async () => {
    const tok = unique('Imp');
    const [a, b, c, d, e, existing] = [mobile(), mobile(), mobile(), mobile(), mobile(), mobile()];
    const existingEmail = `${unique('old')}@example.com`;
    await lead(tok, { email: existingEmail });
    await lead(tok, { phone: existing.intl });
    const ada = `${unique('ada')}@example.com`;
    const csv = [
      'firstName,lastName,email,phone,country,city',
      `Ada,${tok},${ada},${a.national},GB,London`, // 1 created
      `Bob,${tok},${unique('bob')}@example.com,${b.intl},United Kingdom,`, // 2 created
      `Cy,${tok},${unique('cy')}@example.com,${c.zeros},GBR,Leeds`, // 3 created
      `Ada2,${tok},  ${ada.toUpperCase()}  ,${d.national},GB,`, // 4 duplicate email in the file
      `Bea,${tok},${unique('bea')}@example.com,${b.national},GB,`, // 5 duplicate phone in the file (other spelling)
      `Old,${tok},${existingEmail.toUpperCase()},${e.national},GB,`, // 6 duplicate email of a lead
      `Ph,${tok},${unique('ph')}@example.com,${existing.national},GB,`, // 7 duplicate phone of a lead
      `,${tok},${unique('x')}@example.com,${mobile().national},GB,`, // 8 no first name
      `Bad,${tok},not-an-email,${mobile().national},GB,`, // 9 bad email
      `Nowhere,${tok},${unique('n')}@example.com,${mobile().national},Atlantis,`, // 10 unknown country
      `Short,${tok},${unique('s')}@example.com,12,GB,`, // 11 bad phone
      '',
    ].join('\r\n');
    const up = await upload(csv, admin);
    expect(up.status).toBe(200);
    expect(up.data.ok).toBe(true);
    const s = await finished(up.data.id);
    expect(s).toMatchObject({ status: 'done', totalRows: 11, rowsRead: 11, created: 3, duplicates: 4, errors: 4 });
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE last_name = ${tok} AND deleted_at IS NULL`;
    expect(n).toBe(2 + 3);
    const [ada1] = await sql`SELECT phone_e164, email_norm, "group", is_live, country FROM leads WHERE email_norm = ${ada}`;
    expect(ada1).toMatchObject({ phone_e164: a.e164, group: 'sales', is_live: false, country: 'United Kingdom' });

    const rep = await report(up.data.id);
    expect(rep.status).toBe(200);
    const lines = rep.text.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Row,Kind,Reason,firstName,lastName,email,phone,country,city');
    const byRow = new Map(lines.slice(1).map((l) => [Number(l.split(',')[0]), l]));
    expect([...byRow.keys()]).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    expect(byRow.get(4)).toContain('Duplicate email (row 1 of the file)');
    expect(byRow.get(5)).toContain('Duplicate phone (row 2 of the file)');
    expect(byRow.get(6)).toContain('Duplicate email (an existing lead)');
    expect(byRow.get(7)).toContain('Duplicate phone (an existing lead)');
    expect(byRow.get(8)).toContain('firstName: First name is required');
    expect(byRow.get(9)).toContain('email: Invalid email address');
    expect(byRow.get(10)).toContain('country: Unknown country');
    expect(byRow.get(11)).toContain('phone: Invalid phone number for this country');

    const [au] = await sql`SELECT actor_id, after FROM audit_events WHERE action = 'lead_import.done' AND target_id = ${String(up.data.id)}`;
    expect(Number(au.actor_id)).toBe(admin.id);
    expect(au.after).toMatchObject({ rows: 11, created: 3, duplicates: 4, errors: 4 });
    const [st] = await sql`SELECT after FROM audit_events WHERE action = 'lead_import.start' AND target_id = ${String(up.data.id)}`;
    expect(st.after).toMatchObject({ file: 'leads.csv', rows: 11 });

    // importing the same file again: everything is a duplicate or an error
    const again = await upload(csv, manager);
    expect(await finished(again.data.id)).toMatchObject({ created: 0, duplicates: 7, errors: 4 });
  });

  test('a UTF-8 BOM and semicolons, with header names spelled otherwise', async () => {
    const tok = unique('Semi');
    expect(detectDelimiter('a;b;"c,d"')).toBe(';');
    expect(detectDelimiter('a,b,"c;d;e"')).toBe(',');
    const csv = `\uFEFFFirst Name;Last Name;E-mail;Phone;Country\n` +
      `Zoë;${tok};${unique('zoe')}@example.com;${mobile().national};GB\n` +
      `"Jean; Luc";${tok};${unique('jl')}@example.com;${mobile().intl};France\n`;
    const up = await upload(csv, manager);
    expect(up.data.ok).toBe(true);
    expect(await finished(up.data.id)).toMatchObject({ status: 'done', totalRows: 2, created: 2, duplicates: 0, errors: 0 });
    const names = await sql`SELECT first_name FROM leads WHERE last_name = ${tok} ORDER BY first_name`;
    expect(names.map((r) => r.first_name)).toEqual(['Jean; Luc', 'Zoë']);
  });

  test('a broken CSV line is rejected alone, naming its line and why; the rows around it are imported', async () => {
    const tok = unique('Broken');
    const csv = [
      'firstName,lastName,email,phone,country',
      `Ann,${tok},${unique('a')}@example.com,${mobile().national},GB`, // row 1, line 2
      `"Bad,${tok},${unique('b')}@example.com,${mobile().national},GB`, // row 2, line 3: a quote never closed
      '',
      `Cat,${tok},${unique('c')}@example.com,${mobile().national},GB`, // row 3, line 5
      `"Dan"x,${tok},${unique('d')}@example.com,${mobile().national},GB`, // row 4, line 6: text after a closing quote
      `Eve,${tok},${unique('e')}@example.com,${mobile().national},GB`, // row 5, line 7
    ].join('\n');
    const up = await upload(csv, admin);
    expect(up.status).toBe(200);
    expect(await finished(up.data.id)).toMatchObject({ status: 'done', totalRows: 5, created: 3, duplicates: 0, errors: 2 });
    const names = await sql`SELECT first_name FROM leads WHERE last_name = ${tok} ORDER BY first_name`;
    expect(names.map((r) => r.first_name)).toEqual(['Ann', 'Cat', 'Eve']);
    const lines = (await report(up.data.id)).text.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[1]).toMatch(/^2,Invalid,"Line 3 of the file cannot be read; A quote is opened and not closed","""Bad,/);
    expect(lines[2]).toMatch(/^4,Invalid,"Line 6 of the file cannot be read; Text follows a closing quote","""Dan""x,/);
    // the parser's own text is not the user's
    expect(lines.join('\n')).not.toMatch(/Quote Not Closed|CSV_/i);
  });

  test('a repeat of an earlier batch\'s row is a duplicate within the file (its row named), not an existing lead', async () => {
    const tok = unique('Later');
    const first = `Ann,${tok},${unique('a')}@example.com,${mobile().national},GB`;
    const phone = mobile();
    const rows = [first, `Bo,${tok},${unique('b')}@example.com,${phone.national},GB`, `Cy,${tok},${unique('c')}@example.com,${mobile().national},GB`,
      first.replace(/^Ann/, 'Ann2'), `Bo2,${tok},${unique('b2')}@example.com,${phone.intl},GB`];
    const up = await queued(`firstName,lastName,email,phone,country\n${rows.join('\n')}\n`, admin);
    expect(await claimImport(sql, 'batches', { only: up.id })).toBe(up.id);
    await runImport(sql, up.id, 'batches', { batch: 3 });
    expect(await status(up.id)).toMatchObject({ status: 'done', created: 3, duplicates: 2 });
    const lines = (await report(up.id)).text.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[1]).toContain('Duplicate email (row 1 of the file)');
    expect(lines[2]).toContain('Duplicate phone (row 2 of the file)');
  });

  test('the report\'s reasons are translated: each part through the reader\'s t', () => {
    const t = (k: string, p?: Record<string, string | number>) => `«${k.replace(/\{\{(\w+)\}\}/g, (_, n) => String(p?.[n]))}»`;
    expect(reasonText(JSON.stringify([{ f: 'email', k: 'Invalid email address' }, { k: 'Duplicate email (row {{row}} of the file)', p: { row: 4 } }]), t))
      .toBe('email: «Invalid email address»; «Duplicate email (row 4 of the file)»');
    expect(reasonText('an older plain reason', t)).toBe('an older plain reason');
  });

  test('a manager\'s import lands in their own scope: they manage the new leads and see them', async () => {
    const tok = unique('Mine');
    const up = await upload(`firstName,lastName,email,phone,country\nMo,${tok},${unique('m')}@example.com,${mobile().national},GB\n`, manager);
    expect(await finished(up.data.id)).toMatchObject({ created: 1 });
    const [row] = await sql`SELECT manager_id FROM leads WHERE last_name = ${tok}`;
    expect(row.manager_id).toBe(manager.id);
    const { ids } = crmSupport(sql);
    expect(await ids('/admin/crm/sales/all', manager.cookie, tok)).toHaveLength(1);
  });

  test('a file that is not a CSV, or a CSV without the lead columns, is refused and nothing is queued', async () => {
    const before = await sql`SELECT count(*)::int AS n FROM lead_imports WHERE created_by = ${admin.id}`;
    const pdf = await upload(PDF, admin, 'leads.csv');
    expect(pdf.status).toBe(422);
    expect(pdf.data.ok).toBe(false);
    const cols = await upload('name,age\nAda,36\n', admin);
    expect(cols.status).toBe(422);
    expect(cols.data.message).toMatch(/must name the columns/);
    const after = await sql`SELECT count(*)::int AS n FROM lead_imports WHERE created_by = ${admin.id}`;
    expect(after[0].n).toBe(before[0].n);
  });

  test('agents and affiliates may not import, poll or read a report', async () => {
    const csv = `firstName,lastName,email,phone,country\nA,B,${unique('r')}@example.com,${mobile().national},GB\n`;
    for (const who of [agent, affiliate]) {
      const r = await upload(csv, who);
      expect(r.status).toBe(403);
    }
    const ok = await upload(csv, admin);
    await finished(ok.data.id);
    for (const who of [agent, affiliate]) {
      expect((await status(ok.data.id, who)).httpStatus).toBe(403);
      expect((await report(ok.data.id, who)).status).toBe(403);
    }
    expect((await settle(importRoute.loader({ request: get('/admin/crm/lead-import?id=abc', admin.cookie), params: {}, context: {} })) as Response).status).toBe(404);
    expect((await report(999_999_999)).status).toBe(404);
  });

  test('an import\'s progress, report and CSV file: its importer and admins only, never another manager (issue 22)', async () => {
    const other = await staff(2);
    const csv = `firstName,lastName,email,phone,country\nA,B,${unique('m')}@example.com,${mobile().national},GB\nBad,Row,not-an-email,${mobile().national},GB\n`;
    const mine = await upload(csv, manager);
    expect(mine.status).toBe(200);
    await finished(mine.data.id);
    // the importer and an admin see it; another manager gets 404 on the status and the report, as for a missing one
    expect(await status(mine.data.id, manager)).toMatchObject({ id: mine.data.id, status: 'done' });
    expect((await report(mine.data.id, manager)).text).toContain('not-an-email');
    expect(await status(mine.data.id, admin)).toMatchObject({ id: mine.data.id });
    expect((await report(mine.data.id, admin)).status).toBe(200);
    expect((await status(mine.data.id, other)).httpStatus).toBe(404);
    expect((await report(mine.data.id, other)).status).toBe(404);
    // the uploaded file itself: the importer (its owner) and admins; not another manager
    const [{ upload_id: uploadId }] = await sql`SELECT upload_id FROM lead_imports WHERE id = ${mine.data.id}`;
    const openFile = async (who: Staff) => (await settle(uploadRoute.loader({ request: get(`/uploads/${uploadId}`, who.cookie), params: { id: String(uploadId) }, context: {} })) as Response).status;
    expect(await openFile(manager)).toBe(200);
    expect(await openFile(admin)).toBe(200);
    expect(await openFile(other)).toBe(404);
  });

  test('an import whose process died after a batch is resumed from where it stopped, without double rows', async () => {
    const tok = unique('Crash');
    const rows = Array.from({ length: 7 }, (_, i) => `N${i},${tok},${unique(`c${i}`)}@example.com,${mobile().national},GB`);
    rows.push(rows[0].replace(/^N0/, 'Again')); // a duplicate of row 1 in a later batch
    // queued without the upload route, whose kick would run it in this process: nothing but this test runs it
    const up = { data: await queued(`firstName,lastName,email,phone,country\n${rows.join('\n')}\n`, admin) };
    // the first worker claims it and dies after one batch of 3
    expect(await claimImport(sql, 'dead-worker', { only: up.data.id })).toBe(up.data.id);
    await runImport(sql, up.data.id, 'dead-worker', { batch: 3, stopAfterBatches: 1 });
    expect(await status(up.data.id)).toMatchObject({ status: 'running', rowsRead: 3, created: 3 });
    // not stale yet: another worker leaves it alone
    expect(await claimImport(sql, 'other', { only: up.data.id })).toBeNull();
    await sql`UPDATE lead_imports SET heartbeat_at = now() - interval '5 minutes' WHERE id = ${up.data.id}`;
    // the dead worker's late batch is refused once another worker owns the import
    const s = await finished(up.data.id);
    expect(s).toMatchObject({ status: 'done', rowsRead: 8, created: 7, duplicates: 1, errors: 0 });
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE last_name = ${tok}`;
    expect(n).toBe(7);
    const [{ attempts }] = await sql`SELECT attempts FROM lead_imports WHERE id = ${up.data.id}`;
    expect(attempts).toBeGreaterThanOrEqual(2);
  });

  test('the import takes the leads API\'s locks: a lead being posted with the same email is waited for and found', async () => {
    const tok = unique('Lock');
    const email = `${unique('lock')}@example.com`;
    const other = testSql(1);
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => { locked = r; });
    let holder = 0;
    // what postLeads does for a new lead: its email's lock, then the insert, committed later
    const poster = other.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`lead-email:${email}`}))`;
      await tx`INSERT INTO leads (first_name, last_name, email, phone, country, city, lead_status, "group", is_live)
               VALUES ('Api', ${tok}, ${email}, ${mobile().intl}, 'United Kingdom', '', 'New', 'sales', true)`;
      holder = (await tx`SELECT pg_backend_pid() AS pid`)[0].pid as number;
      locked();
      await held;
    });
    await isLocked;
    const up = await upload(`firstName,lastName,email,phone,country\nL,${tok},${email.toUpperCase()},${mobile().national},GB\n`, admin);
    const done = finished(up.data.id);
    await blockedBy(holder); // the import waits on the poster's lock
    expect((await status(up.data.id)).created).toBe(0); // waiting on the lock
    release();
    await poster;
    await other.end();
    expect(await done).toMatchObject({ status: 'done', created: 0, duplicates: 1 });
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE last_name = ${tok}`;
    expect(n).toBe(1);
  });

  test('an import that keeps dying is marked failed', async () => {
    const up = await upload(`firstName,lastName,email,phone,country\nA,B,${unique('f')}@example.com,${mobile().national},GB\n`, admin);
    await finished(up.data.id);
    await sql`UPDATE lead_imports SET status = 'running', attempts = 3, heartbeat_at = now() - interval '5 minutes', finished_at = NULL WHERE id = ${up.data.id}`;
    await claimImport(sql, 'x', { only: up.data.id });
    expect(await status(up.data.id)).toMatchObject({ status: 'failed' });
  });
});
