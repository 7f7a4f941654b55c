// One HTTP request reads the session once: Remix hands the layout's loader and the page's loader
// two Request objects, and web/server.mjs runs the request in one scope that both share.
import { afterAll, describe, expect, test } from 'vitest';
import postgres from 'postgres';
import { connect } from '~/shared/db.server.ts';
import { currentSession } from '~/modules/auth/guards.server.ts';
import { accountSummary } from '~/modules/accounts/accounts.server.ts';
import { BASE, createUser, sessionFor } from './helpers.ts';
import '~/shared/request-scope.server.ts';

let sessionReads = 0;
let walletReads = 0;
// the real database; the hook only counts the session lookups it is sent
const sql = postgres(process.env.DATABASE_URL!, {
  max: 2, onnotice: () => {},
  debug: (_c, query) => {
    if (query.includes('FROM sessions s JOIN users u')) sessionReads++;
    if (query.includes('FROM users u JOIN balances b ON b.user_id = u.id')) walletReads++;
  },
}) as unknown as ReturnType<typeof connect>;
afterAll(() => sql.end());

/** What web/server.mjs does around each request. */
const inOneRequest = <T>(fn: () => Promise<T>) => globalThis.__brokerRequestScope!.run(new Map(), fn);

describe('the session of a request', () => {
  test('is read once for all the loaders of one GET', async () => {
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    const req = () => new Request(`${BASE}/dashboard`, { headers: { cookie } });
    sessionReads = 0;
    const [a, b] = await inOneRequest(async () => [await currentSession(req(), sql), await currentSession(req(), sql)]);
    expect(a?.user.id).toBe(u.id);
    expect(b).toBe(a);
    expect(sessionReads).toBe(1);
    // two requests read twice
    await inOneRequest(() => currentSession(req(), sql));
    expect(sessionReads).toBe(2);
  });

  test('an action reads its own, so the loaders after it see what it changed', async () => {
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    sessionReads = 0;
    await inOneRequest(async () => {
      await currentSession(new Request(`${BASE}/profile`, { method: 'POST', headers: { cookie } }), sql);
      await sql`UPDATE users SET full_name = 'Changed by the action' WHERE id = ${u.id}`;
      const after = await currentSession(new Request(`${BASE}/profile`, { headers: { cookie } }), sql);
      expect(after?.user.fullName).toBe('Changed by the action');
    });
    expect(sessionReads).toBe(2);
  });
});

describe('the wallets of a request', () => {
  test("are read once for the layout's and the page's loaders of a GET, and again by the next request", async () => {
    const u = await createUser(sql);
    const [b] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'demo', 'USD') RETURNING id`;
    await sql`UPDATE users SET active_balance_id = ${b.id} WHERE id = ${u.id}`;
    const req = () => new Request(`${BASE}/dashboard`);
    walletReads = 0;
    const [layout, page] = await inOneRequest(() => Promise.all([accountSummary(sql, u.id, req()), accountSummary(sql, u.id, req())]));
    expect(page).toBe(layout);
    expect(layout.active?.id).toBe(Number(b.id));
    expect(walletReads).toBe(1);
    // a wallet switch shows on the next request
    const [other] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', 'EUR') RETURNING id`;
    await sql`UPDATE users SET active_balance_id = ${other.id} WHERE id = ${u.id}`;
    expect((await inOneRequest(() => accountSummary(sql, u.id, req()))).active?.id).toBe(Number(other.id));
    expect(walletReads).toBe(2);
    // an action's reads are its own
    await inOneRequest(async () => {
      await accountSummary(sql, u.id, new Request(`${BASE}/dashboard`, { method: 'POST' }));
      await accountSummary(sql, u.id, new Request(`${BASE}/dashboard`, { method: 'POST' }));
    });
    expect(walletReads).toBe(4);
  });
});
