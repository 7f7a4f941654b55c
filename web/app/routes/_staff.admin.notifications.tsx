import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { notificationsAction, notificationsLoader } from '~/modules/notifications/route.server.ts';
import { NotificationsPage } from '~/modules/notifications/notifications-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';

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
