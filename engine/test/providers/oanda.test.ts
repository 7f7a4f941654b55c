// OANDA v20 pricing stream against msw, with bodies shaped like the documented stream:
// newline-delimited PRICE and HEARTBEAT objects in a chunked response.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { OandaStream, oandaStreamHost } from '../../src/feed/providers/oanda.ts';
import { fast, sink, waitFor } from './util.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const BASE = 'https://stream-fxpractice.oanda.com';
const PATH = `${BASE}/v3/accounts/101-004-1234567-001/pricing/stream`;

const priceLine = (instrument: string, bid: string, ask: string, time = '2024-05-01T12:00:00.123456789Z') => JSON.stringify({
  type: 'PRICE', instrument, time, tradeable: true, status: 'tradeable',
  bids: [{ price: bid, liquidity: 1000000 }, { price: String(Number(bid) - 0.0001), liquidity: 5000000 }],
  asks: [{ price: ask, liquidity: 1000000 }, { price: String(Number(ask) + 0.0001), liquidity: 5000000 }],
  closeoutBid: String(Number(bid) - 0.00002), closeoutAsk: String(Number(ask) + 0.00002),
});
const heartbeatLine = (time = '2024-05-01T12:00:05.000000000Z') => JSON.stringify({ type: 'HEARTBEAT', time });

/** A chunked body: each string is one chunk; `open` keeps the stream open afterwards. */
function body(chunks: string[], open = false) {
  const enc = new TextEncoder();
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      if (!open) c.close();
    },
    cancel() { cancelled = true; },
  });
  return { stream, cancelled: () => cancelled };
}

const make = (extra: Partial<ConstructorParameters<typeof OandaStream>[0]> = {}) => new OandaStream({
  accountId: '101-004-1234567-001', token: 'tok-123', mode: 'fxpractice',
  instruments: ['EUR_USD', 'USD_JPY', 'XAU_USD'], ...fast, ...extra,
});

