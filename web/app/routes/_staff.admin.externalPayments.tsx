import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { refusedWithout } from '~/shared/result.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { externalPaymentsAction, externalPaymentsLoader } from '~/modules/gateways/external-payments.server.ts';
import { ExternalPaymentsPage } from '~/modules/gateways/external-payments-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/externalPayments');

// /admin/externalPayments — the external payment links the customer's Deposit tab shows (docs/specs.md#payment-gateways), admin only.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return externalPaymentsLoader(sql, new URL(request.url).searchParams);
}
/** A save with a logo is multipart (the file goes through the upload service); a delete is a plain form. */
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const who = { actorId: s.user.id, ip: clientIp(request, context) };
  if (!/^multipart\/form-data/i.test(request.headers.get('content-type') ?? '')) {
    return externalPaymentsAction(sql, await readFormData(request), undefined, who);
  }
  const received = await receiveUploads(sql, request, { id: s.user.id, roleId: s.user.roleId }, { logo: 'external_payment_logo' });
  if (!received.ok) return refusedWithout(received.error.status, received.error.message, received.error.field, received.error.params);
  return externalPaymentsAction(sql, received.form, received.files.logo, who);
}

export default function Page() {
  return <ExternalPaymentsPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
