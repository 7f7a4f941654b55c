// The KYC notices and gates follow one rule (money.server.ts isKycApproved / kycBlocks): with the
// site's KYC switches on, a customer is refused deposits and withdrawals and sees the dashboard's
// trading notice until an admin approves their document; on the next page load after the approval
// all of it is gone. Changes the site-wide KYC switches: a serial file, the row put back after.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { env } from '~/shared/env.server.ts';
import { db } from '~/shared/db.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import { loader as dashboardLoader } from '~/routes/_client.dashboard.tsx';
import { action as staffAction } from '~/routes/_staff.admin.kyc.tsx';
import { createDeposit, requestWithdrawal } from '~/modules/money/money.server.ts';
import { isKycApproved, kycBlocks } from '~/modules/kyc/kyc-gate.server.ts';
import { submitKyc } from '~/modules/kyc/kyc.server.ts';
import { receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { createUser, ensureGateways, get, post, sessionFor, settle, testSql, walletFor } from '../helpers.ts';
import { png, uploadRequest } from '../uploads/fixtures.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const dir = mkdtempSync(path.join(tmpdir(), 'kyc-notices-'));
process.env.UPLOAD_DIR = dir;

const sql = testSql();
mockServer(
  http.post(`${env().ENGINE_URL}/v1/events`, () => HttpResponse.json({ ok: true, id: 1 })),
  http.get(`${env().ENGINE_URL}/v1/quotes`, () => HttpResponse.json({ status: { fx: 'open' as const, stock: 'open' as const, crypto: 'open' as const }, quotes: [] })),
);
let before: Awaited<ReturnType<typeof getSetting<'kyc'>>>;
beforeAll(async () => {
  await ensureGateways(sql);
  before = await getSetting(sql, 'kyc');
  // through the app's own pool: its cached copy is dropped at once (the loaders read through it)
  await setSetting(db(), 'kyc', { deposit: 'on', withdraw: 'on', trade: 'on' });
});
afterAll(async () => {
  await setSetting(db(), 'kyc', before);
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

const bank = { bankName: 'Chase', accountName: 'x', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'United States' };

describe('one KYC rule for every notice and gate', () => {
  test('pending: deposit, withdraw and trade are gated; after the approval, on the next load, none is', async () => {
    const c = await createUser(sql);
    const wallet = await walletFor(sql, c.id, { credit: '100' });
    await sql`UPDATE users SET active_balance_id = ${wallet} WHERE id = ${c.id}`;
    const { cookie } = await sessionFor(sql, c.id);
    const notice = async () => ((await dashboardLoader({ request: get('/dashboard', cookie), params: {}, context: {} })) as { kycNotice: boolean; isKyc: boolean });

    const up = await receiveUploads(sql, uploadRequest([{ name: 'front', file: png(), filename: 'id.png' }]), { id: c.id, roleId: 3 }, { front: 'kyc_front' });
    if (!up.ok) throw new Error(up.error.message);
    const doc = await submitKyc(sql, { userId: c.id, type: 'passport', front: up.files.front!.id });
    if (!doc.ok) throw new Error(doc.message);

    expect(await notice()).toMatchObject({ kycNotice: true, isKyc: false });
    for (const a of ['deposit', 'withdraw', 'trade'] as const) expect(await kycBlocks(sql, c.id, a), a).toBe(true);
    expect(await createDeposit(sql, { userId: c.id, balanceId: wallet, gateway: 'bank', amount: '10' })).toMatchObject({ ok: false, status: 403, message: 'Please verify KYC to enable deposit' });
    expect(await requestWithdrawal(sql, { userId: c.id, balanceId: wallet, amount: '10', bank }, async () => 0)).toMatchObject({ ok: false, status: 403, message: 'Please verify KYC to enable withdraw' });

    const admin = await createUser(sql, { roleId: 1 });
    const staff = await sessionFor(sql, admin.id);
    const r = await settle(staffAction({ request: post('/admin/kyc', { intent: 'approve', id: String(doc.id), from: 'pending' }, { cookie: staff.cookie }), params: {}, context: {} }));
    expect((r as { data: { ok: boolean } }).data.ok).toBe(true);

    expect(await isKycApproved(sql, c.id)).toBe(true);
    expect(await notice()).toMatchObject({ kycNotice: false, isKyc: true });
    for (const a of ['deposit', 'withdraw', 'trade'] as const) expect(await kycBlocks(sql, c.id, a), a).toBe(false);
    expect(await createDeposit(sql, { userId: c.id, balanceId: wallet, gateway: 'bank', amount: '10' })).toMatchObject({ ok: true });
    expect(await requestWithdrawal(sql, { userId: c.id, balanceId: wallet, amount: '10', bank }, async () => 0)).toMatchObject({ ok: true });
  });

  test('a decline of an approved document brings the gates back', async () => {
    const c = await createUser(sql);
    const up = await receiveUploads(sql, uploadRequest([{ name: 'front', file: png(), filename: 'id.png' }]), { id: c.id, roleId: 3 }, { front: 'kyc_front' });
    if (!up.ok) throw new Error(up.error.message);
    const doc = await submitKyc(sql, { userId: c.id, type: 'national_id', front: up.files.front!.id });
    if (!doc.ok) throw new Error(doc.message);
    await sql`UPDATE kyc_documents SET status = 'approved' WHERE id = ${doc.id}`;
    expect(await kycBlocks(sql, c.id, 'deposit')).toBe(false);
    await sql`UPDATE kyc_documents SET status = 'declined', decline_reason = 'expired' WHERE id = ${doc.id}`;
    expect(await kycBlocks(sql, c.id, 'deposit')).toBe(true);
  });
});
