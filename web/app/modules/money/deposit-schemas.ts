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

/** The chain a crypto gateway's deposits travel on: BTC is Bitcoin; USDT is told by its wallet address. */
export type CryptoNetwork = 'bitcoin' | 'ethereum' | 'tron' | 'unknown';

export function cryptoNetwork(gateway: string, address: string): CryptoNetwork {
  if (gateway === 'btc') return 'bitcoin';
  const a = address.trim();
  if (/^0x[0-9a-fA-F]{40}$/.test(a)) return 'ethereum'; // ERC-20 (and BEP-20: the same formats)
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a)) return 'tron'; // TRC-20: base58 addresses starting with T
  return 'unknown';
}

/**
 * A transaction hash's format on each network: Bitcoin and TRON ids are 64 hexadecimal
 * characters, Ethereum's are 0x and 64. Kept lower-case, so one transfer is one text (a hash
 * names one transfer: a second deposit naming it is refused).
 */
const TX_HASH: Record<CryptoNetwork, { re: RegExp; message: string }> = {
  bitcoin: { re: /^[0-9a-f]{64}$/, message: 'A Bitcoin transaction hash is 64 hexadecimal characters' },
  tron: { re: /^[0-9a-f]{64}$/, message: 'A TRON transaction hash is 64 hexadecimal characters' },
  ethereum: { re: /^0x[0-9a-f]{64}$/, message: 'An Ethereum transaction hash is 0x followed by 64 hexadecimal characters' },
  unknown: { re: /^(0x)?[0-9a-f]{64}$/, message: 'A transaction hash is 64 hexadecimal characters, with or without 0x' },
};

/** The crypto page's Confirm: the transaction hash of the transfer, in its network's format. */
export const cryptoConfirmSchema = (network: CryptoNetwork) => z.object({
  clientRef: CLIENT_REF,
  tx_hash: z.string({ required_error: 'Transaction hash is required', invalid_type_error: 'Transaction hash is required' })
    .trim().toLowerCase().min(1, 'Transaction hash is required')
    // an empty one has its own message only
    .refine((v) => v === '' || TX_HASH[network].re.test(v), TX_HASH[network].message),
});

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
