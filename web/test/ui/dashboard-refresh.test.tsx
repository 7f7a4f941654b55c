// @vitest-environment jsdom
// The dashboard reloads its data once per order: the stream's events are the refresh, the order's
// own answer is not while the stream is open (modules/trading/stream-refresh.ts). The real
// Dashboard and the route's own shouldRevalidate under a real Remix router (createRemixStub); the
// stream is a stand-in the test speaks through, with the contract's event names.
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import { useFetcher } from '@remix-run/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { StreamEventName } from '@broker/engine/contract/events';
import { ToastProvider } from '~/components/ui/toast.tsx';
import type { DashboardData } from '~/modules/trading/trading.server.ts';

// the page's stream: listeners the test calls, and whether it is open
const stream = vi.hoisted(() => ({ open: true, listeners: new Set<(e: string, d: unknown) => void>() }));
vi.mock('~/shared/realtime.tsx', async () => {
  const { useEffect, useRef } = await import('react');
  return {
    useRealtime: (fn: (e: string, d: unknown) => void) => {
      const ref = useRef(fn);
      ref.current = fn;
      useEffect(() => {
        const l = (e: string, d: unknown) => ref.current(e, d);
        stream.listeners.add(l);
        return () => void stream.listeners.delete(l);
      }, []);
    },
    useRealtimeStatus: () => stream.open,
  };
});
// the chart draws on a canvas jsdom does not have; it plays no part in the refresh
vi.mock('~/modules/trading/chart.tsx', () => ({ PriceChart: () => null }));

const { Dashboard } = await import('~/modules/trading/dashboard.tsx');
const { shouldRevalidate } = await import('~/routes/_client.dashboard.tsx');
const { REFRESH_COALESCE_MS } = await import('~/modules/trading/stream-refresh.ts');

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(() => { cleanup(); stream.listeners.clear(); stream.open = true; });

const emit = (event: StreamEventName, data: unknown) => act(() => { for (const l of stream.listeners) l(event, data); });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const data = {
  balance: { id: 1, currency: 'USD', balance: '1000.00', margin: '0' },
  instruments: [{ id: 1, name: 'EUR_USD', base: 'EUR', quote: 'USD', alias: null, category: 'forex', tradable: true, leverage: 100, digits: 5 }],
  allInstruments: true,
  quotes: { EUR_USD: { bid: 1.1, ask: 1.1002, prevBid: null, prevAsk: null } },
  status: { forex: 'open', commodity: 'open', index: 'open', stock: 'open', crypto: 'open' },
  favorites: [], spreads: {}, plan: null, isKyc: true, kycTrade: false, kycNotice: false,
  positions: { rows: [], total: 0, page: 1, openOnly: false, pageSize: 10 },
  exposure: [],
} as unknown as DashboardData;

/** The dashboard at /dashboard: its loader calls counted; an order's answer as the action gives it. */
function dashboard() {
  const calls = { loader: 0, action: 0 };
  function Page() {
    const fetcher = useFetcher();
    return (
      <ToastProvider>
        <button type="button" onClick={() => fetcher.submit({ intent: 'place', type: 'buy', instrument: 'EUR_USD', amount: '1000' }, { method: 'post', action: '/dashboard' })}>
          place
        </button>
        <span data-testid="answer">{fetcher.state === 'idle' && fetcher.data ? 'answered' : ''}</span>
        <Dashboard data={data} theme="dark" pricingPlanOn={false} />
      </ToastProvider>
    );
  }
  const Stub = createRemixStub([{
    path: '/dashboard', Component: Page, shouldRevalidate,
    loader: () => { calls.loader++; return data; },
    action: () => { calls.action++; return { ok: true, intent: 'place', toast: 'Order Placed Successfully', values: {} }; },
  }]);
  render(<Stub initialEntries={['/dashboard']} />);
  return calls;
}

/** One market order: the answer, then the stream's order.opened and balance events. */
async function placeOrder(calls: { loader: number; action: number }) {
  await waitFor(() => expect(calls.loader).toBe(1)); // the page's own load
  fireEvent.click(screen.getByRole('button', { name: 'place' }));
  await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe('answered'));
  await emit('order.opened', { id: 7, user_id: 1 });
  await emit('balance', { balanceId: 1, balance: '1000.00' });
  await sleep(REFRESH_COALESCE_MS * 3);
  expect(calls.action).toBe(1);
}

describe('the dashboard refreshes once per order', () => {
  test('with the stream open: the answer reloads nothing, the burst of events reloads once', async () => {
    const calls = dashboard();
    await placeOrder(calls);
    await waitFor(() => expect(calls.loader).toBe(2));
    await sleep(REFRESH_COALESCE_MS * 2);
    expect(calls.loader - 1).toBe(1);
  });

  test('the events arriving before the answer: still one reload', async () => {
    const calls = dashboard();
    await waitFor(() => expect(calls.loader).toBe(1));
    await emit('order.opened', { id: 8, user_id: 1 });
    fireEvent.click(screen.getByRole('button', { name: 'place' }));
    await emit('balance', { balanceId: 1, balance: '1000.00' });
    await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe('answered'));
    await sleep(REFRESH_COALESCE_MS * 3);
    expect(calls.loader - 1).toBe(1);
  });

  test('with the stream down the answer itself reloads the page, once', async () => {
    stream.open = false;
    const calls = dashboard();
    await waitFor(() => expect(calls.loader).toBe(1));
    fireEvent.click(screen.getByRole('button', { name: 'place' }));
    await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe('answered'));
    await sleep(REFRESH_COALESCE_MS * 2);
    expect(calls.loader - 1).toBe(1);
  });
});
