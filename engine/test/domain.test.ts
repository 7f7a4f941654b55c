// Table-driven tests of docs/specs.md#client-validation (bounds) and #trading-formulas, plus triggers and hours.
// The formulas are also run from one shared table (trading-cases.ts) through both flavours
// (exact decimals and floats) here, and through PostgreSQL's copies in parity.test.ts.
import { describe, expect, test } from 'bun:test';
import {
  marginRequired, pipValue, spreadCost, orderPnl, orderPnlF, estimatedPnl, equity, freeMargin, marginLevel,
  checkMargin, checkDialogLevels, checkLevelsNotTriggered, checkModifyLevels, intersectRanges, inRange, untriggeredRanges, modifyRanges, dialogRanges, takeProfitHit, stopLossHit, stopOutHit,
  stopOutLevel, autoCloseReason, zeroEquityHit, isMarketOpen, marketStatus, conversionRate, effectiveLeverage,
  planValue, markRate, dec, moneyStr, money, rate, exact, float, formulas, EXACT, FLOAT, pipSize, type Arith, type Num,
} from '../src/domain/index.ts';
import { CASES, type TradingCase } from './trading-cases.ts';

type Flavour<T, In> = ReturnType<typeof formulas<T, In>>;

/** Each case's figures in one flavour: the order as the engine computes it, then marked at `now`. */
function figures<T extends In, In>(F: Flavour<T, In>, c: TradingCase, of: (v: string) => In) {
  const units = F.lotsToUnits(c.category, of(c.lots));
  const open = F.markRate(c.side, of(c.open.bid), of(c.open.ask));
  const spread = F.spreadCost(of(c.open.bid), of(c.open.ask), of(c.spreadSetting), units);
  const margin = F.marginRequired(open, units, of(String(c.leverage)), of(c.xr));
  const pnl = F.positionPnl(c.side, units, open, spread, of(c.xr), of(c.now.bid), of(c.now.ask));
  return {
    units, spread, margin, pnl,
    equity: F.equity(of(c.balance), pnl), freeMargin: F.freeMargin(of(c.balance), of(c.used), pnl),
    marginLevel: F.marginLevel(of(c.balance), of(c.used), pnl), refusal: F.checkMargin(margin, of(c.balance), of(c.used), pnl),
  };
}

describe('§9 formulas, one table of cases, exact and float flavours', () => {
  // hand-worked figures of trading-cases.ts: units, spread cost, margin required, order P/L,
  // and the account's equity / free margin / margin level with the project's definitions (the
  // spec's summary counts live P/L twice: README "Free margin" keeps the conventional ones)
  const money8 = (v: Num | null) => (v === null ? null : money(v).toFixed(8));
  test.each(CASES.filter((c) => c.want).map((c) => [c.name, c] as const))('exact: %s', (_, c) => {
    const x = figures(exact, c, dec);
    // P/L from the open rate and spread as the columns store them
    const pnl = exact.positionPnl(c.side, x.units, rate(exact.markRate(c.side, c.open.bid, c.open.ask)), money(x.spread), c.xr, c.now.bid, c.now.ask);
    const got: Record<string, string | null> = {
      units: x.units.toString(), spread: money8(x.spread), margin: money8(x.margin), pnl: money8(pnl),
      equity: money8(x.equity), freeMargin: money8(x.freeMargin), marginLevel: money8(x.marginLevel), refusal: x.refusal,
    };
    for (const [k, w] of Object.entries(c.want!)) {
      expect([k, got[k]]).toEqual([k, k === 'refusal' || k === 'units' || w === null ? (k === 'units' ? dec(w!).toString() : w) : money8(w)]);
    }
  });
  test.each(CASES.map((c) => [c.name, c] as const))('float agrees with exact: %s', (_, c) => {
    const e = figures(exact, c, dec), f = figures(float, c, Number);
    for (const k of ['units', 'spread', 'margin', 'pnl', 'equity', 'freeMargin', 'marginLevel'] as const) {
      const want = e[k], got = f[k];
      if (want === null) { expect(got).toBeNull(); continue; }
      expect(Math.abs(got! - want.toNumber())).toBeLessThanOrEqual(1e-9 * Math.max(1, want.abs().toNumber()));
    }
    expect(f.refusal).toBe(e.refusal);
  });
  test("a wallet's exposure on an instrument, marked, is the sum of its positions' P/L (both flavours)", () => {
    const positions = [['buy', '1000', '1.1', '0.5', '1'], ['buy', '1000', '1.2', '0.5', '1.25'], ['sell', '500', '1.3', '0.5', '150']] as const;
    function check<T extends In, In>(F: Flavour<T, In>, A: Arith<T, In>, of: (v: string) => In) {
      const bid = A.of(of('1.25')), ask = A.of(of('1.26'));
      let each = A.num(0);
      const x = positions.map(([side, a, o, sp, xr]) => F.exposure(side, of(a), of(o), of(sp), of(xr)))
        .reduce((t, e) => ({ long: A.add(t.long, e.long), short: A.add(t.short, e.short), offset: A.add(t.offset, e.offset) }));
      const sum = F.exposurePnl(x, bid, ask);
      for (const [side, a, o, sp, xr] of positions) each = A.add(each, F.positionPnl(side, of(a), of(o), of(sp), of(xr), bid as In, ask as In));
      expect(Number(String(sum))).toBeCloseTo(Number(String(each)), 9);
    }
    check(exact, EXACT, dec);
    check(float, FLOAT, Number);
  });
});

