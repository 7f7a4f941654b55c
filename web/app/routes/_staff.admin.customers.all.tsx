import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { customersAction, customersLoader } from '~/modules/customers/list.server.ts';
import { CustomersPage } from '~/modules/customers/list-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/customers/all');

// /admin/customers/all — roles 1, 2 from the permission map: modules/customers.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return customersLoader(sql, s, 'all', new URL(request.url).searchParams);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return customersAction(sql, s, await readFormData(request), clientIp(request, context));
}

export default function Page() {
  return <CustomersPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
