// /pricing — the plan cards, the current plan's button disabled (docs/specs.md#pricing-plans).
// Choosing a plan (POST /dashboard/pricing/subscribe/{planId} in the spec) posts here: the price is
// charged from the chosen real wallet through the ledger, the plan applies to open positions at
// once; success reloads the page with a toast, a short balance goes to /deposits.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';
import { safeRedirect } from '~/shared/safe-redirect.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { actingUserId } from '~/modules/auth/impersonation.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { pricingView, subscribePlan, type Plan } from '~/modules/pricing/pricing.server.ts';
import { PlanCards, SubscribeForm } from '~/modules/pricing/plans.tsx';
import { SubscribeSchema } from '~/modules/pricing/schemas.ts';
import { parseForm } from '~/shared/forms.ts';
import { Modal } from '~/components/ui/modal.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { isCustomer } from '~/shared/roles.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/pricing');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return { view: await pricingView(sql, s), customer: isCustomer(s.user.roleId) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const submission = parseForm(await readFormData(request), SubscribeSchema);
  if (submission.status !== 'success') return replyRefused(submission);
  const { planId, balanceId, redirectTo } = submission.value;
  const r = await subscribePlan(sql, { userId: s.user.id, actorId: actingUserId(s), planId, balanceId, ip: clientIp(request, context) });
  // docs/specs.md#pricing-plans: a subscription the balance cannot pay sends the customer to fund it
  if (!r.ok && r.code === 'short') return redirectWithToast('/deposits', { type: 'error', title: r.message });
  if (!r.ok) return replyRefusal(submission, r);
  return redirectWithToast(safeRedirect(redirectTo, '/pricing'), { type: 'success', title: r.toast, values: r.values });
}

export default function Page() {
  const { t } = useTranslation();
  const { view, customer } = useLoaderData<typeof loader>();
  const [chosen, setChosen] = useState<Plan | null>(null);
  const current = view.plans.find((p) => p.id === view.currentPlanId);
  return (
    <section className="card pricing-page">
      <h1 className="page-title">{t('My Plan')}</h1>
      <p className="muted">{current ? t('Your plan: {{plan}}', { plan: current.name }) : t('You have no plan yet.')}</p>
      {customer && !view.canSubscribe ? <p className="notice notice-error">{t('Pricing plans are not available')}</p> : null}
      {view.plans.length ? <PlanCards view={view} onChoose={setChosen} /> : <p className="muted">{t('No plans are offered at the moment.')}</p>}
      <Modal open={!!chosen} onClose={() => setChosen(null)} title={chosen ? t('Subscribe to {{plan}}', { plan: chosen.name }) : ''} size="md">
        {chosen ? <SubscribeForm key={chosen.id} view={view} plan={chosen} redirectTo="/pricing" backLabel="Cancel" onBack={() => setChosen(null)}
          onDone={() => setChosen(null)} /> : null}
      </Modal>
    </section>
  );
}

export const meta = pageMeta('My Plan');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