describe('§9 margin required = price × amount / leverage / conversion rate', () => {
  test.each([
    ['1.1', '1000', 100, '1', '11'],
    ['1.1', '1000', 1, '1', '1100'],
    ['150', '1000', 50, '150', '20'],          // USD_JPY on a USD balance
    ['60000', '0.5', 2, '1', '15000'],
    ['1.25', '100000', 30, '0.8', '5208.33333333'],
  ])('%s × %s / %d / %s = %s', (price, amount, lev, conv, want) => {
    expect(moneyStr(marginRequired(price, amount, lev, conv))).toBe(dec(want).toFixed(8));
  });
  test('leverage from the plan, else the instrument, else 1', () => {
    expect(effectiveLeverage(200, 50)).toBe(200);
    expect(effectiveLeverage(null, 50)).toBe(50);
    expect(effectiveLeverage(null, 0)).toBe(1);
    expect(planValue({ forex_leverage: 100 }, 'forex', 'leverage')).toBe(100);
    expect(planValue({ forex_stopout: '30.00' }, 'forex', 'stopout')).toBe(30);
    expect(planValue({ forex_stopout: null }, 'forex', 'stopout')).toBeNull();
  });
});

describe('pip value = the instrument\'s pip size × amount / rate', () => {
  test.each([
    ['USD', '100000', '1', '10'],
    ['JPY', '100000', '150', '6.66666667'],
    ['jpy', '1000', '1', '10'],
    ['CHF', '10000', '0.9', '1.11111111'],
  ])('forex: quote %s amount %s rate %s → %s', (q, a, r, want) => {
    expect(moneyStr(pipValue(pipSize({ category: 'forex', quote: q, digits: 5 }), a, r))).toBe(dec(want).toFixed(8));
  });

  test('forex keeps its pip whatever its digits; other markets step by their last digit', () => {
    expect(pipSize({ category: 'forex', quote: 'CNH', digits: 4 })).toBe('0.0001');
    expect(pipSize({ category: 'forex', quote: 'JPY', digits: 3 })).toBe('0.01');
    expect(pipSize({ category: 'commodity', quote: 'USD', digits: 2 })).toBe('0.01'); // gold
    expect(pipSize({ category: 'index', quote: 'USD', digits: 0 })).toBe('1');
    expect(pipSize({ category: 'crypto', quote: 'USD', digits: 5 })).toBe('0.00001');
    // 1.12 oz of gold: 0.0112 USD a pip, not the forex pip's 0.000112
    expect(moneyStr(pipValue(pipSize({ category: 'commodity', quote: 'USD', digits: 2 }), '1.12', '1'))).toBe('0.01120000');
  });
});

describe('§9 spread cost = (ask − bid) × spread setting × amount', () => {
  test.each([
    ['1.1000', '1.1002', '1', '1000', '0.2'],
    ['1.1000', '1.1002', '0', '1000', '0'],
    ['100', '101', '0.5', '10', '5'],
  ])('bid %s ask %s setting %s amount %s → %s', (b, a, s, amt, want) => {
    expect(spreadCost(b, a, s, amt).eq(want)).toBe(true);
  });
});

