// Polygon forex and crypto websockets against a local server speaking the documented protocol.
import { afterEach, describe, expect, test } from 'bun:test';
import { PolygonSocket, toPolygonPair } from '../../src/feed/providers/polygon.ts';
import { fakePolygon, type FakeServer } from './fake-ws.ts';
import { fast, sink, waitFor } from './util.ts';

let servers: FakeServer[] = [];
let providers: PolygonSocket[] = [];
afterEach(async () => {
  await Promise.all(providers.map((p) => p.stop()));
  for (const s of servers) s.stop();
  servers = []; providers = [];
});

function setup(market: 'forex' | 'crypto', instruments: string[], apiKey = 'poly-key', extra = {}) {
  const srv = fakePolygon(market === 'forex' ? '/forex' : '/crypto');
  servers.push(srv);
  const p = new PolygonSocket({ market, apiKey, instruments, url: srv.url, ...fast, ...extra });
  providers.push(p);
  const s = sink();
  return { srv, p, s };
}

describe('Polygon websockets', () => {
  test('pair names', () => {
    expect(toPolygonPair('forex', 'EUR_USD')).toBe('EUR/USD');
    expect(toPolygonPair('forex', 'XAU_USD')).toBe('XAU/USD');
    expect(toPolygonPair('crypto', 'BTC_USD')).toBe('BTC-USD');
    expect(toPolygonPair('crypto', 'BTCUSD')).toBeUndefined();
  });

  test('forex: auth, subscribe per pair, C quotes mapped to our names, bad events skipped', async () => {
    const { srv, p, s } = setup('forex', ['EUR_USD', 'USD_JPY', 'XAU_USD']);
    await p.start(s.emit, s.beat);
    await waitFor(() => p.status().connected, 2000, 'subscribed');
    expect(srv.received).toEqual([
      { action: 'auth', params: 'poly-key' },
      { action: 'subscribe', params: 'C.EUR/USD,C.USD/JPY,C.XAU/USD' },
    ]);
    expect(s.beats[0]).toEqual({ api: 'polygonForex', success: true, msg: 'subscribed to 3 pairs' });

    srv.push([
      { ev: 'C', p: 'EUR/USD', x: 48, a: 1.08532, b: 1.0852, t: 1714564800123 },
      { ev: 'C', p: 'GBP/USD', x: 48, a: 1.2702, b: 1.27, t: 1714564800124 }, // not ours
      { ev: 'C', p: 'USD/JPY', x: 48, a: 151.526, t: 1714564800125 }, // no bid
      { ev: 'C', p: 'USD/JPY', x: 48, a: 151.5, b: 151.6, t: 1714564800125 }, // crossed
      { ev: 'CA', pair: 'EUR/USD', o: 1, c: 1, h: 1, l: 1, v: 1, s: 1, e: 2 }, // aggregate, not ours
      null,
    ]);
    srv.push('this is not json');
    srv.push([{ ev: 'C', p: 'XAU/USD', x: 48, a: 2351.45, b: 2351.1, t: 1714564800200 }, { ev: 'C', p: 'usd/jpy', a: '151.526', b: '151.512', t: 1714564800300 }]);
    await waitFor(() => s.ticks.length === 3, 2000, 'three ticks');
    expect(s.ticks).toEqual([
      { symbol: 'EUR_USD', bid: 1.0852, ask: 1.08532, ts: 1714564800123 },
      { symbol: 'XAU_USD', bid: 2351.1, ask: 2351.45, ts: 1714564800200 },
      { symbol: 'USD_JPY', bid: 151.512, ask: 151.526, ts: 1714564800300 },
    ]);
    const st = p.status();
    expect(st).toMatchObject({ name: 'polygon-forex', api: 'polygonForex', connected: true, ticks: 3, skipped: 4, ignored: 2, reconnects: 0 });
  });

  test('crypto: XQ quotes with bp/ap', async () => {
    const { srv, p, s } = setup('crypto', ['BTC_USD', 'ETH_USD']);
    await p.start(s.emit, s.beat);
    await waitFor(() => p.status().connected, 2000, 'subscribed');
    expect(srv.received[1]).toEqual({ action: 'subscribe', params: 'XQ.BTC-USD,XQ.ETH-USD' });
    srv.push([
      { ev: 'XQ', pair: 'BTC-USD', lp: 0, ls: 0, bp: 67010.1, bs: 0.5, ap: 67012.4, as: 1.2, t: 1714564800123, x: 1, r: 1714564800130 },
      { ev: 'XT', pair: 'BTC-USD', p: 67011, t: 1714564800124, s: 0.1, c: [1], i: '1', x: 1, r: 1 },
      { ev: 'XQ', pair: 'ETH-USD', bp: 3201.1, ap: 3201.5, t: 1714564800125 },
      { ev: 'C', p: 'EUR/USD', a: 1.1, b: 1.0, t: 1 }, // a forex event on the crypto socket is not ours
    ]);
    await waitFor(() => s.ticks.length === 2);
    expect(s.ticks).toEqual([
      { symbol: 'BTC_USD', bid: 67010.1, ask: 67012.4, ts: 1714564800123 },
      { symbol: 'ETH_USD', bid: 3201.1, ask: 3201.5, ts: 1714564800125 },
    ]);
    expect(s.beats.every((b) => b.api === 'polygonCrypto')).toBe(true);
    expect(p.status().ignored).toBe(2);
  });

  test('auth_failed: reported, nothing subscribed, retried with backoff', async () => {
    const { srv, p, s } = setup('forex', ['EUR_USD'], 'wrong-key');
    await p.start(s.emit, s.beat);
    await waitFor(() => srv.connections >= 2, 3000, 'a second attempt');
    expect(srv.received.filter((m) => m.action === 'subscribe')).toEqual([]);
    expect(s.beats[0].success).toBe(false);
    expect(s.beats[0].msg).toContain('authentication failed');
    expect(p.status().connected).toBe(false);
  });

  test('a dropped connection reconnects, re-authenticates and resubscribes', async () => {
    const { srv, p, s } = setup('forex', ['EUR_USD']);
    await p.start(s.emit, s.beat);
    await waitFor(() => p.status().connected);
    srv.push([{ ev: 'C', p: 'EUR/USD', a: 1.1001, b: 1.1, t: 1 }]);
    await waitFor(() => s.ticks.length === 1);
    srv.drop(1011);
    await waitFor(() => srv.connections === 2 && srv.received.filter((m) => m.action === 'subscribe').length === 2, 3000, 'resubscribe');
    await waitFor(() => p.status().connected);
    srv.push([{ ev: 'C', p: 'EUR/USD', a: 1.2001, b: 1.2, t: 2 }]);
    await waitFor(() => s.ticks.length === 2);
    expect(p.status().reconnects).toBe(1);
    const msgs = s.beats.map((b) => `${b.success}:${b.msg}`);
    expect(msgs[0]).toBe('true:subscribed to 1 pairs');
    expect(msgs[1]).toMatch(/^false:websocket closed \(1011/);
    expect(msgs[2]).toBe('true:subscribed to 1 pairs');
  });

  test('stop() closes the socket and does not reconnect', async () => {
    const { srv, p, s } = setup('crypto', ['BTC_USD']);
    await p.start(s.emit, s.beat);
    await waitFor(() => p.status().connected);
    await p.stop();
    await waitFor(() => srv.closed === 1, 2000, 'server sees the close');
    await new Promise((r) => setTimeout(r, 40));
    expect(srv.connections).toBe(1);
    expect(p.status()).toMatchObject({ connected: false, message: 'stopped' });
  });

  test('an unreachable server is retried and reported once while it stays down', async () => {
    const srv = fakePolygon('/forex');
    const url = srv.url;
    srv.stop();
    const p = new PolygonSocket({ market: 'forex', apiKey: 'k', instruments: ['EUR_USD'], url, ...fast });
    providers.push(p);
    const s = sink();
    await p.start(s.emit, s.beat);
    await waitFor(() => p.status().reconnects >= 3, 3000, 'retries');
    expect(s.beats.length).toBeGreaterThanOrEqual(1);
    expect(s.beats.length).toBeLessThan(p.status().reconnects + 1);
    expect(s.beats.every((b) => !b.success)).toBe(true);
  });
});
