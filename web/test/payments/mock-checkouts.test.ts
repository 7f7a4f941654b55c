// The MOCKS=1 checkouts of CoinPayments, Flutterwave, MoonPay, Wipays and Perfect Money
// (web/test/mocks/checkouts.ts): each provider's address becomes the app's mock page, 'Pay' sends a
// notification that the real adapter verifies with the same keys (and refuses with other keys), for
// the payment's exact amount, and sends the customer back to our return URL. And the start page's
// data of a form payment: the customer's own pending deposit only.
import { strictMockServer } from '../mocks/server.ts';
import { http, HttpResponse } from 'msw';
import { afterAll, describe, expect, test } from 'vitest';
import { adapterFor } from '~/modules/payments/payments.server.ts';
import { NotificationRefused, type GatewayConfig } from '~/modules/payments/adapter.ts';
import { formStartOf, saveFormStart } from '~/modules/payments/start.server.ts';
import { allPaymentHandlers, localCheckout, MOCK_KEYS, mockCheckouts } from '../mocks/payments.ts';
import { config, request } from './adapters/fixtures.ts';
import { createUser, testSql, walletFor } from '../helpers.ts';

const ORIGIN = 'https://broker.test';
const delivered: { url: string; headers: Headers; body: string }[] = [];
strictMockServer(
  ...allPaymentHandlers,
  http.post(`${ORIGIN}/*`, async ({ request: r }) => {
    delivered.push({ url: r.url, headers: r.headers, body: await r.text() });
    return new HttpResponse('', { status: 200 });
  }),
);
const sql = testSql(2);
afterAll(async () => {
  await sql.end();
});

const cfg = (name: string, keys = MOCK_KEYS[name]!): GatewayConfig => config(name, keys);
const req = { ...request, total: '100.50', returnUrl: `${ORIGIN}/payments/return/42`, cancelUrl: `${ORIGIN}/payments/return/42?cancelled=1`, notifyUrl: `${ORIGIN}/payments/webhooks/x` };

/** The signing secret each adapter checks, changed: its notification must then be refused. */
const WRONG: Record<string, Partial<GatewayConfig>> = {
  coinpayments: { key2: 'another-ipn-secret' },
  flutterwave: { key3: 'another-secret-hash' },
  moonpay: { key3: 'another-webhook-key' },
  wipays: { key2: 'another-secret-key' },
  perfectmoney: { key3: 'another-passphrase' },
};

