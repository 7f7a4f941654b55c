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
