// @vitest-environment jsdom
// A toast's texts are i18n keys, translated as shown, unless the caller already worded them in
// the reader's language (a live notification, through notificationText): those are shown as they
// are, never asked of i18next again as keys nobody has (the browser would report each one).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { useEffect } from 'react';
import { ToastProvider, useToast, type ToastMessage } from '~/components/ui/toast.tsx';

const missing: string[] = [];
beforeAll(async () => {
  await i18next.use(initReactI18next).init({
    lng: 'de', fallbackLng: 'en', keySeparator: false, nsSeparator: false, interpolation: { escapeValue: false },
    resources: { de: { translation: { 'Copied to clipboard': 'In die Zwischenablage kopiert' } }, en: { translation: { 'Copied to clipboard': 'Copied to clipboard' } } },
    saveMissing: true, missingKeyHandler: (_l, _n, key) => { missing.push(key); },
  });
});
afterEach(cleanup);

function Push({ message }: { message: ToastMessage }) {
  const { push } = useToast();
  useEffect(() => { push(message); }, [push, message]);
  return null;
}

describe('toast texts', () => {
  test('a key is translated; a worded text is shown as it is and asked of nobody', async () => {
    await act(async () => {
      render(<ToastProvider>
        <Push message={{ title: 'Copied to clipboard' }} />
        <Push message={{ type: 'info', title: 'Einzahlung #5 genehmigt', description: '10,00 $ wurden gutgeschrieben.', translated: true }} />
      </ToastProvider>);
    });
    expect(await screen.findByText('In die Zwischenablage kopiert')).toBeTruthy();
    expect(screen.getByText('Einzahlung #5 genehmigt')).toBeTruthy();
    expect(missing.filter((k) => /Einzahlung|gutgeschrieben/.test(k))).toEqual([]);
  });
});
