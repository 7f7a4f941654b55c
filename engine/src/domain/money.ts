// Exact decimal arithmetic for anything stored or settled. Floats are for live display and
// trigger comparison only (docs/specs.md#ledger).
import DecimalJs from 'decimal.js';

/**
 * decimal.js keeps 20 significant digits by default, fewer than a numeric(24, 8) holds: a P/L
 * of 10^12 would lose its last decimals before rounding and disagree with PostgreSQL. 50 digits
 * cover any product or quotient of the columns' values to well past the 8th decimal.
 */
export const Decimal = DecimalJs.clone({ precision: 50 });
export type Decimal = DecimalJs;
export type Num = DecimalJs.Value;

/** Money columns are numeric(24, 8): settle to 8 decimals, half away from zero. */
export const MONEY_DP = 8;
/** Rates are numeric(24, 10). */
export const RATE_DP = 10;

export const dec = (v: Num) => new Decimal(v);
export const money = (v: Num) => new Decimal(v).toDecimalPlaces(MONEY_DP, Decimal.ROUND_HALF_UP);
export const rate = (v: Num) => new Decimal(v).toDecimalPlaces(RATE_DP, Decimal.ROUND_HALF_UP);
/** A money amount as the string PostgreSQL stores. */
export const moneyStr = (v: Num) => money(v).toFixed(MONEY_DP);
