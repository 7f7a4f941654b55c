// The one parser of decimal numbers that come in from outside (web forms, engine bodies).
// Only a plain decimal ("12", "0.5") within its column's numeric(p, s) and the spec's step is
// accepted; anything else ("abc", "", "1,5", "1e-9", "Infinity", too many decimals, too many
// digits) is refused with a message naming the field, never rounded, never left to PostgreSQL.
// Pure (no I/O, no Bun APIs): web imports it too.
import { z } from 'zod';

export interface DecimalSpec {
  /** how the field reads in a message */
  label: string;
  /** decimals allowed: the spec's step, never more than the column's scale */
  scale: number;
  /** digits allowed before the point: the column's precision − scale */
  intDigits: number;
  /** 0 allowed (a spread); else the value must be > 0 */
  zero?: boolean;
}

/** Spec step 0.00001 for amounts, lots, rates and take/stop (docs/specs.md#client-validation). */
export const INPUT_STEP_DP = 5;

/** The order fields, from migrations/…_data-model.sql and the spec's step. */
export const DECIMAL_INPUTS = {
  amount: { label: 'Amount', scale: INPUT_STEP_DP, intDigits: 24 - 8 },       // orders.trade_amount numeric(24, 8)
  lots: { label: 'Lots', scale: INPUT_STEP_DP, intDigits: 20 - 8 },           // orders.lots numeric(20, 8)
  profit: { label: 'Take profit', scale: INPUT_STEP_DP, intDigits: 24 - 10 }, // orders.profit numeric(24, 10)
  loss: { label: 'Stop loss', scale: INPUT_STEP_DP, intDigits: 24 - 10 },     // orders.loss numeric(24, 10)
  trailing: { label: 'Trailing distance', scale: INPUT_STEP_DP, intDigits: 24 - 10 }, // orders.trailing_distance numeric(24, 10)
  price: { label: 'Price', scale: INPUT_STEP_DP, intDigits: 24 - 10 },        // pending_orders.price numeric(24, 10)
  // staff edit of a trade: the columns' own scale (staff type what the provider quoted)
  openRate: { label: 'Open rate', scale: 10, intDigits: 24 - 10 },            // orders.open_rate numeric(24, 10)
  closeRate: { label: 'Close rate', scale: 10, intDigits: 24 - 10 },          // orders.close_rate numeric(24, 10)
  spread: { label: 'Spread', scale: 8, intDigits: 24 - 8, zero: true },       // orders.spread numeric(24, 8)
  // test quotes (bid/ask) act as a feed: float prices, rounded to instruments.bids/asks
  // numeric(24, 10) when saved like every feed price; only their size must fit
  bid: { label: 'Bid', scale: 20, intDigits: 24 - 10 },
  ask: { label: 'Ask', scale: 20, intDigits: 24 - 10 },
} satisfies Record<string, DecimalSpec>;
export type DecimalField = keyof typeof DECIMAL_INPUTS;

export type DecimalParse = { ok: true; value: string } | { ok: false; message: string };

/**
 * The description of a schema that reads a typed number: a web form reads such a field in the
 * page's language first ('12,50' in German, web/app/components/ui/number-input.ts) and hands this
 * parser the canonical text. A JSON body (the engine's API) is always canonical ('12.5').
 */
export const NUMBER_FIELD = 'number-input';

const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

/** The refusals of a field, each a whole sentence: the web shows them through t(), so each is an i18n key. */
function messagesOf(s: DecimalSpec) {
  return {
    required: `${s.label} is required`,
    notNumber: `${s.label} must be a number like 12.5`,
    negative: s.zero ? `${s.label} cannot be negative` : `${s.label} must be greater than 0`,
    decimals: `${s.label} allows at most ${s.scale} decimal places`,
    tooLarge: `${s.label} is too large`,
    notPositive: `${s.label} must be greater than 0`,
  };
}

/** Every message parseDecimal can answer for this field (the web's key list holds them: web/test/i18n-keys.ts). */
export function decimalMessages(spec: DecimalSpec | DecimalField): string[] {
  const s: DecimalSpec = typeof spec === 'string' ? DECIMAL_INPUTS[spec] : spec;
  const m = messagesOf(s);
  const all = [m.required, m.notNumber, m.negative, m.decimals, m.tooLarge];
  if (!s.zero) all.push(m.notPositive);
  return [...new Set(all)];
}

/**
 * A string or a JSON number → its canonical decimal string ("007.50" → "7.5"), or a refusal
 * naming the field. A number is read as JavaScript prints it, so 1e-7 or 1e21 are refused
 * like the strings "1e-7" and "1e+21".
 */
export function parseDecimal(input: unknown, spec: DecimalSpec | DecimalField): DecimalParse {
  const s: DecimalSpec = typeof spec === 'string' ? DECIMAL_INPUTS[spec] : spec;
  const say = messagesOf(s);
  if (input === null || input === undefined) return { ok: false, message: say.required };
  const text = typeof input === 'number' ? String(input) : typeof input === 'string' ? input.trim() : '?';
  if (text === '') return { ok: false, message: say.required };
  const m = PLAIN.exec(text);
  if (!m) return { ok: false, message: say.notNumber };
  const int = m[2].replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (m[1] && (int !== '0' || frac)) return { ok: false, message: say.negative };
  if (frac.length > s.scale) return { ok: false, message: say.decimals };
  if (int.length > s.intDigits) return { ok: false, message: say.tooLarge };
  if (!s.zero && int === '0' && frac === '') return { ok: false, message: say.notPositive };
  return { ok: true, value: frac ? `${int}.${frac}` : int };
}

/** The same rule as a zod schema (web forms): the output is the canonical string. */
export function decimalSchema(spec: DecimalSpec | DecimalField) {
  return z.union([z.string(), z.number()], { required_error: messagesOf(typeof spec === 'string' ? DECIMAL_INPUTS[spec] : spec).required })
    .transform((v, ctx) => {
      const r = parseDecimal(v, spec);
      if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message }); return z.NEVER; }
      return r.value;
    })
    .describe(NUMBER_FIELD);
}

/**
 * A take-profit / stop-loss: null, undefined or 0 mean "not set"; else as parseDecimal. A form
 * (blank: true) also sends a switched-off level as '' or 'null'; a JSON body sends null.
 */
export function parseLevel(input: unknown, spec: DecimalSpec | DecimalField, opts: { blank?: boolean } = {}): { ok: true; value: string | null } | { ok: false; message: string } {
  if (input === null || input === undefined) return { ok: true, value: null };
  if (opts.blank && typeof input === 'string' && (input.trim() === '' || input.trim() === 'null')) return { ok: true, value: null };
  const s: DecimalSpec = typeof spec === 'string' ? DECIMAL_INPUTS[spec] : spec;
  if (input === '') return { ok: false, message: `${s.label} must be a number like 12.5, or null` };
  const r = parseDecimal(input, { ...s, zero: true });
  if (!r.ok) return r;
  return { ok: true, value: r.value === '0' ? null : r.value };
}

/** parseLevel as a zod schema: of a form field ('' and 'null': not set), or with blank: false of a JSON body. */
export function levelSchema(spec: DecimalSpec | DecimalField, opts: { blank?: boolean } = {}) {
  const blank = opts.blank ?? true;
  return z.unknown().transform((v, ctx) => {
    const r = parseLevel(v, spec, { blank });
    if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message }); return z.NEVER; }
    return r.value;
  }).describe(NUMBER_FIELD);
}
