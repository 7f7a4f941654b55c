// The trigger index against a naive scan, and the stop-out and zero-equity rules.
import { describe, expect, test } from 'bun:test';
import { RiskEvaluator, type PositionInput } from '../src/risk/evaluator.ts';
import { autoCloseReason, orderPnlF } from '../src/domain/index.ts';

const base: Omit<PositionInput, 'id' | 'side'> = {
  accountId: 1, instrumentId: 1, amount: 1000, open: 1.1, spread: 0, exchangeRate: 1, margin: 11, tp: null, sl: null, stopout: 50,
};

describe('risk evaluator', () => {
  test('buy take-profit fires when the ask reaches it, not the bid', () => {
    const r = new RiskEvaluator();
    r.setBalance(1, 1000);
    r.setQuote(1, 1.1, 1.1);
    r.addPosition({ ...base, id: 1, side: 'buy', tp: 1.2 });
    expect(r.onTick(1, 1.2, 1.19)).toEqual([]);
    expect(r.onTick(1, 1.19, 1.2, 5)).toEqual([{ positionId: 1, accountId: 1, instrumentId: 1, reason: 'tp', tick: { bid: 1.19, ask: 1.2, ts: 5 } }]);
    expect(r.onTick(1, 1.3, 1.3)).toEqual([]); // once
  });

  test('sell stop-loss fires on the bid', () => {
    const r = new RiskEvaluator();
    r.setBalance(1, 1000);
    r.setQuote(1, 1.1, 1.1);
    r.addPosition({ ...base, id: 2, side: 'sell', sl: 1.15, margin: 1000 });
    expect(r.onTick(1, 1.14, 1.16)).toEqual([]);
    expect(r.onTick(1, 1.15, 1.16).map((c) => c.reason)).toEqual(['sl']);
  });

  test('per-position stop-out at −50% of margin', () => {
    const r = new RiskEvaluator();
    r.setBalance(1, 1000);
    r.setQuote(1, 1.1, 1.1);
    r.addPosition({ ...base, id: 3, side: 'buy' }); // margin 11: stop-out at P/L −5.5, ask 1.0945
    expect(r.onTick(1, 1.0946, 1.0946)).toEqual([]);
    expect(r.onTick(1, 1.0945, 1.0945).map((c) => c.reason)).toEqual(['stop_out']);
  });

  test('zero equity closes every position of the balance, and only that balance', () => {
    const r = new RiskEvaluator();
    r.setQuote(1, 1.1, 1.1);
    r.setQuote(2, 2.0, 2.0);
    r.setBalance(1, 50);
    r.setBalance(9, 100000);
    // stop-out off (0%) so only the account rule can fire
    r.addPosition({ ...base, id: 10, side: 'buy', amount: 1000, stopout: 100, margin: 1000 });
    r.addPosition({ ...base, id: 11, instrumentId: 2, side: 'sell', amount: 10, open: 2, stopout: 100, margin: 1000 });
    r.addPosition({ ...base, id: 12, accountId: 9, side: 'buy', amount: 1000, stopout: 100, margin: 1000 });
    expect(r.onTick(1, 1.06, 1.06)).toEqual([]);             // −40
    expect(r.equity(1)).toBeCloseTo(10, 9);
    const out = r.onTick(1, 1.05, 1.05);                       // −50 → equity 0
    expect(out.map((c) => [c.positionId, c.reason]).sort()).toEqual([[10, 'zero_equity'], [11, 'zero_equity']]);
  });

  test('matches a naive scan of every position on random ticks', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const r = new RiskEvaluator();
    const instruments = 5, accounts = 40;
    const px = Array.from({ length: instruments }, () => 1 + rnd());
    const balances = new Map<number, number>();
    for (let a = 1; a <= accounts; a++) { balances.set(a, 200 + rnd() * 800); r.setBalance(a, balances.get(a)!); }
    for (let i = 0; i < instruments; i++) r.setQuote(i, px[i], px[i] + 0.0002);
    const open = new Map<number, PositionInput>();
    for (let id = 1; id <= 400; id++) {
      const i = Math.floor(rnd() * instruments), side = rnd() < 0.5 ? 'buy' : 'sell';
      const o = side === 'buy' ? px[i] + 0.0002 : px[i];
      const p: PositionInput = {
        id, accountId: 1 + Math.floor(rnd() * accounts), instrumentId: i, side, amount: 100 + rnd() * 900, open: o,
        spread: rnd() * 0.05, exchangeRate: 1, margin: (o * 500) / 100, stopout: 50,
        tp: rnd() < 0.7 ? (side === 'buy' ? o + rnd() * 0.05 : o - rnd() * 0.05) : null,
        sl: rnd() < 0.7 ? (side === 'buy' ? o - rnd() * 0.05 : o + rnd() * 0.05) : null,
      };
      open.set(id, p);
      expect(r.addPosition(p)).toEqual([]);
    }
    let fast = 0, checked = 0;
    for (let t = 0; t < 3000; t++) {
      const i = Math.floor(rnd() * instruments);
      px[i] *= 1 + (rnd() - 0.5) * 0.004;
      const bid = px[i], ask = px[i] + 0.0001 + rnd() * 0.0003;
      const got = r.onTick(i, bid, ask);
      // reference: every position on this instrument by its own rules
      const want = new Set<number>();
      for (const p of open.values()) {
        if (p.instrumentId !== i) continue;
        if (autoCloseReason(p, bid, ask)) want.add(p.id);
      }
      const gotIds = new Set(got.filter((c) => c.reason !== 'zero_equity').map((c) => c.positionId));
      for (const id of want) expect(gotIds.has(id) || got.some((c) => c.positionId === id)).toBe(true);
      for (const c of got) {
        const p = open.get(c.positionId)!;
        if (c.reason === 'zero_equity') {
          // the account's equity really is ≤ 0 at the current quotes
          expect(r.equity(p.accountId)).toBeLessThanOrEqual(1e-9);
        } else {
          expect(autoCloseReason(p, r_bid(i), r_ask(i))).not.toBeNull();
        }
      }
      // settle the closes: the P/L moves into the balance
      for (const c of got) {
        const p = open.get(c.positionId)!;
        const cur = p.side === 'buy' ? ask : bid;
        const bal = Math.max(0, balances.get(p.accountId)! + orderPnlF(p.side, p.amount, p.open, cur, p.spread, 1));
        balances.set(p.accountId, bal);
        open.delete(p.id);
        r.removePosition(p.id, bal);
        fast++;
      }
      // no account with positions may sit at equity ≤ 0 unnoticed
      for (let a = 1; a <= accounts; a++) {
        const has = [...open.values()].some((p) => p.accountId === a);
        if (has) { checked++; expect(r.equity(a)).toBeGreaterThan(-1e-6); }
      }
      function r_bid(_: number) { return bid; }
      function r_ask(_: number) { return ask; }
    }
    expect(fast).toBeGreaterThan(50);
    expect(checked).toBeGreaterThan(0);
  });
});
