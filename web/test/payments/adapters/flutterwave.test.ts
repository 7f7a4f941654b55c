// Flutterwave adapter against msw mocks of its documented v3 API (payments, verify by id, verify by
// reference) and webhooks carrying the secret hash in 'verif-hash'.
import { strictMockServer } from '../../mocks/server.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { flutterwave } from '~/modules/payments/adapters/flutterwave.server.ts';
import { flutterwaveHandlers, flutterwaveMock } from '../../mocks/providers/flutterwave.ts';
import { config, incoming, request } from './fixtures.ts';

strictMockServer(...flutterwaveHandlers);
afterEach(() => flutterwaveMock.reset());

const cfg = config('flutterwave', { key1: 'FLWPUBK_TEST-mock-X', key2: 'FLWSECK_TEST-mock-X', key3: 'my-secret-hash' });
const hook = (data: Record<string, unknown>, event = 'charge.completed') => JSON.stringify({ event, data });

describe('flutterwave adapter', () => {
  it('creates the hosted payment link with the documented request and the secret key', async () => {
    const start = await flutterwave.createPayment(cfg, request);
    expect(start).toEqual({ kind: 'redirect', url: 'https://checkout.flutterwave.com/v3/hosted/pay/mock_dep-42', providerRef: 'dep-42' });
    const call = flutterwaveMock.calls[0]!;
    expect(call.url).toBe('https://api.flutterwave.com/v3/payments');
    expect(call.authorization).toBe('Bearer FLWSECK_TEST-mock-X');
    expect(JSON.parse(call.body)).toEqual({
      tx_ref: 'dep-42', amount: '100.50', currency: 'USD', redirect_url: 'https://broker.test/deposit/return',
      customer: { email: 'alice@demo.broker', name: 'Alice Trader' }, meta: { deposit_id: 42 }, customizations: { title: 'Deposit #42' },
    });
    await expect(flutterwave.createPayment({ ...cfg, key2: 'FLWSECK_TEST-wrong' }, request)).rejects.toThrow(/Invalid authorization key/);
  });

  it('verifies a webhook by fetching the transaction by id: amount and currency come from the verify answer', async () => {
    await flutterwave.createPayment(cfg, request);
    const tx = flutterwaveMock.settle('dep-42', 'successful');
    // the webhook claims more than was paid: the verify answer wins
    const event = await flutterwave.verifyNotification(cfg, incoming(hook({ id: tx.id, tx_ref: 'dep-42', amount: 999, currency: 'USD', status: 'successful' }), { 'verif-hash': 'my-secret-hash' }));
    expect(event).toEqual({ eventId: `flutterwave:${tx.id}:paid`, providerRef: 'dep-42', depositId: 42, state: 'paid', amount: '100.5', currency: 'USD' });
    expect(flutterwaveMock.calls.at(-1)).toMatchObject({ method: 'GET', url: `https://api.flutterwave.com/v3/transactions/${tx.id}/verify`, authorization: 'Bearer FLWSECK_TEST-mock-X' });
  });

  it('reports a failed transaction as failed', async () => {
    await flutterwave.createPayment(cfg, request);
    const tx = flutterwaveMock.settle('dep-42', 'failed');
    expect((await flutterwave.verifyNotification(cfg, incoming(hook({ id: tx.id, tx_ref: 'dep-42' }), { 'verif-hash': 'my-secret-hash' })))?.state).toBe('failed');
  });

  it('refuses a wrong or missing verif-hash before calling Flutterwave', async () => {
    const body = hook({ id: 1, tx_ref: 'dep-42' });
    await expect(flutterwave.verifyNotification(cfg, incoming(body, { 'verif-hash': 'guess' }))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(flutterwave.verifyNotification(cfg, incoming(body))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(flutterwave.verifyNotification({ ...cfg, key3: null }, incoming(body, { 'verif-hash': 'my-secret-hash' }))).rejects.toMatchObject({ reason: 'not_configured' });
    expect(flutterwaveMock.calls).toHaveLength(0);
  });

  it('refuses malformed bodies, ignores other events, and refuses a webhook whose verified tx_ref differs', async () => {
    const h = { 'verif-hash': 'my-secret-hash' };
    await expect(flutterwave.verifyNotification(cfg, incoming('{not json', h))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(flutterwave.verifyNotification(cfg, incoming(hook({ id: 'abc' }), h))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(flutterwave.verifyNotification(cfg, incoming(JSON.stringify({ event: 'charge.completed' }), h))).rejects.toMatchObject({ reason: 'malformed' });
    expect(await flutterwave.verifyNotification(cfg, incoming(hook({ id: 5 }, 'transfer.completed'), h))).toBeNull();
    await flutterwave.createPayment(cfg, request);
    const tx = flutterwaveMock.settle('dep-42');
    await expect(flutterwave.verifyNotification(cfg, incoming(hook({ id: tx.id, tx_ref: 'dep-43' }), h))).rejects.toMatchObject({ reason: 'malformed' });
  });

  it('fetchStatus verifies by reference', async () => {
    await flutterwave.createPayment(cfg, request);
    flutterwaveMock.settle('dep-42', 'pending');
    expect(await flutterwave.fetchStatus(cfg, 'dep-42')).toEqual({ providerRef: 'dep-42', depositId: 42, state: 'pending', amount: '100.5', currency: 'USD' });
    expect(flutterwaveMock.calls.at(-1)!.url).toBe('https://api.flutterwave.com/v3/transactions/verify_by_reference?tx_ref=dep-42');
    await expect(flutterwave.fetchStatus(cfg, 'dep-99')).rejects.toThrow(/No transaction was found/);
  });
});
