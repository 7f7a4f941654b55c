// The withdrawal forms (docs/specs.md#money), one zod schema each, run in the browser (Conform's
// onValidate) and again in the actions. The rules of a withdrawal itself (the wallet, KYC, the
// amount, the fee, the free margin) are money.server.ts's; these only read the fields.
import { z } from 'zod';
import { NUMBER_FIELD, decimalSchema, parseDecimal } from '@broker/engine/domain';
import type { ParseOptions } from '~/shared/forms.ts';
import { MONEY_INPUT } from './fees.ts';

/** The forms read the raw strings (no coercion): an empty field is refused naming it, '1e9' is not a number. */
export const WITHDRAW_PARSE: ParseOptions = { coerce: false };

/** A BIC (SWIFT code): bank (4 letters), country (2 letters), location (2), optional branch (3). */
export const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/;
export const BANK_NAME_MAX = 120;
/** An IBAN has at most 34 characters; other account numbers fit in 64 (the bank deposit form's bound too). */
export const ACCOUNT_NUMBER_MAX = 64;

const CLIENT_REF = /^[A-Za-z0-9-]{8,64}$/;
const ID = /^[1-9][0-9]{0,15}$/;
/** A payment provider's bank code (Flutterwave's account_bank). */
const BANK_CODE = /^[A-Za-z0-9]{1,20}$/;

/** The customer's bank withdrawal form (docs/specs.md#money). */
export const WithdrawSchema = z.object({
  balance_id: z.string({ required_error: 'Wallet is required' })
    .regex(ID, { message: 'Wallet is required' }).transform(Number),
  amount: decimalSchema(MONEY_INPUT),
  bank_name: z.string({ required_error: 'Bank name is required' }).trim()
    .min(1, { message: 'Bank name is required' })
    .max(BANK_NAME_MAX, { message: 'Bank name allows at most 120 characters' }),
  // shown prefilled with the holder's full name and not editable: the server uses the holder's name
  account_name: z.string().optional(),
  account_number: z.string({ required_error: 'Account number is required' }).trim()
    .min(1, { message: 'Account number is required' })
    .max(ACCOUNT_NUMBER_MAX, { message: 'Account number allows at most 64 characters' })
    .regex(/^$|^[A-Za-z0-9][A-Za-z0-9 -]*$/, { message: 'Account number may contain only letters, digits, spaces and dashes' }),
  swift_code: z.string({ required_error: 'Swift code is required' }).trim()
    .min(1, { message: 'Swift code is required' })
    .transform((s) => s.replace(/\s+/g, '').toUpperCase())
    .pipe(z.string().regex(BIC, { message: 'Swift code must be 8 or 11 letters and digits' })),
  // one of the offline country list's names: checked by the action (the list stays on the server)
  bank_country: z.string({ required_error: 'Bank country is required' }).trim()
    .min(1, { message: 'Bank country is required' })
    .max(100, { message: 'Bank country is required' }),
  // the form's random id: a double submit is one request. A malformed one is dropped, not refused.
  clientRef: z.string().regex(CLIENT_REF).optional().catch(undefined),
});
export type WithdrawInput = z.output<typeof WithdrawSchema>;

// ---------------------------------------------------------------- staff decisions

const withdrawalId = z.string({ required_error: 'Withdrawal not found' })
  .regex(ID, { message: 'Withdrawal not found' }).transform(Number);

/** Approve (after a confirmation) and decline (with a reason) on /admin/withdraws/pending. */
export const DecisionSchemas = {
  approve: z.object({
    intent: z.literal('approve'),
    id: withdrawalId,
    // 'manual' (the bank transfer staff make) or a gateway that pays out (modules/payments/payouts.server.ts)
    payout: z.string().regex(/^(manual|[a-z]{2,20})$/, { message: 'Choose how to pay this withdrawal' }).optional(),
    // a bank payout: the provider's bank code, picked from its list (checked against it on the server)
    bankCode: z.string().trim().regex(BANK_CODE, { message: "Choose the customer's bank from the gateway's list" }).optional(),
  }),
  // the approve dialog of a bank payout asks for the provider's banks, and the holder's name it resolves (change nothing)
  payout_banks: z.object({ intent: z.literal('payout_banks'), id: withdrawalId, gateway: z.string().regex(/^[a-z]{2,20}$/, { message: 'Choose how to pay this withdrawal' }) }),
  payout_account: z.object({
    intent: z.literal('payout_account'), id: withdrawalId, gateway: z.string().regex(/^[a-z]{2,20}$/, { message: 'Choose how to pay this withdrawal' }),
    bankCode: z.string({ required_error: "Choose the customer's bank from the gateway's list" }).trim().regex(BANK_CODE, { message: "Choose the customer's bank from the gateway's list" }),
  }),
  decline: z.object({
    intent: z.literal('decline'),
    id: withdrawalId,
    declineReason: z.string({ required_error: 'Decline reason is required' }).trim()
      .min(1, { message: 'Decline reason is required' })
      .max(500, { message: 'Decline reason allows at most 500 characters' }),
  }),
};

/** Withdraw History: a staff member asks for a payout's news now (modules/payments/payouts.server.ts). */
export const PayoutCheckSchemas = {
  payout_check: z.object({ intent: z.literal('payout_check'), id: withdrawalId }),
};

// ---------------------------------------------------------------- fee settings

/**
 * A fee as the admin types it: a plain decimal ≥ 0 within its column (fee_percentage
 * numeric(7, 4) up to 100, fee_fixed numeric(20, 2)). The required messages are the spec's own
 * (docs/specs.md#money: 'Forex spread is required', 'Commodity spread is required', copied wording).
 */
function feeField(kind: 'percentage' | 'fixed') {
  const percent = kind === 'percentage';
  return z.string({ required_error: percent ? 'Forex spread is required' : 'Commodity spread is required' })
    .transform((v, ctx) => {
      const text = v.trim();
      if (text === '') {
        ctx.addIssue(percent ? { code: 'custom', message: 'Forex spread is required' } : { code: 'custom', message: 'Commodity spread is required' });
        return z.NEVER;
      }
      const r = parseDecimal(text, { label: 'Fee', scale: percent ? 4 : 2, intDigits: percent ? 3 : 12, zero: true });
      if (!r.ok) {
        if (/negative/.test(r.message)) ctx.addIssue({ code: 'custom', message: 'The fee cannot be negative' });
        else if (/decimal places/.test(r.message)) {
          ctx.addIssue(percent ? { code: 'custom', message: 'Fee (%) allows at most 4 decimal places' } : { code: 'custom', message: 'Fee (Fixed) allows at most 2 decimal places' });
        } else if (/too large/.test(r.message)) {
          ctx.addIssue(percent ? { code: 'custom', message: 'Fee (%) must be at most 100' } : { code: 'custom', message: 'Fee (Fixed) is too large' });
        } else ctx.addIssue({ code: 'custom', message: 'The fee must be a number like 12.5' });
        return z.NEVER;
      }
      if (percent && Number(r.value) > 100) {
        ctx.addIssue({ code: 'custom', message: 'Fee (%) must be at most 100' });
        return z.NEVER;
      }
      return r.value;
    })
    .describe(NUMBER_FIELD);
}

/** /admin/withdraws/settings: Fee (%) and Fee (Fixed). */
export const FeeSettingsSchema = z.object({
  feePercentage: feeField('percentage'),
  feeFixed: feeField('fixed'),
});
