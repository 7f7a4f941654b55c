// Presence: the sessions of open realtime streams are marked as seen while the stream is open
// (web's online dot reads sessions.last_seen_at), and no longer once it closes.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createSession, engine, SECRET } from './helpers.ts';
import { signTicket } from '../src/contract/ticket.ts';

const sql = db(4);
let E: Awaited<ReturnType<typeof engine>>;

beforeAll(async () => {
  process.env.PRESENCE_TOUCH_MS = '150';
  E = await engine(sql, { hub: true });
});
afterAll(async () => {
  delete process.env.PRESENCE_TOUCH_MS;
  await E.stop();
  await sql.end();
});

const ageOf = async (sid: number) => {
  const [r] = await sql`SELECT extract(epoch FROM now() - last_seen_at)::float AS age FROM sessions WHERE id = ${sid}`;
  return Number(r.age);
};

describe('presence of open streams', () => {
  test('an open stream keeps its session seen; a closed one does not', async () => {
    const u = await createUser(sql);
    const sid = await createSession(sql, u.userId);
    await sql`UPDATE sessions SET last_seen_at = now() - interval '10 minutes' WHERE id = ${sid}`;
    const res = await E.app.handle(new Request(`http://engine/v1/stream?ticket=${signTicket(SECRET, { uid: u.userId, role: 3, sid })}`));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    await Bun.sleep(600);
    expect(await ageOf(sid)).toBeLessThan(5);

    await reader.cancel();
    await Bun.sleep(200);
    await sql`UPDATE sessions SET last_seen_at = now() - interval '10 minutes' WHERE id = ${sid}`;
    await Bun.sleep(600);
    expect(await ageOf(sid)).toBeGreaterThan(500);
  });

  test('a stream whose session ends is closed: signed out, or a login-as whose staff member was deactivated', async () => {
    const u = await createUser(sql);
    const sid = await createSession(sql, u.userId);
    const res = await E.app.handle(new Request(`http://engine/v1/stream?ticket=${signTicket(SECRET, { uid: u.userId, role: 3, sid })}`));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    await sql`UPDATE sessions SET revoked_at = now() WHERE id = ${sid}`;
    expect(await readUntilDone(reader)).toBe(true);

    // a login-as session: its staff member deactivated ends it, and a new stream is refused
    const staff = await createUser(sql, { role: 2 });
    const customer = await createUser(sql);
    const [s] = await sql<{ id: bigint }[]>`
      INSERT INTO sessions (token_hash, user_id, impersonator_id, expires_at) VALUES (${'tok' + sid + 'x'}, ${customer.userId}, ${staff.userId}, now() + interval '1 hour') RETURNING id`;
    const loginAs = Number(s.id);
    const ticket = signTicket(SECRET, { uid: customer.userId, role: 3, sid: loginAs });
    const open = await E.app.handle(new Request(`http://engine/v1/stream?ticket=${ticket}`));
    expect(open.status).toBe(200);
    const r2 = open.body!.getReader();
    await r2.read();
    await sql`UPDATE users SET is_active = false WHERE id = ${staff.userId}`;
    expect(await readUntilDone(r2)).toBe(true);
    expect((await E.app.handle(new Request(`http://engine/v1/stream?ticket=${ticket}`))).status).toBe(401);
  });
});

/** Reads until the stream ends (true) or 3 s pass (false). */
async function readUntilDone(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const next = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)]);
    if (next === null) return false;
    if (next.done) return true;
  }
  return false;
}
