// The promo code page (/admin/promo-code, roles 1, 2, 4, 5 and 6; docs/specs.md#crm-configuration):
// the user's own promo code, read-only, and Generate. The server makes the code (8 characters
// that read unambiguously, unique among every code ever made) and it belongs to whoever generated
// it: a customer who signs up with it is credited to them (modules/auth signUp: a manager manages
// them, a sales agent works them, a retention agent retains them, an affiliate is their
// affiliator). One live code per user: generating revokes the previous one (kept for the
// customers who used it, but sign-up refuses it from then on). Generation is idempotent per page
// view (the page posts the code it showed; a second post of the same view gets the code the
// first one made) and limited to PROMO_PER_HOUR codes an hour per user. Audited.
import { randomInt } from 'node:crypto';
import type { Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { refuse, type Actor, type Outcome } from '~/shared/result.server.ts';
import { CRM_CONFIG_PARSE, PROMO_ACTIONS } from './schemas.ts';

/** Codes one user may generate in an hour. */
export const PROMO_PER_HOUR = 10;
/** promo_codes.code CHECK (code ~ '^[A-Z0-9]{4,32}$'): 8 of these 31 characters (~8.5e11 codes). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export function newPromoCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** The user's live promo code, or null. */
export async function currentPromoCode(sql: Sql, userId: number): Promise<string | null> {
  const [r] = await sql`SELECT code FROM promo_codes WHERE owner_id = ${userId} AND revoked_at IS NULL`;
  return r ? (r.code as string) : null;
}

/**
 * A new live code for `userId`, revoking their previous one. `seen` is the code the page showed
 * ('' for none): when the user's live code is no longer that one, another post already replaced
 * it, and that code is the answer (nothing is generated twice for one click).
 */
export async function generatePromoCode(sql: Sql, userId: number, seen: string, who: Actor): Promise<Outcome<{ code: string }>> {
  return sql.begin(async (tx): Promise<Outcome<{ code: string }>> => {
    // one generation per user at a time: the user's row lock
    await tx`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
    const [live] = await tx`SELECT id, code FROM promo_codes WHERE owner_id = ${userId} AND revoked_at IS NULL`;
    if (live && live.code !== seen) return { ok: true, toast: 'Promo code generated successfully', code: live.code as string };
    const [{ n }] = await tx`SELECT count(*)::int AS n FROM promo_codes WHERE owner_id = ${userId} AND created_at > now() - interval '1 hour'`;
    if (n >= PROMO_PER_HOUR) return refuse(429, 'You have generated {{max}} promo codes in the last hour. Try again later.', undefined, { max: PROMO_PER_HOUR });
    if (live) await tx`UPDATE promo_codes SET revoked_at = now() WHERE id = ${live.id}`;
    let row;
    for (let attempt = 0; !row && attempt < 8; attempt++) {
      [row] = await tx`INSERT INTO promo_codes (code, owner_id) VALUES (${newPromoCode()}, ${userId}) ON CONFLICT (code) DO NOTHING RETURNING id, code`;
    }
    if (!row) throw new Error('no free promo code after 8 attempts');
    await audit(tx, {
      actorId: who.actorId, action: 'promo_code.generate', targetKind: 'promo_code', targetId: row.id,
      before: live ? { code: live.code } : undefined, after: { code: row.code, ownerId: userId }, ip: who.ip,
    });
    return { ok: true, toast: 'Promo code generated successfully', code: row.code as string };
  });
}

// ---------------------------------------------------------------- the route's loader and action

export async function promoCodeLoader(sql: Sql, s: CurrentSession) {
  return { code: await currentPromoCode(sql, s.user.id) };
}

export async function promoCodeAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseIntent(form, PROMO_ACTIONS, CRM_CONFIG_PARSE);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  // the code is the signed-in user's; the audit's actor is who acted (the staff member of a login-as session)
  const actorId = s.impersonatorId ?? s.user.id;
  const r = await generatePromoCode(sql, s.user.id, submission.value.current, { actorId, ip: ip });
  if (!r.ok) return replyRefused(submission, { intent, status: r.status, toast: r.message, values: r.values });
  return replyDone(submission, r.toast, { intent, extra: { code: r.code } });
}
