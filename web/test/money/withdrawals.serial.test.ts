// The withdrawal pages with site-wide settings changed: the admin saves the fees (audited, and
// the customer's form and requests use them at once), four-eyes on /admin/withdraws/pending
// ('Awaiting second approval'), and the KYC switch refusing a request from the page. Serial: it
// changes withdraw_fee_settings and site_settings, and puts them back after.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, walletFor, get, post, settle, unique } from '../helpers.ts';
import { db } from '~/shared/db.server.ts';
import { setSetting as setSettingIn } from '~/shared/settings.server.ts';
import { withdrawFees } from '~/modules/money/money.server.ts';
import { WITHDRAW_TOASTS } from '~/modules/money/withdrawals.server.ts';
import { loader as clientLoader, action as clientAction } from '~/routes/_client.withdraws.tsx';
import { loader as pendingLoader, action as pendingAction } from '~/routes/_staff.admin.withdraws.pending.tsx';
import { loader as settingsLoader, action as settingsAction } from '~/routes/_staff.admin.withdraws.settings.tsx';

const sql = testSql(4);
let saved: { percentage: string; fixed: string };
// through the app's own pool: its cached copy of the settings is dropped at once (live-cache.server.ts)
const setSetting: typeof setSettingIn = (_sql, key, value) => setSettingIn(db(), key, value);
beforeAll(async () => { saved = await withdrawFees(sql); });
afterAll(async () => {
  await sql`UPDATE withdraw_fee_settings SET fee_percentage = ${saved.percentage}::numeric, fee_fixed = ${saved.fixed}::numeric WHERE id = 1`;
  await sql`DELETE FROM site_settings WHERE key IN ('kyc', 'approvals')`;
  await sql.end();
});

type Body = { ok: boolean; toast: string | null; result?: { error?: Record<string, string[] | null> } };
async function answer(p: Promise<unknown>) {
  const r = (await settle(p)) as { data: unknown; init: { status?: number } | null } | Response;
  if (r instanceof Response) return { status: r.status, body: null as unknown as Body };
  return { status: r.init?.status ?? 200, body: r.data as Body };
}
const ctx = { params: {}, context: { clientIp: '203.0.113.9' } };
async function signedIn(roleId: number, credit?: string) {
  const u = await createUser(sql, { roleId });
  const wallet = credit ? await walletFor(sql, u.id, { credit }) : 0;
  return { ...u, wallet, cookie: (await sessionFor(sql, u.id)).cookie };
}
const request = (wallet: number, amount: string) => ({
  balance_id: String(wallet), amount, bank_name: 'Chase', account_number: '12345678', swift_code: 'CHASUS33', bank_country: 'France', clientRef: unique('ref-'),
});

