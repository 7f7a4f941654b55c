import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { db } from '~/utils/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { loadShell } from '~/modules/shell/shell.server.ts';
import { ClientLayout } from '~/modules/shell/layouts.tsx';
import { useRootData } from '~/root.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { RealtimeProvider } from '~/modules/trading/realtime.tsx';

export async function loader({ request, context }: LoaderFunctionArgs) {
  // with the context: the staff IP whitelist is checked against this request's address
  const session = await requireAccess(request, undefined, context);
  return loadShell(db(), session, request);
}

export default function ClientRoute() {
  const shell = useLoaderData<typeof loader>();
  const root = useRootData()!;
  return (
    <RealtimeProvider>
      <ClientLayout root={root} shell={shell}>
        <Outlet />
      </ClientLayout>
    </RealtimeProvider>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
