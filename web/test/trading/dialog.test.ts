// The order dialog's and the take-profit / stop-loss modals' rules, case by case from
// docs/specs.md#client-validation and #trading-formulas (and the account-summary formulas).
import { describe, expect, test } from 'vitest';
import {
  accountSummary, allowedRange, dialogLevelRanges, floatingFromExposure, initialLevel, levelProblem, liveLevelRanges, modalLevelRanges,
  preview, quantityProblem, stepAmount, stepLevel, unitsOf, type PreviewInput,
} from '~/modules/trading/dialog.ts';

const bid = 1.1, ask = 1.2;

describe('dialog take-profit / stop-loss bounds (§5)', () => {
  const live = (side: 'buy' | 'sell') => liveLevelRanges(side, { bid, ask });
  // [side, level, typed, valid?]
  const cases: [('buy' | 'sell'), 'takeProfit' | 'stopLoss', string, boolean][] = [
    ['buy', 'takeProfit', '1.20001', true],  // above the ask
    ['buy', 'takeProfit', '1.5', true],
    ['buy', 'takeProfit', '1.19999', false], // below the ask
    ['buy', 'stopLoss', '0', true],          // 0 .. below the ask
    ['buy', 'stopLoss', '1.19999', true],
    ['buy', 'stopLoss', '1.20001', false],
    ['buy', 'stopLoss', '-0.1', false],
    ['sell', 'takeProfit', '0', true],       // 0 .. below the bid
    ['sell', 'takeProfit', '1.09999', true],
    ['sell', 'takeProfit', '1.10001', false],
    ['sell', 'stopLoss', '1.10001', true],   // above the bid
    ['sell', 'stopLoss', '9', true],
    ['sell', 'stopLoss', '1.09999', false],
  ];
  test.each(cases)('%s %s typed %s → valid %s', (side, which, typed, ok) => {
    expect(levelProblem(typed, dialogLevelRanges(side, bid, ask)[which], live(side)![which]) === null).toBe(ok);
  });

  test('a wrong-side value is an error naming the bound, not silently replaced', () => {
    const r = dialogLevelRanges('buy', bid, ask);
    expect(levelProblem('1.1', r.takeProfit, live('buy')!.takeProfit)).toEqual({ message: 'At least {{min}}', values: { min: '1.2' } });
    expect(levelProblem('1.3', r.stopLoss, live('buy')!.stopLoss)).toEqual({ message: 'Between {{min}} and {{max}}', values: { min: '0', max: '1.2' } });
    expect(levelProblem('abc', r.takeProfit, null)).toEqual({ message: 'At least {{min}}', values: { min: '1.2' } });
    expect(levelProblem('', r.takeProfit, null)).not.toBeNull();
  });

  test('a level at the price itself would close at once: refused with the reason', () => {
    const r = dialogLevelRanges('buy', bid, ask);
    expect(levelProblem('1.2', r.takeProfit, live('buy')!.takeProfit)).toEqual({ message: 'Must be above the current price ({{price}}), or the position closes at once', values: { price: '1.2' } });
    expect(levelProblem('1.2', r.stopLoss, live('buy')!.stopLoss)).toEqual({ message: 'Must be below the current price ({{price}}), or the position closes at once', values: { price: '1.2' } });
  });

  test('switching a level on starts 1 % inside the price, on the side that does not close at once', () => {
    const start = (side: 'buy' | 'sell', which: 'takeProfit' | 'stopLoss') => initialLevel(allowedRange(dialogLevelRanges(side, bid, ask)[which], live(side)![which]));
    expect(start('buy', 'takeProfit')).toBe(1.212);
    expect(start('buy', 'stopLoss')).toBe(1.188);
    expect(start('sell', 'takeProfit')).toBe(1.089);
    expect(start('sell', 'stopLoss')).toBe(1.111);
    for (const side of ['buy', 'sell'] as const) for (const which of ['takeProfit', 'stopLoss'] as const) {
      expect(levelProblem(String(start(side, which)), dialogLevelRanges(side, bid, ask)[which], live(side)![which])).toBeNull();
    }
  });
});

