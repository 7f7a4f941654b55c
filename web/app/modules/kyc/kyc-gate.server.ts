// The KYC gate: whether a customer is verified, and whether the site's KYC switches refuse an
// action (deposit, withdraw, trade) until they are (docs/specs.md#kyc).
import type { Sql } from '~/shared/db.server.ts';
import { getSetting } from '~/shared/settings.server.ts';

/**
 * The one rule of 'KYC verified', as SQL: the user has an approved identity document
 * (modules/kyc: only a customer's latest document can be approved). A query that reads more
 * (the dashboard's) embeds it; everything else calls isKycApproved.
 */
export function kycApprovedSql(sql: Sql, userId: number) {
  return sql`EXISTS (SELECT 1 FROM kyc_documents WHERE user_id = ${userId} AND status = 'approved')`;
}

/** Whether the user has an approved identity document. */
export async function isKycApproved(sql: Sql, userId: number): Promise<boolean> {
  const [r] = await sql`SELECT ${kycApprovedSql(sql, userId)} AS ok`;
  return r.ok === true;
}

export type KycAction = 'deposit' | 'withdraw' | 'trade';

/** The gate itself: the site's KYC switch for the action is on and the user is not verified. */
export function kycGate(switches: Record<KycAction, string>, action: KycAction, approved: boolean): boolean {
  return switches[action] === 'on' && !approved;
}

/** True when the site's KYC switch for this action is on and the user is not verified: the action is refused. */
export async function kycBlocks(sql: Sql, userId: number, action: KycAction): Promise<boolean> {
  const kyc = await getSetting(sql, 'kyc');
  if (!kycGate(kyc, action, false)) return false;
  return kycGate(kyc, action, await isKycApproved(sql, userId));
}

export const KYC_MESSAGES = {
  deposit: 'Please verify KYC to enable deposit',
  withdraw: 'Please verify KYC to enable withdraw',
} as const;
