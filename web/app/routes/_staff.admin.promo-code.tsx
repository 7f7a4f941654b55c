import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { promoCodeAction, promoCodeLoader } from '~/modules/crm-config/promo-code.server.ts';
import { PromoCodePage } from '~/modules/crm-config/promo-code-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/promo-code');

// /admin/promo-code — Promo Code (roles 1, 2, 4, 5, 6 from the permission map): modules/crm-config.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return promoCodeLoader(sql, s);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return promoCodeAction(sql, s, await readFormData(request), clientIp(request, context));
}

export default function Page() {
  return <PromoCodePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