describe('OANDA pricing stream', () => {
  test('hosts per mode', () => {
    expect(oandaStreamHost('fxpractice')).toBe('https://stream-fxpractice.oanda.com');
    expect(oandaStreamHost('fxtrade')).toBe('https://stream-fxtrade.oanda.com');
    expect(make({ mode: 'fxtrade' }).url()).toBe('https://stream-fxtrade.oanda.com/v3/accounts/101-004-1234567-001/pricing/stream?instruments=EUR_USD,USD_JPY,XAU_USD');
  });

  test('parses PRICE lines split across chunks, heartbeats, and skips bad lines', async () => {
    let seen: Request | undefined;
    const lines = [
      priceLine('EUR_USD', '1.08520', '1.08532'),
      heartbeatLine(),
      'not json at all',
      JSON.stringify({ type: 'PRICE', instrument: 'EUR_USD', time: '2024-05-01T12:00:01Z', bids: [], asks: [] }), // no prices
      JSON.stringify({ type: 'PRICE', instrument: 'EUR_USD', bids: [{ price: '1.2' }], asks: [{ price: '1.1' }] }), // crossed
      priceLine('GBP_USD', '1.27', '1.2702'), // not ours
      JSON.stringify([1, 2, 3]),
      priceLine('USD_JPY', '151.512', '151.526', '2024-05-01T12:00:02Z'),
      // market closed: empty buckets, closeout prices only
      JSON.stringify({ type: 'PRICE', instrument: 'XAU_USD', time: '2024-05-01T12:00:03.5Z', bids: [], asks: [], closeoutBid: '2351.10', closeoutAsk: '2351.45', tradeable: false }),
    ].join('\n') + '\n';
    // cut in awkward places, including inside a JSON object
    const chunks = [lines.slice(0, 37), lines.slice(37, 300), lines.slice(300, 301), lines.slice(301)];
    server.use(http.get(PATH, ({ request }) => {
      seen = request;
      return new HttpResponse(body(chunks).stream, { headers: { 'content-type': 'application/octet-stream' } });
    }));
    const s = sink();
    const p = make({ backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    await p.start(s.emit, s.beat);
    await waitFor(() => s.ticks.length === 3, 2000, 'three ticks');
    await p.stop();

    expect(seen!.headers.get('authorization')).toBe('Bearer tok-123');
    expect(seen!.headers.get('accept-datetime-format')).toBe('RFC3339');
    expect(new URL(seen!.url).searchParams.get('instruments')).toBe('EUR_USD,USD_JPY,XAU_USD');

    expect(s.ticks[0]).toEqual({ symbol: 'EUR_USD', bid: 1.0852, ask: 1.08532, ts: Date.parse('2024-05-01T12:00:00.123Z'), closeoutBid: 1.08518, closeoutAsk: 1.08534 } as any);
    expect(s.ticks[1]).toMatchObject({ symbol: 'USD_JPY', bid: 151.512, ask: 151.526, ts: Date.parse('2024-05-01T12:00:02Z') });
    expect(s.ticks[2]).toMatchObject({ symbol: 'XAU_USD', bid: 2351.1, ask: 2351.45, ts: Date.parse('2024-05-01T12:00:03.500Z') });

    const st = p.status();
    expect(st.ticks).toBe(3);
    expect(st.skipped).toBe(4); // not json, no prices, crossed, array
    expect(st.ignored).toBe(1); // GBP_USD
    expect(s.beats.every((b) => b.api === 'oandaRest')).toBe(true);
    expect(s.beats[0]).toMatchObject({ success: true });
    expect(s.beats.some((b) => b.success && b.msg.includes('heartbeat 2024-05-01T12:00:05'))).toBe(true);
    expect(st.message).toBe('stopped');
  });

  test('reconnects with backoff after an error status and after the stream ends', async () => {
    let calls = 0;
    server.use(http.get(PATH, () => {
      calls++;
      if (calls === 1) return HttpResponse.json({ errorMessage: 'Service unavailable' }, { status: 503 });
      if (calls === 2) return new HttpResponse(body([priceLine('EUR_USD', '1.1', '1.1001') + '\n']).stream);
      return new HttpResponse(body([priceLine('EUR_USD', '1.2', '1.2001') + '\n'], true).stream);
    }));
    const s = sink();
    const p = make();
    await p.start(s.emit, s.beat);
    await waitFor(() => s.ticks.length === 2, 2000, 'ticks from two connections');
    await p.stop();
    expect(calls).toBe(3);
    expect(s.ticks.map((t) => t.bid)).toEqual([1.1, 1.2]);
    expect(p.status().reconnects).toBe(2);
    const failures = s.beats.filter((b) => !b.success).map((b) => b.msg);
    expect(failures[0]).toContain('HTTP 503: Service unavailable');
    expect(failures.some((m) => m.includes('connection closed by the provider'))).toBe(true);
  });

  test('a refused token is reported, and keeps retrying with a growing delay', async () => {
    const times: number[] = [];
    server.use(http.get(PATH, () => {
      times.push(performance.now());
      return HttpResponse.json({ errorMessage: 'Insufficient authorization to perform request.' }, { status: 401 });
    }));
    const s = sink();
    const p = make({ backoff: { initialMs: 2, maxMs: 1000, jitter: 0 } });
    await p.start(s.emit, s.beat);
    await waitFor(() => times.length >= 3, 2000, 'three attempts');
    await p.stop();
    expect(s.beats[0]).toEqual({ api: 'oandaRest', success: false, msg: expect.stringContaining('HTTP 401: Insufficient authorization') });
    expect(p.status().connected).toBe(false);
    // 401 pushes the backoff: the waits grow 2 → 8 ms (initial×4) → 32 ms …
    expect(times[2] - times[1]).toBeGreaterThan(times[1] - times[0]);
  });

  test('stop() ends an open stream at once', async () => {
    const b = body([priceLine('EUR_USD', '1.1', '1.1001') + '\n'], true);
    let calls = 0;
    server.use(http.get(PATH, () => { calls++; return new HttpResponse(b.stream); }));
    const s = sink();
    const p = make();
    await p.start(s.emit, s.beat);
    await waitFor(() => s.ticks.length === 1);
    expect(p.status().connected).toBe(true);
    const t0 = performance.now();
    await p.stop();
    expect(performance.now() - t0).toBeLessThan(200);
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBe(1);
    expect(p.status().connected).toBe(false);
  });

  test('a silent stream (no heartbeat) is dropped by the watchdog and reopened', async () => {
    let calls = 0;
    server.use(http.get(PATH, () => {
      calls++;
      return new HttpResponse(body([priceLine('EUR_USD', String(1 + calls / 10), String(1.0001 + calls / 10)) + '\n'], true).stream);
    }));
    const s = sink();
    const p = make({ stallMs: 40 });
    await p.start(s.emit, s.beat);
    await waitFor(() => calls >= 2 && s.ticks.length >= 2, 2000, 'a second connection');
    await p.stop();
    expect(s.beats.some((b) => !b.success && b.msg.includes('no data for 40 ms'))).toBe(true);
  });

  test('unreachable host: the fetch error is reported', async () => {
    server.use(http.get(PATH, () => HttpResponse.error()));
    const s = sink();
    const p = make();
    await p.start(s.emit, s.beat);
    await waitFor(() => s.beats.length >= 1);
    await p.stop();
    expect(s.beats[0].success).toBe(false);
    expect(p.status().lastError).toBeTruthy();
  });
});
