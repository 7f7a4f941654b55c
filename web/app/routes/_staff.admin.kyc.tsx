import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { decideKyc, listKyc, KYC_SORTABLE } from '~/modules/kyc/kyc.server.ts';
import { KYC_DECISION_SCHEMAS, KYC_STATUSES } from '~/modules/kyc/kyc.ts';
import { KycStaffPage } from '~/modules/kyc/kyc-staff.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/kyc');

// /admin/kyc — KYC Documents (admin, from the permission map): every customer's documents,
// server-paged; approve or decline the latest one of a customer (docs/specs.md#kyc).
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  const q = listQuery(request, KYC_SORTABLE, '', { dates: true, extra: { status: z.enum(['all', ...KYC_STATUSES]).catch('all') } });
  const list = await listKyc(sql, q);
  return { ...list, status: q.status, range: { dateStart: q.dateStart, dateEnd: q.dateEnd } };
}

// POST /admin/kyc: intent approve (id, from) or decline (id, from, declineReason).
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), KYC_DECISION_SCHEMAS);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const v = submission.value as z.infer<typeof KYC_DECISION_SCHEMAS.decline> | z.infer<typeof KYC_DECISION_SCHEMAS.approve>;
  const r = await decideKyc(sql, {
    id: v.id, from: v.from, decision: intent === 'approve' ? 'approve' : 'decline',
    reason: 'declineReason' in v ? v.declineReason : null, actorId: s.user.id, ip: clientIp(request, context),
  });
  if (!r.ok) return replyRefusal(submission, r, { intent });
  return replyDone(submission, r.status === 'approved' ? 'Document approved successfully' : 'KYC declined successfully', { intent });
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return <KycStaffPage data={data} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
