// The money rules (modules/money) against PostgreSQL with the site's default settings (KYC
// switches off, no four-eyes): fees exact to the cent, deposits only into the user's own real
// wallet through an active gateway, approvals credit exactly once whatever races, withdrawals
// hold their total under the free-margin rule and a decline gives back exactly what was held.
// The switches themselves are tested in money-rules.serial.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testSql, createUser, ensureGateways, walletFor, unique } from '../helpers.ts';
import { depositFee, withdrawFee } from '~/modules/money/fees.ts';
import { createDeposit, decideMoney, requestWithdrawal, withdrawFees, type BankDetails } from '~/modules/money/money.server.ts';

const sql = testSql(12);
beforeAll(() => ensureGateways(sql));
afterAll(async () => { await sql.end(); });

const bank: BankDetails = { bankName: 'Chase', accountName: 'ignored', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'United States' };
const balanceOf = async (id: number) => (await sql`SELECT balance::text AS b FROM balances WHERE id = ${id}`)[0].b as string;
const ledgerOf = (id: number) => sql`SELECT kind, amount::text AS amount, ref_kind, ref_id FROM ledger_entries WHERE balance_id = ${id} ORDER BY id`;
const noFloating = async () => 0;

describe('fees', () => {
  test('deposit: gateway % of the amount, rounded half-up to the cent; total = amount + fee', () => {
    expect(depositFee('100', '2.9')).toEqual({ amount: '100.00', fee: '2.90', total: '102.90' });
    expect(depositFee('10.01', '0.5')).toEqual({ amount: '10.01', fee: '0.05', total: '10.06' }); // 0.05005
    expect(depositFee('0.99', '0.5')).toEqual({ amount: '0.99', fee: '0.00', total: '0.99' });    // 0.00495
    expect(depositFee('1', '0.5')).toEqual({ amount: '1.00', fee: '0.01', total: '1.01' });       // 0.005 half-up
  });
  test('withdrawal: % / 100 × amount + fixed, to the cent', () => {
    expect(withdrawFee('100', '1', '2')).toEqual({ amount: '100.00', fee: '3.00', total: '103.00' });
    expect(withdrawFee('333.33', '1.5', '0.25')).toEqual({ amount: '333.33', fee: '5.25', total: '338.58' }); // 4.99995 + 0.25
    expect(withdrawFee('0.10', '0', '0')).toEqual({ amount: '0.10', fee: '0.00', total: '0.10' });
  });
});

