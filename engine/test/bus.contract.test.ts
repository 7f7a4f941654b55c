// One contract, two buses: in-process and Redis Streams (TEST_REDIS_URL, else 127.0.0.1:6379;
// the Redis half is skipped, saying why, when no Redis answers).
import { describe, expect, test, afterAll } from 'bun:test';
import { MemoryBus, RedisBus, type Bus, type BusMessage } from '../src/bus/index.ts';
import { REDIS_URL as REDIS, needsRedis, redisUp, reportSkip } from './redis.ts';
const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) { if (Date.now() > end) throw new Error('timed out'); await Bun.sleep(10); }
};

function contract(name: string, make: () => Bus, run = true) {
  if (!run) {
    test.skip(`bus contract: ${name}${needsRedis}`, () => {});
    return;
  }
  describe(`bus contract: ${name}`, () => {
    const bus = make();
    afterAll(() => bus.close());
    const s = (n: string) => `${n}-${Math.random().toString(36).slice(2)}`;

    test('publish returns increasing ids; subscribers get every message in order', async () => {
      const stream = s('fan');
      const a: number[] = [], b: number[] = [];
      const ua = bus.subscribe<{ n: number }>(stream, (m) => { a.push(m.data.n); });
      const ub = bus.subscribe<{ n: number }>(stream, (m) => { b.push(m.data.n); });
      await Bun.sleep(50);
      const ids: string[] = [];
      for (let n = 0; n < 20; n++) ids.push(await bus.publish(stream, { n }));
      for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1] || ids[i].length > ids[i - 1].length).toBe(true);
      await until(() => a.length === 20 && b.length === 20);
      expect(a).toEqual([...Array(20).keys()]);
      expect(b).toEqual(a);
      ua(); ub();
    });

    test('subscribe from an id resumes after it; range reads what is kept', async () => {
      const stream = s('resume');
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) ids.push(await bus.publish(stream, { n }));
      const got: number[] = [];
      const u = bus.subscribe<{ n: number }>(stream, (m) => { got.push(m.data.n); }, { from: ids[1] });
      await until(() => got.length === 3);
      expect(got).toEqual([2, 3, 4]);
      u();
      const r = await bus.range<{ n: number }>(stream, ids[2]);
      expect(r.map((m) => m.data.n)).toEqual([3, 4]);
    });

    test('a consumer group shares the work: each message handled once', async () => {
      const stream = s('work');
      const seen = new Map<number, string>();
      const stops = ['c1', 'c2', 'c3'].map((c) => bus.consume<{ n: number }>(stream, 'g', c, async (m) => {
        expect(seen.has(m.data.n)).toBe(false);
        seen.set(m.data.n, c);
      }));
      await Bun.sleep(100);
      for (let n = 0; n < 60; n++) await bus.publish(stream, { n });
      await until(() => seen.size === 60);
      await Bun.sleep(100);
      expect(seen.size).toBe(60);
      stops.forEach((f) => f());
    });

    test('a failing handler leaves the message pending and it is delivered again', async () => {
      const stream = s('retry');
      let tries = 0;
      const done: number[] = [];
      const stop = bus.consume<{ n: number }>(stream, 'g', 'c1', async (m) => {
        if (m.data.n === 1 && tries++ < 2) throw new Error('boom');
        done.push(m.data.n);
      }, { claimIdleMs: 100 });
      await Bun.sleep(100);
      for (let n = 0; n < 3; n++) await bus.publish(stream, { n });
      await until(() => done.length === 3);
      expect(done).toEqual([0, 1, 2]);
      stop();
    });

    test("a crashed consumer's pending message is claimed by another", async () => {
      const stream = s('claim');
      const got: BusMessage<{ n: number }>[] = [];
      let stopA = () => {};
      // consumer A takes the message and "crashes" (never resolves, then stops)
      stopA = bus.consume<{ n: number }>(stream, 'g', 'a', () => new Promise(() => { setTimeout(() => stopA(), 0); }), { claimIdleMs: 300 });
      await Bun.sleep(100);
      await bus.publish(stream, { n: 7 });
      await Bun.sleep(150);
      const stopB = bus.consume<{ n: number }>(stream, 'g', 'b', (m) => { got.push(m); }, { claimIdleMs: 300 });
      await until(() => got.length === 1, 8000);
      expect(got[0].data.n).toBe(7);
      stopB();
    });

    test('ping', async () => expect(await bus.ping()).toBe(true));
  });
}

contract('memory', () => new MemoryBus());
const PREFIX = `test:${process.pid}:`;
reportSkip('bus contract: redis');
contract('redis', () => RedisBus.connect(REDIS, { prefix: PREFIX }), redisUp);
afterAll(async () => {
  if (!redisUp) return;
  // leave nothing behind in the shared Redis
  const { default: Redis } = await import('ioredis');
  const r = new Redis(REDIS);
  const keys = await r.keys(`${PREFIX}*`);
  if (keys.length) await r.del(...keys);
  r.disconnect();
});
