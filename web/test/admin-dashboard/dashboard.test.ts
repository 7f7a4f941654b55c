// The admin dashboard (/admin): its figures against sums computed here from what the test put in
// through the real paths (the money module's deposits, withdrawals and decisions over post_ledger;
// the engine's own place, close and staff-edit commands over engine_place_order / engine_close_order),
// on a day of its own far from today so that other test files' data never meets it; the date
// filter, bad dates (a message, never a 500), the role (admin only), and the open exposure per
// instrument against each position's P/L by the domain formula. The engine's HTTP calls (rates,
// quotes) are answered in this process (msw).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { mockServer } from '../mocks/server.ts';
import { Book } from '../../../engine/src/book/book.ts';
import { connect as engineConnect } from '../../../engine/src/db.ts';
import { adminEditOrder, closeOrder, placeOrder, type OrderDeps } from '../../../engine/src/orders/service.ts';
import { dec, exact, float } from '@broker/engine/domain';
import { env } from '~/shared/env.server.ts';
import { loader } from '~/routes/_staff.admin._index.tsx';
import { loader as exposureLoader } from '~/routes/admin.exposure.ts';
import { loader as ticketLoader } from '~/routes/dashboard.ticket.ts';
import { EXPOSURE_ROLES, maySubscribe, verifyTicket } from '@broker/engine/contract/ticket';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { dashboardData } from '~/modules/admin-dashboard/dashboard.server.ts';
import { getSetting } from '~/shared/settings.server.ts';
import { forgetQuotes } from '~/modules/trading/quotes.server.ts';
import { createDeposit, decideMoney, requestWithdrawal, type BankDetails } from '~/modules/money/money.server.ts';
import { createUser, ensureGateways, get, sessionFor, settle, testSql, unique, walletFor } from '../helpers.ts';

const sql = testSql(6);
const esql = engineConnect(process.env.DATABASE_URL!, { max: 3 });
const book = new Book();
const deps: OrderDeps = { sql: esql, book };
const ENGINE = env().ENGINE_URL;
/** Rates to the App Currency the engine answers here; any other currency has none (404). */
const RATES: Record<string, string> = { EUR: '1.1' };
let base = 'USD';

mockServer(
  http.get(`${ENGINE}/v1/rates`, ({ request }) => {
    const q = new URL(request.url).searchParams;
    const from = q.get('from')!, to = q.get('to')!;
    const rate = to === base ? (from === base ? '1' : RATES[from]) : undefined;
    if (!rate) return HttpResponse.json({ message: `No conversion rate from ${from} to ${to}`, code: 'not_found' }, { status: 404 });
    return HttpResponse.json({ from, to, rate });
  }),
  http.get(`${ENGINE}/v1/quotes`, () => HttpResponse.json({
    status: { fx: 'open' as const, stock: 'open' as const, crypto: 'open' as const },
    quotes: [...book.quotes.values()].map((q) => ({ name: q.name, category: 'crypto', tradable: true, open: true, bids: q.bid, asks: q.ask, prevBids: q.prevBid, prevAsks: q.prevAsk, stale: false })),
  })),
);

const bank: BankDetails = { bankName: 'Chase', accountName: 'x', accountNumber: '12345678', swiftCode: 'CHASUS33', bankCountry: 'United States' };
const noFloating = async () => 0;

let admin: { id: number; cookie: string };
/** the test's own day (UTC) and the next: nothing else is dated on them */
let DAY = '';
let NEXT = '';
const usd = { id: 0, name: '' };
const eur = { id: 0, name: '' };
/** an instrument of the exposure read's test alone */
const own = { id: 0, name: '' };

