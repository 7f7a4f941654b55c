// @vitest-environment jsdom
// The team editor's member picker in a DOM: the filter narrows the list by name or email, people
// filtered out of view stay chosen and are still posted, a chip removes a choice, and the posted
// form parses with the team schema to the chosen ids.
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { MemberPicker } from '~/modules/crm-config/member-picker.tsx';
import { parseForm } from '~/shared/forms.ts';
import { CRM_CONFIG_PARSE, TeamSchema } from '~/modules/crm-config/schemas.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const options = [
  { id: 11, label: 'Sam Sales', detail: 'sales@demo.broker · Agent' },
  { id: 12, label: 'Rita Retention', detail: 'retention@demo.broker · Retention Agent' },
  { id: 13, label: 'Ann Agent', detail: 'ann@demo.broker · Agent' },
];

function renderPicker(defaultValue: number[] = []) {
  render(
    <form data-testid="form">
      <input name="name" defaultValue="Desk" />
      <input name="userId" defaultValue="5" />
      <MemberPicker name="userIds" label="Members" options={options} defaultValue={defaultValue} />
    </form>,
  );
  return () => new FormData(screen.getByTestId('form') as HTMLFormElement);
}

describe('MemberPicker', () => {
  test('filtering hides others but keeps every choice in the form; the chip removes one', () => {
    const data = renderPicker([12]);
    expect(screen.getByText('1 selected')).toBeTruthy();
    fireEvent.click(screen.getByRole('checkbox', { name: /Sam Sales/ }));
    expect(screen.getByText('2 selected')).toBeTruthy();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search by name or email' }), { target: { value: 'ann@' } });
    expect(screen.getByRole('checkbox', { name: /Ann Agent/ })).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: /Sam Sales/ })).toBeNull(); // hidden from view…
    expect(data().getAll('userIds').sort()).toEqual(['11', '12']); // …still posted
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search by name or email' }), { target: { value: 'nobody' } });
    expect(screen.getByText('No data found')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Remove Rita Retention' }));
    expect(data().getAll('userIds')).toEqual(['11']);
  });

  test('the posted form parses to the chosen ids', () => {
    const data = renderPicker([11, 13]);
    const s = parseForm(data(), TeamSchema, CRM_CONFIG_PARSE);
    expect(s.status).toBe('success');
    expect(s.status === 'success' && s.value).toMatchObject({ name: 'Desk', userId: 5, userIds: [11, 13] });
    // none chosen: an empty list
    cleanup();
    const none = renderPicker([]);
    const e = parseForm(none(), TeamSchema, CRM_CONFIG_PARSE);
    expect(e.status === 'success' && e.value.userIds).toEqual([]);
  });
});
