// Trading vocabulary and settings: sides, categories, contract sizes, leverage and stop-out
// from the plan. The formulas themselves (docs/specs.md#trading-formulas) are in formulas.ts.

export type Side = 'buy' | 'sell';
export type Category = 'forex' | 'commodity' | 'index' | 'stock' | 'crypto';
export const CATEGORIES: readonly Category[] = ['forex', 'commodity', 'index', 'stock', 'crypto'];

/** Default stop-out threshold in percent when the plan has none (§4, §9). */
export const DEFAULT_STOPOUT = 50;

/** Units in one lot per category, used when the category's lot state is 'lot'. */
export const CONTRACT_SIZE: Record<Category, number> = {
  forex: 100_000, commodity: 100, index: 1, stock: 1, crypto: 1,
};

/**
 * The smallest order in lots, per category (docs/specs.md#trading-formulas): 0.01 lot, the
 * micro lot. An order in lots below it is refused, naming it.
 */
export const MIN_LOTS: Record<Category, string> = {
  forex: '0.01', commodity: '0.01', index: '0.01', stock: '0.01', crypto: '0.01',
};

/**
 * The size of one pip of an instrument (docs/specs.md#trading-formulas): forex keeps the market's
 * convention (0.01 when the quote is JPY, else 0.0001, whatever the digits it is quoted to); other
 * markets have no such convention, their pip is one step of their price (10^−digits: gold at 2
 * digits moves by 0.01).
 */
export function pipSize(i: { category: Category; quote: string; digits: number }): string {
  if (i.category === 'forex') return i.quote.trim().toUpperCase() === 'JPY' ? '0.01' : '0.0001';
  const d = Math.min(10, Math.max(0, Math.trunc(i.digits)));
  return d === 0 ? '1' : `0.${'0'.repeat(d - 1)}1`;
}

/** Leverage from the user's plan for the category, else the instrument's; 0 or none means 1:1. */
export function effectiveLeverage(planLeverage: number | null | undefined, instrumentLeverage: number | null | undefined): number {
  if (planLeverage && planLeverage > 0) return planLeverage;
  if (instrumentLeverage && instrumentLeverage > 0) return instrumentLeverage;
  return 1;
}

/** Pricing-plan value for a category: {category}_leverage / {category}_stopout. */
export function planValue(plan: Record<string, unknown> | null | undefined, category: Category, what: 'leverage' | 'stopout'): number | null {
  const v = plan?.[`${category}_${what}`];
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
