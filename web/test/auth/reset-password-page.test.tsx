// @vitest-environment jsdom
// The reset password page (routes/_auth.reset-password.$token.tsx) with its loader's answer
// stubbed: a valid link shows the new password and its confirmation; a used or expired one says
// so and offers to ask for a new link, with no form that cannot work.
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';
import ResetPassword from '~/routes/_auth.reset-password.$token.tsx';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

function show(state: string) {
  const Stub = createRemixStub([{ path: '/reset-password/:token', Component: () => <ToastProvider><ResetPassword /></ToastProvider>, loader: () => ({ state }) }]);
  render(<Stub initialEntries={['/reset-password/abc']} />);
}

describe('reset password page', () => {
  test('a valid link: New Password and Confirm Password', async () => {
    show('valid');
    expect((await screen.findByLabelText('New Password')).getAttribute('type')).toBe('password');
    expect(screen.getByLabelText('Confirm Password').getAttribute('autocomplete')).toBe('new-password');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  test.each([
    ['used', 'This reset link has already been used.'],
    ['expired', 'This reset link has expired.'],
    ['invalid', 'This reset link is invalid or has expired.'],
  ])('a %s link says so and links to a new one, without the form', async (state, text) => {
    show(state);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(text);
    expect(screen.getByRole('link', { name: 'Request a new link' }).getAttribute('href')).toBe('/forgot-password');
    expect(screen.queryByLabelText('New Password')).toBeNull();
  });
});