describe('§9 order P/L', () => {
  test.each([
    // side, amount, open, current, spread, xr, expected
    ['buy', '1000', '1.1', '1.2', '0', '1', '100'],
    ['buy', '1000', '1.1', '1.0', '0', '1', '-100'],
    ['buy', '1000', '1.1', '1.2', '5', '1', '95'],
    ['sell', '1000', '1.2', '1.1', '0', '1', '100'],
    ['sell', '1000', '1.2', '1.3', '5', '1', '-105'],
    ['buy', '1000', '150', '151', '0', '150', '6.66666667'],
    ['sell', '0.1', '0.1', '0.3', '0.00001', '1', '-0.02001'],
  ] as const)('%s %s @ %s now %s spread %s xr %s → %s', (side, a, o, c, s, xr, want) => {
    expect(moneyStr(orderPnl(side, a, o, c, s, xr))).toBe(dec(want).toFixed(8));
    expect(orderPnlF(side, +a, +o, +c, +s, +xr)).toBeCloseTo(+want, 6);
  });
  test('decimal settlement has no float error', () => {
    expect(orderPnl('sell', '3', '0.3', '0.1', '0', '1').toString()).toBe('0.6');
  });
  test('estimated P/L at a level uses the same formula', () => {
    expect(estimatedPnl('buy', '1000', '1.1', '1.15', '0.2', '1').toString()).toBe('49.8');
    expect(estimatedPnl('sell', '1000', '1.1', '1.15', '0.2', '1').toString()).toBe('-50.2');
  });
  test('sell marks at the bid, buy at the ask', () => {
    expect(markRate('sell', '1.1', '1.2').toString()).toBe('1.1');
    expect(markRate('buy', '1.1', '1.2').toString()).toBe('1.2');
  });
});

describe('account figures', () => {
  test('equity, free margin, margin level', () => {
    expect(equity('1000', '-50').toString()).toBe('950');
    expect(freeMargin('1000', '200', '-50').toString()).toBe('750');
    expect(freeMargin('1000', '200').toString()).toBe('800');
    expect(marginLevel('1000', '200', '-50')!.toString()).toBe('475');
    expect(marginLevel('1000', '0')).toBeNull();
  });
  test.each([
    ['100', '1000', '0', '0', null],
    ['1001', '1000', '0', '0', 'insufficient_balance'],
    ['900', '1000', '200', '0', 'insufficient_free_margin'],
    ['800', '1000', '200', '0', null],
    ['800', '1000', '200', '-1', 'insufficient_free_margin'],
  ] as const)('margin %s balance %s used %s pnl %s → %s', (req, bal, used, pnl, want) => {
    expect(checkMargin(req, bal, used, pnl)).toBe(want);
  });
});

describe('§5 order dialog bounds (bid 1.1, ask 1.2)', () => {
  test.each([
    ['buy', '1.2', null, null], ['buy', '1.3', null, null], ['buy', '1.19', null, 'bad_take_profit'],
    ['buy', null, '1.2', null], ['buy', null, '0.5', null], ['buy', null, '1.21', 'bad_stop_loss'],
    ['sell', '1.1', null, null], ['sell', '0.5', null, null], ['sell', '1.11', null, 'bad_take_profit'],
    ['sell', null, '1.1', null], ['sell', null, '2', null], ['sell', null, '1.09', 'bad_stop_loss'],
    ['buy', 0, 0, null], ['sell', null, -1, 'bad_stop_loss'],
  ] as const)('%s tp %s sl %s → %s', (side, tp, sl, want) => {
    expect(checkDialogLevels(side, '1.1', '1.2', tp, sl)).toBe(want);
  });
  test('ranges are reported for the dialog', () => {
    expect(dialogRanges('buy', '1.1', '1.2')).toEqual({ takeProfit: { min: '1.2', max: null }, stopLoss: { min: '0', max: '1.2' } });
  });
});

