// The staff trade lists (/admin/trades/all|open|closed, docs/specs.md#admin-trades): the list's
// URL filters and the three row actions, one zod schema each, shared by the page (Conform's
// onValidate) and the action. Numbers go through the engine's one decimal parser
// (engine/src/domain/decimal-input.ts), so the form refuses what the engine would, naming the field.
import { z } from 'zod';
import { DECIMAL_INPUTS, NUMBER_FIELD, parseDecimal, parseLevel, type DecimalField } from '@broker/engine/domain';
import { parseIntent, type ParseOptions } from '~/shared/forms.ts';
import { numberReader } from '~/components/ui/number-input.ts';

export const TRADE_TYPES = ['all', 'open', 'closed'] as const;
export type TradeType = (typeof TRADE_TYPES)[number];

/** The page titles '{type} Trades' (the permission map's titles, i18n keys). */
export const TRADE_TITLES: Record<TradeType, string> = { all: 'All Trades', open: 'Open Trades', closed: 'Closed Trades' };

/** Columns the list sorts by on the server (each backed by an index: see the trades migration). */
export const TRADE_SORTABLE = ['id'] as const;

// ------------------------------------------------------------------ filters (in the URL)

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const ID = /^[1-9][0-9]{0,15}$/;

/** The user filter: a user id, or an email address (exact, any case). */
export type UserRef = { id: number } | { email: string };

export function parseUserRef(v: string): UserRef | null {
  const s = v.trim();
  if (ID.test(s) && Number.isSafeInteger(Number(s))) return { id: Number(s) };
  if (s.length <= 254 && EMAIL.test(s)) return { email: s.toLowerCase() };
  return null;
}

/**
 * The list's own URL parameters (components/ui/list-params.ts `extra`): they select data, so a
 * bad one is refused with a message naming it, never dropped.
 */
export const TRADE_FILTERS = {
  user: z.string().default('').transform((v) => v.trim())
    .refine((v) => v === '' || parseUserRef(v) !== null, { message: 'User must be a user ID or an email address' }),
  instrument: z.string().default('').transform((v) => v.trim())
    .refine((v) => v === '' || /^[A-Za-z0-9._-]{1,64}$/.test(v), { message: 'Instrument not found' }),
  side: z.string().default('').refine((v) => v === '' || v === 'buy' || v === 'sell', { message: 'Side must be buy or sell' }),
};
export const FILTER_KEYS = ['user', 'instrument', 'side', 'dateStart', 'dateEnd'] as const;

// ------------------------------------------------------------------ actions

/** A rate or the spread of the edit form: empty leaves it as it is. */
function optionalDecimal(field: DecimalField) {
  return z.string().optional().transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const r = parseDecimal(v, field);
    if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message }); return z.NEVER; }
    return r.value;
  }).describe(NUMBER_FIELD);
}

/**
 * Take profit / stop loss of the edit form: empty (or 0) removes the level; absent leaves it.
 * Read to the column's scale here, since the form comes filled with the stored level (a level set
 * elsewhere may have more decimals than the 0.00001 step); a level left as it was is not sent
 * (trades.server.ts), and a changed one must keep the step, which the engine checks.
 */
function optionalLevel(field: 'profit' | 'loss') {
  const spec = { ...DECIMAL_INPUTS[field], scale: 10 };
  return z.string().optional().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const r = parseLevel(v, spec, { blank: true });
    if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message }); return z.NEVER; }
    return r.value;
  }).describe(NUMBER_FIELD);
}

const DATETIME_LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/**
 * An open time as the datetime-local field writes it (YYYY-MM-DDTHH:mm, read as UTC: the field
 * is filled with the first 16 characters of the stored ISO time), as an ISO instant; null when
 * it is not a real minute between 1970 and 2100.
 */
export function parseOpenTime(v: string): string | null {
  const m = DATETIME_LOCAL.exec(v.trim());
  if (!m) return null;
  const d = new Date(`${m[0]}:00.000Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 16) !== m[0]) return null; // 2024-02-30T25:00 is not a time
  if (d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 2100) return null;
  return d.toISOString();
}

/** A trade's id as the row posts it: a plain positive integer ('1e3', '0x10', '-1' are not ids). */
const ORDER_ID = z.string({ required_error: 'Order not found' }).regex(/^[1-9][0-9]{0,15}$/, { message: 'Order not found' })
  .transform(Number).refine(Number.isSafeInteger, { message: 'Order not found' });

/** The edit form: the update payload of the spec (openRate, closeRate, spread, profit, loss, openTime). */
export const EditTradeSchema = z.object({
  intent: z.literal('edit'),
  id: ORDER_ID,
  openRate: optionalDecimal('openRate'),
  closeRate: optionalDecimal('closeRate'),
  spread: optionalDecimal('spread'),
  profit: optionalLevel('profit'),
  loss: optionalLevel('loss'),
  openTime: z.string().optional().transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const iso = parseOpenTime(v);
    if (!iso) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Open time must be a date and time' }); return z.NEVER; }
    if (Date.parse(iso) > Date.now()) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'Open time cannot be in the future' }); return z.NEVER; }
    return iso;
  }),
});

/** Force close: the whole trade, or `quantity` of it (lots, or units for a trade in units); empty: all. */
export const CloseTradeSchema = z.object({
  intent: z.literal('close'), id: ORDER_ID,
  unit: z.enum(['lots', 'amount']).optional(),
  quantity: z.unknown().describe(NUMBER_FIELD).optional(),
}).transform((o, ctx) => {
  if (o.quantity === undefined || o.quantity === null || o.quantity === '') return { intent: o.intent, id: o.id, quantity: null };
  const r = parseDecimal(o.quantity, o.unit ?? 'lots');
  if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message, path: ['quantity'] }); return z.NEVER; }
  return { intent: o.intent, id: o.id, quantity: r.value };
});
export const DeleteTradeSchema = z.object({ intent: z.literal('delete'), id: ORDER_ID });

export const TRADE_ACTIONS = { edit: EditTradeSchema, close: CloseTradeSchema, delete: DeleteTradeSchema };
/** Raw strings to the schemas: an empty take profit removes it, an absent one leaves it. */
export const TRADE_PARSE: ParseOptions = { coerce: false };
/** A trade form posted from a page in `locale` (its numbers are read as that language writes them). */
export const parseTradeForm = (payload: FormData | URLSearchParams, locale: string) => parseIntent(payload, TRADE_ACTIONS, { ...TRADE_PARSE, numbers: numberReader(locale) });
export type TradeAction = z.output<(typeof TRADE_ACTIONS)[keyof typeof TRADE_ACTIONS]>;
export type EditTrade = z.output<typeof EditTradeSchema>;

// ------------------------------------------------------------------ pending orders (/admin/trades/pending)

/** The pending list's own URL parameters: its status, and the trade lists' user, instrument and side. */
export const PENDING_FILTERS = {
  status: z.string().default('pending').refine((v) => v === '' || ['pending', 'filled', 'cancelled', 'expired'].includes(v), { message: 'Status must be pending, filled, cancelled or expired' }),
  user: TRADE_FILTERS.user,
  instrument: TRADE_FILTERS.instrument,
  side: TRADE_FILTERS.side,
};
export const PENDING_FILTER_KEYS = ['status', 'user', 'instrument', 'side'] as const;

export const CancelPendingSchema = z.object({ intent: z.literal('cancel-pending'), id: ORDER_ID });
export const PENDING_ACTIONS = { 'cancel-pending': CancelPendingSchema };
export const parsePendingForm = (payload: FormData | URLSearchParams) => parseIntent(payload, PENDING_ACTIONS, TRADE_PARSE);
