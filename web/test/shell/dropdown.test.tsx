// @vitest-environment jsdom
// The <details> dropdown (modules/shell/chrome.tsx): one opened before the page hydrated — a click
// on a slow connection, here the details opened in the commit before the effects ran — stays open;
// a navigation closes it.
import { afterEach, expect, test } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import { Link, Outlet } from '@remix-run/react';
import { Dropdown } from '~/modules/shell/chrome.tsx';

afterEach(cleanup);

/** Opens its dropdown in the commit phase, before the dropdown's effects run (as a click before hydration would). */
function OpenedEarly() {
  return <span ref={(el) => { const d = el?.closest('details'); if (d) d.open = true; }}>early</span>;
}

test('a dropdown opened before its effects ran stays open; a navigation closes it', async () => {
  const Stub = createRemixStub([{
    path: '/',
    Component: () => (
      <>
        <Dropdown label="Menu" ariaLabel="Menu"><OpenedEarly /><Link to="/other">Other</Link></Dropdown>
        <Outlet />
      </>
    ),
    children: [{ index: true, Component: () => <p>page</p> }, { path: 'other', Component: () => <p>other page</p> }],
  }]);
  const { container } = render(<Stub />);
  await screen.findByText('page');
  const details = container.querySelector('details')!;
  expect(details.open).toBe(true);
  await act(async () => { fireEvent.click(screen.getByRole('link', { name: 'Other' })); });
  await screen.findByText('other page');
  expect(details.open).toBe(false);
});
