// ENGINE_ROLE=gateway: a separate process serves /v1/stream from the Redis bus. Here a real
// gateway process (main.ts) and a core (its own PostgreSQL pool and Redis connection, as a core
// process has) share a Redis under a prefix of their own; the feed publishes ticks, the core
// publishes a user's event, and the gateway delivers both to a browser's stream with a valid
// ticket, checks tickets and sessions like a core, only gives a user stream its own topics, and
// marks the sessions of its open streams as seen.
import { describe, expect, test, afterAll } from 'bun:test';
import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import path from 'node:path';
import { db, createUser, createInstrument, createSession, uniq, SECRET, within } from './helpers.ts';
import { Core, TICKS } from '../src/core.ts';
import { RedisBus } from '../src/bus/index.ts';
import { signTicket } from '../src/contract/ticket.ts';
import type { OrderView } from '../src/orders/view.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp, reportSkip } from './redis.ts';

reportSkip('gateway');
const PREFIX = `${uniq('gw')}:`;
const root = path.resolve(import.meta.dir, '../..');
const PORT = 4490 + Math.floor(Math.random() * 100);
const base = `http://127.0.0.1:${PORT}/v1`;
const sql = db(4);
const cleanup: (() => Promise<unknown>)[] = [];
let child: ChildProcess | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  for (const c of cleanup.reverse()) await c().catch(() => {});
  if (redisUp) { // this run's streams
    const r = new Redis(REDIS);
    await r.del(`${PREFIX}${TICKS}`, `${PREFIX}events`).catch(() => {});
    r.disconnect();
  }
  await sql.end();
});

async function startGateway() {
  const env: NodeJS.ProcessEnv = {
    ...process.env, ENGINE_PORT: String(PORT), ENGINE_ROLE: 'gateway', ENGINE_SECRET: SECRET,
    REDIS_URL: REDIS, REDIS_PREFIX: PREFIX, PRESENCE_TOUCH_MS: '150', DATABASE_POOL: '4',
  };
  const c = spawn(path.join(root, 'node_modules/.bin/bun'), ['engine/src/main.ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env });
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`${base}/health`)).ok) return c; } catch { /* starting */ }
    await Bun.sleep(50);
  }
  c.kill('SIGKILL');
  throw new Error('gateway did not start');
}

/** Publishes, waits up to 250 ms for `seen`, and again, until `seen` holds (at most 10 s). */
async function deliver(publish: () => Promise<unknown>, seen: () => boolean) {
  await within(10_000, async () => {
    await publish();
    for (let i = 0; i < 25 && !seen(); i++) await Bun.sleep(10);
    return seen();
  });
}

type Frame = { id?: string; event?: string; data?: any };
/** An open stream: its frames as they come. */
function reader(res: Response) {
  const r = res.body!.getReader();
  const dec = new TextDecoder();
  const frames: Frame[] = [];
  let buf = '';
  let done = false;
  void (async () => {
    for (;;) {
      const x = await r.read().catch(() => ({ done: true, value: undefined }));
      if (x.done) { done = true; return; }
      buf += dec.decode(x.value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i); buf = buf.slice(i + 2);
        const f: Frame = {};
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) f.id = line.slice(4);
          else if (line.startsWith('event: ')) f.event = line.slice(7);
          else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
        }
        if (f.event) frames.push(f);
      }
    }
  })();
  return { frames, get done() { return done; }, close: () => r.cancel().catch(() => {}) };
}

const stream = (ticket: string, topics?: string) =>
  fetch(`${base}/stream?${new URLSearchParams({ ticket, ...(topics ? { topics } : {}) })}`);

