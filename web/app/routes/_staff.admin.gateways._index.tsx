import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { refusedWithout } from '~/shared/result.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { gatewaysAction, gatewaysLoader } from '~/modules/gateways/gateways.server.ts';
import { GatewaysPage } from '~/modules/gateways/gateways-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/gateways');

// /admin/gateways — the automatic payment gateways' cards and settings (docs/specs.md#payment-gateways), admin only.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return gatewaysLoader(sql, false);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const received = await receiveUploads(sql, request, { id: s.user.id, roleId: s.user.roleId }, { file: 'qr_code' });
  if (!received.ok) return refusedWithout(received.error.status, received.error.message, received.error.field, received.error.params);
  // numbers typed on the page are read in its language (docs/specs.md#number-input)
  return gatewaysAction(sql, false, received.form, received.files.file, { actorId: s.user.id, ip: clientIp(request, context) }, await requestLocale(request, sql));
}

export default function Page() {
  return <GatewaysPage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
