import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { formStartOf, type StartPageData } from '~/modules/payments/start.server.ts';
import { PaymentStartPage } from '~/modules/payments/start-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/deposits/start/:depositId');

// /deposits/start/:depositId — the customer's own pending deposit whose payment starts with a
// browser form (Perfect Money's SCI): the form, posted to the provider. Anyone else's deposit, a
// decided one or a bad id: 404.
export async function loader({ request, params, context }: LoaderFunctionArgs): Promise<StartPageData> {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  if (!/^[1-9][0-9]{0,15}$/.test(params.depositId ?? '')) throw notFound();
  const data = await formStartOf(sql, s.user.id, Number(params.depositId));
  if (!data) throw notFound();
  return data;
}

export default function Page() {
  return <PaymentStartPage data={useLoaderData<typeof loader>()} />;
}

export const meta = pageMeta('Continue to payment');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