describe('§5 take-profit / stop-loss modals against the open rate 1.5', () => {
  test.each([
    ['buy', '1.5', null, null], ['buy', '1.49', null, 'bad_take_profit'],
    ['buy', null, '1.4', null], ['buy', null, '1.51', 'bad_stop_loss'],
    ['sell', '1.4', null, null], ['sell', '1.51', null, 'bad_take_profit'],
    ['sell', null, '1.6', null], ['sell', null, '1.49', 'bad_stop_loss'],
  ] as const)('%s tp %s sl %s → %s', (side, tp, sl, want) => {
    expect(checkModifyLevels(side, '1.5', tp, sl)).toBe(want);
  });
});

describe('a level the current price has reached is refused (bid 1.1, ask 1.2)', () => {
  test.each([
    // side, tp, sl → code
    ['buy', '1.2', null, 'bad_take_profit'], ['buy', '1.19', null, 'bad_take_profit'], ['buy', '1.20001', null, null],
    ['buy', null, '1.2', 'bad_stop_loss'], ['buy', null, '1.3', 'bad_stop_loss'], ['buy', null, '1.19999', null],
    ['sell', '1.1', null, 'bad_take_profit'], ['sell', '1.2', null, 'bad_take_profit'], ['sell', '1.09999', null, null],
    ['sell', null, '1.1', 'bad_stop_loss'], ['sell', null, '1.0', 'bad_stop_loss'], ['sell', null, '1.10001', null],
    ['buy', 0, null, null], ['sell', null, null, null],
  ] as const)('%s tp %s sl %s → %s', (side, tp, sl, want) => {
    expect(checkLevelsNotTriggered(side, '1.1', '1.2', tp, sl)?.code ?? null).toBe(want);
  });
  test('the message names the level, the side of the price and why', () => {
    expect(checkLevelsNotTriggered('buy', 1.1, 1.2, null, 1.3)?.message).toBe('Stop loss must be below the current price (1.2): it would close the position at once');
    expect(checkLevelsNotTriggered('sell', 1.1, 1.2, 1.15, null)?.message).toBe('Take profit must be below the current price (1.1): it would close the position at once');
    expect(checkLevelsNotTriggered('sell', 1.1, 1.2, null, 1.05)?.message).toBe('Stop loss must be above the current price (1.1): it would close the position at once');
  });
  test('agrees with the trigger comparisons the engine closes by', () => {
    for (const side of ['buy', 'sell'] as const) for (const lv of [1.0, 1.09999, 1.1, 1.15, 1.2, 1.20001, 1.3]) {
      expect(checkLevelsNotTriggered(side, 1.1, 1.2, lv, null) !== null).toBe(takeProfitHit(side, 1.1, 1.2, lv));
      expect(checkLevelsNotTriggered(side, 1.1, 1.2, null, lv) !== null).toBe(stopLossHit(side, 1.1, 1.2, lv));
    }
  });
  test('the modal range is the spec bound within the untriggered side', () => {
    // buy opened at 1.5, the price fell to 1.2: a stop-loss must be below 1.2, not merely ≤ 1.5
    const r = intersectRanges(modifyRanges('buy', '1.5').stopLoss, untriggeredRanges('buy', '1.1', '1.2').stopLoss);
    expect(r).toEqual({ min: '0', max: '1.2', minExclusive: false, maxExclusive: true });
    expect(inRange('1.2', r)).toBe(false);
    expect(inRange('1.19', r)).toBe(true);
    // the price rose above the open rate: the open rate itself is fine
    expect(intersectRanges(modifyRanges('buy', '1.1').stopLoss, untriggeredRanges('buy', '1.1', '1.2').stopLoss)).toEqual({ min: '0', max: '1.1', minExclusive: false, maxExclusive: false });
  });
});

