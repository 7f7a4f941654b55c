// MoonPay adapter: the signed widget URL, the Moonpay-Signature-V2 webhook (computed here
// independently) and the buy transaction lookup by external id against msw.
import { createHmac } from 'node:crypto';
import { strictMockServer } from '../../mocks/server.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { moonpay } from '~/modules/payments/adapters/moonpay.server.ts';
import { moonpayHandlers, moonpayMock } from '../../mocks/providers/moonpay.ts';
import { config, incoming, NOW, request } from './fixtures.ts';

strictMockServer(...moonpayHandlers);
afterEach(() => moonpayMock.reset());

const cfg = config('moonpay', { key1: 'pk_test_mock', key2: 'sk_test_mock', key3: 'wk_test_mock', key4: '0xc216eD2D6c295579718dbd4a797845CdA70B3C36', key5: 'USDC' });
const t = String(Math.floor(NOW.getTime() / 1000));
const sign = (ts: string, body: string, key = 'wk_test_mock') => `t=${ts},s=${createHmac('sha256', key).update(`${ts}.${body}`).digest('hex')}`;
const hook = (type: string, data: unknown) => JSON.stringify({ type, data, externalCustomerId: '7' });

describe('moonpay adapter', () => {
  it('signs the widget URL: base64 HMAC-SHA256 of the query string, appended last', async () => {
    const start = await moonpay.createPayment(cfg, request);
    expect(start.kind).toBe('redirect');
    if (start.kind !== 'redirect') return;
    expect(start.providerRef).toBe('dep-42');
    const search = '?apiKey=pk_test_mock&currencyCode=usdc&walletAddress=0xc216eD2D6c295579718dbd4a797845CdA70B3C36&baseCurrencyCode=usd'
      + '&baseCurrencyAmount=100.50&externalTransactionId=dep-42&externalCustomerId=7&email=alice%40demo.broker'
      + '&redirectURL=https%3A%2F%2Fbroker.test%2Fdeposit%2Freturn';
    const signature = createHmac('sha256', 'sk_test_mock').update(search).digest('base64');
    expect(start.url).toBe(`https://buy-sandbox.moonpay.com/${search}&signature=${encodeURIComponent(signature)}`);
    const live = await moonpay.createPayment({ ...cfg, key1: 'pk_live_x' }, request);
    expect(live.kind === 'redirect' && live.url.startsWith('https://buy.moonpay.com/?apiKey=pk_live_x&')).toBe(true);
  });

  it('verifies a signed completed transaction: the amount the customer paid, fees included, exactly', async () => {
    const body = hook('transaction_updated', moonpayMock.transaction('dep-42', { baseCurrencyAmount: 95.95, feeAmount: 3.99, networkFeeAmount: 0.56, id: 'tx-1' }));
    const event = await moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': sign(t, body) }));
    expect(event).toEqual({
      eventId: 'moonpay:tx-1:transaction_updated:completed:2026-11-25T01:00:31.251Z', providerRef: 'dep-42', depositId: 42, state: 'paid', amount: '100.5', currency: 'USD',
      customerRef: '7', refusal: null,
    });
  });

  it('refuses (as an event with its reason) a purchase into another wallet, of another crypto, or with the keys unset', async () => {
    const read = async (o: Parameters<typeof moonpayMock.transaction>[1], c = cfg) => {
      const body = hook('transaction_updated', moonpayMock.transaction('dep-42', o));
      return (await moonpay.verifyNotification(c, incoming(body, { 'Moonpay-Signature-V2': sign(t, body) })))?.refusal;
    };
    expect(await read({ walletAddress: '0xc216ed2d6c295579718dbd4a797845cda70b3c36' })).toBeNull();
    expect(await read({ walletAddress: '0x1111111111111111111111111111111111111111' })).toMatch(/^Wallet mismatch/);
    expect(await read({ cryptoCode: 'eth' })).toMatch(/^Crypto mismatch/);
    expect(await read({}, { ...cfg, key4: null })).toMatch(/not configured/);
  });

  it('reports transaction_failed as failed and a pending one as pending', async () => {
    const failed = hook('transaction_failed', moonpayMock.transaction('dep-42', { status: 'failed' }));
    expect((await moonpay.verifyNotification(cfg, incoming(failed, { 'Moonpay-Signature-V2': sign(t, failed) })))?.state).toBe('failed');
    const pending = hook('transaction_created', moonpayMock.transaction('dep-42', { status: 'waitingPayment' }));
    expect((await moonpay.verifyNotification(cfg, incoming(pending, { 'Moonpay-Signature-V2': sign(t, pending) })))?.state).toBe('pending');
  });

  it('refuses a bad signature, a missing header and a changed body', async () => {
    const body = hook('transaction_updated', moonpayMock.transaction('dep-42'));
    await expect(moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': sign(t, body, 'other') }))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(moonpay.verifyNotification(cfg, incoming(body))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(moonpay.verifyNotification(cfg, incoming(body.replace('95.45', '995.45'), { 'Moonpay-Signature-V2': sign(t, body) }))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': 'garbage' }))).rejects.toMatchObject({ reason: 'bad_signature' });
  });

  it('refuses a signature older or newer than the tolerance', async () => {
    const body = hook('transaction_updated', moonpayMock.transaction('dep-42'));
    const old = String(Number(t) - 301);
    await expect(moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': sign(old, body) }))).rejects.toMatchObject({ reason: 'stale_timestamp' });
    const future = String(Number(t) + 301);
    await expect(moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': sign(future, body) }))).rejects.toMatchObject({ reason: 'stale_timestamp' });
    const edge = String(Number(t) - 300);
    expect(await moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': sign(edge, body) }))).not.toBeNull();
  });

  it('refuses a signed malformed body and ignores other event types', async () => {
    for (const body of ['not json', hook('transaction_updated', { id: 'x' }), JSON.stringify({ type: 'transaction_updated' })]) {
      await expect(moonpay.verifyNotification(cfg, incoming(body, { 'Moonpay-Signature-V2': sign(t, body) }))).rejects.toMatchObject({ reason: 'malformed' });
    }
    const other = hook('sell_transaction_updated', {});
    expect(await moonpay.verifyNotification(cfg, incoming(other, { 'Moonpay-Signature-V2': sign(t, other) }))).toBeNull();
    await expect(moonpay.verifyNotification({ ...cfg, key3: null }, incoming(other, { 'Moonpay-Signature-V2': sign(t, other) }))).rejects.toMatchObject({ reason: 'not_configured' });
  });

  it('fetchStatus reads the buy transactions by external id (a completed one settles it)', async () => {
    moonpayMock.txs.push(moonpayMock.transaction('dep-42', { status: 'failed', updatedAt: '2026-11-25T01:00:00.000Z' }));
    expect((await moonpay.fetchStatus(cfg, 'dep-42')).state).toBe('failed');
    moonpayMock.txs.push(moonpayMock.transaction('dep-42', { status: 'completed', updatedAt: '2026-11-25T00:59:00.000Z' }));
    expect(await moonpay.fetchStatus(cfg, 'dep-42')).toEqual({ providerRef: 'dep-42', depositId: 42, state: 'paid', amount: '100', currency: 'USD', customerRef: '7', refusal: null });
    expect(moonpayMock.calls.at(-1)).toBe('https://api.moonpay.com/v1/transactions/ext/dep-42?apiKey=pk_test_mock');
    await expect(moonpay.fetchStatus(cfg, 'dep-77')).rejects.toThrow(/HTTP 404/);
  });
});