const addDays = (day: string, n: number) => { const d = new Date(`${day}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + n); return d.toISOString().slice(0, 10); };

async function instrument(quote: 'USD' | 'EUR') {
  const name = `${unique('AD').toUpperCase().slice(0, 18)}_${quote}`;
  const [i] = await sql`INSERT INTO instruments (name, base, quote, category, leverage, digits, bids, asks)
                        VALUES (${name}, 'ADX', ${quote}, 'crypto', 10, 2, 100, 101) RETURNING id`;
  return { id: Number(i.id), name };
}

beforeAll(async () => {
  await ensureGateways(sql);
  base = (await getSetting(sql, 'branding')).currencies[0];
  expect(base, 'the tests assume the default App Currency').toBe('USD');
  // a day of our own: nothing in the totals from a week before it to the day after
  for (;;) {
    const d = new Date(Date.UTC(1980 + Math.floor(Math.random() * 70), Math.floor(Math.random() * 12), 1 + Math.floor(Math.random() * 28)));
    DAY = d.toISOString().slice(0, 10);
    NEXT = addDays(DAY, 1);
    const [n] = await sql`
      SELECT (SELECT count(*) FROM admin_daily_totals WHERE day BETWEEN ${addDays(DAY, -7)}::date AND ${addDays(DAY, 1)}::date)
           + (SELECT count(*) FROM admin_rollup WHERE day BETWEEN ${addDays(DAY, -7)}::date AND ${addDays(DAY, 1)}::date)
           + (SELECT count(*) FROM orders WHERE admin_utc_day(created_at) BETWEEN ${addDays(DAY, -7)}::date AND ${addDays(DAY, 1)}::date
                                             OR admin_utc_day(close_time) BETWEEN ${addDays(DAY, -7)}::date AND ${addDays(DAY, 1)}::date) AS n`;
    if (Number(n.n) === 0) break;
  }
  Object.assign(usd, await instrument('USD'));
  Object.assign(eur, await instrument('EUR'));
  Object.assign(own, await instrument('USD'));
  book.setInstruments([
    { id: own.id, name: own.name, base: 'ADX', quote: 'USD', category: 'crypto', tradable: true, leverage: 10, digits: 2 },
    { id: usd.id, name: usd.name, base: 'ADX', quote: 'USD', category: 'crypto', tradable: true, leverage: 10, digits: 2 },
    { id: eur.id, name: eur.name, base: 'ADX', quote: 'EUR', category: 'crypto', tradable: true, leverage: 10, digits: 2 },
  ]);
  book.setFallbackRate((from, to) => (from === to ? dec(1) : from === 'EUR' && to === 'USD' ? dec('1.1') : from === 'USD' && to === 'EUR' ? dec(1).div('1.1') : undefined));
  book.apply({ symbol: usd.name, bid: 100, ask: 101, ts: Date.now() });
  book.apply({ symbol: eur.name, bid: 100, ask: 101, ts: Date.now() });
  const a = await createUser(sql, { roleId: 1 });
  admin = { id: a.id, cookie: (await sessionFor(sql, a.id)).cookie };
});
afterAll(async () => { await sql.end(); await esql.end(); });

/** A customer signed up on the test's day, with real USD, real EUR and demo USD wallets (funded through the ledger). */
async function customer() {
  const u = await createUser(sql);
  await sql`UPDATE users SET created_at = ${DAY}::date + time '10:00' WHERE id = ${u.id}`;
  const wallets = {
    usd: await walletFor(sql, u.id, { credit: '100000' }),
    eur: await walletFor(sql, u.id, { currency: 'EUR', credit: '100000' }),
    gbp: await walletFor(sql, u.id, { currency: 'GBP', credit: '1000' }),
    demo: await walletFor(sql, u.id, { mode: 'demo', credit: '100000' }),
  };
  return { ...u, wallets };
}

async function deposit(userId: number, balanceId: number, amount: string, decision: 'approve' | 'decline' | null, day = DAY) {
  const d = await createDeposit(sql, { userId, balanceId, gateway: 'btc', amount });
  if (!d.ok) throw new Error(d.message);
  if (decision) {
    const r = await decideMoney(sql, { kind: 'deposit', id: d.id, actorId: admin.id, decision });
    if (!r.ok) throw new Error(JSON.stringify(r));
  }
  await sql`UPDATE deposits SET created_at = ${day}::date + time '09:00' WHERE id = ${d.id}`;
  return d;
}

async function withdrawal(userId: number, balanceId: number, amount: string, decision: 'approve' | 'decline', day = DAY) {
  const w = await requestWithdrawal(sql, { userId, balanceId, amount, bank }, noFloating);
  if (!w.ok) throw new Error(w.message);
  const r = await decideMoney(sql, { kind: 'withdrawal', id: w.id, actorId: admin.id, decision, reason: decision === 'decline' ? 'no' : null });
  if (!r.ok) throw new Error(JSON.stringify(r));
  await sql`UPDATE withdrawals SET created_at = ${day}::date + time '11:00' WHERE id = ${w.id}`;
  return w;
}

/** A trade the engine opens (and closes at `closeAsk`/`closeBid` when given), dated on the test's day. */
async function trade(userId: number, balanceId: number, inst: { name: string }, o: { type?: 'buy' | 'sell'; amount?: string; close?: { bid: number; ask: number } } = {}) {
  const r = await placeOrder(deps, { userId, balanceId, type: o.type ?? 'buy', instrument: inst.name, amount: o.amount ?? '2', profit: null, loss: null });
  if (!r.ok) throw new Error(r.message);
  const id = r.order.id;
  if (o.close) {
    book.apply({ symbol: inst.name, bid: o.close.bid, ask: o.close.ask, ts: Date.now() });
    const c = await closeOrder(deps, { orderId: id, reason: 'manual', userId });
    book.apply({ symbol: inst.name, bid: 100, ask: 101, ts: Date.now() });
    if (!c.ok) throw new Error(c.message);
  }
  await sql`UPDATE orders SET created_at = ${DAY}::date + time '12:00', close_time = CASE WHEN close_time IS NULL THEN NULL ELSE ${DAY}::date + time '13:00' END WHERE id = ${id}`;
  return id;
}

async function page(query: string, cookie = admin.cookie) {
  const r = await settle(Promise.resolve().then(() => loader({ request: get(`/admin${query}`, cookie), params: {}, context: {} })));
  if (r instanceof Response) return { status: r.status, data: null as never };
  const out = r as { data: any; init: { status?: number } | null };
  return { status: out.init?.status ?? 200, data: out.data };
}

const m = (v: Parameters<typeof dec>[0]) => dec(v).toFixed(8);

describe('the figures of a period', () => {
  let c: Awaited<ReturnType<typeof customer>>;
  const expected = { depUsd: dec(0), depEur: dec(0), depFeeUsd: dec(0), depFeeEur: dec(0), wdUsd: dec(0), wdFeeUsd: dec(0), depN: 0, wdN: 0 };
  const closed: number[] = [];

  beforeAll(async () => {
    c = await customer();
    const c2 = await customer();
    // deposits: approved count, declined and pending do not; another day's does not
    for (const [userId, w, amount] of [[c.id, c.wallets.usd, '1000.10'], [c2.id, c2.wallets.usd, '250.25'], [c.id, c.wallets.eur, '300']] as const) {
      const d = await deposit(userId, w, amount, 'approve');
      if (w === c.wallets.eur) { expected.depEur = expected.depEur.plus(d.amount); expected.depFeeEur = expected.depFeeEur.plus(d.fee); }
      else { expected.depUsd = expected.depUsd.plus(d.amount); expected.depFeeUsd = expected.depFeeUsd.plus(d.fee); }
      expected.depN++;
    }
    await deposit(c.id, c.wallets.usd, '777', 'decline');
    await deposit(c.id, c.wallets.usd, '888', null);
    await deposit(c.id, c.wallets.usd, '999', 'approve', NEXT);
    // a GBP wallet: no rate to USD, left out and named
    await deposit(c.id, c.wallets.gbp, '50', 'approve');
    // withdrawals: approved count (amount; the fee is the broker's), declined do not
    const w = await withdrawal(c.id, c.wallets.usd, '120.50', 'approve');
    expected.wdUsd = expected.wdUsd.plus(w.amount); expected.wdFeeUsd = expected.wdFeeUsd.plus(w.fee); expected.wdN++;
    await withdrawal(c.id, c.wallets.usd, '60', 'decline');
    // trades: closed at a profit and at a loss for the customer, one with a spread set by staff; one open; demo ones
    closed.push(await trade(c.id, c.wallets.usd, usd, { amount: '3', close: { bid: 110, ask: 111 } }));
    closed.push(await trade(c.id, c.wallets.usd, usd, { type: 'sell', amount: '5', close: { bid: 104, ask: 105 } }));
    closed.push(await trade(c2.id, c2.wallets.eur, eur, { amount: '4', close: { bid: 90, ask: 91 } }));
    const edited = await trade(c2.id, c2.wallets.usd, usd, { amount: '1', close: { bid: 102, ask: 103 } });
    const e = await adminEditOrder(deps, { orderId: edited, actorId: admin.id, spread: '1.5' });
    if (!e.ok) throw new Error(e.message);
    closed.push(edited);
    await trade(c.id, c.wallets.usd, usd, { amount: '2' });
    await trade(c.id, c.wallets.demo, usd, { amount: '7', close: { bid: 150, ask: 151 } });
  });

  test('cards equal the sums of what was put in, in the App Currency; demo wallets and other days left out', async () => {
    const { status, data } = await page(`?dateStart=${DAY}&dateEnd=${DAY}`);
    expect(status).toBe(200);
    const d = data.dashboard;
    expect(d.currency).toBe('USD');
    const rate = dec(RATES.EUR);
    expect(d.totalDeposits).toEqual({ amount: m(expected.depUsd.plus(expected.depEur.times(rate))), count: expected.depN + 1 /* the GBP one is counted, its amount left out */ });
    expect(d.totalWithdraws).toEqual({ amount: m(expected.wdUsd), count: expected.wdN });
    expect(d.unconverted).toEqual(['GBP']);
    // 6 trades opened on the day (demo included); 2 customers signed up
    expect(d.totalTrades).toBe(6);
    expect(d.totalUsers).toBe(2);
    expect(d.engagement).toEqual([
      { category: 'forex', trades: 0 }, { category: 'commodity', trades: 0 }, { category: 'index', trades: 0 },
      { category: 'stock', trades: 0 }, { category: 'crypto', trades: 6 },
    ]);

    // P/L: from the orders as the engine stored them, read back here, wallet by wallet
    const rows = await sql`SELECT o.pro_loss::text AS pnl, o.spread::text AS spread, o.exchange_rate::text AS xr, b.currency
                             FROM orders o JOIN balances b ON b.id = o.balance_id WHERE o.id IN ${sql(closed)}`;
    expect(rows).toHaveLength(4);
    let customersPnl = dec(0), spreads = dec(0);
    for (const r of rows) {
      const k = r.currency.trim() === 'EUR' ? rate : dec(1);
      customersPnl = customersPnl.plus(dec(r.pnl).times(k));
      spreads = spreads.plus(dec(r.spread).div(r.xr).times(k));
    }
    expect(spreads.gt(0), 'a spread was set').toBe(true);
    const fees = expected.depFeeUsd.plus(expected.depFeeEur.times(rate)).plus(expected.wdFeeUsd);
    expect(fees.gt(0), 'the gateway and the withdrawal charge fees').toBe(true);
    expect(d.profitLoss.closedTrades, 'the demo close is not among them').toBe(4);
    expect(d.profitLoss.total).toBe(m(customersPnl.neg().plus(fees)));
    expect(d.profitLoss.spreads).toBe(m(spreads));
    expect(d.profitLoss.fees).toBe(m(fees));
    expect(d.profitLoss.trading).toBe(m(customersPnl.neg().minus(spreads)));
    // by hand (a buy is marked at the ask, a sell at the bid): the buy of 3 at 101 closed at 111 is +30; the sell
    // of 5 at 100 closed at 104 is −20; the EUR buy of 4 at 101 closed at 91 is −40 EUR; the buy of 1 at 101
    // closed at 103 with a spread of 1.5 set by staff is +0.5
    expect(customersPnl.toFixed(2)).toBe(dec(30).minus(20).plus(dec(-40).times(rate)).plus('0.5').toFixed(2));

    // the same figures straight from the base tables (an independent SQL sum for the day)
    const [s] = await sql`
      SELECT (SELECT sum(d.amount * CASE b.currency WHEN 'EUR' THEN 1.1 ELSE 1 END) FROM deposits d JOIN balances b ON b.id = d.balance_id
               WHERE d.status = 'approved' AND b.mode = 'real' AND b.currency IN ('USD', 'EUR') AND (d.created_at AT TIME ZONE 'UTC')::date = ${DAY}::date) AS dep,
             (SELECT sum(w.amount) FROM withdrawals w JOIN balances b ON b.id = w.balance_id
               WHERE w.status = 'approved' AND b.mode = 'real' AND (w.created_at AT TIME ZONE 'UTC')::date = ${DAY}::date) AS wd`;
    expect(d.totalDeposits.amount).toBe(m(s.dep));
    expect(d.totalWithdraws.amount).toBe(m(s.wd));
  });

  test('the bar chart: the 7 days ending on To, deposits and withdrawals per day', async () => {
    const { data } = await page(`?dateEnd=${NEXT}`);
    const r = data.dashboard.recent;
    expect(r.days).toEqual(Array.from({ length: 7 }, (_, i) => addDays(NEXT, i - 6)));
    expect(r.deposits.slice(0, 5)).toEqual(Array(5).fill(m(0)));
    expect(r.deposits[5]).toBe(m(expected.depUsd.plus(expected.depEur.times(RATES.EUR))));
    expect(r.deposits[6]).toBe(m(999));
    expect(r.withdrawals[5]).toBe(m(expected.wdUsd));
    expect(r.withdrawals[6]).toBe(m(0));
  });

  test('date filtering: the next day alone, a range over both, and a range before', async () => {
    const next = (await page(`?dateStart=${NEXT}&dateEnd=${NEXT}`)).data.dashboard;
    expect(next.totalDeposits).toEqual({ amount: m(999), count: 1 });
    expect(next.totalWithdraws).toEqual({ amount: m(0), count: 0 });
    expect(next.totalTrades).toBe(0);
    expect(next.totalUsers).toBe(0);
    expect(next.profitLoss.total).toBe(m(dec(999).times(0.005).toDecimalPlaces(2)));
    const both = (await page(`?dateStart=${DAY}&dateEnd=${NEXT}`)).data.dashboard;
    expect(both.totalDeposits.count).toBe(expected.depN + 2);
    expect(both.totalTrades).toBe(6);
    const before = (await page(`?dateStart=${addDays(DAY, -7)}&dateEnd=${addDays(DAY, -1)}`)).data.dashboard;
    expect([before.totalDeposits.count, before.totalWithdraws.count, before.totalTrades, before.totalUsers, before.profitLoss.total])
      .toEqual([0, 0, 0, 0, m(0)]);
  });

  test('a change after the fact moves the figures: a deposit approved later, a trade deleted by staff', async () => {
    const pending = await deposit(c.id, c.wallets.usd, '40', null);
    const was = (await page(`?dateStart=${DAY}&dateEnd=${DAY}`)).data.dashboard;
    await decideMoney(sql, { kind: 'deposit', id: pending.id, actorId: admin.id, decision: 'approve' });
    const now = (await page(`?dateStart=${DAY}&dateEnd=${DAY}`)).data.dashboard;
    expect(dec(now.totalDeposits.amount).minus(was.totalDeposits.amount).toFixed(2)).toBe('40.00');
    expect(dec(now.profitLoss.fees).minus(was.profitLoss.fees).toFixed(2)).toBe(dec(pending.fee).toFixed(2));
    // a deleted trade no longer counts as a trade; its P/L was posted and stays in the broker's result
    await sql`UPDATE orders SET deleted_at = now() WHERE id = ${closed[0]}`;
    const after = (await page(`?dateStart=${DAY}&dateEnd=${DAY}`)).data.dashboard;
    expect(after.totalTrades).toBe(now.totalTrades - 1);
    expect(after.profitLoss.total).toBe(now.profitLoss.total);
  });
});

describe('bad dates and roles', () => {
  test.each([
    ['?dateStart=2024-02-30', 'dateStart', 'The start date must be a date between 1970-01-01 and 2100-12-31.'],
    ['?dateStart=yesterday', 'dateStart', 'The start date must be a date between 1970-01-01 and 2100-12-31.'],
    ['?dateEnd=1969-12-31', 'dateEnd', 'The end date must be a date between 1970-01-01 and 2100-12-31.'],
    ['?dateStart=2024-05-02&dateEnd=2024-05-01', 'dateEnd', 'End date must be after start date'],
    [`?dateStart=${'9'.repeat(5000)}`, 'dateStart', 'The start date must be a date between 1970-01-01 and 2100-12-31.'],
  ])('%#: 400 with the message under the field, no figures', async (query, field, message) => {
    const { status, data } = await page(query);
    expect(status).toBe(400);
    expect(data.filterError).toEqual({ field, message });
    expect(data.dashboard).toBeNull();
    expect(data.filters[field].length).toBeLessThanOrEqual(30);
  });

  test('empty dates are no bound; the page opens for the admin only', async () => {
    const ok = await page('?dateStart=&dateEnd=');
    expect(ok.status).toBe(200);
    expect(ok.data.dashboard.range).toEqual({ dateStart: '', dateEnd: '' });
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      const r = await page('', cookie);
      expect(r.status, `role ${roleId}`).toBe(403);
    }
    const anon = await settle(Promise.resolve().then(() => loader({ request: get('/admin'), params: {}, context: {} })));
    expect((anon as Response).status).toBe(302);
  });
});

describe('the open exposure', () => {
  test('per instrument: net units and the broker P/L equal the sum over positions of the domain formula at the quote', async () => {
    forgetQuotes();
    const a = await customer(), b = await customer();
    const positions = [
      { u: a, w: a.wallets.usd, type: 'buy' as const, amount: '3' },
      { u: a, w: a.wallets.usd, type: 'sell' as const, amount: '1.5' },
      { u: b, w: b.wallets.eur, type: 'buy' as const, amount: '2' },
      { u: b, w: b.wallets.usd, type: 'sell' as const, amount: '0.25' },
    ];
    const ids: number[] = [];
    for (const p of positions) {
      book.apply({ symbol: usd.name, bid: 100 + ids.length, ask: 101 + ids.length, ts: Date.now() });
      ids.push(await trade(p.u.id, p.w, usd, { type: p.type, amount: p.amount }));
    }
    // a demo position and a closed one are not in the book's exposure
    await trade(a.id, a.wallets.demo, usd, { amount: '9' });
    await trade(a.id, a.wallets.usd, usd, { amount: '4', close: { bid: 100, ask: 101 } });
    book.apply({ symbol: usd.name, bid: 120.5, ask: 121.25, ts: Date.now() });
    forgetQuotes();

    const d = await dashboardData(sql, { dateStart: '', dateEnd: '' });
    const row = d.exposure.find((r) => r.instrument === usd.name)!;
    // independently: each position's P/L by the domain formula, in its wallet's currency, converted
    const orders = await sql`SELECT o.type, o.trade_amount::text AS amount, o.open_rate::text AS open, o.spread::text AS spread,
                                    o.exchange_rate::text AS xr, b.currency FROM orders o JOIN balances b ON b.id = o.balance_id
                              WHERE o.instrument_id = ${usd.id} AND o.close_time IS NULL AND o.deleted_at IS NULL AND b.mode = 'real'`;
    // every open real position on the instrument is this test's (the other tests close theirs or use other days)
    let pnl = dec(0), net = dec(0);
    for (const o of orders) {
      const p = exact.positionPnl(o.type, o.amount, o.open, o.spread, o.xr, 120.5, 121.25);
      pnl = pnl.plus(p.times(o.currency.trim() === 'EUR' ? RATES.EUR : 1));
      net = o.type === 'buy' ? net.plus(o.amount) : net.minus(o.amount);
    }
    expect(row.positions).toBe(orders.length);
    expect(dec(row.netUnits).toFixed(8)).toBe(net.toFixed(8));
    expect(row.brokerPnl).toBe(m(pnl.neg()));
    // what the browser recomputes on each price: the same sum with the float formula
    const live = -float.exposurePnl({ long: Number(row.long), short: Number(row.short), offset: Number(row.offset) }, 120.5, 121.25);
    expect(live).toBeCloseTo(pnl.neg().toNumber(), 6);
    // closing a position takes it out of the exposure
    book.apply({ symbol: usd.name, bid: 100, ask: 101, ts: Date.now() });
    const c = await closeOrder(deps, { orderId: ids[0], reason: 'manual' });
    expect(c.ok).toBe(true);
    const after = (await dashboardData(sql, { dateStart: '', dateEnd: '' }, { quotes: false })).exposure.find((r) => r.instrument === usd.name)!;
    expect(after.positions).toBe(orders.length - 1);
    expect(dec(after.netUnits).toFixed(8)).toBe(net.minus(3).toFixed(8));
  });

  test('GET /admin/exposure reads the open book afresh: a position closed after a cached read is gone from it; admin only', async () => {
    forgetQuotes();
    const inst = own;
    const a = await customer();
    book.apply({ symbol: inst.name, bid: 100, ask: 101, ts: Date.now() });
    const id = await trade(a.id, a.wallets.usd, inst, { amount: '2' });
    const read = async (cookie = admin.cookie) => (await settle(Promise.resolve().then(() => exposureLoader({ request: get('/admin/exposure', cookie), params: {}, context: {} })))) as Response;
    const first = await read();
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body.currency).toBe(base);
    expect(body.exposure.find((r: { instrument: string }) => r.instrument === inst.name)).toMatchObject({ positions: 1, netUnits: '2' });
    // the dashboard's own read is cached for a second (and shown stale up to 10 s); this one is not
    await dashboardData(sql, { dateStart: '', dateEnd: '' }, { exposureMaxAgeMs: 60_000, quotes: false });
    expect((await closeOrder(deps, { orderId: id, reason: 'manual', userId: a.id })).ok).toBe(true);
    const after = await (await read()).json();
    expect(after.exposure.find((r: { instrument: string }) => r.instrument === inst.name)).toBeUndefined();
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await read(cookie)).status, `role ${roleId}`).toBe(403);
    }
  });

  test("the stream's exposure topic (positions opened and closed): a ticket for the dashboard's roles only", async () => {
    // the engine's rule (EXPOSURE_ROLES) is the permission map's for the dashboard and its read
    expect([...EXPOSURE_ROLES].sort()).toEqual([...routeAccess('/admin').roles].sort());
    expect([...EXPOSURE_ROLES].sort()).toEqual([...routeAccess('/admin/exposure').roles].sort());
    const ticket = async (cookie: string) => (await ticketLoader({ request: get('/dashboard/ticket?topics=exposure', cookie), params: {}, context: {} })) as Response;
    const res = await ticket(admin.cookie);
    expect(res.status).toBe(200);
    const t = await res.json();
    expect(t.topics).toBe('prices,exposure');
    const claims = verifyTicket(env().ENGINE_SECRET, t.ticket)!;
    expect(t.topics.split(',').every((topic: string) => maySubscribe(claims, topic))).toBe(true);
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await ticket(cookie)).status, `role ${roleId}`).toBe(403);
      // a ticket signed for the role anyway would not open the topic at the engine
      expect(maySubscribe({ uid: u.id, role: roleId }, 'exposure'), `role ${roleId}`).toBe(false);
    }
  });
});
