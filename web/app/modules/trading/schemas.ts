// Input of the dashboard's calls, one zod schema per intent, shared by the dialogs and the action.
import { z } from 'zod';
import { parseLevel } from '@broker/engine/domain';
import { orderFields } from '@broker/engine/contract/orders';

// Numbers go through the engine's one decimal parser (engine/src/domain/decimal-input.ts): a
// plain positive decimal within its column and the 0.00001 step, refused naming the field.

/** The order form: the engine's order fields (engine/src/contract/orders.ts), read from a form. */
export const PlaceOrderSchema = z.object({ intent: z.literal('place'), ...orderFields({ form: true }) }).refine((o) => o.amount !== undefined || o.lots !== undefined, { message: 'Amount is required', path: ['amount'] });

export const CloseOrderSchema = z.object({ intent: z.literal('close'), orderId: z.coerce.number().int().positive() });

/** Take-profit / stop-loss modal: only the field being set is sent; null removes the level. */
export const ModifyOrderSchema = z.object({
  intent: z.literal('modify'),
  orderId: z.coerce.number().int().positive(),
  field: z.enum(['profit', 'loss']),
  value: z.unknown(),
}).transform((o, ctx) => {
  // the value is read as the field it sets, so a bad one is named 'Take profit' or 'Stop loss'
  const r = parseLevel(o.value, o.field, { blank: true });
  if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message, path: ['value'] }); return z.NEVER; }
  return { ...o, value: r.value };
});

export const FavoriteSchema = z.object({
  intent: z.enum(['favorite-add', 'favorite-remove']),
  id: z.coerce.number().int().positive(),
});

export const DashboardActionSchema = z.union([PlaceOrderSchema, CloseOrderSchema, ModifyOrderSchema, FavoriteSchema]);
export type DashboardAction = z.infer<typeof DashboardActionSchema>;

/**
 * The toast of a refused form: the first message a field's parser wrote (it names the field),
 * else the generic one. A union's issues are searched too.
 */
export function formError(error: z.ZodError): string {
  const walk = (issues: z.ZodIssue[]): string | undefined => {
    for (const i of issues) {
      if (i.code === z.ZodIssueCode.custom) return i.message;
      if (i.code === z.ZodIssueCode.invalid_union) for (const e of i.unionErrors) { const m = walk(e.issues); if (m) return m; }
    }
    return undefined;
  };
  return walk(error.issues) ?? 'Something went wrong';
}

/** What the action answers: a toast key for the dialog to show, and whether it worked. */
export interface ActionReply { ok: boolean; intent: string; toast: string; values?: Record<string, string | number> }
