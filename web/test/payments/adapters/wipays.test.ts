// Wipays adapter: payment initiation against an msw mock of the documented endpoint, and IPNs
// signed the documented way (upper hex HMAC-SHA256 of identifier + timestamp with the secret key).
import { createHmac } from 'node:crypto';
import { strictMockServer } from '../../mocks/server.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { wipays } from '~/modules/payments/adapters/wipays.server.ts';
import { wipaysHandlers, wipaysMock } from '../../mocks/providers/wipays.ts';
import { config, incoming, NOW, request } from './fixtures.ts';

strictMockServer(...wipaysHandlers);
afterEach(() => wipaysMock.reset());

const cfg = config('wipays', { key1: 'wp-public-test', key2: 'wp-secret-test' });
const ts = String(Math.floor(NOW.getTime() / 1000));
const sig = (identifier: string, timestamp: string, key = 'wp-secret-test') => createHmac('sha256', key).update(identifier + timestamp).digest('hex').toUpperCase();
const ipn = (o: Record<string, unknown> = {}) => JSON.stringify({
  identifier: 'dep-42', status: 'success', timestamp: ts, signature: sig('dep-42', ts),
  data: { trx: 'WPTRX1', amount: '100.50', currency: 'USD', type: 'checkout', timestamp: '2026-11-25 01:00:00' }, ...o,
});

describe('wipays adapter', () => {
  it('initiates the payment with the documented body and redirects to the checkout', async () => {
    expect(await wipays.createPayment(cfg, request)).toEqual({ kind: 'redirect', url: 'https://wipays.com/payment/checkout?payment_trx=MOCKdep-42', providerRef: 'dep-42' });
    expect(wipaysMock.calls[0]).toEqual({
      public_key: 'wp-public-test', amount: '100.50', cancel_url: 'https://broker.test/deposit/cancel', currency: 'USD',
      customer: { first_name: 'Alice', last_name: 'Trader', email: 'alice@demo.broker' }, details: 'Deposit #42', identifier: 'dep-42',
      ipn_url: 'https://broker.test/payments/webhook/x', site_name: 'Deposit', success_url: 'https://broker.test/deposit/return',
    });
    await expect(wipays.createPayment({ ...cfg, key1: 'nope' }, request)).rejects.toThrow(/Invalid public key/);
  });

  it('verifies a signed checkout IPN (JSON or form) into the exact amount', async () => {
    const expected = { eventId: `wipays:dep-42:${ts}`, providerRef: 'dep-42', depositId: 42, state: 'paid', amount: '100.50', currency: 'USD', unsignedFigures: true };
    expect(await wipays.verifyNotification(cfg, incoming(ipn()))).toEqual(expected);
    const form = new URLSearchParams({ identifier: 'dep-42', status: 'success', timestamp: ts, signature: sig('dep-42', ts), 'data[amount]': '100.50', 'data[currency]': 'USD', 'data[type]': 'checkout' }).toString();
    expect(await wipays.verifyNotification(cfg, incoming(form))).toEqual(expected);
  });

  it('refuses a bad signature and an old timestamp', async () => {
    await expect(wipays.verifyNotification(cfg, incoming(ipn({ signature: sig('dep-42', ts, 'other') })))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(wipays.verifyNotification(cfg, incoming(ipn({ identifier: 'dep-43' })))).rejects.toMatchObject({ reason: 'bad_signature' });
    const old = String(Number(ts) - 301);
    await expect(wipays.verifyNotification(cfg, incoming(ipn({ timestamp: old, signature: sig('dep-42', old) })))).rejects.toMatchObject({ reason: 'stale_timestamp' });
  });

  it('refuses malformed IPNs, ignores chargebacks, refuses without the secret', async () => {
    await expect(wipays.verifyNotification(cfg, incoming('{oops'))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(wipays.verifyNotification(cfg, incoming(ipn({ data: { type: 'checkout', amount: 'lots', currency: 'USD' } })))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(wipays.verifyNotification(cfg, incoming(ipn({ data: null })))).rejects.toMatchObject({ reason: 'malformed' });
    expect(await wipays.verifyNotification(cfg, incoming(ipn({ data: { type: 'chargeback_initiated', amount: '100.50', currency: 'USD' } })))).toBeNull();
    await expect(wipays.verifyNotification({ ...cfg, key2: null }, incoming(ipn()))).rejects.toMatchObject({ reason: 'not_configured' });
  });

  it('has no documented status API', async () => {
    await expect(wipays.fetchStatus(cfg, 'dep-42')).rejects.toThrow(/no payment status API/);
  });
});
