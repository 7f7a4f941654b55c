// The instrument form (docs/specs.md#trading-configuration): one schema for the dialog and
// the action. Name, base, quote, chart provider, leverage and tradable are required; bids, asks and
// alias optional. The category is never posted: it is the page's (the URL's third segment).
import { z } from 'zod';
import { dec } from '@broker/engine/domain';
import { RECORD_ID } from '~/shared/forms.ts';
export { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import {
  checkbox, optionalDecimalInput, optionalTextInput, textInput, wholeInput,
} from '~/modules/catalog/numbers.ts';

/** Highest leverage an instrument or a plan may give (1:10000). */
export const MAX_LEVERAGE = 10_000;
/** instruments.digits CHECK (digits BETWEEN 0 AND 10) */
export const MAX_DIGITS = 10;

/** The characters instruments.name allows (CHECK name ~ '^[A-Za-z0-9._-]+$'). */
const SYMBOL = /^[A-Za-z0-9._-]+$/;

export const InstrumentSchema = z.object({
  id: RECORD_ID.optional(),
  name: textInput(40, { required_error: 'Name is required', message: 'Name must be up to 40 letters, digits, underscores, dots or dashes, like EUR_USD' }, SYMBOL),
  base: textInput(20, { required_error: 'Base is required', message: 'Base must be up to 20 letters or digits, like EUR' }, /^[A-Za-z0-9]+$/)
    .transform((s) => s.toUpperCase()),
  quote: textInput(3, { required_error: 'Quote is required', message: 'Quote must be a 3-letter currency code, like USD' }, /^[A-Za-z]{3}$/)
    .transform((s) => s.toUpperCase()),
  tradingview: textInput(40, { required_error: 'Chart provider is required', message: 'Chart provider must be up to 40 letters, digits, underscores, dots or dashes, like OANDA' }, SYMBOL)
    .transform((s) => s.toUpperCase()),
  alias: optionalTextInput(80, { message: 'Alias allows at most 80 characters' }),
  leverage: wholeInput(0, MAX_LEVERAGE, { required_error: 'Leverage is required', message: 'Leverage must be a whole number from 0 to 10000' }),
  digits: wholeInput(0, MAX_DIGITS, { required_error: 'Digits is required', message: 'Digits must be a whole number from 0 to 10' }),
  // instruments.swap numeric(9, 4), a percent
  swap: optionalDecimalInput({ scale: 4, intDigits: 3, signed: true, max: 100 }, { message: 'Swap must be a number from -100 to 100 with at most 4 decimals' })
    .transform((v) => v ?? '0'),
  // instruments.bids / asks numeric(24, 10), > 0; on an edit, empty keeps the saved quote
  bids: optionalDecimalInput({ scale: 10, intDigits: 14 }, { message: 'Bids must be a number greater than 0 with at most 10 decimals' }),
  asks: optionalDecimalInput({ scale: 10, intDigits: 14 }, { message: 'Asks must be a number greater than 0 with at most 10 decimals' }),
  // instruments.trailing_min_distance numeric(24, 10), > 0: the smallest trailing stop distance; empty: 10 pips
  trailingMin: optionalDecimalInput({ scale: 10, intDigits: 14 }, { message: 'Minimum trailing distance must be a number greater than 0 with at most 10 decimals' }),
  // instruments.pending_min_distance numeric(24, 10) >= 0: how far from the live price a pending order's price must be
  pendingMinDistance: optionalDecimalInput({ scale: 10, intDigits: 14, zero: true }, { message: 'Pending order distance must be a number from 0 with at most 10 decimals' })
    .transform((v) => v ?? '0'),
  tradable: checkbox,
  /** the admin read that open positions stay open when the instrument becomes untradable */
  confirmOpen: checkbox,
}).superRefine((v, ctx) => {
  // a field refused above holds no value (zod runs this refinement anyway)
  if (!isQuote(v.bids) || !isQuote(v.asks)) return;
  if ((v.bids === null) !== (v.asks === null)) {
    ctx.addIssue({ code: 'custom', path: [v.bids === null ? 'bids' : 'asks'], message: 'Enter both bids and asks, or neither' });
  } else if (v.bids !== null && v.asks !== null && dec(v.asks).lt(v.bids)) {
    ctx.addIssue({ code: 'custom', path: ['asks'], message: 'Asks must be at least the bids' });
  }
});

const isQuote = (v: unknown): v is string | null => v === null || typeof v === 'string';

export type InstrumentInput = z.output<typeof InstrumentSchema>;

export const DeleteInstrumentSchema = z.object({ id: RECORD_ID });

export const INSTRUMENT_ACTIONS = { save: InstrumentSchema, delete: DeleteInstrumentSchema };
