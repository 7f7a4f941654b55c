// Exact decimal arithmetic for anything stored or settled. Floats are for live display and
// trigger comparison only (docs/specs.md#ledger).
import Decimal from 'decimal.js';

export { Decimal };
export type Num = Decimal.Value;

/** Money columns are numeric(24, 8): settle to 8 decimals, half away from zero. */
export const MONEY_DP = 8;
/** Rates are numeric(24, 10). */
export const RATE_DP = 10;

export const dec = (v: Num) => new Decimal(v);
export const money = (v: Num) => new Decimal(v).toDecimalPlaces(MONEY_DP, Decimal.ROUND_HALF_UP);
export const rate = (v: Num) => new Decimal(v).toDecimalPlaces(RATE_DP, Decimal.ROUND_HALF_UP);
/** A money amount as the string PostgreSQL stores. */
export const moneyStr = (v: Num) => money(v).toFixed(MONEY_DP);
