// leads.phone_e164 by the one phone rule (issue 15, crm/contact.server.ts): national numbers typed by
// staff in the CRM (add, edit) and by customers at sign-up get their E.164 form from the lead's
// country; the backfill job gives older leads theirs in keyset batches (invalid numbers stay null, a
// rerun rewrites nothing, a held mark is skipped); and the leads API and the CSV import then find
// those leads as duplicates by phone.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser, testSql, unique, uniqueEmail } from '../helpers.ts';
import { uploadRequest } from '../uploads/fixtures.ts';
import { leadPhoneE164, phoneE164, resolveCountry } from '~/shared/contact.server.ts';
import { backfillLeadPhones, backfillStep, restartBackfill } from '~/modules/crm/phone-backfill.server.ts';
import { drainImports, importStatus, queueImport, reasonText } from '~/modules/crm/import.server.ts';
import { receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { postLeads } from '~/modules/affiliates/leads-api.server.ts';
import { loadAuthConfig, provisionCustomer } from '~/modules/auth/auth.server.ts';
import { affiliate, apiPost, type Affiliate } from '../affiliates/support.ts';
import { postgresStore } from '../helpers.ts';
import { crmSupport, type Staff } from './support.ts';

const sql = testSql(4);
const store = postgresStore(sql);
const { staff, act } = crmSupport(sql);
let admin: Staff, aff: Affiliate;

beforeAll(async () => { [admin, aff] = await Promise.all([staff(1), affiliate(sql)]); });
afterAll(async () => { await sql.end(); });

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** Fresh numbers, each a national spelling in its country and its E.164 form. */
function numbers() {
  const de = digits(7), gb = `7700${digits(6)}`, fr = `6${digits(8)}`, es = `6${digits(8)}`, us = `202555${digits(4)}`;
  return {
    de: { phone: `030 ${de}`, country: 'Germany', e164: `+4930${de}` },
    gb: { phone: `0${gb.slice(0, 4)} ${gb.slice(4)}`, country: 'United Kingdom', e164: `+44${gb}` },
    fr: { phone: `0${fr[0]} ${fr.slice(1, 3)} ${fr.slice(3, 5)} ${fr.slice(5, 7)} ${fr.slice(7)}`, country: 'FR', e164: `+33${fr}` },
    es: { phone: `${es.slice(0, 3)} ${es.slice(3, 6)} ${es.slice(6)}`, country: 'Spain', e164: `+34${es}` },
    us: { phone: `(${us.slice(0, 3)}) ${us.slice(3, 6)}-${us.slice(6)}`, country: 'United States', e164: `+1${us}` },
  };
}

/** A lead as a raw SQL writer (an older row, a seed) leaves it: a phone, maybe a key, no rule applied. */
async function rawLead(tok: string, phone: string, country: string, key: string | null = null): Promise<number> {
  const [l] = await sql`
    INSERT INTO leads (first_name, last_name, email, phone, phone_e164, country, lead_status, "group")
    VALUES ('Old', ${tok}, ${uniqueEmail('old')}, ${phone}, ${key}, ${country}, 'New', 'sales') RETURNING id`;
  return Number(l.id);
}

const keyOf = async (id: number) => (await sql`SELECT phone_e164 FROM leads WHERE id = ${id}`)[0].phone_e164 as string | null;

async function importCsv(csv: string): Promise<number> {
  const got = await receiveUploads(sql, uploadRequest([{ name: 'file', file: new TextEncoder().encode(csv), filename: 'leads.csv', type: 'text/csv' }],
    { cookie: admin.cookie, path: '/admin/crm/lead-import' }), { id: admin.id, roleId: 1 }, { file: 'lead_csv' });
  if (!got.ok || !got.files.file) throw new Error('upload refused');
  const q = await queueImport(sql, { id: admin.id }, { id: got.files.file.id });
  if (!q.ok) throw new Error(q.message);
  for (let i = 0; i < 100; i++) {
    await drainImports(sql, { worker: 'phones-test', only: q.id });
    const s = await importStatus(sql, q.id);
    if (s?.status === 'done' || s?.status === 'failed') return q.id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the import did not finish');
}

describe('the contact rules', () => {
  test('a national number in its country, the country as a name or an ISO code', () => {
    for (const n of Object.values(numbers())) expect(leadPhoneE164(n.phone, n.country), n.phone).toBe(n.e164);
    expect(leadPhoneE164('030 1234567', 'DE')).toBe('+49301234567');
    expect(leadPhoneE164('030 1234567', 'DEU')).toBe('+49301234567');
    expect(leadPhoneE164('030 1234567', '')).toBeNull(); // national, no country to read it in
    expect(leadPhoneE164('030 1234567', 'Atlantis')).toBeNull();
    expect(leadPhoneE164('+49 30 1234567', 'Atlantis')).toBe('+49301234567'); // international needs none
    expect(leadPhoneE164('', 'Germany')).toBeNull();
    expect(leadPhoneE164('call me', 'Germany')).toBeNull();
    expect(resolveCountry('germany')).toEqual({ code: 'DE', name: 'Germany' });
    expect(phoneE164('0049 30 1234567')).toBe('+49301234567');
  });
});

describe('staff and sign-up write phone_e164', () => {
  test('add lead with a national number and a country: its E.164 key; edit keeps it right', async () => {
    const tok = unique('ph');
    const n = numbers();
    const add = await act('/admin/crm/sales/all', { intent: 'add', firstName: 'Nat', lastName: tok, email: `${tok}@example.com`, phone: n.de.phone, country: n.de.country, city: '', leadStatus: 'New' }, admin.cookie);
    expect(add.data).toMatchObject({ ok: true });
    const [row] = await sql`SELECT id, phone, phone_e164 FROM leads WHERE last_name = ${tok}`;
    expect(row).toMatchObject({ phone: n.de.phone, phone_e164: n.de.e164 });
    const id = Number(row.id);
    const edit = (over: Record<string, string>) => act('/admin/crm/sales/all', {
      intent: 'edit', id: String(id), firstName: 'Nat', lastName: tok, email: `${tok}@example.com`, phone: n.de.phone, country: n.de.country, city: '', leadStatus: 'New', ...over,
    }, admin.cookie);
    // the same number spelled otherwise (the old trigger emptied the key here)
    const spaced = `${n.de.phone.slice(0, 6)} ${n.de.phone.slice(6)}`;
    expect((await edit({ phone: spaced })).data).toMatchObject({ ok: true });
    expect(await keyOf(id)).toBe(n.de.e164);
    // another national number; then the country alone changes what the number means
    expect((await edit({ phone: n.gb.phone, country: n.gb.country })).data).toMatchObject({ ok: true });
    expect(await keyOf(id)).toBe(n.gb.e164);
    // a country outside the list or no phone: refused like the API refuses them, the key stays
    expect((await edit({ phone: n.gb.phone, country: 'Atlantis' })).status).toBe(400);
    expect((await edit({ phone: '', country: n.gb.country })).status).toBe(400);
    expect(await keyOf(id)).toBe(n.gb.e164);
  });

  test('a sign-up\'s client lead gets the key of the phone and country the customer typed', async () => {
    const n = numbers();
    const u = await createUser(sql, { roleId: 3 });
    const cfg = await loadAuthConfig(sql);
    await sql.begin((tx) => provisionCustomer(tx as never, cfg, u.id, {
      email: u.email, fullName: 'Sign Up', phone: n.fr.phone, country: 'France', city: 'Lyon', address: '1 rue', postalCode: '69001', currency: cfg.currencies[0],
    } as never));
    const [l] = await sql`SELECT phone_e164 FROM leads WHERE user_id = ${u.id}`;
    expect(l.phone_e164).toBe(n.fr.e164);
  });
});

describe('the backfill job', () => {
  test('older leads: national numbers in several countries get their key, invalid ones stay null, wrong keys are corrected; a rerun writes nothing', async () => {
    const tok = unique('bf');
    const n = numbers();
    const ok = await Promise.all(Object.values(n).map(async (x) => ({ id: await rawLead(tok, x.phone, x.country), e164: x.e164 })));
    const invalid = await Promise.all([rawLead(tok, '12', 'Germany'), rawLead(tok, 'call me', 'Spain'), rawLead(tok, '030 1234567', ''), rawLead(tok, '', 'France')]);
    // the old trigger's regex key of a spelling libphonenumber reads otherwise
    const gb = `7700${digits(6)}`;
    const wrong = await rawLead(tok, `+44 (0)${gb}`, 'United Kingdom', `+440${gb}`);
    const stale = await rawLead(tok, '+1 23', 'United States', '+123');

    await restartBackfill(sql);
    const first = await backfillLeadPhones(sql, { wait: true, batch: 500 });
    expect(first.busy).toBe(false);
    for (const x of ok) expect(await keyOf(x.id)).toBe(x.e164);
    for (const id of invalid) expect(await keyOf(id)).toBeNull();
    expect(await keyOf(wrong)).toBe(`+44${gb}`);
    expect(await keyOf(stale)).toBeNull();
    const [mark] = await sql`SELECT last_id FROM lead_phone_backfill WHERE name = 'phone_e164'`;
    expect(Number(mark.last_id)).toBeGreaterThanOrEqual(Math.max(...ok.map((x) => x.id), ...invalid, wrong, stale));

    // a rerun from the first lead: no row of these is written again (same row version)
    const mine = [...ok.map((x) => x.id), ...invalid, wrong, stale];
    const versions = async () => (await sql`SELECT id, xmin::text AS v, phone_e164 FROM leads WHERE id IN ${sql(mine)} ORDER BY id`).map((r) => `${r.id}:${r.v}:${r.phone_e164}`);
    const before = await versions();
    await restartBackfill(sql);
    await backfillLeadPhones(sql, { wait: true });
    expect(await versions()).toEqual(before);
    // caught up: nothing after the mark
    expect(await backfillStep(sql)).toMatchObject({ checked: 0, changed: 0 });
  });

  test('a lead inserted after a run is picked up by the next; a held mark makes a step skip', async () => {
    await backfillLeadPhones(sql, { wait: true });
    const n = numbers();
    const id = await rawLead(unique('bf'), n.es.phone, n.es.country);
    const other = testSql(1);
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => { locked = r; });
      const holder = other.begin(async (tx) => {
        await tx`SELECT 1 FROM lead_phone_backfill WHERE name = 'phone_e164' FOR UPDATE`;
        locked();
        await held;
      });
      await isLocked;
      expect(await backfillStep(sql)).toBeNull();
      expect(await backfillLeadPhones(sql)).toMatchObject({ busy: true, checked: 0 });
      release();
      await holder;
    } finally {
      await other.end();
    }
    await backfillLeadPhones(sql, { wait: true });
    expect(await keyOf(id)).toBe(n.es.e164);
  });

  test('a staff edit between the read and the write of a batch is not overwritten', async () => {
    const n = numbers();
    const id = await rawLead(unique('bf'), n.de.phone, n.de.country, '+490000000');
    // what the edit wrote wins: the batch's UPDATE is guarded on the phone and country it read
    await backfillLeadPhones(sql, { wait: true }); // the mark passes everything so far
    await sql`UPDATE lead_phone_backfill SET last_id = ${id - 1} WHERE name = 'phone_e164'`;
    const other = testSql(1);
    try {
      // the edit holds the row: the batch's UPDATE waits for it, then sees another phone
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => { locked = r; });
      const editor = other.begin(async (tx) => {
        await tx`UPDATE leads SET phone = ${n.gb.phone}, country = ${n.gb.country}, phone_e164 = ${n.gb.e164} WHERE id = ${id}`;
        locked();
        await held;
      });
      await isLocked;
      const step = backfillStep(sql, { batch: 1 });
      await new Promise((r) => setTimeout(r, 200));
      release();
      await editor;
      expect(await step).toMatchObject({ checked: 1, changed: 0 });
    } finally {
      await other.end();
    }
    expect(await keyOf(id)).toBe(n.gb.e164);
  });
});

