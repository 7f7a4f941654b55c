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
});
