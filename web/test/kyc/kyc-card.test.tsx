// @vitest-environment jsdom
// The customer's KYC card (kyc-client.tsx) rendered with a real Remix router: its heading says
// where the document stands, so an approved one no longer reads 'KYC Submitted'.
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { KycPage } from '~/modules/kyc/kyc-client.tsx';
import type { KycDocument, KycStatus } from '~/modules/kyc/kyc.ts';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

const doc = (status: KycStatus): KycDocument => ({
  id: 1, type: 'national_id', status, declineReason: null, createdAt: '2026-11-01T10:00:00Z', decidedAt: null, files: { front: null, back: null, address: null },
});

function show(document: KycDocument) {
  const Stub = createRemixStub([{ path: '/', Component: () => <ToastProvider><KycPage document={document} maxSize="5 MB" /></ToastProvider> }]);
  render(<Stub />);
}

describe('KYC card', () => {
  test('an approved document is headed KYC Approved, with its Approved status', async () => {
    show(doc('approved'));
    expect((await screen.findByRole('heading', { level: 2 })).textContent).toBe('KYC Approved');
    expect(screen.getByTestId('kyc-status').textContent).toBe('Approved');
    expect(screen.queryByText('KYC Submitted')).toBeNull();
  });

  test('a document under review is still headed KYC Submitted', async () => {
    show(doc('pending'));
    expect((await screen.findByRole('heading', { level: 2 })).textContent).toBe('KYC Submitted');
  });
});
