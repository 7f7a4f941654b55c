// One HTTP request reads the session once: Remix hands the layout's loader and the page's loader
// two Request objects, and web/server.mjs runs the request in one scope that both share.
import { afterAll, describe, expect, test } from 'vitest';
import postgres from 'postgres';
import { connect } from '~/utils/db.server.ts';
import { currentSession } from '~/modules/auth/guards.server.ts';
import { BASE, createUser, sessionFor } from './helpers.ts';
import '~/utils/request-scope.server.ts';

let sessionReads = 0;
// the real database; the hook only counts the session lookups it is sent
const sql = postgres(process.env.DATABASE_URL!, {
  max: 2, onnotice: () => {},
  debug: (_c, query) => { if (query.includes('FROM sessions s JOIN users u')) sessionReads++; },
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