describe('modal bounds against the open rate (§5)', () => {
  const open = 1.5;
  // [side, level, typed, valid?] with no live price known
  const cases: [('buy' | 'sell'), 'takeProfit' | 'stopLoss', string, boolean][] = [
    ['buy', 'stopLoss', '0', true], ['buy', 'stopLoss', '1.5', true], ['buy', 'stopLoss', '1.50001', false],
    ['sell', 'takeProfit', '0.5', true], ['sell', 'takeProfit', '1.6', false],
    ['buy', 'takeProfit', '1.5', true], ['buy', 'takeProfit', '1.49', false],
    ['sell', 'stopLoss', '2', true], ['sell', 'stopLoss', '1.4', false],
  ];
  test.each(cases)('%s %s typed %s → valid %s', (side, which, typed, ok) => {
    expect(levelProblem(typed, modalLevelRanges(side, open)[which], null) === null).toBe(ok);
  });

  test('the default stop-loss of a losing buy is below the market, not the open rate that would close it at once', () => {
    // bought at 1.5, the ask fell to 1.2
    const bound = modalLevelRanges('buy', open).stopLoss, live = liveLevelRanges('buy', { bid: 1.19, ask: 1.2 })!.stopLoss;
    const start = initialLevel(allowedRange(bound, live));
    expect(start).toBe(1.188); // 1 % below the market: clear of the next tick
    expect(levelProblem(String(start), bound, live)).toBeNull();
    expect(levelProblem('1.5', bound, live)).toEqual({ message: 'Must be below the current price ({{price}}), or the position closes at once', values: { price: '1.2' } });
    // a winning buy keeps the open rate as its default
    expect(initialLevel(allowedRange(bound, liveLevelRanges('buy', { bid: 1.6, ask: 1.61 })!.stopLoss))).toBe(1.5);
    // a losing sell: stop-loss above the bid
    const sellBound = modalLevelRanges('sell', open).stopLoss, sellLive = liveLevelRanges('sell', { bid: 1.7, ask: 1.71 })!.stopLoss;
    expect(initialLevel(allowedRange(sellBound, sellLive))).toBe(1.717);
    // a range narrower than 1 %: halfway
    expect(initialLevel({ min: '1.19', max: '1.2', minExclusive: true, maxExclusive: true })).toBe(1.195);
  });

  test('minus never goes below 0, nor below the open rate in the upper range; plus stays under the upper bound', () => {
    expect(stepLevel(0.4, -1, modalLevelRanges('buy', open).stopLoss)).toBe(0);
    expect(stepLevel(1.9, -1, modalLevelRanges('buy', open).takeProfit)).toBe(1.5);
    expect(stepLevel(2.5, -1, modalLevelRanges('sell', open).stopLoss)).toBe(1.5);
    expect(stepLevel(1.2, 1, modalLevelRanges('sell', open).takeProfit)).toBe(1.5);
    expect(stepLevel(1.5, 1, modalLevelRanges('buy', open).takeProfit)).toBe(2.5);
    // and never onto a price-side end it excludes
    const r = allowedRange(modalLevelRanges('buy', open).stopLoss, liveLevelRanges('buy', { bid: 1.19, ask: 1.2 })!.stopLoss);
    expect(stepLevel(0.5, 1, r)).toBe(1.19999);
  });
});

describe('amount (§5)', () => {
  test.each([[0, -1, 0], [0.5, -1, 0], [2, -1, 1], [2, 1, 3], [0.00001, 1, 1.00001], [NaN, 1, 1]])('%s %s 1 → %s', (from, delta, to) => {
    expect(stepAmount(from, delta)).toBe(to);
  });
  test('lots are converted with the category contract size', () => {
    expect(unitsOf('forex', 'lot', 0.01)).toBe(1000);
    expect(unitsOf('forex', 'amount', 0.01)).toBe(0.01);
    expect(unitsOf('commodity', 'lot', 2)).toBe(200);
    expect(unitsOf('crypto', 'lot', -1)).toBe(0);
  });
});

