// The pending order commands web sends the engine (docs/specs.md#pending-orders), declared once
// like contract/orders.ts: the engine's routes validate their bodies with these schemas and web
// reads its order form's pending fields with them. Pure (zod and the domain).
import { z } from 'zod';
import { decimalSchema, levelSchema } from '../domain/decimal-input.ts';
import { orderFields } from './orders.ts';

const ref = z.number().int().positive();
const ip = z.string().max(64).nullable().optional();

export const PENDING_ORDER_TYPES = ['limit', 'stop'] as const;
export const PENDING_EXPIRIES = ['gtc', 'day', 'at'] as const;
export type PendingOrderType = (typeof PENDING_ORDER_TYPES)[number];
export type PendingExpiry = (typeof PENDING_EXPIRIES)[number];

/** What a pending order says beyond a market order: its type, price and expiry. */
export function pendingFields() {
  return {
    orderType: z.enum(PENDING_ORDER_TYPES),
    /** the price it fills at (a limit: or better) */
    price: decimalSchema('price'),
    /** gtc: good till cancelled; day: the instrument's session end; at: expiresAt */
    expiry: z.enum(PENDING_EXPIRIES).default('gtc'),
    /** ISO 8601 (a time without a zone is UTC); only with expiry 'at' */
    expiresAt: z.string().max(64).nullable().optional(),
  };
}

/** POST /v1/pending-orders. Without balanceId the engine uses the user's active wallet. */
export const PlacePendingBody = z.object({ userId: ref, balanceId: ref.optional(), ...orderFields(), ...pendingFields() });

/** PATCH /v1/pending-orders/:id: absent leaves a field as it is; a level null (or 0) removes it. */
export const ModifyPendingBody = z.object({
  userId: ref,
  price: decimalSchema('price').optional(),
  amount: decimalSchema('amount').optional(),
  lots: decimalSchema('lots').optional(),
  profit: levelSchema('profit', { blank: false }).optional(),
  loss: levelSchema('loss', { blank: false }).optional(),
  expiry: z.enum(PENDING_EXPIRIES).optional(),
  expiresAt: z.string().max(64).nullable().optional(),
});

/** POST /v1/pending-orders/:id/cancel: the customer's own order. */
export const CancelPendingBody = z.object({ userId: ref });

/** POST /v1/admin/pending-orders/:id/cancel: staff cancel, audited. */
export const AdminCancelPendingBody = z.object({ actorId: ref, ip });

export type PlacePendingInput = z.input<typeof PlacePendingBody>;
export type ModifyPendingInput = z.input<typeof ModifyPendingBody>;

/** Why a pending order stopped being pending without a fill (pending_orders.cancel_reason). */
export const PENDING_END_LABELS: Readonly<Record<string, string>> = {
  customer: 'Cancelled by you', staff: 'Cancelled by the broker', expired: 'Expired',
  insufficient_balance: 'Insufficient balance at activation', insufficient_free_margin: 'Insufficient free margin at activation',
  inactive: 'Account is inactive', kyc_required: 'KYC required', not_tradable: 'Instrument not tradable', invalid_amount: 'Invalid amount',
};
export const pendingEndLabel = (reason: string | null): string => (reason && PENDING_END_LABELS[reason]) || reason || '';
