// Deposit and withdrawal fees (docs/specs.md#money), exact to the cent. Pure: the pages' live
// summaries and the server's stored figures come from these two functions, so they agree.
//
// Deposit: fee = gateway fee % × amount / 100; the customer pays total = amount + fee, and the
//   wallet is credited the amount.
// Withdrawal: fee = fee % / 100 × amount + fixed fee; the wallet is debited total = amount + fee
//   (held at request), and the customer receives the amount.
// Fees are rounded half-up to the cent.
import { dec, Decimal, type DecimalSpec } from '@broker/engine/domain';

/** An amount of money a customer types: deposits / withdrawals amount numeric(20, 2), bounded far below it. */
export const MONEY_INPUT: DecimalSpec = { label: 'Amount', scale: 2, intDigits: 12 };

export interface FeeSummary { amount: string; fee: string; total: string }

const cents = (v: Decimal) => v.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

export function depositFee(amount: string, feePercent: string): FeeSummary {
  const a = dec(amount);
  const fee = cents(a.mul(dec(feePercent)).div(100));
  return { amount: a.toFixed(2), fee: fee.toFixed(2), total: a.add(fee).toFixed(2) };
}

export function withdrawFee(amount: string, feePercent: string, feeFixed: string): FeeSummary {
  const a = dec(amount);
  const fee = cents(dec(feePercent).div(100).mul(a).add(dec(feeFixed)));
  return { amount: a.toFixed(2), fee: fee.toFixed(2), total: a.add(fee).toFixed(2) };
}

/**
 * A withdrawal whose total takes more than half of the wallet's balance asks for a confirmation
 * that says what remains (docs/specs.md#money). Null when no confirmation is needed; else the
 * balance left after it.
 */
export function withdrawalLeaves(total: string, balance: string): string | null {
  const b = dec(balance), t = dec(total);
  if (!b.gt(0) || !t.gt(b.div(2))) return null;
  return b.sub(t).toFixed(2);
}
