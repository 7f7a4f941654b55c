// @vitest-environment jsdom
// The subscription form (modules/pricing/plans.tsx): switching from a plan says, before the
// customer confirms, what they give up and what they pay; a subscription that went through (the
// action redirects with its toast) closes the dialog, so Confirm cannot be pressed twice.
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import { redirect } from '@remix-run/node';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { SubscribeForm } from '~/modules/pricing/plans.tsx';
import type { Plan, PricingView } from '~/modules/pricing/pricing.server.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const plan = (id: number, name: string, price: string): Plan => ({ id, name, description: '', price, currency: 'USD', terms: [] });
const silver = plan(1, 'Silver', '50'), gold = plan(2, 'Gold', '100'), basic = plan(3, 'Basic', '0');
const view = (currentPlanId: number | null): PricingView => ({
  plans: [basic, silver, gold], currentPlanId, wallets: [{ id: 9, currency: 'USD', balance: '500', margin: '0' }],
  charges: { '1:USD': '50', '2:USD': '100', '3:USD': '0' }, canSubscribe: true,
});

function show(v: PricingView, chosen: Plan, onDone = () => {}) {
  const Stub = createRemixStub([{
    path: '/pricing',
    Component: () => <ToastProvider><SubscribeForm view={v} plan={chosen} redirectTo="/pricing" onBack={() => {}} onDone={onDone} /></ToastProvider>,
    action: () => redirect('/pricing'),
  }]);
  render(<Stub initialEntries={['/pricing']} />);
}

describe('switching plans', () => {
  test('says what the customer leaves and pays before they confirm', async () => {
    show(view(silver.id), gold);
    const note = await screen.findByTestId('plan-switch');
    expect(note.textContent).toContain('You leave Silver now: its leverage and stop-out no longer apply, and what you paid for it is not refunded.');
    expect(note.textContent).toContain('You pay $100.00 for Gold now.');
    expect(note.textContent).toContain("Gold's leverage applies to your open positions at once");
  });

  test('a first plan has nothing to leave: no switch note', async () => {
    show(view(null), gold);
    await screen.findByText('Gold');
    expect(screen.queryByTestId('plan-switch')).toBeNull();
  });

  test('a subscription that went through (a redirect) is done: the dialog is told to close', async () => {
    const onDone = vi.fn();
    show(view(silver.id), gold, onDone);
    fireEvent.click(await screen.findByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
  });
});
