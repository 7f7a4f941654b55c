// OANDA stream against a real local HTTP server (chunked transfer), to check what msw cannot:
// that stop() really closes the connection, and that the request carries the documented shape.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { OandaStream } from '../../src/feed/providers/oanda.ts';
import { fast, sink, waitFor } from './util.ts';

let server: ReturnType<typeof Bun.serve>;
let closedByClient = 0;
let requests: { path: string; auth: string | null; instruments: string | null }[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const u = new URL(req.url);
      requests.push({ path: u.pathname, auth: req.headers.get('authorization'), instruments: u.searchParams.get('instruments') });
      if (req.headers.get('authorization') !== 'Bearer good') {
        return Response.json({ errorMessage: 'Insufficient authorization to perform request.' }, { status: 401 });
      }
      const enc = new TextEncoder();
      let timer: ReturnType<typeof setInterval>;
      let n = 0;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          timer = setInterval(() => {
            n++;
            const line = n % 3 === 0
              ? { type: 'HEARTBEAT', time: new Date().toISOString() }
              : { type: 'PRICE', instrument: 'EUR_USD', time: new Date().toISOString(), bids: [{ price: (1.08 + n / 1e5).toFixed(5), liquidity: 1e6 }], asks: [{ price: (1.0801 + n / 1e5).toFixed(5), liquidity: 1e6 }], closeoutBid: '1.07', closeoutAsk: '1.09' };
            try { c.enqueue(enc.encode(JSON.stringify(line) + '\n')); } catch { clearInterval(timer); }
          }, 5);
        },
        cancel() { clearInterval(timer); closedByClient++; },
      });
      return new Response(stream, { headers: { 'content-type': 'application/octet-stream' } });
    },
  });
});
afterAll(() => server.stop(true));

test('streams from a real chunked response and closes the connection on stop()', async () => {
  requests = [];
  const s = sink();
  const p = new OandaStream({ accountId: '101-1', token: 'good', mode: 'fxpractice', instruments: ['EUR_USD'], baseUrl: `http://127.0.0.1:${server.port}`, ...fast });
  await p.start(s.emit, s.beat);
  await waitFor(() => s.ticks.length >= 5, 3000, 'five ticks');
  await p.stop();
  await waitFor(() => closedByClient === 1, 2000, 'the server to see the client go');
  expect(requests).toEqual([{ path: '/v3/accounts/101-1/pricing/stream', auth: 'Bearer good', instruments: 'EUR_USD' }]);
  expect(s.ticks.every((t) => t.symbol === 'EUR_USD' && t.ask > t.bid)).toBe(true);
  expect(s.beats.some((b) => b.api === 'oandaRest' && b.success && b.msg.startsWith('heartbeat'))).toBe(true);
});

test('a bad token: failure heartbeats and retries, no ticks', async () => {
  requests = [];
  const s = sink();
  const p = new OandaStream({ accountId: '101-1', token: 'bad', mode: 'fxtrade', instruments: ['EUR_USD'], baseUrl: `http://127.0.0.1:${server.port}`, ...fast });
  await p.start(s.emit, s.beat);
  await waitFor(() => requests.length >= 2, 3000, 'a retry');
  await p.stop();
  expect(s.ticks).toEqual([]);
  expect(s.beats[0]).toMatchObject({ api: 'oandaRest', success: false });
  expect(s.beats[0].msg).toContain('HTTP 401');
});
