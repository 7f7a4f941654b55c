// The SQL copies of the trading formulas that the locks need (migrations/*_trading-formulas.sql)
// against the domain (src/domain/formulas.ts): one table of cases (trading-cases.ts) through
// both, on the real PostgreSQL, equal to the 8th decimal — the pure functions, and the place
// and close statements that call them under the balance lock.
import { afterAll, describe, expect, test } from 'bun:test';
import { createInstrument, createUser, db } from './helpers.ts';
import { CASES, type TradingCase } from './trading-cases.ts';
import { dec, exact, money, rate, type Num } from '../src/domain/index.ts';

const sql = db(4);
afterAll(() => sql.end());

/** 8 decimals, half away from zero, without a negative zero: how a numeric(24, 8) reads back */
const fix = (v: Num) => (money(v).isZero() ? '0.00000000' : money(v).toFixed(8));

/** What the engine computes before the place statement, rounded as the columns store it, and the marks. */
function domain(c: TradingCase) {
  const units = exact.lotsToUnits(c.category, c.lots);
  const open = rate(exact.markRate(c.side, c.open.bid, c.open.ask));
  const spread = money(exact.spreadCost(c.open.bid, c.open.ask, c.spreadSetting, units));
  const margin = money(exact.marginRequired(open, units, c.leverage, c.xr));
  const mark = exact.markRate(c.side, c.now.bid, c.now.ask);
  const pnl = exact.positionPnl(c.side, units, open, spread, c.xr, c.now.bid, c.now.ask);
  return {
    units: units.toString(), open: open.toString(), spread: spread.toString(), margin: margin.toString(), mark: mark.toString(),
    orderPnl: fix(exact.orderPnl(c.side, units, open, mark, spread, c.xr)), pnl: fix(pnl),
    freeMargin: fix(exact.freeMargin(c.balance, c.used, pnl)),
    refusal: exact.checkMargin(margin, c.balance, c.used, pnl),
    exposure: Object.values(exact.exposure(c.side, units, open, spread, c.xr)).map(fix),
  };
}

describe('SQL formulas = domain formulas', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const d = domain(c);
    // typed as the columns and parameters the lock functions read them from
    const [s] = await sql<{ margin: string; mark: string; order_pnl: string; pnl: string; free: string; refusal: string | null; exposure: string[] }[]>`
      WITH v AS (SELECT ${c.side}::order_side AS side, ${d.units}::numeric(24, 8) AS amount, ${d.open}::numeric(24, 10) AS open,
                        ${d.spread}::numeric(24, 8) AS spread, ${c.xr}::numeric(24, 10) AS xr, ${c.now.bid}::numeric AS bid,
                        ${c.now.ask}::numeric AS ask, ${c.balance}::numeric(24, 8) AS balance, ${c.used}::numeric(24, 8) AS used)
      SELECT round(margin_required(open, amount, ${c.leverage}::integer, xr), 8)::text AS margin,
             order_mark_rate(side, bid, ask)::text AS mark,
             round(order_pnl(side, amount, open, order_mark_rate(side, bid, ask), spread, xr), 8)::text AS order_pnl,
             round(position_pnl(side, amount, open, spread, xr, bid, ask), 8)::text AS pnl,
             round(free_margin(balance, used, position_pnl(side, amount, open, spread, xr, bid, ask)), 8)::text AS free,
             margin_refusal(${d.margin}::numeric(24, 8), balance, used, position_pnl(side, amount, open, spread, xr, bid, ask)) AS refusal,
             ARRAY[round(e.long_units, 8)::text, round(e.short_units, 8)::text, round(e.pnl_offset, 8)::text] AS exposure
        FROM v CROSS JOIN LATERAL order_exposure(side, amount, open, spread, xr) e`;
    expect({ margin: s.margin, mark: dec(s.mark).toString(), orderPnl: s.order_pnl, pnl: s.pnl, free: s.free, refusal: s.refusal, exposure: s.exposure })
      .toEqual({ margin: fix(d.margin), mark: d.mark, orderPnl: d.orderPnl, pnl: d.pnl, free: d.freeMargin, refusal: d.refusal, exposure: d.exposure });
  });
});

describe('the place and close statements = domain formulas', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const d = domain(c);
    const { userId, balanceId } = await createUser(sql, { deposit: c.balance });
    const inst = await createInstrument(sql, { category: c.category, leverage: c.leverage });
    await sql`UPDATE balances SET margin = ${c.used} WHERE id = ${balanceId}`;
    const [open] = await sql<{ id: bigint }[]>`
      INSERT INTO orders (user_id, balance_id, instrument_id, type, kind, trade_amount, open_rate, exchange_rate, spread, margin_used, leverage)
      VALUES (${userId}, ${balanceId}, ${inst.id}, ${c.side}, ${c.category}, ${d.units}, ${d.open}, ${c.xr}, ${d.spread}, ${d.margin}, ${c.leverage})
      RETURNING id`;
    // a second order of the same size: the free-margin check with the first one's P/L at the live price
    const [{ fp }] = await sql<{ fp: string }[]>`SELECT fp FROM engine_place_context(${userId}, NULL, ${inst.name})`;
    const [placed] = await sql<{ status: string }[]>`
      SELECT status FROM engine_place_order(${userId}, ${balanceId}, ${inst.id}, ${c.side}, ${c.category}, ${d.units}, NULL,
             ${d.open}, ${c.xr}, ${d.spread}, NULL, NULL, ${d.margin}, ${c.leverage}, NULL,
             ${[String(inst.id)]}::bigint[], ${[c.now.bid]}::numeric[], ${[c.now.ask]}::numeric[], false, ${inst.name}, NULL, ${fp})`;
    expect(placed.status).toBe(d.refusal ?? 'ok');
    const [closed] = await sql<{ status: string; close_rate: string; pro_loss: string }[]>`
      SELECT f.status, (f.o).close_rate::text, (f.o).pro_loss::text
        FROM engine_close_order(${String(open.id)}, NULL, ${c.now.bid}, ${c.now.ask}, 'manual', NULL, NULL) f`;
    expect({ status: closed.status, close_rate: dec(closed.close_rate).toString(), pro_loss: closed.pro_loss })
      .toEqual({ status: 'ok', close_rate: d.mark, pro_loss: d.pnl });
  });
});
