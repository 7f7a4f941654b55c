// /pricing and the plan prompt against PostgreSQL, the engine's rates and quotes mocked at the
// network boundary (msw): the charge through the ledger exact to the cent, a short balance refused
// with nothing changed (sent to /deposits), one charge however often or however fast the same
// choice is posted, a free plan charging nothing, only the customer's own real wallets, the
// conversion at the engine's rate, open positions re-margined at the plan's leverage, and the
// server's condition for the prompt that cannot be dismissed.
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { testSql, createUser, sessionFor, get } from '../helpers.ts';
import { env } from '~/shared/env.server.ts';
import { convertPrice } from '~/modules/pricing/pricing.server.ts';
import type { EngineQuote } from '~/shared/engine.server.ts';
import { loader } from '~/routes/_client.pricing.tsx';
import { loader as clientLoader } from '~/routes/_client.tsx';
import { pricingSupport } from './pricing-support.ts';

const sql = testSql(5);
const { plan, customer, subscribe, wallet, planOf, entries, audits } = pricingSupport(sql);
const engineUrl = env().ENGINE_URL;
/** from>to → rate; a pair not here answers the engine's 404 */
let rates: Record<string, string> = {};
let quotes: EngineQuote[] = [];
let rateCalls = 0;
mockServer(
  http.get(`${engineUrl}/v1/rates`, ({ request }) => {
    rateCalls++;
    const u = new URL(request.url);
    const from = u.searchParams.get('from')!, to = u.searchParams.get('to')!;
    const rate = rates[`${from}>${to}`];
    return rate ? HttpResponse.json({ from, to, rate }) : HttpResponse.json({ message: `No conversion rate from ${from} to ${to}` }, { status: 404 });
  }),
  http.get(`${engineUrl}/v1/quotes`, () => HttpResponse.json({ status: { fx: 'open' as const, stock: 'open' as const, crypto: 'open' as const }, quotes })),
);
afterEach(() => { rates = {}; quotes = []; rateCalls = 0; });
afterAll(async () => { await sql.end(); });