describe('§4 trigger comparisons', () => {
  test.each([
    // side, bid, ask, tp, hit
    ['buy', 1.0, 1.2, 1.2, true], ['buy', 1.0, 1.19, 1.2, false],
    ['sell', 1.1, 1.3, 1.1, true], ['sell', 1.11, 1.3, 1.1, false],
    ['buy', 9, 9, 0, false], ['sell', 0, 0, null, false],
  ] as const)('take-profit %s bid %d ask %d tp %s → %s', (side, b, a, tp, hit) => {
    expect(takeProfitHit(side, b, a, tp)).toBe(hit);
  });
  test.each([
    ['buy', 1.0, 1.1, 1.1, true], ['buy', 1.0, 1.11, 1.1, false],
    ['sell', 1.3, 1.4, 1.3, true], ['sell', 1.29, 1.4, 1.3, false],
    ['buy', 0, 0, 0, false],
  ] as const)('stop-loss %s bid %d ask %d sl %s → %s', (side, b, a, sl, hit) => {
    expect(stopLossHit(side, b, a, sl)).toBe(hit);
  });
  test.each([
    [-50, 100, 50, true], [-49.99, 100, 50, false], [-30, 100, 30, true], [-100, 0, 50, false],
  ])('stop-out pnl %d margin %d at %d%% → %s', (pnl, m, s, hit) => {
    expect(stopOutHit(pnl, m, s)).toBe(hit);
  });
  test('the stop-out level is where P/L reaches −stopout% of margin', () => {
    for (const side of ['buy', 'sell'] as const) {
      const p = { side, amount: 1000, open: 1.1, spread: 0.2, exchangeRate: 1, margin: 11, stopout: 50 };
      const level = stopOutLevel(side, p.amount, p.open, p.spread, p.exchangeRate, p.margin, p.stopout);
      expect(orderPnlF(side, p.amount, p.open, level, p.spread, 1)).toBeCloseTo(-5.5, 9);
    }
  });
  test('auto-close reason, tp first', () => {
    const p = { side: 'buy' as const, amount: 1000, open: 1.1, spread: 0, exchangeRate: 1, margin: 11, tp: 1.2, sl: 1.0, stopout: 50 };
    expect(autoCloseReason(p, 1.19, 1.2)).toBe('tp');
    expect(autoCloseReason(p, 0.99, 1.0)).toBe('sl');
    expect(autoCloseReason({ ...p, sl: null }, 1.09, 1.0945)).toBe('stop_out');
    expect(autoCloseReason(p, 1.1, 1.1)).toBeNull();
    expect(zeroEquityHit(0)).toBe(true);
    expect(zeroEquityHit(0.01)).toBe(false);
  });
});

describe('market hours', () => {
  test.each([
    ['forex', '2024-11-23T12:00:00Z', false], // Saturday
    ['forex', '2024-11-24T21:59:00Z', false], // Sunday before 22:00
    ['forex', '2024-11-24T22:00:00Z', true],
    ['index', '2024-11-27T03:00:00Z', true],
    ['commodity', '2024-11-29T21:59:00Z', true], // Friday
    ['forex', '2024-11-29T22:00:00Z', false],
    ['stock', '2024-11-25T14:29:00Z', false], // Mon 9:29 New York (EST)
    ['stock', '2024-11-25T14:30:00Z', true],
    ['stock', '2024-11-25T20:59:00Z', true],
    ['stock', '2024-11-25T21:00:00Z', false],
    ['stock', '2024-07-01T13:30:00Z', true],  // 9:30 EDT
    ['stock', '2024-07-01T13:29:00Z', false],
    ['stock', '2024-11-23T15:00:00Z', false], // Saturday
    ['crypto', '2024-11-23T12:00:00Z', true],
  ] as const)('%s at %s → %s', (cat, at, open) => {
    expect(isMarketOpen(cat, new Date(at))).toBe(open);
  });
  test('status per group', () => {
    expect(marketStatus(new Date('2024-11-23T12:00:00Z'))).toEqual({ fx: 'closed', stock: 'closed', crypto: 'open' });
  });
});

describe('conversion rates', () => {
  const mids: Record<string, string> = { EUR_USD: '1.25', USD_JPY: '150', GBP_USD: '1.5' };
  const mid = (p: string) => (mids[p] ? dec(mids[p]) : undefined);
  test.each([
    ['USD', 'USD', '1'], ['EUR', 'USD', '1.25'], ['USD', 'EUR', '0.8'], ['USD', 'JPY', '150'],
    ['EUR', 'JPY', '187.5'], ['JPY', 'EUR', '0.005333333333333333333'], ['EUR', 'GBP', '0.8333333333333333333'],
  ])('%s → %s = %s', (f, t, want) => {
    expect(conversionRate(f, t, mid)!.toSignificantDigits(19).toString()).toBe(dec(want).toSignificantDigits(19).toString());
  });
  test('unknown currency', () => expect(conversionRate('XXX', 'USD', mid)).toBeUndefined());
});
