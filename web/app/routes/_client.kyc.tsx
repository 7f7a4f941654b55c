import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal, refusedWithout } from '~/shared/result.server.ts';
import { discardUploads, formatBytes, mayRead, receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { latestKyc, submitKyc, submitRefusal } from '~/modules/kyc/kyc.server.ts';
import { KYC_FILE_FIELDS, KYC_MAX_BYTES, KycSubmitSchema, type KycFileField } from '~/modules/kyc/kyc.ts';
import { KycPage } from '~/modules/kyc/kyc-client.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/kyc');

// /kyc — the signed-in user's identity documents (docs/specs.md#kyc): the form, or the latest
// document's status.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const document = await latestKyc(sql, s.user.id);
  // inside login-as the files (names and links) are listed only to a staff member who may read them (docs/specs.md#login-as)
  if (document) {
    for (const f of Object.keys(KYC_FILE_FIELDS) as KycFileField[]) {
      if (!mayRead(s, { owner_id: s.user.id, kind: KYC_FILE_FIELDS[f] })) document.files[f] = null;
    }
  }
  return { document, maxSize: formatBytes(KYC_MAX_BYTES) };
}

// POST /kyc (multipart: type, front, back, address): a new document, pending review.
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  // a document under review or approved refuses a new one before any file is received
  const early = submitRefusal(await latestKyc(sql, s.user.id));
  if (early) return refusedWithout(early.status, early.message);

  const received = await receiveUploads(sql, request, { id: s.user.id, roleId: s.user.roleId }, KYC_FILE_FIELDS);
  if (!received.ok) return refusedWithout(received.error.status, received.error.message, received.error.field, received.error.params);
  const stored = Object.values(received.files).map((f) => f!.id);

  const submission = parseForm(received.form, KycSubmitSchema);
  if (submission.status !== 'success') {
    await discardUploads(sql, s.user.id, stored);
    return replyRefused(submission);
  }
  const r = await submitKyc(sql, {
    userId: s.user.id, type: submission.value.type,
    front: received.files.front?.id, back: received.files.back?.id, address: received.files.address?.id,
    source: { session: s, ip: clientIp(request, context) },
  });
  if (!r.ok) {
    await discardUploads(sql, s.user.id, stored);
    return replyRefusal(submission, r);
  }
  return replyDone(submission, 'Documents submitted successfully', { resetForm: true });
}

export default function Page() {
  const { document, maxSize } = useLoaderData<typeof loader>();
  return <KycPage document={document} maxSize={maxSize} />;
}

export const meta = pageMeta('KYC');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
