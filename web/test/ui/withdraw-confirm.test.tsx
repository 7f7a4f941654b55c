// @vitest-environment jsdom
// The withdrawal form under a real Remix router: a withdrawal whose total takes most of the
// balance asks first and says what remains; Yes sends it, Cancel sends nothing, a small one goes
// straight (docs/specs.md#money).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { WithdrawsPage, type WithdrawFormData } from '~/modules/money/withdrawal-client.tsx';
import { withdrawalLeaves } from '~/modules/money/fees.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const data: WithdrawFormData = {
  wallets: [{ id: 7, currency: 'USD', balance: '1000.00', freeMargin: '1000.00' }], defaultWalletId: 7,
  fees: { percentage: '0', fixed: '10' }, kycNotice: false, fullName: 'Ada Lovelace', countries: [{ value: 'France', label: 'France' }], clientRef: 'abcdefghijklmnop',
};

function page() {
  const posted: Record<string, string>[] = [];
  const Stub = createRemixStub([{
    path: '/withdraws',
    Component: () => <ToastProvider><WithdrawsPage tab="withdraw" form={data} history={null} /></ToastProvider>,
    loader: () => null,
    action: async ({ request }) => {
      const form = await request.formData();
      posted.push(Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)])));
      return { ok: true, toast: 'Withdraw request submitted successfully', result: { status: 'success' } };
    },
  }]);
  render(<Stub initialEntries={['/withdraws']} />);
  return posted;
}

async function fill(amount: string) {
  // typed: an input event, which Conform follows
  fireEvent.input(await screen.findByLabelText('Amount', {}, { timeout: 5000 }), { target: { value: amount } });
  fireEvent.input(screen.getByLabelText('Bank name'), { target: { value: 'Banque' } });
  fireEvent.input(screen.getByLabelText('Account number'), { target: { value: 'FR76 1234' } });
  fireEvent.input(screen.getByLabelText('Swift code'), { target: { value: 'BNPAFRPP' } });
  fireEvent.change(screen.getByLabelText('Bank country'), { target: { value: 'France' } });
  fireEvent.click(screen.getByRole('button', { name: 'Withdraw' }));
}

describe('withdrawal of most of the balance', () => {
  test('more than half the balance (fee included) needs a confirmation; the rest does not', () => {
    expect(withdrawalLeaves('500.00', '1000.00')).toBeNull();
    expect(withdrawalLeaves('500.01', '1000.00')).toBe('499.99');
    expect(withdrawalLeaves('1000.00', '1000.00')).toBe('0.00');
  });

  test('asks, saying what remains; Cancel sends nothing, Yes sends it', async () => {
    const posted = page();
    await fill('800');
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('This withdrawal takes $810.00 from your wallet.');
    expect(dialog.textContent).toContain('$190.00 remains in it.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(posted).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Withdraw' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Withdraw' }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toMatchObject({ amount: '800', balance_id: '7' });
  });

  test('a small withdrawal goes without asking', async () => {
    const posted = page();
    await fill('100');
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
