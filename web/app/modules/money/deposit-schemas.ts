// The deposit forms' input, one zod schema each, run in the browser (Conform) and in the actions.
// The rules behind them (whose wallet, which gateway, KYC, the fee) are money.server.ts's.
import { z } from 'zod';
import { NUMBER_FIELD, parseDecimal } from '@broker/engine/domain';
import { MONEY_INPUT } from './fees.ts';

/** A form's random id, so a double submit creates one deposit (deposits.client_ref). */
export const CLIENT_REF = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional();

const walletId = z.coerce.number({ required_error: 'Wallet is required', invalid_type_error: 'Wallet is required' })
  .int('Wallet is required').positive('Wallet is required').max(2 ** 53 - 1, 'Wallet is required');

/** A typed amount of money through the one decimal parser: its canonical text, or the message naming it. */
const amount = z.string({ required_error: 'Amount is required', invalid_type_error: 'Amount is required' }).transform((v, ctx) => {
  const r = parseDecimal(v, MONEY_INPUT);
  if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message }); return z.NEVER; }
  return r.value;
}).describe(NUMBER_FIELD);

/** The Deposit tab: wallet, gateway, amount (the spec's payload balance_id, gateway, amount). */
export const DepositSchema = z.object({
  balance_id: walletId,
  gateway: z.string({ required_error: 'Gateway is required' }).regex(/^[a-z]{2,20}$/, 'Gateway is required'),
  amount,
});

/** The bank page's 'Sent From' form (the proof file is checked apart: it arrives through the upload service). */
export const BankDepositSchema = z.object({
  bank_name: z.string({ required_error: 'Bank name is required' }).trim().min(1, 'Bank name is required').max(120, 'Bank name allows at most 120 characters'),
  account_number: z.string({ required_error: 'Account number is required' }).trim().min(1, 'Account number is required').max(64, 'Account number allows at most 64 characters'),
  clientRef: CLIENT_REF,
});

/** The same form in the browser: the proof is a chosen file. */
export const BankDepositFormSchema = BankDepositSchema.extend({
  proof: z.instanceof(typeof File === 'undefined' ? Object : File, { message: 'Proof is required' })
    .refine((f) => (f as File).size > 0, 'Proof is required'),
});

/** The crypto page's Confirm. */
export const CryptoConfirmSchema = z.object({ clientRef: CLIENT_REF });

/** Staff decisions on /admin/deposits, told apart by `intent`; a decline's reason is optional. */
export const DecisionSchemas = {
  approve: z.object({ intent: z.literal('approve'), id: z.coerce.number().int().positive().max(2 ** 53 - 1) }),
  decline: z.object({
    intent: z.literal('decline'), id: z.coerce.number().int().positive().max(2 ** 53 - 1),
    declineReason: z.string().trim().max(500, 'Decline reason allows at most 500 characters').optional(),
  }),
  /** a flagged deposit's chargeback / refund debited from the wallet (roles 1–2, once) */
  debitDispute: z.object({ intent: z.literal('debitDispute'), id: z.coerce.number().int().positive().max(2 ** 53 - 1) }),
};

/** The result modal of /deposits (?status=…&amount=…). */
export type DepositResult = 'success' | 'pending' | 'failed';
export function depositResult(status: string | null): DepositResult | null {
  if (status === null || status === '') return null;
  return status === 'success' ? 'success' : status === 'pending' ? 'pending' : 'failed';
}
