// The two flavours of trading arithmetic behind one set of formulas (formulas.ts):
// - exact: decimal.js on decimal strings, for everything stored, settled or decided against
//   the server (margin, P/L at close, the dialog's checks);
// - float: JS numbers, for live display and trigger comparison only (docs/specs.md#ledger).
// A formula is written once against Arith<T> and instantiated for both.
import { Decimal, dec, type Num } from './money.ts';

export interface Arith<T, In> {
  /** an input as this flavour's number */
  of(v: In): T;
  /** a constant of the formulas (contract sizes, 100 %, pip sizes) */
  num(n: number): T;
  add(a: T, b: T): T;
  sub(a: T, b: T): T;
  mul(a: T, b: T): T;
  div(a: T, b: T): T;
  neg(a: T): T;
  isZero(a: T): boolean;
  gt(a: T, b: T): boolean;
  lte(a: T, b: T): boolean;
}

export const EXACT: Arith<Decimal, Num> = {
  of: dec,
  num: dec,
  add: (a, b) => a.plus(b),
  sub: (a, b) => a.minus(b),
  mul: (a, b) => a.times(b),
  div: (a, b) => a.div(b),
  neg: (a) => a.neg(),
  isZero: (a) => a.isZero(),
  gt: (a, b) => a.gt(b),
  lte: (a, b) => a.lte(b),
};

export const FLOAT: Arith<number, number> = {
  of: (v) => v,
  num: (n) => n,
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  neg: (a) => -a,
  isZero: (a) => a === 0,
  gt: (a, b) => a > b,
  lte: (a, b) => a <= b,
};
