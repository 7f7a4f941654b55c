// The subscription form (/pricing and the plan prompt), shared by the browser (Conform) and the action.
import { z } from 'zod';
import { RECORD_ID } from '~/shared/forms.ts';

export const SubscribeSchema = z.object({
  intent: z.literal('subscribe'),
  planId: RECORD_ID,
  /** the real wallet the price is paid from; a free plan needs none */
  balanceId: RECORD_ID.optional(),
  /** the page to reload on success */
  redirectTo: z.string().max(2000).optional(),
});

/**
 * Pages the plan prompt is not shown on: the ones a customer needs to fund a wallet (a short
 * balance is sent to /deposits; deposits may need KYC). Elsewhere it covers every client page.
 */
export const PROMPT_EXEMPT = ['/deposits', '/kyc'] as const;

export function promptExempt(pathname: string): boolean {
  return PROMPT_EXEMPT.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}
