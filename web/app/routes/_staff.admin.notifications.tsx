import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { notificationsAction, notificationsLoader } from '~/modules/notifications/route.server.ts';
import { NotificationsPage } from '~/modules/notifications/notifications-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/notifications');

// /admin/notifications — the signed-in user's notifications in the back-office (every role the permission map allows),
// and the bell's posts (open one, mark all read): modules/notifications.
export const loader = (args: LoaderFunctionArgs) => notificationsLoader(args);
export const action = (args: ActionFunctionArgs) => notificationsAction(args);

export default function Page() {
  return <NotificationsPage action="/admin/notifications" />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
