// SSE: tickets, session check, topic permissions, coalesced prices, resumable user events.
import { describe, expect, test, beforeAll, afterAll } from 'bun:test';
import { db, createUser, createInstrument, createSession, engine, SECRET } from './helpers.ts';
import { signTicket, verifyTicket, maySubscribe } from '../src/contract/ticket.ts';

const sql = db(10);
let E: Awaited<ReturnType<typeof engine>>;
let INST: { id: number; name: string };

beforeAll(async () => {
  INST = await createInstrument(sql);
  E = await engine(sql, { hub: true });
});
afterAll(async () => { await E.stop(); await sql.end(); });

async function open(ticket: string, topics?: string, lastEventId?: string) {
  const q = new URLSearchParams({ ticket, ...(topics ? { topics } : {}) });
  return E.app.handle(new Request(`http://engine/v1/stream?${q}`, { headers: lastEventId ? { 'last-event-id': lastEventId } : {} }));
}

/** Reads SSE frames until `until` says stop or the time runs out. */
async function frames(res: Response, ms: number, until?: (f: { id?: string; event?: string; data?: any }[]) => boolean) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const out: { id?: string; event?: string; data?: any }[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end && !(until?.(out))) {
    const r = await Promise.race([reader.read(), Bun.sleep(end - Date.now()).then(() => null)]);
    if (!r || r.done) break;
    buf += dec.decode(r.value);
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i); buf = buf.slice(i + 2);
      const f: { id?: string; event?: string; data?: any } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) f.id = line.slice(4);
        else if (line.startsWith('event: ')) f.event = line.slice(7);
        else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
      }
      if (f.event) out.push(f);
    }
  }
  await reader.cancel().catch(() => {});
  return out;
}

describe('tickets', () => {
  test('sign and verify; tampered, foreign or expired tickets are refused', () => {
    const t = signTicket(SECRET, { uid: 5, role: 3, sid: 9 });
    expect(verifyTicket(SECRET, t)).toMatchObject({ uid: 5, role: 3, sid: 9 });
    expect(verifyTicket('another-secret-xxxxxxxx', t)).toBeNull();
    const [body, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ uid: 1, role: 1, sid: 9, exp: 9e9 })).toString('base64url');
    expect(verifyTicket(SECRET, `${forged}.${sig}`)).toBeNull();
    expect(verifyTicket(SECRET, `${body}.${sig}.x`)).toBeNull();
    expect(verifyTicket(SECRET, signTicket(SECRET, { uid: 5, role: 3, sid: 9, exp: 1000 }))).toBeNull();
  });
  test.each([
    [3, 'prices', true], [3, 'user:5', true], [3, 'user:6', false], [3, 'track:5', false], [3, 'heartbeat', false],
    [1, 'track:6', false], [1, 'heartbeat', true], [4, 'heartbeat', false], [3, 'other', false],
    // nobody follows another user's stream, staff included (issue 22): not a customer's, not a staff member's
    [2, 'user:6', false], [1, 'user:6', false], [5, 'user:6', false], [6, 'user:6', false], [2, 'user:5', true], [1, 'user:5', true],
    // positions opening and closing: the admin dashboard's roles only (EXPOSURE_ROLES, web's '/admin')
    [1, 'exposure', true], [2, 'exposure', false], [3, 'exposure', false], [4, 'exposure', false], [5, 'exposure', false], [6, 'exposure', false],
    [1, 'exposure:5', false],
  ])('role %d topic %s → %s', (role, topic, ok) => {
    expect(maySubscribe({ uid: 5, role }, topic)).toBe(ok);
  });
});

