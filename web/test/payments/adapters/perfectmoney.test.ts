// Perfect Money adapter: the documented SCI entry form and the V2_HASH of the status form,
// computed independently here.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { perfectmoney } from '~/modules/payments/adapters/perfectmoney.server.ts';
import { config, incoming, request } from './fixtures.ts';

const cfg = config('perfectmoney', { key1: 'U1234567', key2: 'E7654321', key3: 'alt-passphrase' });
const md5 = (s: string) => createHash('md5').update(s).digest('hex').toUpperCase();

function status(over: Record<string, string> = {}, passphrase = 'alt-passphrase') {
  const f: Record<string, string> = {
    PAYEE_ACCOUNT: 'U1234567', PAYMENT_ID: 'dep-42', PAYMENT_AMOUNT: '100.50', PAYMENT_UNITS: 'USD',
    PAYMENT_BATCH_NUM: '789012', PAYER_ACCOUNT: 'U7777777', TIMESTAMPGMT: '1764032400', ...over,
  };
  // the spec's concatenation, written out by hand
  const hash = md5(`${f.PAYMENT_ID}:${f.PAYEE_ACCOUNT}:${f.PAYMENT_AMOUNT}:${f.PAYMENT_UNITS}:${f.PAYMENT_BATCH_NUM}:${f.PAYER_ACCOUNT}:${md5(passphrase)}:${f.TIMESTAMPGMT}`);
  return new URLSearchParams({ ...f, V2_HASH: over.V2_HASH ?? hash }).toString();
}

describe('perfectmoney adapter', () => {
  it('builds the SCI form to the wallet of the currency', async () => {
    expect(await perfectmoney.createPayment(cfg, request)).toEqual({
      kind: 'form', action: 'https://perfectmoney.is/api/step1.asp', method: 'POST', providerRef: 'dep-42',
      fields: {
        PAYEE_ACCOUNT: 'U1234567', PAYEE_NAME: 'Deposit #42', PAYMENT_AMOUNT: '100.50', PAYMENT_UNITS: 'USD', PAYMENT_ID: 'dep-42',
        STATUS_URL: 'https://broker.test/payments/webhook/x', PAYMENT_URL: 'https://broker.test/deposit/return', PAYMENT_URL_METHOD: 'GET',
        NOPAYMENT_URL: 'https://broker.test/deposit/cancel', NOPAYMENT_URL_METHOD: 'GET', SUGGESTED_MEMO: 'Deposit #42', BAGGAGE_FIELDS: '',
      },
    });
    const eur = await perfectmoney.createPayment(cfg, { ...request, currency: 'EUR' });
    expect(eur.kind === 'form' && eur.fields.PAYEE_ACCOUNT).toBe('E7654321');
    await expect(perfectmoney.createPayment(cfg, { ...request, currency: 'GBP' })).rejects.toThrow(/not offered/);
    await expect(perfectmoney.createPayment({ ...cfg, key2: null }, { ...request, currency: 'EUR' })).rejects.toThrow(/EUR wallet/);
  });

  it('verifies a status form with the documented V2_HASH', async () => {
    expect(await perfectmoney.verifyNotification(cfg, incoming(status()))).toEqual({
      eventId: 'perfectmoney:789012', providerRef: 'dep-42', depositId: 42, state: 'paid', amount: '100.50', currency: 'USD',
    });
  });

  it('refuses a wrong passphrase, a changed amount and a forged hash', async () => {
    await expect(perfectmoney.verifyNotification(cfg, incoming(status({}, 'other')))).rejects.toMatchObject({ reason: 'bad_signature' });
    const tampered = status().replace('PAYMENT_AMOUNT=100.50', 'PAYMENT_AMOUNT=900.50');
    await expect(perfectmoney.verifyNotification(cfg, incoming(tampered))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(perfectmoney.verifyNotification(cfg, incoming(status({ V2_HASH: 'A'.repeat(32) })))).rejects.toMatchObject({ reason: 'bad_signature' });
  });

  it('refuses missing fields and a payee that is not our wallet', async () => {
    await expect(perfectmoney.verifyNotification(cfg, incoming('PAYMENT_ID=dep-42&V2_HASH=x'))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(perfectmoney.verifyNotification(cfg, incoming(status({ PAYEE_ACCOUNT: 'U9999999' })))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(perfectmoney.verifyNotification(cfg, incoming(status({ PAYMENT_AMOUNT: 'abc' })))).rejects.toMatchObject({ reason: 'malformed' });
  });

  it('refuses everything as not_configured without the alternate passphrase', async () => {
    await expect(perfectmoney.verifyNotification({ ...cfg, key3: null }, incoming(status()))).rejects.toMatchObject({ reason: 'not_configured' });
  });

  it('has no status API to ask', async () => {
    await expect(perfectmoney.fetchStatus(cfg, 'dep-42')).rejects.toThrow(/no payment status API/);
  });
});
