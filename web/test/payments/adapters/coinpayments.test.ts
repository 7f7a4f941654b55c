// CoinPayments adapter against msw mocks of its documented API (create_transaction, get_tx_info)
// and IPNs signed the documented way (HMAC-SHA512 of the raw body in the 'HMAC' header).
import { createHmac } from 'node:crypto';
import { strictMockServer } from '../../mocks/server.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { NotificationRefused } from '~/modules/payments/adapter.ts';
import { coinpayments } from '~/modules/payments/adapters/coinpayments.server.ts';
import { coinpaymentsHandlers, coinpaymentsMock } from '../../mocks/providers/coinpayments.ts';
import { config, incoming, request } from './fixtures.ts';

strictMockServer(...coinpaymentsHandlers);
afterEach(() => coinpaymentsMock.reset());

const cfg = config('coinpayments', { key1: 'cp-public-test', key2: 'cp-private-test', key3: 'BTC' });
const sha512 = (body: string, key: string) => createHmac('sha512', key).update(body).digest('hex');

function ipn(fields: Record<string, string>, key = 'cp-private-test') {
  const body = new URLSearchParams({ ipn_version: '1.0', ipn_type: 'api', ipn_mode: 'hmac', ipn_id: 'a1b2c3', merchant: 'm123', ...fields }).toString();
  return { body, hmac: sha512(body, key) };
}

describe('coinpayments adapter', () => {
  it('creates a transaction with the signed, documented call and redirects to its checkout_url', async () => {
    const start = await coinpayments.createPayment(cfg, request);
    expect(coinpaymentsMock.calls).toHaveLength(1);
    const { body, hmac } = coinpaymentsMock.calls[0]!;
    expect(body).toBe(
      'version=1&cmd=create_transaction&key=cp-public-test&format=json&amount=100.50&currency1=USD&currency2=BTC'
      + '&buyer_email=alice%40demo.broker&buyer_name=Alice+Trader&item_name=Deposit+%2342&invoice=dep-42&custom=42'
      + '&ipn_url=https%3A%2F%2Fbroker.test%2Fpayments%2Fwebhook%2Fx&success_url=https%3A%2F%2Fbroker.test%2Fdeposit%2Freturn'
      + '&cancel_url=https%3A%2F%2Fbroker.test%2Fdeposit%2Fcancel',
    );
    expect(hmac).toBe(sha512(body, 'cp-private-test'));
    expect(start.kind).toBe('redirect');
    expect(start.providerRef).toMatch(/^CPMOCK\d{8}$/);
    if (start.kind === 'redirect') expect(start.url).toBe(`https://www.coinpayments.net/index.php?cmd=checkout&id=${start.providerRef}&key=mock`);
  });

  it('fails loudly when the provider refuses the keys', async () => {
    await expect(coinpayments.createPayment({ ...cfg, key2: 'wrong' }, request)).rejects.toThrow(/HMAC signature does not match/);
  });

  it('verifies a paid IPN into the exact amount in the original currency', async () => {
    const { body, hmac } = ipn({ txn_id: 'CPX1', status: '100', status_text: 'Complete', amount1: '100.50', currency1: 'USD', amount2: '0.00201000', currency2: 'BTC', custom: '42', invoice: 'dep-42' });
    const event = await coinpayments.verifyNotification(cfg, incoming(body, { HMAC: hmac, 'content-type': 'application/x-www-form-urlencoded' }));
    expect(event).toEqual({ eventId: 'coinpayments:a1b2c3', providerRef: 'CPX1', depositId: 42, state: 'paid', amount: '100.50', currency: 'USD' });
  });

  it('maps the documented status codes: 2 paid (queued payout), 1 pending, -1 failed', async () => {
    for (const [status, state] of [['2', 'paid'], ['1', 'pending'], ['0', 'pending'], ['-1', 'failed'], ['-2', 'failed']] as const) {
      const { body, hmac } = ipn({ txn_id: 'CPX1', status, amount1: '100.50', currency1: 'USD', custom: '42' });
      expect((await coinpayments.verifyNotification(cfg, incoming(body, { HMAC: hmac })))?.state).toBe(state);
    }
  });

  it('refuses a bad or missing HMAC, and a body changed after signing', async () => {
    const { body, hmac } = ipn({ txn_id: 'CPX1', status: '100', amount1: '100.50', currency1: 'USD' });
    await expect(coinpayments.verifyNotification(cfg, incoming(body, { HMAC: sha512(body, 'other-secret') }))).rejects.toMatchObject({ reason: 'bad_signature' });
    await expect(coinpayments.verifyNotification(cfg, incoming(body))).rejects.toBeInstanceOf(NotificationRefused);
    await expect(coinpayments.verifyNotification(cfg, incoming(body.replace('amount1=100.50', 'amount1=900.50'), { HMAC: hmac }))).rejects.toMatchObject({ reason: 'bad_signature' });
  });

  it('refuses a signed but malformed IPN, and ignores IPN types that are not ours', async () => {
    const noAmount = ipn({ txn_id: 'CPX1', status: '100', currency1: 'USD' });
    await expect(coinpayments.verifyNotification(cfg, incoming(noAmount.body, { HMAC: noAmount.hmac }))).rejects.toMatchObject({ reason: 'malformed' });
    const badAmount = ipn({ txn_id: 'CPX1', status: '100', amount1: '1e3', currency1: 'USD' });
    await expect(coinpayments.verifyNotification(cfg, incoming(badAmount.body, { HMAC: badAmount.hmac }))).rejects.toMatchObject({ reason: 'malformed' });
    const deposit = ipn({ ipn_type: 'deposit', txn_id: 'x', status: '100', amount: '1', currency: 'BTC' });
    expect(await coinpayments.verifyNotification(cfg, incoming(deposit.body, { HMAC: deposit.hmac }))).toBeNull();
  });

  it('refuses every IPN as not_configured without the secret', async () => {
    const { body, hmac } = ipn({ txn_id: 'CPX1', status: '100', amount1: '1', currency1: 'USD' });
    await expect(coinpayments.verifyNotification({ ...cfg, key2: null }, incoming(body, { HMAC: hmac }))).rejects.toMatchObject({ reason: 'not_configured' });
  });

  it('fetchStatus reads get_tx_info (signed) in the coin the buyer sends', async () => {
    const start = await coinpayments.createPayment(cfg, request);
    expect(await coinpayments.fetchStatus(cfg, start.providerRef)).toEqual({ providerRef: start.providerRef, depositId: null, state: 'pending', amount: '0.00201000', currency: 'BTC' });
    coinpaymentsMock.txs.get(start.providerRef)!.status = 100;
    expect((await coinpayments.fetchStatus(cfg, start.providerRef)).state).toBe('paid');
    const call = coinpaymentsMock.calls.at(-1)!;
    expect(call.body).toBe(`version=1&cmd=get_tx_info&key=cp-public-test&format=json&txid=${start.providerRef}`);
    expect(call.hmac).toBe(sha512(call.body, 'cp-private-test'));
    await expect(coinpayments.fetchStatus(cfg, 'NOPE')).rejects.toThrow(/Transaction not found/);
  });
});
