// Account figures. The spec's account summary (§9) counts live P/L twice; the engine uses the
// conventional definitions the issue asks for, which is also what the risk checks act on.
import { Decimal, dec, type Num } from './money.ts';

/** Equity = balance + floating P/L. */
export function equity(balance: Num, floatingPnl: Num): Decimal {
  return dec(balance).plus(floatingPnl);
}

/** Free margin = equity − used margin. */
export function freeMargin(balance: Num, usedMargin: Num, floatingPnl: Num = 0): Decimal {
  return equity(balance, floatingPnl).minus(usedMargin);
}

/** Margin level = equity / used margin × 100; null when no margin is used. */
export function marginLevel(balance: Num, usedMargin: Num, floatingPnl: Num = 0): Decimal | null {
  if (dec(usedMargin).isZero()) return null;
  return equity(balance, floatingPnl).div(usedMargin).times(100);
}

export type MarginRefusal = 'insufficient_balance' | 'insufficient_free_margin';

/**
 * The order dialog's checks (§5), enforced again on the server: margin over the balance is
 * 'Insufficient Balance!', margin over the free margin is 'Insufficient Free Margin!'.
 */
export function checkMargin(required: Num, balance: Num, usedMargin: Num, floatingPnl: Num = 0): MarginRefusal | null {
  if (dec(required).gt(balance)) return 'insufficient_balance';
  if (dec(required).gt(freeMargin(balance, usedMargin, floatingPnl))) return 'insufficient_free_margin';
  return null;
}
