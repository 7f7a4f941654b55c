// @vitest-environment jsdom
// The lead table's phone button (lead-table.tsx) in a DOM with a real Remix router: an admin's opens
// the agent dialog listing Voiso's agents (GET /admin/crm/voiso/agents) with their status chips in
// the colours and words of docs/specs.md#crm-lead-lists, and Call posts the lead's id and the chosen agent (never a number);
// an agent's button posts at once, as themselves.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LeadTablePage } from '~/modules/crm/lead-table.tsx';
import { ToastProvider } from '~/components/ui/toast.tsx';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const row = {
  id: 41, firstName: 'Lee', lastName: 'Masked', email: 'le****ed@example.com', phone: '******23', note: null, country: 'Spain', city: 'Madrid',
  status: 'New', statusColor: null, group: 'sales', managerId: null, managerName: null, agentId: null, agentName: null, retId: null, retName: null,
  registeredAt: '2026-11-20T10:00:00.000Z', depositedAt: null, lastAccess: null, ftdAt: null, funnelLink: null, reference: null, leadSourceId: null,
  affiliateId: null, affiliateName: null, linkedId: null, linkedName: null,
};
const listData = (roleId: number) => ({
  kind: 'list', screen: 'sales-all', roleId, masked: roleId >= 5, manages: roleId <= 2, statuses: [], agents: [], managers: [], salesAgents: [], retAgents: [],
  rows: [row], total: 1, estimated: false, bounded: false, filters: { status: '', agent: '', dateStart: '', dateEnd: '' }, filterError: null,
  countries: [], callBlocked: blocked,
});
/** why calls are blocked (the loader's callBlocked): null while Voiso is configured */
let blocked: string | null = null;
afterEach(() => { blocked = null; });

function stub(roleId: number) {
  const posted: Record<string, string>[] = [];
  const Stub = createRemixStub([
    {
      path: '/admin/crm/sales/all', Component: () => <ToastProvider><LeadTablePage /></ToastProvider>, loader: () => listData(roleId),
      // a bulk move's answer (the list reloads after it)
      action: () => ({ ok: true, intent: 'move', toast: 'Lead moved successfully', values: { count: 1 }, count: 1 }),
    },
    {
      path: '/admin/crm/voiso/agents',
      loader: () => ({ ok: true, agents: [
        { email: 'pt@fg.com', ext: '7777', status: 'available' },
        { email: 'px@fg.com', ext: '5555', status: 'unavailable' },
        { email: 'po@fg.com', ext: '3333', status: 'outbound' },
      ] }),
    },
    // the list's CSV import panel asks for the caller's latest import: none
    { path: '/admin/crm/lead-import', loader: () => ({ status: null }) },
    {
      path: '/admin/crm/voiso/startCall',
      action: async ({ request }) => {
        posted.push(Object.fromEntries([...(await request.formData()).entries()].map(([k, v]) => [k, String(v)])));
        return { ok: true, toast: 'Call started successfully' };
      },
    },
  ]);
  render(<Stub initialEntries={['/admin/crm/sales/all']} />);
  return posted;
}
const toasts = () => screen.queryAllByRole('region', { name: 'Notifications' }).flatMap((r) => Array.from(r.querySelectorAll('.toast')).map((t) => t.querySelector('strong')?.textContent));

describe('the phone button', () => {
  test("an admin's opens the agent dialog with Voiso's agents and status chips; Call posts the lead id and the agent", async () => {
    const posted = stub(1);
    fireEvent.click(await screen.findByRole('button', { name: 'Call Lee Masked' }));
    const dialog = await screen.findByRole('dialog');
    const available = await within(dialog).findByRole('radio', { name: /pt@fg\.com/ });
    const chip = (text: string) => within(dialog).getByText(text);
    expect(chip('Available').className).toContain('chip-approved');
    expect(chip('Unavailable').className).toContain('chip-declined');
    expect(chip('Outbound').className).toContain('chip-pending');
    const submit = within(dialog).getByRole('button', { name: 'Call' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.click(available);
    await waitFor(() => expect(submit.disabled).toBe(false));
    fireEvent.click(submit);
    await waitFor(() => expect(posted).toEqual([{ leadId: '41', agent: 'pt@fg.com' }]));
    await waitFor(() => expect(toasts()).toEqual(['Call started successfully']));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  test("an agent's posts at once with the lead id only (they call as themselves)", async () => {
    const posted = stub(5);
    fireEvent.click(await screen.findByRole('button', { name: 'Call Lee Masked' }));
    await waitFor(() => expect(posted).toEqual([{ leadId: '41' }]));
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(toasts()).toEqual(['Call started successfully']));
  });
});

describe('Voiso not configured', () => {
  test('the phone button is disabled with the reason; a manager is told an admin sets it up, an admin gets the API Settings link', async () => {
    blocked = 'Click-to-call is not set up: an admin sets up Voiso in API Settings';
    const posted = stub(2);
    const button = await screen.findByRole('button', { name: 'Call Lee Masked' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    const note = document.getElementById(button.getAttribute('aria-describedby') ?? '')!;
    expect(note.textContent).toBe(blocked);
    expect(within(note).queryByRole('link')).toBeNull();
    fireEvent.click(button);
    expect(posted).toEqual([]);
    cleanup();
    blocked = 'Voiso is not configured: set its cluster ID and API key in API Settings';
    stub(1);
    const adminButton = await screen.findByRole('button', { name: 'Call Lee Masked' }) as HTMLButtonElement;
    expect(adminButton.disabled).toBe(true);
    const adminNote = document.getElementById(adminButton.getAttribute('aria-describedby') ?? '')!;
    expect(within(adminNote).getByRole('link', { name: 'Open API Settings' }).getAttribute('href')).toBe('/admin/apis');
  });
});

describe('bulk move', () => {
  test('one answer, one toast: the list reloading after the move does not toast it again', async () => {
    stub(1);
    const box = (await screen.findAllByRole('checkbox')).at(-1)!;
    fireEvent.click(box);
    fireEvent.click(await screen.findByRole('button', { name: 'Bulk archive' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(toasts()).toEqual(['Lead moved successfully']));
    await new Promise((r) => setTimeout(r, 300));
    expect(toasts()).toEqual(['Lead moved successfully']);
  });
});

describe('the Actions column', () => {
  test('is the last column, which the stylesheet pins to the right edge (visible at 1440 px)', async () => {
    stub(1);
    const headers = await screen.findAllByRole('columnheader');
    expect(headers.at(-1)?.textContent).toBe('Actions');
    const css = readFileSync(path.resolve(import.meta.dirname, '../../app/styles/app.css'), 'utf8');
    expect(css).toMatch(/\.crm-leads \.data-table td:last-child, \.crm-leads \.data-table th:last-child \{ position: sticky; right: 0;/);
  });
});

describe('masked columns (issue 22)', () => {
  test('a masked agent is not offered a sort by email or phone; other columns still sort; an admin sorts them all', async () => {
    stub(5);
    const header = async (name: string) => (await screen.findAllByRole('columnheader')).find((h) => h.textContent?.startsWith(name))!;
    expect(within(await header('Email')).queryByRole('button')).toBeNull();
    expect(within(await header('Phone')).queryByRole('button')).toBeNull();
    expect(within(await header('First Name')).getByRole('button')).toBeTruthy();
    cleanup();
    stub(1);
    expect(within(await header('Email')).getByRole('button')).toBeTruthy();
    expect(within(await header('Phone')).getByRole('button')).toBeTruthy();
  });
});
