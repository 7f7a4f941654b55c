// EOD Historical Data: the us-quote websocket against a local server speaking its protocol.
import { afterEach, describe, expect, test } from 'bun:test';
import { EodSocket, toEodTicker } from '../../src/feed/providers/eod.ts';
import { fakeEod, type FakeServer } from './fake-ws.ts';
import { fast, sink, waitFor } from './util.ts';

let servers: FakeServer[] = [];
let providers: EodSocket[] = [];
afterEach(async () => {
  await Promise.all(providers.map((p) => p.stop()));
  for (const s of servers) s.stop();
  servers = []; providers = [];
});

function setup(apiKey = 'eod-key', opts: { authorize?: boolean; authWaitMs?: number } = {}) {
  const srv = fakeEod('eod-key', { authorize: opts.authorize });
  servers.push(srv);
  const p = new EodSocket({ apiKey, instruments: ['AAPL_USD', 'MSFT_USD', 'BRK.B_USD'], url: srv.url.replace(/\?.*$/, ''), authWaitMs: opts.authWaitMs, ...fast });
  providers.push(p);
  return { srv, p, s: sink() };
}

describe('EOD us-quote websocket', () => {
  test('tickers', () => {
    expect(toEodTicker('AAPL_USD')).toBe('AAPL');
    expect(toEodTicker('BRK.B_USD')).toBe('BRK.B');
    expect(toEodTicker('EUR_GBP')).toBeUndefined();
  });

  test('waits for Authorized, subscribes, maps quotes, skips bad frames', async () => {
    const { srv, p, s } = setup();
    expect(p.url()).toBe(`${srv.url}?api_token=eod-key`);
    await p.start(s.emit, s.beat);
    // connected once the subscribe is sent; the fake server may read it a moment later
    await waitFor(() => p.status().connected && srv.received.length > 0, 2000, 'subscribed');
    expect(srv.received).toEqual([{ action: 'subscribe', symbols: 'AAPL,MSFT,BRK.B' }]);
    expect(s.beats[0]).toEqual({ api: 'eodStock', success: true, msg: 'subscribed to 3 symbols' });

    srv.push({ s: 'AAPL', ap: 190.14, as: 3, bp: 190.1, bs: 2, t: 1725198451165 });
    srv.push({ s: 'TSLA', ap: 175.7, as: 1, bp: 175.6, bs: 1, t: 1725198451166 }); // not ours
    srv.push({ s: 'MSFT', ap: 420.6, t: 1725198451167 }); // no bid
    srv.push('garbage');
    srv.push([{ s: 'MSFT' }]);
    srv.push({ s: 'MSFT', ap: 420.6, as: 1, bp: 420.5, bs: 1, t: 1725198451168 });
    srv.push({ status_code: 422, message: 'Symbols limit reached' });
    await waitFor(() => s.ticks.length === 2 && s.beats.length >= 2, 2000, 'ticks and the limit message');
    expect(s.ticks).toEqual([
      { symbol: 'AAPL_USD', bid: 190.1, ask: 190.14, ts: 1725198451165 },
      { symbol: 'MSFT_USD', bid: 420.5, ask: 420.6, ts: 1725198451168 },
    ]);
    expect(s.beats[1]).toEqual({ api: 'eodStock', success: false, msg: '422: Symbols limit reached' });
    expect(p.status()).toMatchObject({ ticks: 2, skipped: 3, ignored: 1, connected: true });
  });

  test('subscribes after authWaitMs when no Authorized frame comes', async () => {
    const { srv, p, s } = setup('eod-key', { authorize: false, authWaitMs: 20 });
    await p.start(s.emit, s.beat);
    await waitFor(() => srv.received.length === 1, 2000, 'late subscribe');
    expect(srv.received[0]).toEqual({ action: 'subscribe', symbols: 'AAPL,MSFT,BRK.B' });
  });

  test('a refused token is reported and retried; nothing is subscribed', async () => {
    const { srv, p, s } = setup('bad-key');
    await p.start(s.emit, s.beat);
    await waitFor(() => srv.connections >= 2, 3000, 'a retry');
    expect(srv.received).toEqual([]);
    expect(s.beats[0]).toMatchObject({ api: 'eodStock', success: false });
    expect(s.beats[0].msg).toContain('refused (401: Unauthorized)');
  });

  test('reconnects after a drop and resubscribes; stop() closes', async () => {
    const { srv, p, s } = setup();
    await p.start(s.emit, s.beat);
    await waitFor(() => p.status().connected);
    srv.drop();
    await waitFor(() => srv.received.length === 2, 3000, 'resubscribe');
    srv.push({ s: 'AAPL', ap: 191, bp: 190.9, t: 1 });
    await waitFor(() => s.ticks.length === 1);
    await p.stop();
    await waitFor(() => srv.closed === 2, 2000, 'closed');
    expect(p.status()).toMatchObject({ reconnects: 1, connected: false });
  });
});