let instrumentId: number;
async function instrument() {
  if (instrumentId) return instrumentId;
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, bids, asks)
                        VALUES ('PLN_USD', 'PLN', 'USD', 'forex', 100, 1.1, 1.1)
                        ON CONFLICT (name) DO UPDATE SET base = 'PLN' RETURNING id`;
  return (instrumentId = Number(i.id));
}
/** An open buy of 1000 at 1.1 with leverage 100: margin 11, held on the balance as the engine would. */
async function openPosition(userId: number, balanceId: number) {
  const inst = await instrument();
  const [o] = await sql`INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, margin_used, leverage)
                        VALUES (${userId}, ${balanceId}, ${inst}, 'buy', 'forex', 1000, 1.1, 1, 11, 100) RETURNING id`;
  await sql`UPDATE balances SET margin = margin + 11 WHERE id = ${balanceId}`;
  return Number(o.id);
}

describe('plan cards', () => {
  test('the loader lists every plan with its price, currency, leverage and stop-out per market, and the current plan', async () => {
    const p = await plan({ price: '49.90', forex_leverage: null, forex_stopout: 35, description: 'No forex leverage' });
    await plan({ price: '1000.00' });
    await plan({ price: '250.00' });
    const c = await customer();
    await sql`UPDATE users SET pricing_plan_id = ${p.id} WHERE id = ${c.id}`;
    const d = (await loader({ request: get('/pricing', c.cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof loader>>;
    const card = d.view.plans.find((x) => x.id === p.id)!;
    expect(card).toMatchObject({ name: p.name, description: 'No forex leverage', price: '49.90', currency: 'USD' });
    // a plan without forex_leverage shows 'normal' (null); stop-outs as stored, null meaning the default 50
    expect(card.terms.find((x) => x.category === 'forex')).toEqual({ category: 'forex', leverage: null, stopout: '35.00' });
    expect(card.terms.find((x) => x.category === 'crypto')).toEqual({ category: 'crypto', leverage: null, stopout: null });
    expect(d.view.currentPlanId).toBe(p.id);
    // cheapest first, by the number (not its text: 1000 after 250)
    const prices = d.view.plans.map((x) => Number(x.price));
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(d.view.wallets.map((w) => w.id)).toEqual([c.real]); // real wallets only
    expect(d.view.charges[`${p.id}:USD`]).toBe('49.90');
    expect(d.view.canSubscribe).toBe(true);
  });
});

describe('subscribing', () => {
  test('the price is charged through the ledger to the cent, the plan set, the page reloaded with a toast, audited', async () => {
    const p = await plan({ price: '123.45' });
    const c = await customer('1000.01');
    const r = await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real), redirectTo: '/dashboard' });
    expect(r).toMatchObject({ status: 302, location: '/dashboard', toast: { type: 'success', title: 'You are now on the {{plan}} plan', values: { plan: p.name } } });
    expect((await wallet(c.real)).balance).toBe('876.56000000');
    expect(await entries(c.real)).toEqual([{ kind: 'plan_subscription', amount: '-123.45000000', balance_after: '876.56000000', ref_kind: 'plan_subscription', actor_id: c.id }]);
    expect(await planOf(c.id)).toBe(p.id);
    const [a] = await audits(c.id);
    expect(a).toMatchObject({ actor_id: c.id, before: { planId: null }, after: { planId: p.id, balanceId: c.real, charged: '123.45', currency: 'USD', price: '123.45' } });
    expect((await wallet(c.demo)).balance).toBe('10000.00000000');
  });

  test('a balance that cannot pay is sent to /deposits with "Not enough balance", and nothing changes', async () => {
    const p = await plan({ price: '100.00' });
    const c = await customer('99.99');
    const r = await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) });
    expect(r).toMatchObject({ status: 302, location: '/deposits', toast: { type: 'error', title: 'Not enough balance' } });
    expect(await wallet(c.real)).toEqual({ balance: '99.99000000', margin: '0.00000000' });
    expect(await planOf(c.id)).toBeNull();
    expect(await entries(c.real)).toEqual([]);
    expect(await audits(c.id)).toEqual([]);
  });

  test('the free margin must cover the price: used margin and a floating loss count, a floating profit does not', async () => {
    const p = await plan({ price: '100.00' });
    const c = await customer('150');
    await openPosition(c.id, c.real); // margin 11: free 139
    quotes = [{ name: 'PLN_USD', bids: 1.05, asks: 1.05 } as EngineQuote]; // the buy of 1000 is 50 down: free 89
    expect((await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) })).location).toBe('/deposits');
    expect(await wallet(c.real)).toEqual({ balance: '150.00000000', margin: '11.00000000' });
    expect(await planOf(c.id)).toBeNull();
    quotes = [{ name: 'PLN_USD', bids: 1.2, asks: 1.2 } as EngineQuote]; // 100 up: not money yet, free stays 139
    expect((await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) })).location).toBe('/pricing');
    expect((await wallet(c.real)).balance).toBe('50.00000000');
  });

  test("open positions take the plan's leverage at once: margin re-computed, the balance's used margin follows", async () => {
    const p = await plan({ price: '10.00', forex_leverage: 50, forex_stopout: 30 });
    const c = await customer('100');
    const id = await openPosition(c.id, c.real);
    quotes = [{ name: 'PLN_USD', bids: 1.1, asks: 1.1 } as EngineQuote];
    expect((await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) })).status).toBe(302);
    const [o] = await sql`SELECT leverage, margin_used::text AS margin FROM orders WHERE id = ${id}`;
    expect(o).toEqual({ leverage: 50, margin: '22.00000000' });
    expect(await wallet(c.real)).toEqual({ balance: '90.00000000', margin: '22.00000000' });
    const [a] = await audits(c.id);
    expect(a.after.remargined).toEqual([{ balanceId: c.real, positions: 1, marginDelta: '11.00000000' }]);
  });

  test("the price is checked against the free margin after the re-margin: refused, the positions' margin is as it was", async () => {
    const p = await plan({ price: '80.00', forex_leverage: 10 }); // the position's margin becomes 110
    const c = await customer('150');
    const id = await openPosition(c.id, c.real);
    quotes = [{ name: 'PLN_USD', bids: 1.1, asks: 1.1 } as EngineQuote];
    expect((await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) })).location).toBe('/deposits');
    expect(await wallet(c.real)).toEqual({ balance: '150.00000000', margin: '11.00000000' });
    expect((await sql`SELECT leverage, margin_used::text AS m FROM orders WHERE id = ${id}`)[0]).toEqual({ leverage: 100, m: '11.00000000' });
  });

  test('the same choice posted twice, or ten times at once, is charged once', async () => {
    const p = await plan({ price: '25.50' });
    const c = await customer('100');
    const form = { planId: String(p.id), balanceId: String(c.real) };
    const answers = await Promise.all(Array.from({ length: 10 }, () => subscribe(c.cookie, form)));
    expect(answers.filter((a) => a.status === 302)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 302)) expect(a).toMatchObject({ status: 409, body: { ok: false, toast: 'This is already your plan' } });
    expect((await wallet(c.real)).balance).toBe('74.50000000');
    expect(await entries(c.real)).toHaveLength(1);
    expect(await audits(c.id)).toHaveLength(1);
    expect((await subscribe(c.cookie, form)).status).toBe(409);
    expect((await wallet(c.real)).balance).toBe('74.50000000');
  });

  test('a free plan charges nothing and needs no wallet', async () => {
    const p = await plan({ price: '0' });
    const c = await customer('0');
    expect((await subscribe(c.cookie, { planId: String(p.id) })).status).toBe(302);
    expect(await planOf(c.id)).toBe(p.id);
    expect(await sql`SELECT 1 FROM ledger_entries WHERE balance_id = ${c.real}`).toHaveLength(0);
    const [a] = await audits(c.id);
    expect(a.after).toMatchObject({ planId: p.id, charged: null, ledgerEntryId: null });
  });

  test("only the customer's own real wallets pay: another's, a demo one or none is refused under the field, nothing changed", async () => {
    const p = await plan({ price: '5.00' });
    const c = await customer('100');
    const other = await customer('100');
    for (const balanceId of [String(other.real), String(c.demo), '999999999']) {
      const r = await subscribe(c.cookie, { planId: String(p.id), balanceId });
      expect(r).toMatchObject({ status: 400, body: { ok: false, toast: 'Choose one of your real wallets' } });
      expect(r.body?.result?.error?.balanceId).toEqual(['Choose one of your real wallets']);
    }
    expect((await subscribe(c.cookie, { planId: String(p.id) })).body?.result?.error?.balanceId).toEqual(['Wallet is required']);
    expect((await wallet(other.real)).balance).toBe('100.00000000');
    expect((await wallet(c.demo)).balance).toBe('10000.00000000');
    expect(await planOf(c.id)).toBeNull();
  });

  test('bad and unknown plan ids are refused with a message, never a 500', async () => {
    const c = await customer('100');
    for (const planId of ['', 'abc', '-1', '0', '1.5', '1e30', '99999999999999999999']) {
      const r = await subscribe(c.cookie, { planId });
      expect(r.status, planId).toBe(400);
      expect(r.body?.ok).toBe(false);
    }
    expect(await subscribe(c.cookie, { planId: '999999999' })).toMatchObject({ status: 404, body: { toast: 'Plan not found' } });
    expect(await planOf(c.id)).toBeNull();
  });

  test("a wallet in another currency pays the price converted at the engine's rate, rounded half up to the cent", async () => {
    const p = await plan({ price: '123.45', price_currency: 'USD' });
    const c = await customer('500', 'EUR');
    rates = { 'USD>EUR': '0.9' }; // 111.105 → 111.11
    expect((await loader({ request: get('/pricing', c.cookie), params: {}, context: {} })).view.charges[`${p.id}:EUR`]).toBe('111.11');
    expect((await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) })).status).toBe(302);
    expect((await wallet(c.real)).balance).toBe('388.89000000');
    expect((await audits(c.id))[0].after).toMatchObject({ charged: '111.11', currency: 'EUR', rate: '0.9', price: '123.45', priceCurrency: 'USD' });
  });

  test('without a conversion rate the subscription is refused with a message, nothing changed', async () => {
    const p = await plan({ price: '10.00', price_currency: 'USD' });
    const c = await customer('500', 'GBP');
    const r = await subscribe(c.cookie, { planId: String(p.id), balanceId: String(c.real) });
    expect(r).toMatchObject({ status: 409, body: { ok: false, toast: 'No conversion rate from {{from}} to {{to}}', values: { from: 'USD', to: 'GBP' } } });
    expect(rateCalls).toBe(1);
    expect((await wallet(c.real)).balance).toBe('500.00000000');
    expect(await planOf(c.id)).toBeNull();
  });

  test('staff cannot subscribe', async () => {
    const p = await plan({ price: '0' });
    const admin = await createUser(sql, { roleId: 1 });
    const s = await sessionFor(sql, admin.id);
    expect(await subscribe(s.cookie, { planId: String(p.id) })).toMatchObject({ status: 403, body: { toast: 'Only customers can choose a plan' } });
    expect(await planOf(admin.id)).toBeNull();
  });

  test('rounding of converted prices', () => {
    expect(convertPrice('123.45', '0.9', 'EUR')).toBe('111.11');
    expect(convertPrice('10.00', '151.2345', 'JPY')).toBe('1512');
    expect(convertPrice('0.01', '0.0001', 'EUR')).toBe('0.01'); // never below one cent
    expect(convertPrice('99.99', '1', 'USD')).toBe('99.99');
  });
});

describe('the plan prompt', () => {
  const layout = async (cookie: string, path = '/dashboard') =>
    (await clientLoader({ request: get(path, cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof clientLoader>>;

  test('is due for a customer without a plan while the switch is on, with the plans and their real wallets', async () => {
    await plan({ price: '0' });
    const c = await customer('100');
    const d = await layout(c.cookie);
    expect(d.planPrompt).not.toBeNull();
    expect(d.planPrompt!.plans.length).toBeGreaterThan(0);
    expect(d.planPrompt!.wallets.map((w) => w.id)).toEqual([c.real]);
    expect(d.planPrompt!.currentPlanId).toBeNull();
  });

  test('is not due once the customer has a plan, for staff, or in a login-as session', async () => {
    const p = await plan({ price: '0' });
    const c = await customer('100');
    expect((await subscribe(c.cookie, { planId: String(p.id) })).status).toBe(302);
    expect((await layout(c.cookie)).planPrompt).toBeNull();

    const admin = await createUser(sql, { roleId: 1 });
    const adminSession = await sessionFor(sql, admin.id);
    expect((await layout(adminSession.cookie)).planPrompt).toBeNull();

    const planless = await customer('100');
    const loginAs = await sessionFor(sql, planless.id, { impersonatorId: admin.id, parentId: adminSession.id });
    expect((await layout(loginAs.cookie)).planPrompt).toBeNull();
    expect((await layout(planless.cookie)).planPrompt).not.toBeNull();
  });
});