describe('withdraw settings', () => {
  test('the admin saves Fee (%) and Fee (Fixed): audited before and after with the IP, used by the next request at once', async () => {
    const admin = await signedIn(1);
    await sql`UPDATE withdraw_fee_settings SET fee_percentage = 0, fee_fixed = 0 WHERE id = 1`;
    const r = await answer(settingsAction({ request: post('/admin/withdraws/settings', { feePercentage: '1.5', feeFixed: '0.25' }, { cookie: admin.cookie }), ...ctx }));
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: WITHDRAW_TOASTS.settings } });
    expect(await withdrawFees(sql)).toEqual({ percentage: '1.5000', fixed: '0.25' });
    const [a] = await sql`SELECT actor_id, action, before, after, ip FROM audit_events WHERE action = 'withdraw_fees.update' ORDER BY id DESC LIMIT 1`;
    expect(a).toEqual({
      actor_id: admin.id, action: 'withdraw_fees.update', ip: '203.0.113.9',
      before: { feePercentage: '0.0000', feeFixed: '0.00' }, after: { feePercentage: '1.5000', feeFixed: '0.25' },
    });
    expect(await settingsLoader({ request: get('/admin/withdraws/settings', admin.cookie), ...ctx })).toEqual({ fees: { percentage: '1.5000', fixed: '0.25' } });

    // the customer's form shows them and a request is charged with them: 1.5 % of 333.33 + 0.25 = 5.25 (4.99995 + 0.25, half-up)
    const c = await signedIn(3, '1000');
    const form = (await clientLoader({ request: get('/withdraws', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(form.form!.fees).toEqual({ percentage: '1.5000', fixed: '0.25' });
    const w = await answer(clientAction({ request: post('/withdraws', request(c.wallet, '333.33'), { cookie: c.cookie }), ...ctx }));
    expect(w.status).toBe(200);
    expect((await sql`SELECT fee::text, total::text FROM withdrawals WHERE user_id = ${c.id}`)[0]).toEqual({ fee: '5.25', total: '338.58' });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('661.42000000');

    // the bounds: 100 % and 0 are allowed
    const edge = await answer(settingsAction({ request: post('/admin/withdraws/settings', { feePercentage: '100', feeFixed: '0' }, { cookie: admin.cookie }), ...ctx }));
    expect(edge.status).toBe(200);
    expect(await withdrawFees(sql)).toEqual({ percentage: '100.0000', fixed: '0.00' });
  });
});

describe('four-eyes on the pending list', () => {
  test("above the threshold the first approval answers 'Awaiting second approval' and shows on the row; the same person again is refused; another approves", async () => {
    await setSetting(sql, 'approvals', { secondApprovalAbove: '500' });
    await sql`UPDATE withdraw_fee_settings SET fee_percentage = 0, fee_fixed = 0 WHERE id = 1`;
    const [admin, manager] = [await signedIn(1), await signedIn(2)];
    const c = await signedIn(3, '2000');
    expect((await answer(clientAction({ request: post('/withdraws', request(c.wallet, '600'), { cookie: c.cookie }), ...ctx }))).status).toBe(200);
    const [{ id }] = await sql`SELECT id FROM withdrawals WHERE user_id = ${c.id}`;
    const decide = (cookie: string) => answer(pendingAction({ request: post('/admin/withdraws/pending', { intent: 'approve', id: String(id) }, { cookie }), ...ctx }));

    expect(await decide(admin.cookie)).toMatchObject({ status: 200, body: { ok: true, toast: WITHDRAW_TOASTS.awaitingSecond } });
    const list = (await pendingLoader({ request: get(`/admin/withdraws/pending?search=${id}`, admin.cookie), ...ctx })) as Awaited<ReturnType<typeof pendingLoader>>;
    expect(list.rows.find((r) => r.id === Number(id))).toMatchObject({ status: 'pending', awaitingSecond: true });
    expect(await decide(admin.cookie)).toMatchObject({ status: 409, body: { ok: false, toast: 'A second approval must come from another staff member' } });
    expect(await decide(manager.cookie)).toMatchObject({ status: 200, body: { ok: true, toast: WITHDRAW_TOASTS.approved } });
    expect((await sql`SELECT status, first_approved_by, decided_by FROM withdrawals WHERE id = ${id}`)[0])
      .toEqual({ status: 'approved', first_approved_by: admin.id, decided_by: manager.id });
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('1400.00000000');
    await setSetting(sql, 'approvals', { secondApprovalAbove: '' });
  });
});

describe('the KYC switch for withdrawals', () => {
  test('on: an unverified customer sees the notice and the request is refused from the page with its message; nothing held', async () => {
    await setSetting(sql, 'kyc', { deposit: 'off', withdraw: 'on', trade: 'off' });
    const c = await signedIn(3, '100');
    const form = (await clientLoader({ request: get('/withdraws', c.cookie), ...ctx })) as Awaited<ReturnType<typeof clientLoader>>;
    expect(form.form!.kycNotice).toBe(true);
    const r = await answer(clientAction({ request: post('/withdraws', request(c.wallet, '10'), { cookie: c.cookie }), ...ctx }));
    expect(r).toMatchObject({ status: 403, body: { ok: false, toast: 'Please verify KYC to enable withdraw' } });
    expect((await sql`SELECT count(*)::int AS n FROM withdrawals WHERE user_id = ${c.id}`)[0].n).toBe(0);
    expect((await sql`SELECT balance::text AS b FROM balances WHERE id = ${c.wallet}`)[0].b).toBe('100.00000000');
    await sql`INSERT INTO kyc_documents (user_id, type, status, decided_at) VALUES (${c.id}, 'passport', 'approved', now())`;
    expect((await answer(clientAction({ request: post('/withdraws', request(c.wallet, '10'), { cookie: c.cookie }), ...ctx }))).status).toBe(200);
    await setSetting(sql, 'kyc', { deposit: 'off', withdraw: 'off', trade: 'off' });
  });
});
