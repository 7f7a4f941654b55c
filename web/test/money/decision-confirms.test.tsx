// @vitest-environment jsdom
// The staff's approve and decline confirms for deposits and withdrawals restate what they decide:
// the request's number, its amount and whose it is ('Are you sure to approve…' said neither).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { StaffDepositsPage } from '~/modules/money/deposit-staff.tsx';
import { StaffWithdrawalsPage } from '~/modules/money/withdrawal-staff.tsx';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const base = {
  id: 41, createdAt: '2026-11-20T10:00:00Z', gateway: 'bank', gatewayTitle: 'Bank Transfer', description: '', amount: '250.00', fee: '2.50', total: '252.50',
  currency: 'USD', status: 'pending' as const, declineReason: null, balanceAfter: null, awaitingSecond: false, userId: 7, email: 'carol@x.test',
};

function show(page: () => JSX.Element) {
  const Stub = createRemixStub([{ path: '/', Component: () => <ToastProvider>{page()}</ToastProvider> }]);
  render(<Stub />);
}

describe('deposits', () => {
  const data = {
    rows: [{ ...base, details: {}, reference: null, paymentEvents: [], dispute: null }], total: 1,
    filters: { status: '' as const, dateStart: '', dateEnd: '' },
  };
  test.each([
    ['Approve', 'Approve deposit #41 of $250.00 for carol@x.test?'],
    ['Decline', 'Decline deposit #41 of $250.00 for carol@x.test?'],
  ])('%s restates the deposit, its amount and the customer', async (action, question) => {
    show(() => <StaffDepositsPage data={data as never} />);
    fireEvent.click(await screen.findByRole('button', { name: `${action} deposit #41` }));
    expect(within(screen.getByRole('dialog')).getByText(question)).toBeTruthy();
  });
});

describe('withdrawals', () => {
  const data = { rows: [{ ...base, bank: null, payout: null, payoutOptions: [] }], total: 1 };
  test.each([
    ['Approve', 'Approve withdrawal #41 of $250.00 for carol@x.test?'],
    ['Decline', 'Decline withdrawal #41 of $250.00 for carol@x.test? Its total of $252.50 goes back to the wallet.'],
  ])('%s restates the withdrawal, its amount and the customer', async (action, question) => {
    show(() => <StaffWithdrawalsPage mode="pending" data={data as never} />);
    fireEvent.click(await screen.findByRole('button', { name: `${action} withdrawal #41` }));
    expect(within(screen.getByRole('dialog')).getByText(question)).toBeTruthy();
  });

  test('approving with a choice of payout restates it too', async () => {
    show(() => <StaffWithdrawalsPage mode="pending" data={{ ...data, rows: [{ ...data.rows[0], payoutOptions: ['stripe'] }] } as never} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Approve withdrawal #41' }));
    expect(within(screen.getByRole('dialog')).getByText('Approve withdrawal #41 of $250.00 for carol@x.test?')).toBeTruthy();
  });
});
