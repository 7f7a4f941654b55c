// The site switches of the money flow, enforced on the server: the KYC switches for deposit and
// withdraw, and four-eyes above the 'second approval above' amount. Serial (it changes
// site-wide settings); the settings are put back after.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testSql, createUser, ensureGateways, walletFor } from '../helpers.ts';
import { createDeposit, decideMoney, requestWithdrawal } from '~/modules/money/money.server.ts';

const sql = testSql(4);
const setSetting = (key: string, value: object) =>
  sql`INSERT INTO site_settings (key, value) VALUES (${key}, ${sql.json(value as never)}) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
beforeAll(() => ensureGateways(sql));
afterAll(async () => {
  await sql`DELETE FROM site_settings WHERE key IN ('kyc', 'approvals')`;
  await sql.end();
});

const bank = { bankName: 'Chase', accountName: '', accountNumber: '1', swiftCode: 'CHASUS33', bankCountry: 'US' };

describe('KYC switches', () => {
  test('on: an unverified customer cannot deposit or withdraw; an approved one can', async () => {
    await setSetting('kyc', { deposit: 'on', withdraw: 'on', trade: 'off' });
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id, { credit: '100' });
    expect(await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '10' })).toMatchObject({ ok: false, status: 403, message: 'Please verify KYC to enable deposit' });
    expect(await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '10', bank }, async () => 0)).toMatchObject({ ok: false, status: 403, message: 'Please verify KYC to enable withdraw' });
    // a pending or declined document is not enough
    await sql`INSERT INTO kyc_documents (user_id, status) VALUES (${u.id}, 'pending')`;
    expect((await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '10' })).ok).toBe(false);
    expect((await sql`SELECT count(*)::int AS n FROM deposits WHERE user_id = ${u.id}`)[0].n).toBe(0);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b).toBe('100.00000000');
    await sql`UPDATE kyc_documents SET status = 'approved', decided_at = now() WHERE user_id = ${u.id}`;
    expect((await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '10' })).ok).toBe(true);
    expect((await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '10', bank }, async () => 0)).ok).toBe(true);
  });

  test('off (per action): the other switch does not block', async () => {
    await setSetting('kyc', { deposit: 'off', withdraw: 'on', trade: 'off' });
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id, { credit: '100' });
    expect((await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '10' })).ok).toBe(true);
    expect((await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '10', bank }, async () => 0)).ok).toBe(false);
    await setSetting('kyc', { deposit: 'off', withdraw: 'off', trade: 'off' });
  });
});

describe('four-eyes', () => {
  test('above the threshold two different staff members must approve; the same one twice is refused', async () => {
    await setSetting('approvals', { secondApprovalAbove: '1000' });
    const u = await createUser(sql);
    const [a, b] = [await createUser(sql, { roleId: 1 }), await createUser(sql, { roleId: 2 })];
    const wallet = await walletFor(sql, u.id);
    const big = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '1000.01' });
    const small = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '1000' });
    if (!big.ok || !small.ok) throw new Error('deposit refused');

    expect(await decideMoney(sql, { kind: 'deposit', id: small.id, actorId: a.id, decision: 'approve' })).toMatchObject({ ok: true, state: 'approved' });
    expect(await decideMoney(sql, { kind: 'deposit', id: big.id, actorId: a.id, decision: 'approve' })).toMatchObject({ ok: true, state: 'awaiting_second' });
    expect((await sql`SELECT status, first_approved_by FROM deposits WHERE id = ${big.id}`)[0]).toEqual({ status: 'pending', first_approved_by: a.id });
    expect(await decideMoney(sql, { kind: 'deposit', id: big.id, actorId: a.id, decision: 'approve' })).toMatchObject({ ok: false, message: 'A second approval must come from another staff member' });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b).toBe('1000.00000000');
    expect(await decideMoney(sql, { kind: 'deposit', id: big.id, actorId: b.id, decision: 'approve' })).toMatchObject({ ok: true, state: 'approved' });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${wallet}`)[0].b).toBe('2000.01000000');
    const trail = await sql`SELECT action, actor_id FROM audit_events WHERE target_kind = 'deposit' AND target_id = ${String(big.id)} ORDER BY id`;
    expect(trail).toEqual([{ action: 'deposit.approve_first', actor_id: a.id }, { action: 'deposit.approve', actor_id: b.id }]);
  });

  test('withdrawals too; a decline needs no second person', async () => {
    await setSetting('approvals', { secondApprovalAbove: '50' });
    const u = await createUser(sql);
    const [a, b] = [await createUser(sql, { roleId: 1 }), await createUser(sql, { roleId: 1 })];
    const wallet = await walletFor(sql, u.id, { credit: '500' });
    const w = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '60', bank }, async () => 0);
    const w2 = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '70', bank }, async () => 0);
    if (!w.ok || !w2.ok) throw new Error('withdrawal refused');
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w.id, actorId: a.id, decision: 'approve' })).toMatchObject({ state: 'awaiting_second' });
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w.id, actorId: a.id, decision: 'approve' })).toMatchObject({ ok: false });
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w.id, actorId: b.id, decision: 'approve' })).toMatchObject({ state: 'approved' });
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w2.id, actorId: a.id, decision: 'decline', reason: 'Wrong IBAN' })).toMatchObject({ state: 'declined' });
    await setSetting('approvals', { secondApprovalAbove: '' });
  });
});
