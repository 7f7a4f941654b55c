// @vitest-environment jsdom
// The times of the notifications (page and bell's list) and of API Status are the back-office's
// DD/MM/YYYY h:mm A (docs/specs.md#dates), written in UTC: the same text on the server and in a
// browser of any time zone.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { NotificationsPage, type NotificationsData } from '~/modules/notifications/notifications-page.tsx';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

describe('notification times', () => {
  test('the notifications page writes DD/MM/YYYY h:mm A', async () => {
    const data: NotificationsData = {
      total: 1, unread: 1,
      rows: [{ id: 7, title: 'Deposit approved', description: '', url: null, read: false, createdAt: '2024-03-09T15:04:00.000Z', data: null }],
    };
    const Stub = createRemixStub([{ path: '/notifications', Component: () => <NotificationsPage action="/notifications" />, loader: () => data }]);
    render(<Stub initialEntries={['/notifications']} />);
    const time = await screen.findByText('09/03/2024 3:04 PM');
    expect(time.tagName).toBe('TIME');
  });
});

describe('pages that write the back-office format', () => {
  // API Status fills its times from the engine's heartbeats (none in a DOM test), the bell needs
  // the whole shell, the chip the CRM list: their source names the formatter they call.
  const src = (f: string) => readFileSync(path.resolve(import.meta.dirname, '../../app', f), 'utf8');
  test.each(['routes/_staff.admin.status.api.tsx', 'modules/shell/chrome.tsx', 'modules/notifications/notifications-page.tsx'])('%s: f.dateTime, never f.clientDateTime', (f) => {
    expect(src(f)).not.toMatch(/clientDateTime/);
    expect(src(f)).toMatch(/f\.dateTime\(/);
  });
  test('the Registered At chip writes its days through the formatter', () => {
    expect(src('modules/crm/lead-table.tsx')).toMatch(/f\.day\(fv\.dateStart\)/);
  });
});
