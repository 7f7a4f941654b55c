// The admin's external payments: add (a logo through the upload service, name, an http(s) link,
// optional custom label and value), edit, delete, each audited; the customer's Deposit tab shows them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser, get, post, sessionFor, settle, testSql, unique, type TestUser } from '../helpers.ts';
import { PDF, png, uploadRequest, type Part } from '../uploads/fixtures.ts';
import * as route from '~/routes/_staff.admin.externalPayments.tsx';
import { depositForm } from '~/modules/money/deposits.server.ts';
import { readLink } from '~/modules/gateways/external-schemas.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'external-payments-'));
process.env.UPLOAD_DIR = dir;
const sql = testSql();
let admin: TestUser & { cookie: string };
beforeAll(async () => {
  const u = await createUser(sql, { roleId: 1 });
  admin = { ...u, cookie: (await sessionFor(sql, u.id)).cookie };
});
afterAll(async () => {
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

type Answer = { status: number; body: { ok: boolean; toast?: string | null; result?: { error?: Record<string, string[]> } } | null };
async function answer(p: Promise<unknown>): Promise<Answer> {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null };
  return { status: r.init?.status ?? 200, body: r.data as never };
}
const LOGO: Part = { name: 'logo', file: png(6, 6), filename: 'logo.png', type: 'image/png' };
const send = (fields: Record<string, string>, files: Part[] = [], cookie = admin.cookie) => answer(route.action({
  request: uploadRequest([{ name: 'intent', value: 'save' }, ...Object.entries(fields).map(([name, value]) => ({ name, value })), ...files], { cookie, path: '/admin/externalPayments' }),
  params: {}, context: {},
}));
const remove = (id: string, cookie = admin.cookie) =>
  answer(route.action({ request: post('/admin/externalPayments', { intent: 'delete', id }, { cookie }), params: {}, context: {} }));
const byName = async (name: string) => (await sql`SELECT * FROM external_payments WHERE name = ${name}`)[0];
const audits = async (id: number) => sql`SELECT action, before, after, actor_id FROM audit_events WHERE target_kind = 'external_payment' AND target_id = ${String(id)} ORDER BY id`;
const list = async (search = '', cookie = admin.cookie) =>
  (await route.loader({ request: get(`/admin/externalPayments?search=${encodeURIComponent(search)}`, cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof route.loader>>;

describe('external payments', () => {
  test('add with a logo, edit (the logo kept or replaced), delete: toasts and audit rows', async () => {
    const name = unique('Skrill ');
    const r = await send({ name, link: 'https://pay.example.com/skrill', customLabel: 'Account', customValue: 'pay@broker.example' }, [LOGO]);
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'External payment added successfully' } });
    const row = await byName(name);
    expect(row).toMatchObject({ link: 'https://pay.example.com/skrill', custom_label: 'Account', custom_value: 'pay@broker.example' });
    expect(row.logo_path).toMatch(/^\/uploads\/\d+$/);
    const [up] = await sql`SELECT kind FROM uploads WHERE id = ${Number(row.logo_path.split('/')[2])}`;
    expect(up.kind).toBe('external_payment_logo');

    // listed, with the logo's URL
    const page = await list(name.slice(0, 8));
    expect(page.rows.find((x) => x.name === name)).toMatchObject({ id: Number(row.id), logo: row.logo_path, customLabel: 'Account' });

    // edit without a logo keeps it
    const e = await send({ id: String(row.id), name, link: 'http://pay.example.com/new', customLabel: '', customValue: '' });
    expect(e.body).toMatchObject({ ok: true, toast: 'External payment updated successfully' });
    expect(await byName(name)).toMatchObject({ link: 'http://pay.example.com/new', logo_path: row.logo_path, custom_label: null, custom_value: null });
    // edit with a new logo replaces it
    await send({ id: String(row.id), name, link: 'http://pay.example.com/new' }, [{ ...LOGO, file: png(9, 9) }]);
    const replaced = (await byName(name)).logo_path;
    expect(replaced).toMatch(/^\/uploads\/\d+$/);
    expect(replaced).not.toBe(row.logo_path);

    const d = await remove(String(row.id));
    expect(d.body).toMatchObject({ ok: true, toast: 'Payment deleted successfully' });
    expect(await byName(name)).toBeUndefined();
    const a = await audits(Number(row.id));
    expect(a.map((x) => x.action)).toEqual(['external_payment.create', 'external_payment.update', 'external_payment.update', 'external_payment.delete']);
    expect(a[0].after).toMatchObject({ name, link: 'https://pay.example.com/skrill' });
    expect(a[1].before).toMatchObject({ link: 'https://pay.example.com/skrill' });
    expect(a[1].after).toMatchObject({ link: 'http://pay.example.com/new' });
    expect(a[3].before).toMatchObject({ name });
    expect(a.every((x) => Number(x.actor_id) === admin.id)).toBe(true);
  });

  test('logo, name and link are required; the link is http or https; nothing is stored', async () => {
    const count = async () => (await sql`SELECT count(*)::int AS n FROM uploads WHERE owner_id = ${admin.id}`)[0].n as number;
    const n = await count();
    const name = unique('Bad ');
    const noLogo = await send({ name, link: 'https://x.example.com' });
    expect(noLogo.status).toBe(400);
    expect(noLogo.body?.result?.error?.logo).toEqual(['Logo is required']);
    for (const [link, msg] of [['', 'Link is required'], ['ftp://x.example.com', 'Link must be an http or https address'],
      ['javascript:alert(1)', 'Link must be an http or https address'], ['https://', 'Link must be an http or https address'],
      ['https://user:pw@x.example.com', 'Link must be an http or https address']]) {
      const r = await send({ name, link }, [LOGO]);
      expect(r.status, link).toBe(400);
      expect(r.body?.result?.error?.link, link).toEqual([msg]);
    }
    const noName = await send({ name: '  ', link: 'https://x.example.com' }, [LOGO]);
    expect(noName.body?.result?.error?.name).toEqual(['Name is required']);
    expect((await send({ name: 'x'.repeat(121), link: 'https://x.example.com' }, [LOGO])).body?.result?.error?.name).toEqual(['Name allows at most 120 characters']);
    expect(await byName(name)).toBeUndefined();
    expect(await count()).toBe(n); // refused forms leave no upload behind
    expect(readLink('HTTPS://Pay.Example.com/a b')).toBeNull();
    expect(readLink('HTTPS://Pay.Example.com/x')).toBe('https://pay.example.com/x');
  });

  test('a logo that is not an image is refused', async () => {
    const name = unique('Pdf ');
    for (const file of [{ ...LOGO, file: PDF }, { ...LOGO, file: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), filename: 'x.svg' }]) {
      const r = await send({ name, link: 'https://x.example.com' }, [file]);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body?.result?.error?.logo?.length).toBe(1);
    }
    expect(await byName(name)).toBeUndefined();
  });

  test('ids: unknown is 404, not a number is a message, never a 500', async () => {
    expect((await remove('999999999')).status).toBe(404);
    expect((await remove('abc')).status).toBe(400);
    expect((await remove('-1')).status).toBe(400);
    expect((await send({ id: '999999999', name: 'x', link: 'https://x.example.com' })).status).toBe(404);
    expect((await send({ id: '1e400', name: 'x', link: 'https://x.example.com' })).status).toBe(400);
    expect((await answer(route.action({ request: post('/admin/externalPayments', { intent: 'nope' }, { cookie: admin.cookie }), params: {}, context: {} }))).status).toBe(400);
  });

  test('only the admin', async () => {
    const name = unique('Role ');
    await send({ name, link: 'https://x.example.com' }, [LOGO]);
    const row = await byName(name);
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect(((await settle(list('', cookie))) as Response).status, `role ${roleId}`).toBe(403);
      expect((await send({ name: 'y', link: 'https://y.example.com' }, [LOGO], cookie)).status, `role ${roleId}`).toBe(403);
      expect((await remove(String(row.id), cookie)).status, `role ${roleId}`).toBe(403);
    }
    expect(await byName(name)).toBeTruthy();
  });

  test('the customer\'s Deposit tab offers them, the logo through /uploads/:id', async () => {
    const name = unique('Neteller ');
    await send({ name, link: 'https://neteller.example.com/pay', customLabel: 'Merchant ID', customValue: 'M-42' }, [LOGO]);
    const row = await byName(name);
    const customer = await createUser(sql, { roleId: 3 });
    const form = await depositForm(sql, customer.id);
    expect(form.externals.find((x) => x.name === name)).toEqual({
      id: Number(row.id), name, link: 'https://neteller.example.com/pay', logo: row.logo_path, customLabel: 'Merchant ID', customValue: 'M-42',
    });
  });
});
