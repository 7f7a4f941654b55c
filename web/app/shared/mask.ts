// Agent masking (docs/specs.md#agent-masking): while the site switch 'Show
// Email & Phone in Agent Dashboard' (showUserInfoAgent) is off, sales and retention agents (roles 5, 6)
// never receive a lead's or customer's email or phone, only these forms (applied on the server).
import { AGENT_ROLES } from './roles.ts';

/** The first 2 and last 2 characters of the local part around ****; a local part of 4 characters or fewer is unchanged. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at < 0 ? email : email.slice(0, at);
  const domain = at < 0 ? '' : email.slice(at);
  const chars = [...local];
  if (chars.length <= 4) return email;
  return `${chars.slice(0, 2).join('')}****${chars.slice(-2).join('')}${domain}`;
}

/** ****** and the last 2 digits of the number (fewer when it has fewer); nothing for an empty phone. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (!digits) return '';
  return `******${digits.slice(-2)}`;
}

/** Roles the switch masks for. */
export const MASKED_ROLES: readonly number[] = AGENT_ROLES;
