// The deposit pages under site-wide switches (serial: it changes site settings and gateway rows,
// and puts them back): the KYC deposit switch refuses on the server whatever the page shows,
// four-eyes on /admin/deposits, an active card gateway that is not wired yet, an uploaded QR file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppLoadContext, LoaderFunctionArgs } from '@remix-run/node';
import { testSql, createUser, ensureGateways, walletFor, sessionFor, get, post, unique, answerOf } from '../helpers.ts';
import { png, uploadRequest } from '../uploads/fixtures.ts';
import { createDeposit } from '~/modules/money/money.server.ts';
import { db } from '~/shared/db.server.ts';
import { setSetting } from '~/shared/settings.server.ts';
import * as index from '~/routes/_client.deposits._index.tsx';
import * as bank from '~/routes/_client.deposits.bank.$id.tsx';
import * as cryptoPage from '~/routes/_client.deposits.crypto.$id.tsx';
import * as admin from '~/routes/_staff.admin.deposits.tsx';

const dir = mkdtempSync(path.join(tmpdir(), 'deposit-proofs-serial-'));
process.env.UPLOAD_DIR = dir;

const sql = testSql(4);
// written through the routes' own pool, so its cached copy of the settings is dropped at once
const kyc = (deposit: 'on' | 'off') => setSetting(db(), 'kyc', { deposit, withdraw: 'off', trade: 'off' });
const secondApprovalAbove = (amount: string) => setSetting(db(), 'approvals', { secondApprovalAbove: amount });
let stripeBefore: { is_active: boolean } | undefined;
let btcFileBefore: string | null = null;
beforeAll(async () => {
  await ensureGateways(sql);
  [stripeBefore] = await sql<{ is_active: boolean }[]>`SELECT is_active FROM payment_gateways WHERE name = 'stripe'`;
  btcFileBefore = (await sql`SELECT file_path FROM payment_gateways WHERE name = 'btc'`)[0].file_path;
});
afterAll(async () => {
  await kyc('off');
  await secondApprovalAbove('');
  await sql`UPDATE payment_gateways SET is_active = ${stripeBefore?.is_active ?? false} WHERE name = 'stripe'`;
  await sql`UPDATE payment_gateways SET file_path = ${btcFileBefore} WHERE name = 'btc'`;
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

const args = (request: Request, params: Record<string, string> = {}, context: AppLoadContext = {}): LoaderFunctionArgs => ({ request, params, context });
const run = answerOf;
async function customer() {
  const u = await createUser(sql);
  const wallet = await walletFor(sql, u.id);
  return { ...u, wallet, cookie: (await sessionFor(sql, u.id)).cookie };
}
const countDeposits = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM deposits WHERE user_id = ${userId}`)[0].n as number;
const countUploads = async (userId: number) => (await sql`SELECT count(*)::int AS n FROM uploads WHERE owner_id = ${userId}`)[0].n as number;

describe('KYC deposit switch', () => {
  test('on: every deposit path refuses an unverified customer on the server, with the notice shown and the button enabled', async () => {
    await kyc('on');
    const c = await customer();
    const page = await run(index.loader(args(get('/deposits', c.cookie))));
    expect(page.body.kycNotice).toBe(true);
    const form = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount: '50' }, { cookie: c.cookie }))));
    expect(form).toMatchObject({ status: 403, body: { ok: false, toast: 'Please verify KYC to enable deposit' } });

    const parts = [
      { name: 'bank_name', value: 'Chase' }, { name: 'account_number', value: '1' }, { name: 'clientRef', value: unique('ref-') },
      { name: 'proof', file: png(), filename: 'p.png' },
    ];
    const bankPost = await run(bank.action(args(uploadRequest(parts, { cookie: c.cookie, path: `/deposits/bank/${c.wallet}?amount=50` }), { id: String(c.wallet) })));
    expect(bankPost).toMatchObject({ status: 403, body: { toast: 'Please verify KYC to enable deposit' } });
    const crypto = await run(cryptoPage.action(args(post(`/deposits/crypto/usdt?balance=${c.wallet}&amount=50`, { clientRef: unique('ref-'), tx_hash: 'a'.repeat(64) }, { cookie: c.cookie }), { id: 'usdt' })));
    expect(crypto).toMatchObject({ status: 403, body: { toast: 'Please verify KYC to enable deposit' } });
    expect(await countDeposits(c.id)).toBe(0);
    expect(await countUploads(c.id)).toBe(0); // the refused form's proof is not kept

    await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${c.id}, 'passport', 'approved', now())`;
    expect((await run(index.loader(args(get('/deposits', c.cookie))))).body.kycNotice).toBe(false);
    expect((await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'bank', amount: '50' }, { cookie: c.cookie }))))).status).toBe(302);
    await kyc('off');
  });
});