describe('the mock checkouts pay with a notification the adapter verifies', () => {
  for (const name of ['coinpayments', 'flutterwave', 'moonpay', 'wipays', 'perfectmoney']) {
    test(name, async () => {
      const adapter = adapterFor(name)!;
      const config = cfg(name);
      const start = localCheckout(await adapter.createPayment(config, { ...req, notifyUrl: `${ORIGIN}/payments/webhooks/${name}` }));
      let pageUrl: URL;
      const checkout = mockCheckouts[name]!;
      if (start.kind === 'form') {
        // the browser posts the SCI form to the mock SCI, which opens the payment page
        expect(start.action).toBe('/payments/mock/perfectmoney/sci');
        const id = checkout.enter!(start.fields);
        expect(id).toBeTruthy();
        pageUrl = new URL(`/payments/mock/${name}/${id}`, ORIGIN);
      } else {
        expect(start.url).toMatch(new RegExp(`^/payments/mock/${name}/`));
        pageUrl = new URL(start.url, ORIGIN);
      }
      const ref = decodeURIComponent(pageUrl.pathname.split('/').pop()!);
      const ctx = { origin: ORIGIN, config, url: pageUrl };
      const view = checkout.view(ref, ctx)!;
      expect(view.error).toBeUndefined();
      expect(view.amount).toMatch(/^100\.50? USD$/);

      delivered.length = 0;
      const back = await checkout.pay(ref, ctx);
      expect(back?.startsWith(req.returnUrl)).toBe(true);
      expect(delivered).toHaveLength(1);
      const n = delivered[0]!;
      expect(new URL(n.url).pathname).toBe(`/payments/webhooks/${name}`);
      const ev = await adapter.verifyNotification(config, { headers: n.headers, rawBody: n.body, now: new Date() });
      expect(ev).toMatchObject({ state: 'paid', currency: 'USD', depositId: 42 });
      expect(Number(ev!.amount)).toBe(100.5);
      // the same notification under another secret: refused, never credited
      await expect(adapter.verifyNotification({ ...config, ...WRONG[name] }, { headers: n.headers, rawBody: n.body, now: new Date() }))
        .rejects.toBeInstanceOf(NotificationRefused);
      // cancelling goes back without a notification
      delivered.length = 0;
      expect(checkout.cancel(ref, ctx)).toMatch(new RegExp(`^${ORIGIN}/payments/return/42`));
      expect(delivered).toHaveLength(0);
    });
  }

  test("MoonPay's widget refuses a URL whose signature does not match", async () => {
    const start = localCheckout(await adapterFor('moonpay')!.createPayment(cfg('moonpay'), req));
    const url = new URL(start.kind === 'redirect' ? start.url.replace('baseCurrencyAmount=100.50', 'baseCurrencyAmount=1.00') : '', ORIGIN);
    const ctx = { origin: ORIGIN, config: cfg('moonpay'), url };
    expect(mockCheckouts.moonpay!.view('widget', ctx)?.error).toBe('Invalid URL signature');
    expect(await mockCheckouts.moonpay!.pay('widget', ctx)).toBeNull();
  });

  test("MoonPay's widget without walletAddress needs no signature: the purchase goes to the customer's wallet and its signed notification is refused", async () => {
    const start = localCheckout(await adapterFor('moonpay')!.createPayment(cfg('moonpay'), { ...req, notifyUrl: `${ORIGIN}/payments/webhooks/moonpay` }));
    const signed = new URL(start.kind === 'redirect' ? start.url : '', ORIGIN);
    const q = new URLSearchParams(signed.search);
    q.delete('walletAddress');
    q.delete('signature');
    const ctx = { origin: ORIGIN, config: cfg('moonpay'), url: new URL(`${signed.pathname}?${q}`, ORIGIN) };
    expect(mockCheckouts.moonpay!.view('widget', ctx)?.error).toBeUndefined();
    delivered.length = 0;
    expect(await mockCheckouts.moonpay!.pay('widget', ctx)).toMatch(new RegExp(`^${ORIGIN}/payments/return/42`));
    expect(delivered).toHaveLength(1);
    const ev = await adapterFor('moonpay')!.verifyNotification(cfg('moonpay'), { headers: delivered[0]!.headers, rawBody: delivered[0]!.body, now: new Date() });
    expect(ev).toMatchObject({ providerRef: 'dep-42', state: 'paid', refusal: expect.stringMatching(/^Wallet mismatch/) });
  });

  test('notifications go to this app only', async () => {
    const start = await adapterFor('wipays')!.createPayment(cfg('wipays'), { ...req, notifyUrl: 'https://elsewhere.test/ipn' });
    const ref = start.providerRef;
    await expect(mockCheckouts.wipays!.pay(ref, { origin: ORIGIN, config: cfg('wipays'), url: new URL(ORIGIN) })).rejects.toThrow(/not this app's/);
  });

  test('Stripe and PayPal starts and unknown addresses are left as they are', () => {
    const s = { kind: 'redirect' as const, url: 'https://example.com/pay?id=1', providerRef: 'x' };
    expect(localCheckout(s)).toBe(s);
    const f = { kind: 'form' as const, action: 'https://example.com/form', method: 'POST' as const, fields: {}, providerRef: 'x' };
    expect(localCheckout(f)).toBe(f);
  });
});

describe('the start page of a form payment', () => {
  test("the customer's own pending deposit only", async () => {
    const [me, other] = [await createUser(sql), await createUser(sql)];
    const wallet = await walletFor(sql, me.id);
    const [d] = await sql`INSERT INTO deposits (user_id, balance_id, gateway, amount, fee, total) VALUES (${me.id}, ${wallet}, 'perfectmoney', 100, 1.5, 101.5) RETURNING id`;
    const id = Number(d.id);
    expect(await formStartOf(sql, me.id, id)).toBeNull(); // no form kept yet
    await saveFormStart(sql, id, { kind: 'form', action: 'https://perfectmoney.is/api/step1.asp', method: 'POST', providerRef: `dep-${id}`, fields: { PAYMENT_ID: `dep-${id}`, PAYMENT_AMOUNT: '101.50' } });
    const data = await formStartOf(sql, me.id, id);
    expect(data).toMatchObject({
      deposit: { id, amount: '100.00', fee: '1.50', total: '101.50', currency: 'USD' },
      gateway: { name: 'perfectmoney' },
      form: { action: 'https://perfectmoney.is/api/step1.asp', method: 'POST', fields: [['PAYMENT_ID', `dep-${id}`], ['PAYMENT_AMOUNT', '101.50']] },
    });
    expect(await formStartOf(sql, other.id, id)).toBeNull();
    await sql`UPDATE deposits SET status = 'declined', decline_reason = 'test', decided_at = now() WHERE id = ${id}`;
    expect(await formStartOf(sql, me.id, id)).toBeNull();
  });
});
