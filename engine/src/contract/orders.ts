// The order commands web sends the engine, declared once. The engine's routes validate their
// bodies with these schemas (Elysia reads zod as a Standard Schema, so the typed client knows
// them too) and web builds its order form from orderFields(). Numbers go through the one decimal
// parser (domain/decimal-input.ts): canonical strings out, a refusal naming the field otherwise.
// Pure (zod and the domain): the browser bundle may import it.
import { z } from 'zod';
import { decimalSchema, levelSchema } from '../domain/decimal-input.ts';

/** a user, staff member, balance or order id in a JSON body */
const ref = z.number().int().positive();
const ip = z.string().max(64).nullable().optional();

/**
 * What a customer's order says. `form`: read from a form, where a switched-off take-profit or
 * stop-loss comes as '' or 'null'; a JSON body sends null.
 */
export function orderFields(opts: { form?: boolean } = {}) {
  const blank = opts.form ?? false;
  return {
    type: z.enum(['buy', 'sell']),
    instrument: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'Instrument not found'),
    amount: decimalSchema('amount').optional(),
    lots: decimalSchema('lots').optional(),
    /** take-profit rate; null: not set */
    profit: levelSchema('profit', { blank }),
    /** stop-loss rate; null: not set */
    loss: levelSchema('loss', { blank }),
    /** the same key again answers the first order (a retry, a double click) */
    idempotencyKey: z.string().min(1).max(200).optional(),
  };
}

/** POST /v1/orders. Without balanceId the engine uses the user's active wallet; either way it must be theirs. */
export const PlaceOrderBody = z.object({ userId: ref, balanceId: ref.optional(), ...orderFields() });

/**
 * A partial close's quantity (docs/specs.md#partial-close): lots for a position in lots, else
 * units; absent: the whole position closes.
 */
const quantity = z.union([z.string().max(64), z.number()]).optional();

/** POST /v1/orders/:id/close: the customer's own order, whole or `quantity` of it. */
export const CloseOrderBody = z.object({ userId: ref, quantity });

/** PATCH /v1/orders/:id: absent leaves a level as it is, null (or 0) removes it. */
export const ModifyOrderBody = z.object({
  userId: ref,
  profit: levelSchema('profit', { blank: false }).optional(),
  loss: levelSchema('loss', { blank: false }).optional(),
  /** trailing stop distance in price units (docs/specs.md#trailing-stop); null (or 0) switches it off */
  trailing: levelSchema('trailing', { blank: false }).optional(),
});

/** PUT /v1/admin/orders/:id: staff edit of a trade (absent: unchanged). */
export const AdminEditBody = z.object({
  actorId: ref,
  ip,
  openRate: decimalSchema('openRate').optional(),
  closeRate: decimalSchema('closeRate').nullable().optional(),
  spread: decimalSchema('spread').optional(),
  profit: levelSchema('profit', { blank: false }).optional(),
  loss: levelSchema('loss', { blank: false }).optional(),
  openTime: z.string().max(64).nullable().optional(),
});

/** POST /v1/admin/orders/:id/close: staff force close, whole or `quantity` of it. */
export const AdminCloseBody = z.object({ actorId: ref, ip, quantity });

export type PlaceOrderInput = z.input<typeof PlaceOrderBody>;
export type ModifyOrderInput = z.input<typeof ModifyOrderBody>;
export type AdminEditInput = z.input<typeof AdminEditBody>;

/** How the engine refuses a command (4xx/503): a code the caller may branch on and a message for people. */
export interface EngineRefusal { ok: false; status: number; code: string; message: string }
