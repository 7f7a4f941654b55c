// GET /auth/user: the signed-in user and their active balance (docs/specs.md#client-calls).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { accountSummary } from '~/modules/accounts/accounts.server.ts';
import { phoneLocked } from '~/modules/profile/profile.server.ts';
import { maskEmail, maskPhone } from '~/shared/mask.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/auth/user');

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireUser(request, sql);
  const [[user], account, masked] = await Promise.all([
    sql`SELECT u.id, u.email, u.full_name, u.role_id, u.pricing_plan_id AS pricing_table_id, u.is_email_verified,
               json_build_object('phone', p.phone, 'birth_date', p.birth_date, 'country', p.country, 'city', p.city,
                                 'address', p.address, 'postal_code', p.postal_code) AS profile
          FROM users u LEFT JOIN profiles p ON p.user_id = u.id WHERE u.id = ${s.user.id}`,
    accountSummary(sql, s.user.id),
    // a retention agent signed in as the customer never receives the contact details (docs/specs.md#customer-records)
    s.impersonatorId !== null ? phoneLocked(sql, s) : false,
  ]);
  if (masked) {
    user.email = maskEmail(user.email);
    if (user.profile?.phone) user.profile.phone = maskPhone(user.profile.phone);
  }
  return Response.json({
    user: { ...user, id: Number(user.id), balances: account.wallets, backToAdmin: s.impersonatorId !== null ? 'enabled' : null },
    activeBalance: account.active,
  });
}
