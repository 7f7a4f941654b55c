// The Redis the engine's Redis tests use: TEST_REDIS_URL, else 127.0.0.1:6379. `npm test` must pass
// on a machine with Node alone, so without a Redis answering PING those tests are skipped, and
// say so: a line on stderr and the reason in the skipped tests' names.
import net from 'node:net';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a Redis answers PING at `url` within a second. */
function ping(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write(u.password ? `AUTH ${decodeURIComponent(u.password)}\r\nPING\r\n` : 'PING\r\n'));
    socket.on('data', (d) => { if (d.toString().includes('+PONG')) done(true); else if (d.toString().startsWith('-')) done(false); });
  });
}

export const redisUp = await ping(REDIS_URL);

/** A suffix for the names of tests that need Redis: why they are skipped, when they are. */
export const needsRedis = redisUp ? '' : ` (skipped: no Redis answers at ${REDIS_URL}; set TEST_REDIS_URL or start Redis to run it)`;

export function reportSkip(what: string): void {
  if (!redisUp) console.warn(`[test] ${what} skipped: no Redis answers PING at ${REDIS_URL} (set TEST_REDIS_URL or start Redis to run it)`);
}
