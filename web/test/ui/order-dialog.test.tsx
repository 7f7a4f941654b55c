// @vitest-environment jsdom
// The order dialog and the positions table in a DOM with a real Remix router (createRemixStub):
// why BUY is off is said under the amount (the typed text kept), the level hints keep the
// instrument's digits, the modals' buttons read 'Set Take Profit' / 'Set Stop Loss', and Close
// asks first, restating the position (docs/specs.md#client-validation, #toasts).
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { ReactNode } from 'react';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { OrderDialog } from '~/modules/trading/order-dialog.tsx';
import { Positions } from '~/modules/trading/positions.tsx';
import type { PositionRow } from '~/modules/trading/trading.server.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(() => { cleanup(); vi.unstubAllGlobals(); });

/** The rates and lot-state calls the dialog makes when it opens. */
function stubLoads(lotState: 'amount' | 'lot') {
  vi.stubGlobal('fetch', vi.fn(async (url: string) => new Response(JSON.stringify(
    url.includes('/rates') ? { rate: '1' } : { lotState, lotSelector: [] },
  ), { headers: { 'content-type': 'application/json' } })));
}

function mount(node: () => ReactNode, action: (form: FormData) => unknown = () => ({ ok: true, intent: 'close', toast: 'Order Closed Successfully' })) {
  const posted: Record<string, string>[] = [];
  const Stub = createRemixStub([{
    path: '/dashboard',
    Component: () => <ToastProvider>{node()}</ToastProvider>,
    loader: () => null,
    action: async ({ request }) => {
      const form = await request.formData();
      posted.push(Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)])));
      return action(form);
    },
  }]);
  render(<Stub initialEntries={['/dashboard']} />);
  return posted;
}

const EURUSD = { id: 1, name: 'EUR_USD', base: 'EUR', quote: 'USD', category: 'forex' as const, digits: 5 };

function dialog(lotState: 'amount' | 'lot') {
  stubLoads(lotState);
  return mount(() => (
    <OrderDialog side="buy" instrument={EURUSD} price={{ bid: 1.085, ask: 1.0852 }} currency="USD" balance={100000} usedMargin={0}
      floatingPnl={0} leverage={100} spreadSetting={0} kycBlocked={false} onClose={() => {}} />
  ));
}