describe('GET /v1/stream', () => {
  test('refuses a bad ticket, an expired ticket and a revoked session', async () => {
    const u = await createUser(sql);
    const sid = await createSession(sql, u.userId);
    expect((await open('nonsense')).status).toBe(401);
    expect((await open(signTicket(SECRET, { uid: u.userId, role: 3, sid, exp: 1000 }))).status).toBe(401);
    const revoked = await createSession(sql, u.userId, { revoked: true });
    expect((await open(signTicket(SECRET, { uid: u.userId, role: 3, sid: revoked }))).status).toBe(401);
    const expired = await createSession(sql, u.userId, { expired: true });
    expect((await open(signTicket(SECRET, { uid: u.userId, role: 3, sid: expired }))).status).toBe(401);
    // a ticket naming someone else's session
    const other = await createUser(sql);
    expect((await open(signTicket(SECRET, { uid: other.userId, role: 3, sid }))).status).toBe(401);
  });

  test("a customer cannot subscribe to another user's topic, tracking or heartbeats", async () => {
    const u = await createUser(sql);
    const sid = await createSession(sql, u.userId);
    const t = signTicket(SECRET, { uid: u.userId, role: 3, sid });
    for (const topic of [`user:${u.userId + 1}`, `track:${u.userId}`, 'heartbeat']) {
      const r = await open(t, topic);
      expect(r.status).toBe(403);
      expect(await r.json()).toEqual({ message: `Not allowed to subscribe to ${topic}` });
    }
  });

  test('prices arrive as coalesced priceUpdate messages of changed instruments', async () => {
    const u = await createUser(sql);
    const sid = await createSession(sql, u.userId);
    await E.core.reloadInstruments();
    const res = await open(signTicket(SECRET, { uid: u.userId, role: 3, sid }), 'prices');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reading = frames(res, 700);
    await Bun.sleep(20);
    for (let i = 0; i < 30; i++) E.core.ingest({ symbol: INST.name, bid: 100 + i, ask: 101 + i, ts: Date.now() });
    const got = (await reading).filter((f) => f.event === 'priceUpdate');
    const mine = got.filter((f) => f.data.some((p: any) => p.name === INST.name));
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(mine.length).toBeLessThanOrEqual(4); // the snapshot on connect, then ≤ 3 in 700 ms at ≥ 250 ms apart
    const last = mine.at(-1)!.data.find((p: any) => p.name === INST.name);
    expect(last).toMatchObject({ name: INST.name, bids: 129, asks: 130, closeoutBid: 129, closeoutAsk: 130 });
  });

  test('user events, resumable with Last-Event-ID', async () => {
    const u = await createUser(sql);
    const sid = await createSession(sql, u.userId);
    const ticket = signTicket(SECRET, { uid: u.userId, role: 3, sid });
    const res = await open(ticket, `user:${u.userId}`);
    const reading = frames(res, 2000, (f) => f.length >= 1);
    await Bun.sleep(20);
    const pub = await E.call('POST', '/events', { topic: `user:${u.userId}`, event: 'notification', data: { title: 'Hello', description: 'one' } });
    expect(pub.status).toBe(200);
    const first = await reading;
    expect(first[0]).toMatchObject({ event: 'notification', data: { topic: `user:${u.userId}`, title: 'Hello' } });
    // while disconnected: two more, one for someone else
    await E.call('POST', '/events', { topic: `user:${u.userId}`, event: 'notification', data: { title: 'two' } });
    await E.call('POST', '/events', { topic: `user:${u.userId + 1}`, event: 'notification', data: { title: 'not yours' } });
    await E.call('POST', '/events', { topic: `user:${u.userId}`, event: 'notification', data: { title: 'three' } });
    const again = await frames(await open(ticket, `user:${u.userId}`, first[0].id), 2000, (f) => f.length >= 2);
    expect(again.map((f) => f.data.title)).toEqual(['two', 'three']);
  });

  test('staff receive heartbeats and tracking', async () => {
    const admin = await createUser(sql, { role: 1 });
    const sid = await createSession(sql, admin.userId);
    // the tracking ticket names a customer (the engine checks it is one)
    const c = (await createUser(sql)).userId;
    const res = await open(signTicket(SECRET, { uid: admin.userId, role: 1, sid, trk: c }), `heartbeat,track:${c}`);
    expect(res.status).toBe(200);
    const reading = frames(res, 2000, (f) => f.length >= 2);
    await Bun.sleep(20);
    await E.call('POST', '/events', { topic: 'heartbeat', event: 'heartbeat', data: { api: 'oandaRest', success: true, msg: 'ok' } });
    await E.call('POST', '/events', { topic: `track:${c}`, event: 'track', data: { url: '/deposits', time: '2024-11-23T10:00:00Z' } });
    const got = await reading;
    expect(got.map((f) => f.event)).toEqual(['heartbeat', 'track']);
    expect(got[1].data).toMatchObject({ url: '/deposits' });

    // a status page opened later sees the last beat of each api at once, not after the next one
    const later = await open(signTicket(SECRET, { uid: admin.userId, role: 1, sid }), 'heartbeat');
    const first = await frames(later, 2000, (f) => f.length >= 1);
    expect(first[0]).toMatchObject({ event: 'heartbeat', data: { api: 'oandaRest', success: true, msg: 'ok' } });
  });

  test('positions opened and closed reach an admin on the exposure topic; anyone else is refused it', async () => {
    const admin = await createUser(sql, { role: 1 });
    const sid = await createSession(sql, admin.userId);
    for (const role of [2, 3, 5, 6]) {
      const other = await createUser(sql, { role });
      const r = await open(signTicket(SECRET, { uid: other.userId, role, sid: await createSession(sql, other.userId) }), 'prices,exposure');
      expect(r.status).toBe(403);
      expect(await r.json()).toEqual({ message: 'Not allowed to subscribe to exposure' });
    }
    await E.core.reloadInstruments();
    await E.quote(INST.name, 100, 101);
    const res = await open(signTicket(SECRET, { uid: admin.userId, role: 1, sid }), 'exposure');
    expect(res.status).toBe(200);
    const reading = frames(res, 4000, (f) => f.length >= 2);
    await Bun.sleep(20);
    const u = await createUser(sql, { deposit: '100000' });
    const placed = await E.call('POST', '/orders', { userId: u.userId, type: 'sell', instrument: INST.name, amount: '1' });
    expect(placed.status).toBe(201);
    const id = placed.body.order.id;
    expect((await E.call('POST', `/orders/${id}/close`, { userId: u.userId })).status).toBe(200);
    const got = await reading;
    expect(got.map((f) => [f.event, f.data])).toEqual([
      ['position.opened', { topic: 'exposure', id, instrument: INST.name, side: 'sell' }],
      ['position.closed', { topic: 'exposure', id, instrument: INST.name, side: 'sell' }],
    ]);
  });

  test('GET /v1/server: the engine process\'s CPU and memory, behind the secret', async () => {
    expect((await E.call('GET', '/server', undefined, { 'x-engine-secret': 'nope' })).status).toBe(401);
    const r = await E.call('GET', '/server');
    expect(r.status).toBe(200);
    const s = r.body.server;
    expect(s.cores).toBeGreaterThan(0);
    expect(s.totalMemoryMb).toBeGreaterThan(0);
    expect(s.processMemoryMb).toBeGreaterThan(0);
    for (const v of [s.cpuUsage, s.memoryUsage, s.processCpu]) { expect(v).toBeGreaterThanOrEqual(0); expect(v).toBeLessThanOrEqual(100); }
  });

  test('POST /v1/events needs the secret and a known topic', async () => {
    expect((await E.call('POST', '/events', { topic: 'user:1', event: 'x' }, { 'x-engine-secret': 'nope' })).status).toBe(401);
    expect((await E.call('POST', '/events', { topic: 'everyone', event: 'x' })).status).toBe(400);
    // only the contract's events (contract/events.ts)
    expect((await E.call('POST', '/events', { topic: 'user:1', event: 'order.reopened' })).status).toBe(400);
  });
});
