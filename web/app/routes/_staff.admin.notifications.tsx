import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { notificationsAction, notificationsLoader } from '~/modules/notifications/route.server.ts';
import { NotificationsPage } from '~/modules/notifications/notifications-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/notifications');

// /admin/notifications — the signed-in user's notifications in the back-office (every role the permission map allows),
// and the bell's posts (open one, mark all read): modules/notifications.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return notificationsLoader(sql, s, new URL(request.url).searchParams);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return notificationsAction(sql, s, await readFormData(request), clientIp(request, context));
}

export default function Page() {
  return <NotificationsPage action="/admin/notifications" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