describe('duplicates against leads typed by staff in national format', () => {
  test('the leads API and the CSV import find a lead added in the CRM as "030 …" in Germany', async () => {
    const tok = unique('dup');
    const n = numbers();
    expect((await act('/admin/crm/sales/all', { intent: 'add', firstName: 'Staff', lastName: tok, email: `${tok}@example.com`, phone: n.de.phone, country: 'Germany', city: '', leadStatus: 'New' }, admin.cookie)).data).toMatchObject({ ok: true });
    const [{ id: staffLead }] = await sql`SELECT id FROM leads WHERE last_name = ${tok}`;

    const intl = `+49 30 ${n.de.e164.slice(5)}`;
    const r = await postLeads(sql, apiPost(aff.key, { firstName: 'Api', lastName: tok, email: uniqueEmail('api'), phone: intl, country: 'DE' }), { store });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ status: 'duplicate', reason: 'phone' });

    // an older lead typed by staff before the rule (no key) is found once the backfill has run
    const older = await rawLead(tok, n.gb.phone, 'United Kingdom');
    await backfillLeadPhones(sql, { wait: true });
    const csv = [
      'firstName,lastName,email,phone,country',
      `Csv,${tok},${uniqueEmail('c1')},0049 30 ${n.de.e164.slice(5)},DE`,
      `Csv,${tok},${uniqueEmail('c2')},+${n.gb.e164.slice(1)},GB`,
      `Csv,${tok},${uniqueEmail('c3')},${n.fr.phone},FR`,
    ].join('\n');
    const importId = await importCsv(`${csv}\n`);
    expect(await importStatus(sql, importId)).toMatchObject({ status: 'done', created: 1, duplicates: 2, errors: 0 });
    const reasons = await sql`SELECT row_no, reason FROM lead_import_errors WHERE import_id = ${importId} ORDER BY row_no`;
    expect(reasons.map((x) => [x.row_no, reasonText(x.reason, (k) => k)])).toEqual([[1, 'Duplicate phone (an existing lead)'], [2, 'Duplicate phone (an existing lead)']]);
    expect(await keyOf(Number(staffLead))).toBe(n.de.e164);
    expect(await keyOf(older)).toBe(n.gb.e164);
  });
});
