import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { loadShell } from '~/modules/shell/shell.server.ts';
import { StaffLayout } from '~/modules/shell/layouts.tsx';
import { staffMeta } from '~/modules/i18n/meta.ts';
import { useRootData } from '~/root.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { RealtimeProvider } from '~/shared/realtime.tsx';
import { LiveNotifications } from '~/modules/notifications/notification-text.tsx';
import { LAYOUT_ACCESS } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = LAYOUT_ACCESS.staff;

export async function loader({ request, context }: LoaderFunctionArgs) {
  // with the context: the staff IP whitelist is checked against this request's address
  const session = await requireAccess(request, undefined, context);
  return loadShell(db(), session, request);
}

export default function StaffRoute() {
  const shell = useLoaderData<typeof loader>();
  const root = useRootData()!;
  // the user's own stream (no prices): the bell's badge, a toast and the sound as notifications
  // arrive; pages that need prices or a customer's visits mount their own provider inside
  return (
    <RealtimeProvider userOnly>
      <LiveNotifications />
      <StaffLayout root={root} shell={shell}>
        <Outlet />
      </StaffLayout>
    </RealtimeProvider>
  );
}

export const meta = staffMeta;

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
