import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { auditLoginAs } from '~/modules/auth/impersonation.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { z } from 'zod';
import { listQuery } from '~/components/ui/list-params.ts';
import { useRootData } from '~/root.tsx';
import { loadDashboard, runDashboardAction } from '~/modules/trading/trading.server.ts';
import { parseDashboardForm } from '~/modules/trading/schemas.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { Dashboard } from '~/modules/trading/dashboard.tsx';
import { POSITIONS_PREFIX } from '~/modules/trading/positions.tsx';
import { orderAnswerRevalidates } from '~/modules/trading/stream-refresh.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/dashboard');

// the positions' URL state (one object, so list-params keeps its schema)
const POSITIONS_QUERY = { extra: { tab: z.enum(['all', 'open', 'closed', 'pending']).catch('all') } };

// /dashboard — instruments, chart, order dialogs, account summary and positions of the active wallet.
export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const list = listQuery(request, [], POSITIONS_PREFIX, POSITIONS_QUERY);
  // the plans themselves are the plan prompt's and /pricing's (modules/pricing); the panel shows the user's own
  return loadDashboard(sql, s.user.id, { openOnly: list.tab === 'open', closedOnly: list.tab === 'closed', pendingTab: list.tab === 'pending', page: list.page, limit: list.limit, request });
}

// POST /dashboard: place, close, modify (take-profit / stop-loss) and favorites, told apart by `intent`.
export async function action({ request }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql);
  const { intent, submission } = parseDashboardForm(await readFormData(request), await requestLocale(request, sql));
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const { status, ok, toast, values } = await runDashboardAction(sql, s.user.id, submission.value);
  // orders and favourites placed inside login-as: the staff member is the audit's actor
  if (ok) await auditLoginAs(sql, s, `dashboard.${intent}`, { after: submission.value, ip: clientIp(request) });
  return ok ? replyDone(submission, toast, { intent, status, values }) : replyRefused(submission, { intent, status, toast, values });
}

// a place, close or modify reloads the page through the stream's events, not its answer
export const shouldRevalidate = orderAnswerRevalidates;

export default function Page() {
  const loaded = useLoaderData<typeof loader>();
  const root = useRootData();
  return <Dashboard data={loaded} theme={root?.branding.theme === 'light' ? 'light' : 'dark'} pricingPlanOn={root?.branding.pricingPlan !== 'off'} />;
}

export const meta = pageMeta('Dashboard');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