describe('deposits', () => {
  test('a pending deposit into the own real wallet, the fee from the gateway; a double submit is one deposit', async () => {
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id);
    const ref = unique('ref');
    const d = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'btc', amount: '200', clientRef: ref });
    expect(d).toMatchObject({ ok: true, amount: '200.00', fee: '1.00', total: '201.00', currency: 'USD', replayed: false });
    const again = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'btc', amount: '200', clientRef: ref });
    expect(again).toMatchObject({ ok: true, replayed: true, id: d.ok ? d.id : -1 });
    const rows = await sql`SELECT status, amount::text, fee::text, total::text FROM deposits WHERE user_id = ${u.id}`;
    expect(rows).toEqual([{ status: 'pending', amount: '200.00', fee: '1.00', total: '201.00' }]);
    expect(await balanceOf(wallet)).toBe('0.00000000'); // nothing credited before approval
  });

  test("refused, changing nothing: someone else's wallet, a demo wallet, an inactive or unknown gateway, bad amounts", async () => {
    const u = await createUser(sql);
    const other = await createUser(sql);
    const theirs = await walletFor(sql, other.id);
    const demo = await walletFor(sql, u.id, { mode: 'demo' });
    const mine = await walletFor(sql, u.id);
    const cases: [Parameters<typeof createDeposit>[1], string, string | undefined][] = [
      [{ userId: u.id, balanceId: theirs, gateway: 'bank', amount: '10' }, 'Wallet is required', 'balance_id'],
      [{ userId: u.id, balanceId: demo, gateway: 'bank', amount: '10' }, 'Wallet is required', 'balance_id'],
      [{ userId: u.id, balanceId: -1, gateway: 'bank', amount: '10' }, 'Wallet is required', 'balance_id'],
      [{ userId: u.id, balanceId: mine, gateway: 'stripe', amount: '10' }, 'Gateway is required', 'gateway'],
      [{ userId: u.id, balanceId: mine, gateway: "bank'; --", amount: '10' }, 'Gateway is required', 'gateway'],
      [{ userId: u.id, balanceId: mine, gateway: 'bank', amount: '0' }, 'Amount must be greater than 0', 'amount'],
      [{ userId: u.id, balanceId: mine, gateway: 'bank', amount: '-5' }, 'Amount must be greater than 0', 'amount'],
      [{ userId: u.id, balanceId: mine, gateway: 'bank', amount: '1.005' }, 'Amount allows at most 2 decimal places', 'amount'],
      [{ userId: u.id, balanceId: mine, gateway: 'bank', amount: '1e9' }, 'Amount must be a number like 12.5', 'amount'],
      [{ userId: u.id, balanceId: mine, gateway: 'bank', amount: '9999999999999' }, 'Amount is too large', 'amount'],
    ];
    for (const [input, message, field] of cases) {
      expect(await createDeposit(sql, input), JSON.stringify(input)).toMatchObject({ ok: false, message, field });
    }
    expect((await sql`SELECT count(*)::int AS n FROM deposits WHERE user_id = ${u.id}`)[0].n).toBe(0);
  });

  test('ten parallel approvals of one deposit credit it once; the others are told it was already approved', async () => {
    const u = await createUser(sql);
    const staff = await Promise.all(Array.from({ length: 10 }, () => createUser(sql, { roleId: 1 })));
    const wallet = await walletFor(sql, u.id, { credit: '5' });
    const d = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '123.45' });
    if (!d.ok) throw new Error(d.message);
    const results = await Promise.all(staff.map((s) => decideMoney(sql, { kind: 'deposit', id: d.id, actorId: s.id, decision: 'approve' })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.message)).toEqual(Array(9).fill('This deposit was already approved'));
    expect(await balanceOf(wallet)).toBe('128.45000000');
    expect((await ledgerOf(wallet)).filter((e) => e.kind === 'deposit')).toEqual([{ kind: 'deposit', amount: '123.45000000', ref_kind: 'deposit', ref_id: String(d.id) }]);
    const [row] = await sql`SELECT status, balance_after::text, decided_by FROM deposits WHERE id = ${d.id}`;
    expect(row).toMatchObject({ status: 'approved', balance_after: '128.45000000' });
    const audits = await sql`SELECT action, actor_id FROM audit_events WHERE target_kind = 'deposit' AND target_id = ${String(d.id)}`;
    expect(audits).toEqual([{ action: 'deposit.approve', actor_id: row.decided_by }]);
    const [n] = await sql`SELECT data FROM notifications WHERE user_id = ${u.id} ORDER BY id DESC LIMIT 1`;
    expect(n.data).toMatchObject({ kind: 'money.decided', subject: 'deposit', decision: 'approved', amount: '123.45', currency: 'USD' });
  });

  test('a declined deposit credits nothing and keeps its reason; a decided one cannot be decided again', async () => {
    const u = await createUser(sql);
    const admin = await createUser(sql, { roleId: 1 });
    const wallet = await walletFor(sql, u.id);
    const d = await createDeposit(sql, { userId: u.id, balanceId: wallet, gateway: 'bank', amount: '50' });
    if (!d.ok) throw new Error(d.message);
    expect(await decideMoney(sql, { kind: 'deposit', id: d.id, actorId: admin.id, decision: 'decline', reason: 'No transfer received' })).toMatchObject({ ok: true, state: 'declined' });
    expect(await decideMoney(sql, { kind: 'deposit', id: d.id, actorId: admin.id, decision: 'approve' })).toMatchObject({ ok: false, status: 409, message: 'This deposit was already declined' });
    expect(await balanceOf(wallet)).toBe('0.00000000');
    expect((await sql`SELECT decline_reason FROM deposits WHERE id = ${d.id}`)[0].decline_reason).toBe('No transfer received');
    expect(await decideMoney(sql, { kind: 'deposit', id: 2 ** 40, actorId: admin.id, decision: 'approve' })).toMatchObject({ ok: false, status: 404 });
    expect(await decideMoney(sql, { kind: 'deposit', id: -3, actorId: admin.id, decision: 'approve' })).toMatchObject({ ok: false, status: 404 });
  });
});

