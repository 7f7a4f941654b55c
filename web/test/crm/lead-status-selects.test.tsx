// @vitest-environment jsdom
// Every lead status select starts on a value, never on a placeholder (issue 24): Add Lead on the
// default sales status, Edit Lead on the lead's own status, and the status a deleted sales
// status's leads move to on the default status. Rendered with a real Remix router.
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LeadTablePage } from '~/modules/crm/lead-table.tsx';
import { SalesStatusesPage } from '~/modules/crm-config/sales-statuses-page.tsx';
import { ToastProvider } from '~/components/ui/toast.tsx';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const STATUSES = [
  { id: 1, status: 'New', color: '#cccccc', isDefault: false },
  { id: 2, status: 'Hot', color: '#ff0000', isDefault: true },
  { id: 3, status: 'Contacted', color: '#00ff00', isDefault: false },
];
const row = {
  id: 41, firstName: 'Lee', lastName: 'Lead', email: 'lee@example.com', phone: '+34 612 345 678', note: null, country: 'Spain', city: 'Madrid',
  status: 'Contacted', statusColor: null, group: 'sales', managerId: null, managerName: null, agentId: null, agentName: null, retId: null, retName: null,
  registeredAt: '2026-11-20T10:00:00.000Z', depositedAt: null, lastAccess: null, ftdAt: null, funnelLink: null, reference: null, leadSourceId: null,
  affiliateId: null, affiliateName: null, linkedId: null, linkedName: null,
};

function leads() {
  const Stub = createRemixStub([
    {
      path: '/admin/crm/sales/all', Component: () => <ToastProvider><LeadTablePage /></ToastProvider>,
      loader: () => ({
        kind: 'list', screen: 'sales-all', roleId: 1, masked: false, manages: true, statuses: STATUSES, agents: [], managers: [], salesAgents: [], retAgents: [],
        rows: [row], total: 1, estimated: false, bounded: false, filters: { status: '', agent: '', dateStart: '', dateEnd: '' }, filterError: null,
        countries: ['Spain'], callBlocked: null,
      }),
    },
    { path: '/admin/crm/lead-import', loader: () => ({ status: null }) },
  ]);
  render(<Stub initialEntries={['/admin/crm/sales/all']} />);
}

const select = (dialog: HTMLElement, label: string) => within(dialog).getByLabelText(label) as HTMLSelectElement;
const placeholders = (s: HTMLSelectElement) => [...s.options].filter((o) => o.value === '' || o.disabled).map((o) => o.textContent);

describe('lead status selects start on a value', () => {
  test('Add Lead: the default sales status, no placeholder', async () => {
    leads();
    fireEvent.click(await screen.findByRole('button', { name: 'Add Lead' }));
    const s = select(await screen.findByRole('dialog'), 'Lead Status');
    expect(s.value).toBe('Hot');
    expect(placeholders(s)).toEqual([]);
  });

  test("Edit Lead: the lead's own status", async () => {
    leads();
    fireEvent.click(await screen.findByRole('button', { name: 'Edit lead #41' }));
    const s = select(await screen.findByRole('dialog'), 'Sale Status');
    expect(s.value).toBe('Contacted');
    expect(placeholders(s)).toEqual([]);
  });

  test("deleting a sales status leads have: the status they move to starts on the default one", async () => {
    const Stub = createRemixStub([{
      path: '/admin/crm-config/sales-statuses', Component: () => <ToastProvider><SalesStatusesPage /></ToastProvider>,
      loader: () => ({ rows: STATUSES.map((s) => ({ ...s, inUse: true })), total: 3, choices: STATUSES }),
    }]);
    render(<Stub initialEntries={['/admin/crm-config/sales-statuses']} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete Contacted' }));
    const s = select(await screen.findByRole('dialog'), 'Move its leads to');
    expect(s.value).toBe('2');
    expect([...s.options].map((o) => o.textContent)).toEqual(['New', 'Hot']);
    expect(placeholders(s)).toEqual([]);
  });
});
