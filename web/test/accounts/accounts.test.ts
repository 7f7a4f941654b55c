// The accounts module (modules/accounts) against PostgreSQL: a user's wallets, the active one,
// the switch and the summary the shell and /auth/user show. A user never reads or switches to
// another user's wallet, and a demo/real mix reads the same everywhere.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, createUser, sessionFor, get, post, settle } from '../helpers.ts';
import { accountSummary, activeWallet, listWallets, switchWallet } from '~/modules/accounts/accounts.server.ts';
import { loadShell } from '~/modules/shell/shell.server.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { loader as userLoader } from '~/routes/auth.user.tsx';
import { action as switchAction } from '~/routes/dashboard.switch-wallet.tsx';

const sql = testSql();
afterAll(async () => { await sql.end(); });

async function walletOf(userId: number, mode: 'demo' | 'real', currency = 'USD', deposit?: string) {
  const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${userId}, ${mode}, ${currency}) RETURNING id`;
  if (deposit) await sql`SELECT * FROM post_ledger(${b.id}, ${deposit}, 'deposit', 'test', ${`acc-${b.id}`})`;
  return Number(b.id);
}
const activeId = async (userId: number) => {
  const [u] = await sql`SELECT active_balance_id FROM users WHERE id = ${userId}`;
  return u.active_balance_id === null ? null : Number(u.active_balance_id);
};

/** A customer with a demo and two real wallets (the demo one active) and another customer with one of their own. */
async function mix() {
  const u = await createUser(sql);
  const other = await createUser(sql);
  const real = await walletOf(u.id, 'real', 'USD', '250.5');
  const demo = await walletOf(u.id, 'demo', 'USD', '10000');
  const eur = await walletOf(u.id, 'real', 'EUR');
  const theirs = await walletOf(other.id, 'real', 'USD', '99');
  await sql`UPDATE users SET active_balance_id = ${demo} WHERE id = ${u.id}`;
  await sql`UPDATE users SET active_balance_id = ${theirs} WHERE id = ${other.id}`;
  return { u, other, real, demo, eur, theirs };
}

describe('wallet reads', () => {
  test("a user's wallets are their own only, demo before real, with exact balances", async () => {
    const m = await mix();
    const wallets = await listWallets(sql, m.u.id);
    expect(wallets).toEqual([
      { id: m.demo, mode: 'demo', currency: 'USD', balance: '10000.00000000', margin: '0.00000000' },
      { id: m.eur, mode: 'real', currency: 'EUR', balance: '0.00000000', margin: '0.00000000' },
      { id: m.real, mode: 'real', currency: 'USD', balance: '250.50000000', margin: '0.00000000' },
    ]);
    expect(wallets.map((w) => w.id)).not.toContain(m.theirs);
    expect(await listWallets(sql, m.other.id)).toEqual([expect.objectContaining({ id: m.theirs })]);
  });

  test('the active wallet and the summary agree; no wallet, no active one', async () => {
    const m = await mix();
    expect(await activeWallet(sql, m.u.id)).toMatchObject({ id: m.demo, mode: 'demo' });
    const s = await accountSummary(sql, m.u.id);
    expect(s.active).toEqual(s.wallets.find((w) => w.id === m.demo));
    const none = await createUser(sql);
    expect(await activeWallet(sql, none.id)).toBeNull();
    expect(await accountSummary(sql, none.id)).toEqual({ wallets: [], active: null });
  });

  test("a pointer to another user's wallet is never read as theirs", async () => {
    const m = await mix();
    await sql`UPDATE users SET active_balance_id = ${m.theirs} WHERE id = ${m.u.id}`;
    expect(await activeWallet(sql, m.u.id)).toBeNull();
    expect((await accountSummary(sql, m.u.id)).active).toBeNull();
  });
});

describe('wallet switch', () => {
  test('between their own demo and real wallets; never to another user\'s or an unknown one', async () => {
    const m = await mix();
    expect(await switchWallet(sql, m.u.id, m.real)).toBe(true);
    expect(await activeWallet(sql, m.u.id)).toMatchObject({ id: m.real, mode: 'real', balance: '250.50000000' });
    expect(await switchWallet(sql, m.u.id, m.demo)).toBe(true);
    expect(await activeId(m.u.id)).toBe(m.demo);
    for (const bad of [m.theirs, 2 ** 40, 0, -1, Number.NaN]) {
      expect(await switchWallet(sql, m.u.id, bad), String(bad)).toBe(false);
      expect(await activeId(m.u.id)).toBe(m.demo);
    }
    expect(await activeId(m.other.id)).toBe(m.theirs);
  });

  test('the route: a bad or foreign balanceId is the error toast and changes nothing, never a 500', async () => {
    const m = await mix();
    const s = await sessionFor(sql, m.u.id);
    for (const balanceId of ['abc', '', '1e99', String(m.theirs)]) {
      const r = (await settle(switchAction({ request: post('/dashboard/switch-wallet', { balanceId, redirectTo: '/statements' }, { cookie: s.cookie }), params: {}, context: {} }))) as Response;
      expect(r.status, balanceId).toBe(302);
      expect(r.headers.get('location')).toBe('/statements');
      expect(r.headers.get('set-cookie') ?? '', balanceId).toMatch(/toast/);
      expect(await activeId(m.u.id)).toBe(m.demo);
    }
    const ok = (await settle(switchAction({ request: post('/dashboard/switch-wallet', { balanceId: String(m.real), redirectTo: '/statements' }, { cookie: s.cookie }), params: {}, context: {} }))) as Response;
    expect(ok.headers.get('location')).toBe('/statements');
    expect(await activeId(m.u.id)).toBe(m.real);
  });
});

describe('every reader goes through the module', () => {
  test('the shell and /auth/user show the same wallets and active one', async () => {
    const m = await mix();
    const s = await sessionFor(sql, m.u.id);
    const session = await findSession(sql, s.token);
    const shell = await loadShell(sql, session!);
    const summary = await accountSummary(sql, m.u.id);
    expect(shell.balances).toEqual(summary.wallets);
    expect(shell.activeBalanceId).toBe(m.demo);
    const res = (await settle(userLoader({ request: get('/auth/user', s.cookie), params: {}, context: {} }))) as Response;
    const body = await res.json();
    expect(body.user.balances).toEqual(summary.wallets);
    expect(body.activeBalance).toEqual(summary.active);
  });

  test('the shell reads the newest ten notifications with the wallets, in one query', async () => {
    const m = await mix();
    const s = await sessionFor(sql, m.u.id);
    const session = await findSession(sql, s.token);
    await sql`INSERT INTO notifications (user_id, title, description, url, data, read_at)
              SELECT ${m.u.id}, 'Note ' || g, 'About ' || g, CASE WHEN g = 12 THEN '/statements' END,
                     CASE WHEN g = 12 THEN '{"kind":"position.closed","id":7}'::jsonb END, CASE WHEN g = 11 THEN now() END
                FROM generate_series(1, 12) g`;
    const rows = await sql`SELECT id, created_at FROM notifications WHERE user_id = ${m.u.id} ORDER BY id DESC LIMIT 10`;
    const shell = await loadShell(sql, session!);
    expect(shell.notifications.map((n) => n.id)).toEqual(rows.map((r) => Number(r.id)));
    expect(shell.notifications[0]).toEqual({
      id: Number(rows[0].id), title: 'Note 12', description: 'About 12', url: '/statements', read: false,
      createdAt: (rows[0].created_at as Date).toISOString(), data: { kind: 'position.closed', id: 7 },
    });
    expect(shell.notifications[1]).toMatchObject({ title: 'Note 11', url: null, read: true, data: null });
  });
});
