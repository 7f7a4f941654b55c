// Business refusals are result codes with a clear message, not exceptions.
export type RefusalCode =
  | 'invalid_amount' | 'market_closed' | 'not_tradable' | 'kyc_required' | 'bad_take_profit' | 'bad_stop_loss'
  | 'insufficient_balance' | 'insufficient_free_margin' | 'no_price' | 'no_rate' | 'not_found'
  | 'already_closed' | 'inactive' | 'invalid' | 'idempotency_conflict' | 'bad_trailing' | 'bad_price' | 'bad_expiry';

export interface Refusal { ok: false; code: RefusalCode; message: string }
export type Result<T> = ({ ok: true } & T) | Refusal;

/**
 * A refusal thrown out of an HTTP handler: the app's onError answers it as { message, code } with
 * its status. (Not a `code` property: Elysia would take it for the error's kind.)
 */
export class Refused extends Error {
  constructor(public status: number, public refusal: RefusalCode, message: string) { super(message); }
}

export const refuse = (code: RefusalCode, message: string): Refusal => ({ ok: false, code, message });

export const STATUS: Record<RefusalCode, number> = {
  invalid_amount: 422, market_closed: 422, not_tradable: 422, kyc_required: 403, bad_take_profit: 422,
  bad_stop_loss: 422, insufficient_balance: 422, insufficient_free_margin: 422, no_price: 503, no_rate: 503,
  not_found: 404, already_closed: 409, inactive: 403, invalid: 400, idempotency_conflict: 409, bad_trailing: 422,
  bad_price: 422, bad_expiry: 422,
};
