// The staff-only tracking topic track:{userId} (docs/specs.md#customer-records, Tracking; docs/specs.md#realtime-tickets): a stream of one
// customer's visited URLs for the Edit Customer page. Only a staff ticket signed for that
// customer (claim trk, which the web signs after checking the staff member may open the
// customer) subscribes; the web publishes the visits through POST /v1/events.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createSession, engine, SECRET } from './helpers.ts';
import { maySubscribe, signTicket, TRACK_ROLES, verifyTicket } from '../src/contract/ticket.ts';

const sql = db(5);
let E: Awaited<ReturnType<typeof engine>>;

beforeAll(async () => { E = await engine(sql, { hub: true }); });
afterAll(async () => { await E.stop(); await sql.end(); });

async function open(ticket: string, topics: string) {
  const q = new URLSearchParams({ ticket, topics });
  return E.app.handle(new Request(`http://engine/v1/stream?${q}`));
}

/** The SSE frames with an event, until `count` arrived or the time ran out. */
async function frames(res: Response, ms: number, count: number) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const out: { event?: string; data?: any }[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end && out.length < count) {
    const r = await Promise.race([reader.read(), Bun.sleep(end - Date.now()).then(() => null)]);
    if (!r || r.done) break;
    buf += dec.decode(r.value);
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i); buf = buf.slice(i + 2);
      const f: { event?: string; data?: any } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) f.event = line.slice(7);
        else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
      }
      if (f.event) out.push(f);
    }
  }
  await reader.cancel().catch(() => {});
  return out;
}

describe('track:{userId} permissions', () => {
  test('the ticket carries the customer it was signed for; a malformed claim is refused', () => {
    const t = signTicket(SECRET, { uid: 7, role: 5, sid: 1, trk: 42 });
    expect(verifyTicket(SECRET, t)).toMatchObject({ uid: 7, role: 5, trk: 42 });
    expect(verifyTicket(SECRET, signTicket(SECRET, { uid: 7, role: 5, sid: 1 }))?.trk).toBeUndefined();
    const forged = Buffer.from(JSON.stringify({ uid: 7, role: 5, sid: 1, exp: 9e9, trk: '42' })).toString('base64url');
    expect(verifyTicket(SECRET, `${forged}.${t.split('.')[1]}`)).toBeNull();
  });

  test('only staff roles that open customers, and only the customer of the ticket', () => {
    expect(TRACK_ROLES).toEqual([1, 2, 5, 6]);
    for (const role of [1, 2, 5, 6]) {
      expect(maySubscribe({ uid: 7, role, trk: 42 }, 'track:42'), `role ${role}`).toBe(true);
      expect(maySubscribe({ uid: 7, role, trk: 42 }, 'track:43'), `role ${role}`).toBe(false);
      expect(maySubscribe({ uid: 7, role }, 'track:42'), `role ${role} without the claim`).toBe(false);
    }
    for (const role of [3, 4]) expect(maySubscribe({ uid: 42, role, trk: 42 }, 'track:42'), `role ${role}`).toBe(false);
  });
});

describe('the stream', () => {
  test('a sales agent with a ticket for the customer receives the visits live; others are refused', async () => {
    const agent = await createUser(sql, { role: 5 });
    const sid = await createSession(sql, agent.userId);
    const customer = await createUser(sql);
    const topic = `track:${customer.userId}`;
    // no claim, or a claim for another customer: 403
    expect((await open(signTicket(SECRET, { uid: agent.userId, role: 5, sid }), topic)).status).toBe(403);
    expect((await open(signTicket(SECRET, { uid: agent.userId, role: 5, sid, trk: customer.userId + 1 }), topic)).status).toBe(403);
    // the customer themself: 403
    const csid = await createSession(sql, customer.userId);
    expect((await open(signTicket(SECRET, { uid: customer.userId, role: 3, sid: csid, trk: customer.userId }), topic)).status).toBe(403);

    const res = await open(signTicket(SECRET, { uid: agent.userId, role: 5, sid, trk: customer.userId }), topic);
    expect(res.status).toBe(200);
    const reading = frames(res, 3000, 2);
    await Bun.sleep(20);
    await E.call('POST', '/events', { topic, event: 'track', data: { id: 1, url: '/dashboard', time: '2026-11-25T00:00:00.000Z' } });
    // someone else's visit does not reach this stream
    await E.call('POST', '/events', { topic: `track:${customer.userId + 1}`, event: 'track', data: { id: 2, url: '/kyc', time: '2026-11-25T00:00:01.000Z' } });
    await E.call('POST', '/events', { topic, event: 'track', data: { id: 3, url: '/profile', time: '2026-11-25T00:00:02.000Z' } });
    const got = await reading;
    expect(got.map((f) => f.event)).toEqual(['track', 'track']);
    expect(got.map((f) => f.data.url)).toEqual(['/dashboard', '/profile']);
    expect(got[0].data).toMatchObject({ topic, id: 1, time: '2026-11-25T00:00:00.000Z' });
  });

  test('a manager follows customers through tracking tickets only: never a staff member\'s stream or another user\'s (issue 22)', async () => {
    const manager = await createUser(sql, { role: 2 });
    const sid = await createSession(sql, manager.userId);
    const other = await createUser(sql, { role: 5 });
    const customer = await createUser(sql);
    // another staff member's user stream, a customer's user stream: 403, even with a tracking claim
    expect((await open(signTicket(SECRET, { uid: manager.userId, role: 2, sid }), `user:${other.userId}`)).status).toBe(403);
    expect((await open(signTicket(SECRET, { uid: manager.userId, role: 2, sid }), `user:${customer.userId}`)).status).toBe(403);
    expect((await open(signTicket(SECRET, { uid: manager.userId, role: 2, sid, trk: customer.userId }), `user:${customer.userId}`)).status).toBe(403);
    // a tracking ticket that names a staff member (signed by mistake or replayed): 403
    expect((await open(signTicket(SECRET, { uid: manager.userId, role: 2, sid, trk: other.userId }), `track:${other.userId}`)).status).toBe(403);
    // their own stream and the customer's tracking: open
    const own = await open(signTicket(SECRET, { uid: manager.userId, role: 2, sid }), `user:${manager.userId}`);
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const tracked = await open(signTicket(SECRET, { uid: manager.userId, role: 2, sid, trk: customer.userId }), `track:${customer.userId}`);
    expect(tracked.status).toBe(200);
    await tracked.body?.cancel();
  });
});
