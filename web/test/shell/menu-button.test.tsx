// @vitest-environment jsdom
// The layouts' phone menu (modules/shell/layouts.tsx): the client's top bar and the staff sidebar
// open from a menu button that says whether it is open (aria-expanded) and what it controls;
// opening moves the focus into the menu, Escape closes it and gives the focus back, and following
// a link closes it. (Which parts show on a phone is the stylesheet's: checked in a browser.)
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import { Outlet } from '@remix-run/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { ClientLayout, StaffLayout } from '~/modules/shell/layouts.tsx';
import type { Shell } from '~/modules/shell/shell.server.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const root = {
  branding: { appName: 'Broker', logoPath: null, theme: 'dark' as const, whatsapp: '', pricingPlan: 'on' as const, authBackground: null, currencies: ['USD'] },
  languages: [{ code: 'en', name: 'English' }], locale: 'en',
};
const shell = (roleId: number) => ({
  user: { id: 1, fullName: 'Ada', email: 'ada@x.test', roleId }, impersonating: false, notifications: [], unread: 0,
  balances: [], activeBalanceId: null,
}) as unknown as Shell;

function show(which: 'client' | 'staff') {
  const Layout = which === 'client' ? ClientLayout : StaffLayout;
  // the layout is a parent route, as in the app: it stays mounted from one page to the next
  const Stub = createRemixStub([{
    path: '/',
    Component: () => <ToastProvider><Layout root={root} shell={shell(which === 'client' ? 3 : 1)}><Outlet /></Layout></ToastProvider>,
    children: [{ index: true, Component: () => <p>page</p> }, { path: '*', Component: () => <p>other page</p> }],
  }]);
  render(<Stub />);
}

describe.each([
  ['client', 'Main menu', 'client-top-menu'],
  ['staff', 'Menu', 'staff-sidebar'],
] as const)('%s layout', (which, name, panelId) => {
  test('the menu button opens the menu and moves the focus into it; Escape closes it and focuses the button', async () => {
    show(which);
    const button = await screen.findByRole('button', { name });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(button.getAttribute('aria-controls')).toBe(panelId);
    const panel = document.getElementById(panelId)!;
    expect(panel.classList.contains('open')).toBe(false);
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(panel.classList.contains('open')).toBe(true);
    expect(panel.contains(document.activeElement)).toBe(true);
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(panel.classList.contains('open')).toBe(false);
    expect(document.activeElement).toBe(button);
  });

  test('following a link of the menu closes it', async () => {
    show(which);
    const button = await screen.findByRole('button', { name });
    fireEvent.click(button);
    const panel = document.getElementById(panelId)!;
    const link = within(panel).getAllByRole('link').find((a) => a.getAttribute('href') !== '/')!;
    await act(async () => { fireEvent.click(link); });
    await screen.findByText('other page');
    expect(button.isConnected).toBe(true); // the same layout, not a new one
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });
});
