// The spreads and lots forms (docs/specs.md#trading-configuration), one schema each
// for the page and the action, read from the raw strings (parse with { coerce: false }).
import { z } from 'zod';
import type { Category } from '@broker/engine/domain';
import { decimalInput, textInput } from './numbers.ts';

/** The spread form's order (docs/specs.md#trading-configuration): Forex, Commodity, Index, Crypto, Stock. */
export const SPREAD_MARKETS: readonly Category[] = ['forex', 'commodity', 'index', 'crypto', 'stock'];

// spreads.value numeric(20, 8) ≥ 0: the multiplier of (ask − bid) × amount in the spread cost
const spread = (m: { required_error: string; message: string }) => decimalInput({ scale: 8, intDigits: 12, zero: true }, m);

/** The five spread settings, keyed as the spec's records are (spread_{market}). */
export const SpreadsSchema = z.object({
  spread_forex: spread({ required_error: 'Forex spread is required', message: 'Forex spread must be a number from 0 to 999999999999 with at most 8 decimals' }),
  spread_commodity: spread({ required_error: 'Commodity spread is required', message: 'Commodity spread must be a number from 0 to 999999999999 with at most 8 decimals' }),
  spread_index: spread({ required_error: 'Index spread is required', message: 'Index spread must be a number from 0 to 999999999999 with at most 8 decimals' }),
  spread_crypto: spread({ required_error: 'Crypto spread is required', message: 'Crypto spread must be a number from 0 to 999999999999 with at most 8 decimals' }),
  spread_stock: spread({ required_error: 'Stock spread is required', message: 'Stock spread must be a number from 0 to 999999999999 with at most 8 decimals' }),
});
export type SpreadsInput = z.output<typeof SpreadsSchema>;

/** Most lot sizes the selector offers. */
export const MAX_LOT_SIZES = 20;

const lotState = z.enum(['lot', 'amount'], { errorMap: () => ({ message: 'Choose lot or amount' }) });

/**
 * Each market trades by 'lot' or by 'amount' (lot_settings), and the lot selector's sizes
 * (lot_selector: a label and the units it stands for, > 0, each value once).
 */
export const LotsSchema = z.object({
  lot_forex: lotState,
  lot_commodity: lotState,
  lot_index: lotState,
  lot_crypto: lotState,
  lot_stock: lotState,
  selector: z.array(z.object({
    label: textInput(60, { required_error: 'Label is required', message: 'Label allows at most 60 characters' }),
    // lot_selector.value numeric(20, 8) > 0
    value: decimalInput({ scale: 8, intDigits: 12 }, { required_error: 'Value is required', message: 'Value must be a number greater than 0 with at most 8 decimals' }),
  })).max(MAX_LOT_SIZES, { message: 'At most 20 lot sizes' }).default([]),
}).superRefine((v, ctx) => {
  const seen = new Set<string>();
  v.selector.forEach((row, i) => {
    if (typeof row.value !== 'string') return; // refused above (zod runs this refinement anyway)
    if (seen.has(row.value)) ctx.addIssue({ code: 'custom', path: ['selector', i, 'value'], message: 'Each value may appear only once' });
    seen.add(row.value);
  });
});
export type LotsInput = z.output<typeof LotsSchema>;
