// GET /auth/user: the signed-in user and their active balance (docs/specs.md#client-calls).
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/utils/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireUser(request, sql);
  const [[user], balances] = await Promise.all([
    sql`SELECT u.id, u.email, u.full_name, u.role_id, u.pricing_plan_id AS pricing_table_id, u.is_email_verified,
               json_build_object('phone', p.phone, 'birth_date', p.birth_date, 'country', p.country, 'city', p.city,
                                 'address', p.address, 'postal_code', p.postal_code) AS profile
          FROM users u LEFT JOIN profiles p ON p.user_id = u.id WHERE u.id = ${s.user.id}`,
    sql`SELECT id, mode, currency, balance::text AS balance, margin::text AS margin FROM balances WHERE user_id = ${s.user.id} ORDER BY id`,
  ]);
  const activeBalance = balances.find((b) => Number(b.id) === s.user.activeBalanceId) ?? null;
  return Response.json({
    user: { ...user, id: Number(user.id), balances: balances.map((b) => ({ ...b, id: Number(b.id) })), backToAdmin: s.impersonatorId !== null ? 'enabled' : null },
    activeBalance: activeBalance ? { ...activeBalance, id: Number(activeBalance.id) } : null,
  });
}
