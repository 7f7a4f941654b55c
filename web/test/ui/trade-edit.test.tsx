// @vitest-environment jsdom
// 'Edit Order #id' of an open trade shows the customer's bounds of its take-profit and stop-loss
// against the open rate, with the instrument's digits (docs/specs.md#admin-trades); the engine
// refuses the rest (engine/test/orders.test.ts, staff).
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';

vi.mock('~/modules/audit/history-link.tsx', () => ({ HistoryLink: () => null }));
const { TradesPage } = await import('~/modules/trades/trades-page.tsx');

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const row = (over: object) => ({
  id: 9, userId: 3, email: 'c@example.test', mode: 'real', currency: 'USD', type: 'buy', instrument: 'EUR/USD', symbol: 'EUR_USD', digits: 5,
  amount: '1000', openRate: '1.0852000000', closeRate: null, exchangeRate: '1', spread: '0', marginUsed: '10', proLoss: null,
  profit: null, loss: null, leverage: 100, createdAt: '2026-11-27T10:00:00.000Z', closeTime: null, closeReason: null, floatingPnl: null, ...over,
});

function page(rows: object[]) {
  const data = { type: 'all', rows, total: rows.length, estimated: false, instruments: [], filterError: null, filters: { user: '', instrument: '', side: '', dateStart: '', dateEnd: '' } };
  const Stub = createRemixStub([{ path: '/admin/trades/all', Component: () => <ToastProvider><TradesPage /></ToastProvider>, loader: () => data }]);
  render(<Stub initialEntries={['/admin/trades/all']} />);
}

describe('Edit Order #id', () => {
  test("an open buy: take-profit at least the open rate, stop-loss between 0 and it, with the instrument's digits", async () => {
    page([row({})]);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit order #9' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('At least 1.08520 · Empty: not set')).toBeTruthy();
    expect(within(dialog).getByText('Between 0.00000 and 1.08520 · Empty: not set')).toBeTruthy();
  });

  test('a closed trade: its levels are not bound', async () => {
    page([row({ id: 10, closeTime: '2026-11-27T11:00:00.000Z', closeRate: '1.09', proLoss: '3.8' })]);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit order #10' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText('Empty: not set')).toHaveLength(2);
  });
});