describe('order dialog: pending orders', () => {
  test('Sell Stop: the price starts below the bid, the wrong side is said, the sentence says what will happen, the form posts the pending fields', async () => {
    stubLoads('amount');
    const posted = mount(() => (
      <OrderDialog side="sell" instrument={{ ...EURUSD, minDistance: 0.001 }} price={{ bid: 1.085, ask: 1.0852 }} currency="USD" balance={100000} usedMargin={0}
        floatingPnl={0} leverage={100} spreadSetting={0} kycBlocked={false} onClose={() => {}} />
    ), () => ({ ok: true, intent: 'place-pending', toast: 'Pending Order Placed Successfully' }));
    const qty = await screen.findByLabelText('Amount', {}, { timeout: 5000 });
    fireEvent.change(qty, { target: { value: '1000' } });
    fireEvent.click(screen.getByRole('radio', { name: 'Stop' }));
    const price = screen.getByRole('spinbutton', { name: 'Sell Stop price' }) as HTMLInputElement;
    // 1 % below the bid (further than the 0.001 distance), to the instrument's 5 digits
    expect(price.value).toBe('1.07415');
    fireEvent.change(price, { target: { value: '1.0845' } });
    expect(screen.getByText('Sell Stop price must be at or below 1.08400 (the bid (1.08500) − the minimum distance 0.00100)')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Place Sell Stop' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(price, { target: { value: '1.08' } });
    await waitFor(() => expect(screen.getByTestId('order-summary').textContent).toBe(
      'Sell Stop 1,000 units EUR/USD at 1.08000: fills when the bid falls to 1.08000 or below, at that tick\'s price. Expires: Good till cancelled. Margin needed when it fills: $10.80; nothing is reserved now.'));
    expect(screen.getByTestId('margin-required').textContent).toBe('$10.80');
    fireEvent.click(screen.getByRole('button', { name: 'Place Sell Stop' }));
    await waitFor(() => expect(posted.length).toBe(1));
    expect(posted[0]).toMatchObject({ intent: 'place-pending', orderType: 'stop', type: 'sell', price: '1.08', expiry: 'gtc', amount: '1000' });
  });
});

describe('order dialog', () => {
  test('lots: empty, -1, 0 and 0.0001 each say why BUY is off under the field, the text kept', async () => {
    dialog('lot');
    const qty = await screen.findByLabelText('Lots', {}, { timeout: 5000 });
    const buy = () => screen.getByRole('button', { name: 'BUY' });
    expect(screen.getByText('Enter the lots')).toBeTruthy();
    expect(buy()).toHaveProperty('disabled', true);
    for (const [typed, why] of [['-1', 'Lots must be greater than 0'], ['0', 'Lots must be greater than 0'], ['0.0001', 'Lots must be at least 0.01']]) {
      fireEvent.change(qty, { target: { value: typed } });
      expect((qty as HTMLInputElement).value).toBe(typed);
      const msg = screen.getByText(why);
      expect(msg.getAttribute('role')).toBe('alert');
      expect(qty.getAttribute('aria-describedby')).toContain(msg.id);
      expect(buy()).toHaveProperty('disabled', true);
    }
    fireEvent.change(qty, { target: { value: '0.01' } });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(buy()).toHaveProperty('disabled', false);
  });

  test('amount: empty and 0 say why', async () => {
    dialog('amount');
    const qty = await screen.findByLabelText('Amount', {}, { timeout: 5000 });
    expect(screen.getByText('Enter an amount')).toBeTruthy();
    fireEvent.change(qty, { target: { value: '0' } });
    expect(screen.getByText('Amount must be greater than 0')).toBeTruthy();
  });

  test("the take-profit hint keeps the instrument's digits: 'At least 1.08520'", async () => {
    dialog('amount');
    await screen.findByLabelText('Amount', {}, { timeout: 5000 });
    fireEvent.click(screen.getByRole('switch', { name: 'Take Profit' }));
    expect(screen.getByText('At least 1.08520')).toBeTruthy();
    fireEvent.click(screen.getByRole('switch', { name: 'Stop Loss' }));
    expect(screen.getByText('Between 0.00000 and 1.08520')).toBeTruthy();
  });
});

const position: PositionRow = {
  id: 42, createdAt: '2026-11-27T10:00:00.000Z', type: 'buy', amount: '50000', lots: '0.5', instrument: 'EUR_USD', base: 'EUR', quote: 'USD',
  openRate: '1.08', closeRate: null, exchangeRate: '1', spread: '0', profit: null, loss: '1.07', proLoss: null, closeTime: null, closeReason: null, digits: 5,
};

describe('positions', () => {
  test('Close asks first, restating instrument, side and lots; Yes posts the close', async () => {
    const posted = mount(() => <Positions rows={[position]} total={1} openOnly={false} prices={{ EUR_USD: { bid: 1.085, ask: 1.0852 } }} currency="USD" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Close' }));
    const confirm = await screen.findByRole('dialog');
    expect(confirm.textContent).toContain('Buy 0.5 lots EUR/USD');
    expect(posted).toEqual([]);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Close position' }));
    await waitFor(() => expect(posted).toEqual([{ intent: 'close', orderId: '42', unit: 'lots' }]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  test('Close takes fewer lots: a partial close of them, said under the field; a bad amount disables it', async () => {
    const posted = mount(() => <Positions rows={[position]} total={1} openOnly={false} prices={{}} currency="USD" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Close' }));
    const confirm = await screen.findByRole('dialog');
    const qty = within(confirm).getByRole('textbox', { name: 'Lots to close' }) as HTMLInputElement;
    expect(qty.value).toBe('0.5');
    fireEvent.change(qty, { target: { value: '0.255' } });
    expect(await within(confirm).findByText('Lots must be a multiple of 0.01')).toBeTruthy();
    expect((within(confirm).getByRole('button', { name: 'Close position' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(qty, { target: { value: '0.25' } });
    expect(await within(confirm).findByText('The rest stays open')).toBeTruthy();
    fireEvent.click(within(confirm).getByRole('button', { name: 'Close part' }));
    await waitFor(() => expect(posted).toEqual([{ intent: 'close', orderId: '42', unit: 'lots', quantity: '0.25' }]));
  });

  test('Cancel closes nothing', async () => {
    const posted = mount(() => <Positions rows={[position]} total={1} openOnly={false} prices={{}} currency="USD" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Close' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(posted).toEqual([]);
  });

  test("the stop-loss modal's trailing stop: the distance in pips too, at least 10 pips; on, the rate is the engine's and not sent", async () => {
    const posted = mount(() => <Positions rows={[{ ...position, category: 'forex' }]} total={1} openOnly={false} prices={{ EUR_USD: { bid: 1.085, ask: 1.0852 } }} currency="USD" />,
      () => ({ ok: true, intent: 'modify', toast: 'Trailing Stop Set Successfully' }));
    fireEvent.click(await screen.findByRole('button', { name: /^Stop Loss #42/ }));
    const modal = await screen.findByRole('dialog');
    fireEvent.click(within(modal).getByRole('switch', { name: 'Trailing stop' }));
    const field = within(modal).getByRole('textbox', { name: 'Trailing distance' });
    fireEvent.change(field, { target: { value: '0.0005' } });
    expect(await within(modal).findByText('Trailing distance must be at least 0.00100')).toBeTruthy();
    expect((within(modal).getByRole('button', { name: 'Set Stop Loss' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(field, { target: { value: '0.0025' } });
    expect(await within(modal).findByText('25 pips · at least 0.00100')).toBeTruthy();
    fireEvent.click(within(modal).getByRole('button', { name: 'Set Stop Loss' }));
    await waitFor(() => expect(posted).toEqual([{ intent: 'modify', orderId: '42', field: 'loss', trailing: '0.0025' }]));
  });

  test("the stop-loss modal's button reads 'Set Stop Loss'", async () => {
    mount(() => <Positions rows={[position]} total={1} openOnly={false} prices={{}} currency="USD" />);
    fireEvent.click(await screen.findByRole('button', { name: /^Stop Loss #42/ }));
    expect(await screen.findByRole('button', { name: 'Set Stop Loss' })).toBeTruthy();
  });
});