describe.skipIf(!redisUp)(`gateway process${needsRedis}`, () => {
  test('delivers a feed tick and a core\'s user event over Redis; tickets, sessions and topics checked like a core', async () => {
    const inst = await createInstrument(sql, { category: 'crypto' });
    const [alice, bob] = [await createUser(sql), await createUser(sql)];
    const [sa, sb] = [await createSession(sql, alice.userId), await createSession(sql, bob.userId)];
    const ta = signTicket(SECRET, { uid: alice.userId, role: 3, sid: sa });
    const tb = signTicket(SECRET, { uid: bob.userId, role: 3, sid: sb });

    // a core on the same bus (it publishes the users' events), and the feed
    const coreSql = db(4);
    const coreBus = RedisBus.connect(REDIS, { prefix: PREFIX });
    const core = new Core({ sql: coreSql, bus: coreBus, flushMs: 0 });
    await core.start();
    cleanup.push(async () => { await core.stop(); await coreBus.close(); await coreSql.end(); });
    const feed = RedisBus.connect(REDIS, { prefix: PREFIX });
    cleanup.push(() => feed.close());

    child = await startGateway();
    expect((await (await fetch(`${base}/health`)).json()).bus).toMatchObject({ kind: 'redis', status: 'up' });
    // a gateway has no core: no orders, no market, no publishing
    expect((await fetch(`${base}/quotes`)).status).toBe(404);
    expect((await fetch(`${base}/events`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-secret': SECRET }, body: '{"topic":"heartbeat","event":"x"}' })).status).toBe(404);

    // refused: a bad ticket, a forged one, a revoked session, another user's topic
    expect((await stream('not-a-ticket')).status).toBe(401);
    expect((await stream(signTicket('another-secret-0123456789', { uid: alice.userId, role: 3, sid: sa }))).status).toBe(401);
    const revoked = await createSession(sql, alice.userId, { revoked: true });
    expect((await stream(signTicket(SECRET, { uid: alice.userId, role: 3, sid: revoked }))).status).toBe(401);
    const other = await stream(tb, `user:${alice.userId}`);
    expect(other.status).toBe(403);
    expect((await other.json()).message).toContain(`user:${alice.userId}`);

    const A = reader(await stream(ta, `prices,user:${alice.userId}`));
    const B = reader(await stream(tb, `user:${bob.userId}`));
    cleanup.push(async () => { await A.close(); await B.close(); });
    // the gateway reads the bus from '$', from when its subscriptions are in: what is published
    // before is not delivered, so each is published again until the stream has it
    await deliver(() => feed.publish(TICKS, { symbol: inst.name, bid: 100.5, ask: 101.25, ts: Date.now() }), () => A.frames.some((f) => f.event === 'priceUpdate'));
    await deliver(() => core.publish(`user:${alice.userId}`, 'order.opened', { id: 42, user_id: alice.userId } as OrderView), () => A.frames.some((f) => f.event === 'order.opened'));
    const price = A.frames.find((f) => f.event === 'priceUpdate')!.data.find((p: any) => p.name === inst.name);
    expect(price).toMatchObject({ name: inst.name, bids: 100.5, asks: 101.25, closeoutBid: 100.5, closeoutAsk: 101.25 });
    const ev = A.frames.find((f) => f.event === 'order.opened')!;
    expect(ev.data).toMatchObject({ topic: `user:${alice.userId}`, id: 42 });
    expect(ev.id).toMatch(/^\d+-\d+$/); // the bus id: a reconnect resumes with Last-Event-ID

    // bob's stream gets his own event, never alice's, and no prices he did not ask for
    await core.publish(`user:${bob.userId}`, 'balance', { balanceId: bob.balanceId, balance: '5' });
    await within(5000, () => B.frames.some((f) => f.event === 'balance'));
    expect(B.frames.map((f) => f.event)).toEqual(['balance']);
    expect(B.frames[0].data.topic).toBe(`user:${bob.userId}`);
    expect(A.frames.some((f) => f.event === 'balance')).toBe(false);

    // presence: the gateway marks the sessions of its open streams as seen
    await sql`UPDATE sessions SET last_seen_at = now() - interval '10 minutes' WHERE id = ${sa}`;
    await within(3000, async () => {
      const [r] = await sql`SELECT extract(epoch FROM now() - last_seen_at)::float AS age FROM sessions WHERE id = ${sa}`;
      return r.age < 5;
    });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^engine_sse_clients 2$/m);
    expect(metrics).toMatch(/^engine_ticks_total 1$/m);
  }, 30_000);
});
