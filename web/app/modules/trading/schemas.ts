// Input of the dashboard's calls, one zod schema per intent, shared by the dialogs and the action.
import { z } from 'zod';
import { parseIntent, type ParseOptions, type Reply } from '~/shared/forms.ts';
import { NUMBER_FIELD, parseDecimal, parseLevel } from '@broker/engine/domain';
import { orderFields } from '@broker/engine/contract/orders';
import { PENDING_EXPIRIES, pendingFields } from '@broker/engine/contract/pending';
import { decimalSchema, levelSchema } from '@broker/engine/domain';
import type { Category } from '@broker/engine/domain';
import { numberReader } from '~/components/ui/number-input.ts';

/**
 * The instrument tab a dashboard opens on. The page comes with this tab's instruments (and the
 * favorites'); the others arrive right after it loads (GET /dashboard/instruments).
 */
export const FIRST_CATEGORY: Category = 'forex';

// Numbers go through the engine's one decimal parser (engine/src/domain/decimal-input.ts): a
// plain positive decimal within its column and the 0.00001 step, refused naming the field.

/** The order form: the engine's order fields (engine/src/contract/orders.ts), read from a form. */
export const PlaceOrderSchema = z.object({ intent: z.literal('place'), ...orderFields({ form: true }) }).refine((o) => o.amount !== undefined || o.lots !== undefined, { message: 'Amount is required', path: ['amount'] });

/** A pending order from the same dialog (docs/specs.md#pending-orders): the order's fields, its type, price and expiry. */
export const PlacePendingSchema = z.object({ intent: z.literal('place-pending'), ...orderFields({ form: true }), ...pendingFields() })
  .refine((o) => o.amount !== undefined || o.lots !== undefined, { message: 'Amount is required', path: ['amount'] });

/** Modify a pending order: its price, levels (a switched-off one is removed) and expiry. */
export const ModifyPendingSchema = z.object({
  intent: z.literal('modify-pending'),
  pendingId: z.coerce.number().int().positive(),
  price: decimalSchema('price'),
  profit: levelSchema('profit', { blank: true }),
  loss: levelSchema('loss', { blank: true }),
  expiry: z.enum(PENDING_EXPIRIES),
  expiresAt: z.string().max(64).optional(),
});

export const CancelPendingSchema = z.object({ intent: z.literal('cancel-pending'), pendingId: z.coerce.number().int().positive() });

/**
 * Close: the whole position, or `quantity` of it (docs/specs.md#partial-close), read as the
 * position's unit says (lots or units) so a bad one is named as the field shows it.
 */
export const CloseOrderSchema = z.object({
  intent: z.literal('close'),
  orderId: z.coerce.number().int().positive(),
  unit: z.enum(['lots', 'amount']).optional(),
  quantity: z.unknown().describe(NUMBER_FIELD).optional(),
}).transform((o, ctx) => {
  if (o.quantity === undefined || o.quantity === null || o.quantity === '') return { intent: o.intent, orderId: o.orderId, quantity: null };
  const r = parseDecimal(o.quantity, o.unit ?? 'lots');
  if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message, path: ['quantity'] }); return z.NEVER; }
  return { intent: o.intent, orderId: o.orderId, quantity: r.value };
});

/** Take-profit / stop-loss modal: only the field being set is sent; null removes the level. */
export const ModifyOrderSchema = z.object({
  intent: z.literal('modify'),
  orderId: z.coerce.number().int().positive(),
  field: z.enum(['profit', 'loss']),
  value: z.unknown().describe(NUMBER_FIELD),
  /** the stop-loss modal's trailing distance (docs/specs.md#trailing-stop): blank switches it off; absent leaves it */
  trailing: z.unknown().describe(NUMBER_FIELD).optional(),
}).transform((o, ctx) => {
  // the value is read as the field it sets, so a bad one is named 'Take profit' or 'Stop loss'
  const r = parseLevel(o.value, o.field, { blank: true });
  if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message, path: ['value'] }); return z.NEVER; }
  if (o.trailing === undefined) return { ...o, value: r.value as string | null | undefined, trailing: undefined };
  const tr = parseLevel(o.trailing, 'trailing', { blank: true });
  if (!tr.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: tr.message, path: ['trailing'] }); return z.NEVER; }
  // a trailing stop on and no rate sent: the stop-loss is the engine's to move (kept as it is)
  return { ...o, value: tr.value !== null && o.value === undefined ? undefined : r.value, trailing: tr.value };
});

export const FavoriteSchema = z.object({
  intent: z.enum(['favorite-add', 'favorite-remove']),
  id: z.coerce.number().int().positive(),
});

/** The dashboard's actions, one schema per `intent` (shared/forms.ts parseIntent). */
export const DASHBOARD_ACTIONS = {
  place: PlaceOrderSchema,
  'place-pending': PlacePendingSchema,
  'modify-pending': ModifyPendingSchema,
  'cancel-pending': CancelPendingSchema,
  close: CloseOrderSchema,
  modify: ModifyOrderSchema,
  'favorite-add': FavoriteSchema,
  'favorite-remove': FavoriteSchema,
};
/**
 * The dashboard's forms, in the dialogs (Conform's onValidate) and in the action: the raw strings
 * go to the schemas (no coercion), so an empty amount or lots is refused naming it.
 */
export const DASHBOARD_PARSE: ParseOptions = { coerce: false };
/** A dashboard form posted from a page in `locale` (its numbers are read as that language writes them). */
export const parseDashboardForm = (payload: FormData | URLSearchParams, locale: string) => parseIntent(payload, DASHBOARD_ACTIONS, { ...DASHBOARD_PARSE, numbers: numberReader(locale) });

export type DashboardAction = z.output<(typeof DASHBOARD_ACTIONS)[keyof typeof DASHBOARD_ACTIONS]>;

/** What a dashboard command answers: the toast key, and whether it worked. */
export type ActionReply = Reply & { intent: string; toast: string };
