// Input of the dashboard's calls, one zod schema per intent, shared by the dialogs and the action.
import { z } from 'zod';

const decimal = z.string().trim().regex(/^\d+(\.\d+)?$/, 'Invalid number');
/** a rate, or empty / 'null' when the toggle is off */
const level = z.preprocess((v) => (v === '' || v === 'null' || v === undefined ? null : v), decimal.nullable());

export const PlaceOrderSchema = z.object({
  intent: z.literal('place'),
  type: z.enum(['buy', 'sell']),
  instrument: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/),
  amount: decimal.optional(),
  lots: decimal.optional(),
  profit: level,
  loss: level,
  idempotencyKey: z.string().min(8).max(100).optional(),
}).refine((o) => o.amount !== undefined || o.lots !== undefined, { message: 'Amount is required', path: ['amount'] });

export const CloseOrderSchema = z.object({ intent: z.literal('close'), orderId: z.coerce.number().int().positive() });

/** Take-profit / stop-loss modal: only the field being set is sent; null removes the level. */
export const ModifyOrderSchema = z.object({
  intent: z.literal('modify'),
  orderId: z.coerce.number().int().positive(),
  field: z.enum(['profit', 'loss']),
  value: level,
});

export const FavoriteSchema = z.object({
  intent: z.enum(['favorite-add', 'favorite-remove']),
  id: z.coerce.number().int().positive(),
});

export const DashboardActionSchema = z.union([PlaceOrderSchema, CloseOrderSchema, ModifyOrderSchema, FavoriteSchema]);
export type DashboardAction = z.infer<typeof DashboardActionSchema>;

/** What the action answers: a toast key for the dialog to show, and whether it worked. */
export interface ActionReply { ok: boolean; intent: string; toast: string; values?: Record<string, string | number> }
