// @vitest-environment jsdom
// The dashboard comes with its first tab's instruments; the rest are loaded once the page is in
// the browser (useAllInstruments), and asked for again after a failure.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import { useAllInstruments, type AllInstruments } from '~/modules/trading/dashboard.tsx';

afterEach(cleanup);

const answer: AllInstruments = {
  instruments: [{ id: 1, name: 'BTC_USD', base: 'BTC', quote: 'USD', alias: null, category: 'crypto', tradable: true, leverage: 2, digits: 2, minDistance: 0 }],
  quotes: { BTC_USD: { bid: 50000, ask: 50010, prevBid: null, prevAsk: null } },
};

describe('useAllInstruments', () => {
  test('a page that came with every instrument asks for nothing', async () => {
    let calls = 0;
    const load = async () => { calls++; return answer; };
    const { result } = renderHook(() => useAllInstruments(false, load));
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(0);
    expect(result.current).toBeNull();
  });

  test('the rest are loaded once, after the first render; a failure is retried', async () => {
    let calls = 0;
    const load = async () => {
      calls++;
      if (calls === 1) throw new Error('the network is down');
      return answer;
    };
    const { result, rerender } = renderHook(() => useAllInstruments(true, load));
    expect(result.current).toBeNull(); // the first render (the server's, the hydration) is the page's own list
    await waitFor(() => expect(result.current).toEqual(answer), { timeout: 3000 });
    expect(calls).toBe(2);
    rerender();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(2);
  });
});