describe('BUY / SELL disabled states (§5) and the previews (§9)', () => {
  const base: PreviewInput = {
    side: 'buy', category: 'forex', quote: 'USD', digits: 5, bid: 1.0, ask: 1.0002, amount: 10_000, leverage: 100, conversionRate: 1,
    spreadSetting: 1, balance: 1000, usedMargin: 0, floatingPnl: 0, takeProfit: null, stopLoss: null,
  };
  // [what, change, disabled]
  const cases: [string, Partial<PreviewInput>, string | null][] = [
    ['a fundable order', {}, null],
    ['zero amount', { amount: 0 }, 'empty'],
    ['empty amount', { amount: NaN }, 'empty'],
    ['margin over the balance', { amount: 600_000 }, 'insufficient_balance'],               // 600000 × 1.0002 / 100 = 6001.2 > 1000
    ['margin over the free margin', { usedMargin: 950 }, 'insufficient_free_margin'],        // 100.02 > 1000 - 950
    ['floating loss eats the free margin', { floatingPnl: -950 }, 'insufficient_free_margin'],
    ['margin equal to the free margin', { amount: 10_000, balance: 100.02 }, null],
    ['rate still loading', { conversionRate: null }, 'no_rate'],
    ['no price', { bid: 0, ask: 0 }, 'no_price'],
  ];
  test.each(cases)('%s', (_what, change, disabled) => {
    expect(preview({ ...base, ...change }).disabled).toBe(disabled);
  });

  test('margin required = price × amount / leverage / rate (sell at the bid, buy at the ask)', () => {
    expect(preview(base).marginRequired).toBeCloseTo(100.02, 8);
    expect(preview({ ...base, side: 'sell' }).marginRequired).toBeCloseTo(100, 8);
    expect(preview({ ...base, conversionRate: 2 }).marginRequired).toBeCloseTo(50.01, 8);
  });

  test('pip value, spread cost and estimated P/L at the levels', () => {
    const p = preview({ ...base, takeProfit: 1.0102, stopLoss: 0.9902 });
    expect(p.pipValue).toBeCloseTo(1, 8); // 0.0001 × 10000 / 1
    expect(preview({ ...base, quote: 'JPY', conversionRate: 150 }).pipValue).toBeCloseTo(0.01 * 10_000 / 150, 8);
    // gold is not forex: its pip is its price step (2 digits: 0.01), so 1.12 oz is 0.0112 USD a pip
    expect(preview({ ...base, category: 'commodity', digits: 2, bid: 2351, ask: 2351.35, amount: 1.12 }).pipValue).toBeCloseTo(0.0112, 10);
    expect(p.spreadCost).toBeCloseTo(2, 8); // (ask − bid) × 1 × 10000
    expect(p.takeProfitPnl).toBeCloseTo(10_000 * 0.01 - 2, 8);
    expect(p.stopLossPnl).toBeCloseTo(-10_000 * 0.01 - 2, 8);
    const s = preview({ ...base, side: 'sell', takeProfit: 0.99 });
    expect(s.takeProfitPnl).toBeCloseTo(10_000 * 0.01 - 2, 8);
  });
});

describe('account summary (issue 5 §4: no double count)', () => {
  test('equity, free margin and margin level', () => {
    expect(accountSummary(1000, 200, 50)).toEqual({ balance: 1000, usedMargin: 200, floatingPnl: 50, equity: 1050, freeMargin: 850, marginLevel: 525 });
    expect(accountSummary(1000, 0, 0).marginLevel).toBeNull();
  });
  test('floating P/L from positions summed per instrument equals the sum of each position', () => {
    // two buys of EUR_USD opened at 1.1 and 1.2 (1000 each), one sell at 1.3 (500), exchange rate 1, spread 0.5 each:
    // long 2,000, short 500, offset (1,100 + 0.5) + (1,200 + 0.5) + (0.5 − 650)
    const exposure = [{ instrument: 'EUR_USD', long: 2000, short: 500, offset: 1100.5 + 1200.5 + 0.5 - 650, count: 3 }];
    const q = { EUR_USD: { bid: 1.25, ask: 1.26 } };
    const each = (1000 * (1.26 - 1.1) - 0.5) + (1000 * (1.26 - 1.2) - 0.5) + (500 * (1.3 - 1.25) - 0.5);
    expect(floatingFromExposure(exposure, q)).toBeCloseTo(each, 9);
    expect(floatingFromExposure(exposure, {})).toBe(0);
  });
});

describe('why BUY / SELL is off for the amount or lots typed', () => {
  test.each([
    ['', 'lot', 'Enter the lots', {}],
    ['  ', 'amount', 'Enter an amount', {}],
    ['0', 'lot', 'Lots must be greater than 0', {}],
    ['-1', 'amount', 'Amount must be greater than 0', {}],
    ['-1', 'lot', 'Lots must be greater than 0', {}],
    ['0.0001', 'lot', 'Lots must be at least {{min}}', { min: '0.01' }],
    ['0.009', 'lot', 'Lots must be at least {{min}}', { min: '0.01' }],
  ] as const)('%j in %s mode: %s', (typed, mode, message, values) => {
    expect(quantityProblem(typed, mode, 'forex')).toEqual({ message, values });
  });
  test('the smallest lot, and any positive amount, are fine', () => {
    expect(quantityProblem('0.01', 'lot', 'forex')).toBeNull();
    expect(quantityProblem('0.0001', 'amount', 'crypto')).toBeNull();
  });
});
