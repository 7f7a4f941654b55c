import type { LoaderFunctionArgs } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { loadShell } from '~/modules/shell/shell.server.ts';
import { ClientLayout } from '~/modules/shell/layouts.tsx';
import { useRootData } from '~/root.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { RealtimeProvider } from '~/shared/realtime.tsx';
import { LiveNotifications } from '~/modules/notifications/notification-text.tsx';
import { orderAnswerRevalidates } from '~/modules/trading/stream-refresh.ts';
import { planPrompt } from '~/modules/pricing/pricing.server.ts';
import { PlanPrompt } from '~/modules/pricing/plans.tsx';
import { trackVisit } from '~/modules/customers/tracking.server.ts';
import { enrolmentRequired } from '~/modules/auth/two-factor.server.ts';
import { LAYOUT_ACCESS } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = LAYOUT_ACCESS.client;

export async function loader({ request, context }: LoaderFunctionArgs) {
  // with the context: the staff IP whitelist is checked against this request's address
  const session = await requireAccess(request, undefined, context);
  const sql = db();
  // the customer's page visits, for the Tracking tab of the staff's Edit Customer page (not awaited)
  trackVisit(sql, session, { method: request.method, url: request.url });
  // a customer without a plan is prompted for one on every client page (docs/specs.md#pricing-plans)
  const [shell, prompt, mustEnrol] = await Promise.all([loadShell(sql, session, request), planPrompt(sql, session), enrolmentRequired(sql, session)]);
  // a staff member who must enrol in two-factor sign-in sees only /security: no stream (its ticket is refused until then)
  return { ...shell, planPrompt: prompt, streams: !mustEnrol };
}

// the wallets and the bell reload with the dashboard's stream events, not an order's answer
export const shouldRevalidate = orderAnswerRevalidates;

export default function ClientRoute() {
  const shell = useLoaderData<typeof loader>();
  const root = useRootData()!;
  return (
    <RealtimeProvider off={!shell.streams}>
      <LiveNotifications />
      <ClientLayout root={root} shell={shell}>
        <Outlet />
      </ClientLayout>
      {shell.planPrompt ? <PlanPrompt view={shell.planPrompt} /> : null}
    </RealtimeProvider>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