describe('four-eyes on /admin/deposits', () => {
  test('above the threshold: the first approval leaves it pending, shown as awaiting a second; the same person cannot give both', async () => {
    await secondApprovalAbove('500');
    const c = await customer();
    const [a, m] = await Promise.all([createUser(sql, { roleId: 1 }), createUser(sql, { roleId: 2 })]);
    const [ac, mc] = await Promise.all([sessionFor(sql, a.id), sessionFor(sql, m.id)]);
    const d = await createDeposit(sql, { userId: c.id, balanceId: c.wallet, gateway: 'bank', amount: '750' });
    if (!d.ok) throw new Error(d.message);
    const approve = (cookie: string) => run(admin.action(args(post('/admin/deposits', { intent: 'approve', id: String(d.id) }, { cookie }))));
    expect(await approve(ac.cookie)).toMatchObject({ status: 200, body: { ok: true, toast: 'Awaiting second approval' } });
    const list = await run(admin.loader(args(get(`/admin/deposits?search=${d.id}`, mc.cookie))));
    expect(list.body.rows.find((r: { id: number }) => r.id === d.id)).toMatchObject({ status: 'pending', awaitingSecond: true });
    // the customer sees it pending
    const own = await run(index.loader(args(get('/deposits?tab=history', c.cookie))));
    expect(own.body.history.rows[0]).toMatchObject({ id: d.id, status: 'pending' });
    expect(await approve(ac.cookie)).toMatchObject({ status: 409, body: { toast: 'A second approval must come from another staff member' } });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('0.00000000');
    expect(await approve(mc.cookie)).toMatchObject({ status: 200, body: { toast: 'Deposit approved successfully' } });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('750.00000000');
    await secondApprovalAbove('');
  });
});

describe('gateways', () => {
  test('an active card gateway without its keys is offered but not available: a message, and no deposit', async () => {
    await sql`UPDATE payment_gateways SET is_active = true WHERE name = 'stripe'`;
    const c = await customer();
    const page = await run(index.loader(args(get('/deposits', c.cookie))));
    expect(page.body.gateways.map((g: { name: string }) => g.name)).toContain('stripe');
    const r = await run(index.action(args(post('/deposits', { balance_id: String(c.wallet), gateway: 'stripe', amount: '50' }, { cookie: c.cookie }))));
    expect(r).toMatchObject({ status: 400, body: { toast: 'This gateway is not available yet' } });
    expect(r.body.result.error.gateway).toEqual(['This gateway is not available yet']);
    expect(await countDeposits(c.id)).toBe(0);
    await sql`UPDATE payment_gateways SET is_active = false WHERE name = 'stripe'`;
  });

  test('a gateway with an uploaded QR file shows that file, served through the upload route', async () => {
    const [up] = await sql`INSERT INTO uploads (owner_id, kind, original_name, stored_name, mime, size, sha256)
                           VALUES (${(await createUser(sql, { roleId: 1 })).id}, 'qr_code', 'qr.png', ${unique('').replace(/[^0-9a-f]/g, '').padEnd(32, '0').slice(0, 32) + '.png'},
                                   'image/png', 10, ${'0'.repeat(64)}) RETURNING id`;
    await sql`UPDATE payment_gateways SET file_path = ${String(up.id)} WHERE name = 'btc'`;
    const c = await customer();
    const r = await run(cryptoPage.loader(args(get(`/deposits/crypto/btc?balance=${c.wallet}&amount=10`, c.cookie), { id: 'btc' })));
    expect(r.body.qr).toBe(`/uploads/${up.id}`);
    await sql`UPDATE payment_gateways SET file_path = NULL WHERE name = 'btc'`;
    const drawn = await run(cryptoPage.loader(args(get(`/deposits/crypto/btc?balance=${c.wallet}&amount=10`, c.cookie), { id: 'btc' })));
    expect(drawn.body.qr).toMatch(/^data:image\/svg\+xml;base64,/);
  });
});
