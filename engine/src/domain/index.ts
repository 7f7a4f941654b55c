// Pure trading math and rules: no I/O, no Bun APIs (web imports this for dialog previews).
export * from './money.ts';
export * from './pricing.ts';
export * from './arith.ts';
export * from './formulas.ts';
export * from './bounds.ts';
export * from './triggers.ts';
export * from './hours.ts';
export * from './rates.ts';
export * from './decimal-input.ts';
export * from './partial.ts';
export * from './pending.ts';
