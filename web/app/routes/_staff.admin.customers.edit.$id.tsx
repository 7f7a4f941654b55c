// /admin/customers/edit/:id — Edit Customer (roles 1, 2, 5, 6 from the permission map; which
// customers each role may open is requireCustomerRecord: any other id is 404): modules/customers.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireCustomerRecord } from '~/modules/auth/guards.server.ts';
import { editAction, editLoader } from '~/modules/customers/edit-route.server.ts';
import { EditCustomerPage } from '~/modules/customers/edit-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/customers/edit/:id');

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const sql = db();
  const { session, customerId } = await requireCustomerRecord(request, params.id, sql, context);
  return editLoader(sql, session, customerId, new URL(request.url).searchParams, await requestLocale(request, sql));
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  const { session, customerId } = await requireCustomerRecord(request, params.id, sql, context);
  const form = await readFormData(request);
  return editAction(sql, session, customerId, form, new URL(request.url), clientIp(request, context), await requestLocale(request, sql));
}

export default function Page() {
  return <EditCustomerPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
