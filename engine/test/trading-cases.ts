// One table of trading cases, run through the domain's exact and float formulas
// (domain.test.ts) and through PostgreSQL's copies of them (parity.test.ts). Each case is an
// order opened at one quote and marked at another, on a wallet with a balance and used margin.
// `want` holds figures worked out by hand from docs/specs.md#trading-formulas:
//   units        = lots × contract size (forex 100,000, commodity 100, index/stock/crypto 1)
//   spread cost  = (ask − bid) × spread setting × amount
//   margin       = price × amount / leverage / conversion rate (price: the open rate)
//   P/L          = (amount × (current − open) − spread) / exchange_rate for a buy, move reversed for a sell;
//                  buy opens and is marked at the ask, sell at the bid
//   equity       = balance + floating P/L; free margin = equity − used margin; margin level = equity / used × 100
// The spec's account summary counts live P/L twice (free margin = balance − margin + P/L, equity =
// margin + free margin + P/L) and its dialog check leaves P/L out; the project keeps the
// conventional definitions above everywhere (README "Free margin"), which these cases pin.
import type { Category, Side } from '../src/domain/index.ts';

export interface TradingCase {
  name: string;
  side: Side;
  category: Category;
  lots: string;
  /** the quote the order opens at */
  open: { bid: string; ask: string };
  /** the quote it is marked (or closed) at */
  now: { bid: string; ask: string };
  spreadSetting: string;
  leverage: number;
  /** quote-currency units per balance-currency unit */
  xr: string;
  balance: string;
  /** used margin of the wallet, this position's included */
  used: string;
  want?: Partial<{ units: string; spread: string; margin: string; pnl: string; equity: string; freeMargin: string; marginLevel: string | null; refusal: string | null }>;
}

export const CASES: TradingCase[] = [
  {
    name: 'forex buy in profit, 1 lot, spread setting 1',
    side: 'buy', category: 'forex', lots: '1', open: { bid: '1.0855', ask: '1.0856' }, now: { bid: '1.09', ask: '1.0901' },
    spreadSetting: '1', leverage: 100, xr: '1', balance: '10000', used: '1085.6',
    // 100,000 × (1.0901 − 1.0856) − 10 = 440; free 10,440 − 1,085.6; level 10,440 / 1,085.6 × 100
    want: { units: '100000', spread: '10', margin: '1085.6', pnl: '440', equity: '10440', freeMargin: '9354.4', marginLevel: '961.68017686', refusal: null },
  },
  {
    name: 'forex sell at a loss, JPY quote on a USD wallet, half a lot',
    side: 'sell', category: 'forex', lots: '0.5', open: { bid: '151.2', ask: '151.215' }, now: { bid: '152', ask: '152.02' },
    spreadSetting: '0.5', leverage: 50, xr: '150', balance: '1000', used: '1008',
    // spread 0.015 × 0.5 × 50,000 = 375 JPY; margin 151.2 × 50,000 / 50 / 150; P/L (50,000 × −0.8 − 375) / 150
    want: { units: '50000', spread: '375', margin: '1008', pnl: '-269.16666667', refusal: 'insufficient_balance' },
  },
  {
    name: 'commodity buy at a loss on a GBP wallet, 2 lots, no spread setting',
    side: 'buy', category: 'commodity', lots: '2', open: { bid: '2362.1', ask: '2362.6' }, now: { bid: '2349.8', ask: '2350.3' },
    spreadSetting: '0', leverage: 20, xr: '1.25', balance: '20000', used: '18900.8',
    // margin 2,362.6 × 200 / 20 / 1.25; P/L 200 × −12.3 / 1.25 = −1,968; free 20,000 − 1,968 − 18,900.8 < margin ≤ balance
    want: { units: '200', spread: '0', margin: '18900.8', pnl: '-1968', equity: '18032', freeMargin: '-868.8', refusal: 'insufficient_free_margin' },
  },
  {
    name: 'index sell in profit, leverage 1',
    side: 'sell', category: 'index', lots: '10', open: { bid: '39000.5', ask: '39002.5' }, now: { bid: '38900', ask: '38902' },
    spreadSetting: '2', leverage: 1, xr: '1', balance: '500000', used: '390005',
    // 10 × 100.5 − 40 = 965; free 500,965 − 390,005 = 110,960 < 390,005
    want: { units: '10', spread: '40', margin: '390005', pnl: '965', freeMargin: '110960', refusal: 'insufficient_free_margin' },
  },
  {
    name: 'stock buy unmoved on a EUR wallet: the spread alone',
    side: 'buy', category: 'stock', lots: '20', open: { bid: '187.4', ask: '187.45' }, now: { bid: '187.4', ask: '187.45' },
    spreadSetting: '1', leverage: 5, xr: '1.0873', balance: '5000', used: '689.598087',
    want: { units: '20', spread: '1', margin: '689.598087', pnl: '-0.91970937', refusal: null },
  },
  {
    name: 'crypto sell, zero spread, zero P/L, empty wallet',
    side: 'sell', category: 'crypto', lots: '0.5', open: { bid: '60000', ask: '60000' }, now: { bid: '60000', ask: '60010' },
    spreadSetting: '1', leverage: 2, xr: '1', balance: '0', used: '0',
    want: { units: '0.5', spread: '0', margin: '15000', pnl: '0', equity: '0', freeMargin: '0', marginLevel: null, refusal: 'insufficient_balance' },
  },
  {
    name: 'crypto buy, huge: 99,999,999 units on a EUR wallet',
    side: 'buy', category: 'crypto', lots: '99999999', open: { bid: '99999.98', ask: '99999.99' }, now: { bid: '123456.78901', ask: '123456.79' },
    spreadSetting: '1.5', leverage: 500, xr: '1.0873', balance: '9999999999999.99999999', used: '18393781986.38830129',
  },
  {
    name: 'forex sell, huge: 99,999 lots, JPY quote',
    side: 'sell', category: 'forex', lots: '99999', open: { bid: '157.123', ask: '157.137' }, now: { bid: '149.001', ask: '149.019' },
    spreadSetting: '3', leverage: 1000, xr: '157.13', balance: '123456789012.3456789', used: '9999999.12345678',
  },
  {
    name: 'forex buy, tiny: a thousandth of a lot, thin move',
    side: 'buy', category: 'forex', lots: '0.001', open: { bid: '0.65432', ask: '0.65441' }, now: { bid: '0.65433', ask: '0.65434' },
    spreadSetting: '0.3', leverage: 30, xr: '0.78901', balance: '12.34', used: '2.76450320',
  },
];