describe('withdrawals', () => {
  test('the total is held at once; beyond the free margin is refused and changes nothing', async () => {
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id, { credit: '1000' });
    const fees = await withdrawFees(sql);
    const want = withdrawFee('400', fees.percentage, fees.fixed);
    const w = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '400', bank }, noFloating);
    expect(w).toMatchObject({ ok: true, ...want, replayed: false });
    const after = (1000 - Number(want.total)).toFixed(8);
    expect(await balanceOf(wallet)).toBe(after);
    // the account name is the holder's own, whatever was posted
    const [row] = await sql`SELECT status, details, balance_after::text FROM withdrawals WHERE user_id = ${u.id}`;
    expect(row).toMatchObject({ status: 'pending', balance_after: after });
    expect(row.details.accountName).toMatch(/^Test /);
    // the rest cannot be withdrawn twice
    const tooMuch = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: String(1000 - Number(want.total) + 0.01), bank }, noFloating);
    expect(tooMuch).toMatchObject({ ok: false, message: 'The total exceeds your free margin', field: 'amount' });
    expect(await balanceOf(wallet)).toBe(after);
  });

  test('free margin counts used margin and floating P/L; a held withdrawal cannot be spent on margin', async () => {
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id, { credit: '1000' });
    await sql`UPDATE balances SET margin = 300 WHERE id = ${wallet}`; // open positions' margin (the engine's column)
    const fees = await withdrawFees(sql);
    // free margin = 1000 − 300 + (−100) = 600
    const floating = async () => -100;
    const fits = '590';
    expect(Number(withdrawFee(fits, fees.percentage, fees.fixed).total)).toBeLessThanOrEqual(600); // the default fees
    const over = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '600.01', bank }, floating);
    expect(over).toMatchObject({ ok: false, field: 'amount' });
    const ok = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: fits, bank }, floating);
    expect(ok.ok).toBe(true);
    // what is left after the hold is what a new position's margin is checked against (engine_place_order)
    const [check] = await sql`SELECT margin_refusal(400, balance, margin, -100) AS refusal, balance::text FROM balances WHERE id = ${wallet}`;
    expect(check.refusal).not.toBeNull();
    // without live prices for open positions the request is refused, not guessed
    expect(await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '1', bank }, async () => null)).toMatchObject({ ok: false, status: 503 });
  });

  test('parallel requests never overdraw: the holds together stay within the balance', async () => {
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id, { credit: '1000' });
    const results = await Promise.all(Array.from({ length: 8 }, () => requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '300', bank }, noFloating)));
    const held = results.filter((r) => r.ok).reduce((s, r) => s + (r.ok ? Number(r.total) : 0), 0);
    expect(results.filter((r) => r.ok).length).toBeGreaterThanOrEqual(1);
    expect(held).toBeLessThanOrEqual(1000);
    expect(Number(await balanceOf(wallet))).toBeCloseTo(1000 - held, 8);
  });

  test('a double submit is one request with one hold', async () => {
    const u = await createUser(sql);
    const wallet = await walletFor(sql, u.id, { credit: '100' });
    const ref = unique('wref');
    const [a, b] = await Promise.all([0, 1].map(() => requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '10', bank, clientRef: ref }, noFloating)));
    expect(a.ok && b.ok && a.id === b.id).toBe(true);
    expect((await sql`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ${u.id}`)[0].n).toBe(1);
    expect((await ledgerOf(wallet)).filter((e) => e.kind === 'withdrawal')).toHaveLength(1);
  });

  test('decline gives back exactly the held total and keeps the reason; approval settles the hold', async () => {
    const u = await createUser(sql);
    const admin = await createUser(sql, { roleId: 2 });
    const wallet = await walletFor(sql, u.id, { credit: '777.77' });
    const w1 = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '123.45', bank }, noFloating);
    const w2 = await requestWithdrawal(sql, { userId: u.id, balanceId: wallet, amount: '100', bank }, noFloating);
    if (!w1.ok || !w2.ok) throw new Error('requests refused');
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w1.id, actorId: admin.id, decision: 'decline', reason: '' })).toMatchObject({ ok: false, message: 'Decline reason is required' });
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w1.id, actorId: admin.id, decision: 'decline', reason: 'x'.repeat(501) })).toMatchObject({ ok: false, field: 'declineReason' });
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w1.id, actorId: admin.id, decision: 'decline', reason: 'Name does not match' })).toMatchObject({ ok: true, state: 'declined' });
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w2.id, actorId: admin.id, decision: 'approve' })).toMatchObject({ ok: true, state: 'approved' });
    const expected = (777.77 - Number(w2.total)).toFixed(2);
    expect(Number(await balanceOf(wallet)).toFixed(2)).toBe(expected);
    const entries = (await ledgerOf(wallet)).filter((e) => e.ref_kind === 'withdrawal');
    expect(entries).toEqual([
      { kind: 'withdrawal', amount: `-${Number(w1.total).toFixed(8)}`, ref_kind: 'withdrawal', ref_id: String(w1.id) },
      { kind: 'withdrawal', amount: `-${Number(w2.total).toFixed(8)}`, ref_kind: 'withdrawal', ref_id: String(w2.id) },
      { kind: 'withdrawal_refund', amount: Number(w1.total).toFixed(8), ref_kind: 'withdrawal', ref_id: String(w1.id) },
    ]);
    // a retried decline gives nothing back twice
    expect(await decideMoney(sql, { kind: 'withdrawal', id: w1.id, actorId: admin.id, decision: 'decline', reason: 'again' })).toMatchObject({ ok: false, status: 409 });
    expect((await sql`SELECT decline_reason FROM withdrawals WHERE id = ${w1.id}`)[0].decline_reason).toBe('Name does not match');
  });
});
