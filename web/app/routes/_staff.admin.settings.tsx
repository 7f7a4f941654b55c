import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal, refusedWithout } from '~/shared/result.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { parseForm, type Reply } from '~/shared/forms.ts';
import { discardUploads, receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { readSiteSettings, saveSiteSettings } from '~/modules/settings/site-settings.server.ts';
import { SETTINGS_FILE_FIELDS, SiteSettingsSchema, type SettingsFileField } from '~/modules/settings/site-settings.ts';
import { SiteSettingsPage } from '~/modules/settings/site-settings-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/settings');

// /admin/settings — Site Settings (admin only, from the permission map): one multipart form.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return { settings: await readSiteSettings(sql) };
}

/** typed secrets never travel back in a reply */
const HIDDEN = ['recaptchaSecret', 'webhookApiKey'];

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const received = await receiveUploads(sql, request, { id: s.user.id, roleId: s.user.roleId }, SETTINGS_FILE_FIELDS);
  if (!received.ok) return refusedWithout(received.error.status, received.error.message, received.error.field, received.error.params);
  const stored = Object.values(received.files).map((f) => f!.id);
  const submission = parseForm(received.form, SiteSettingsSchema, { coerce: false });
  if (submission.status !== 'success') {
    await discardUploads(sql, s.user.id, stored);
    return replyRefused(submission, { hideFields: HIDDEN });
  }
  const files = Object.fromEntries(Object.entries(received.files).map(([k, f]) => [k, f!.id])) as Partial<Record<SettingsFileField, number>>;
  const r = await saveSiteSettings(sql, submission.value, files, { actorId: s.user.id, ip: clientIp(request, context) });
  if (!r.ok) {
    await discardUploads(sql, s.user.id, stored);
    return replyRefusal(submission, r, { hideFields: HIDDEN });
  }
  // a redirect: the root loader runs again, so the new name, logo and theme show at once
  return redirectWithToast('/admin/settings', { type: 'success', title: 'Settings updated successfully' });
}

export default function Page() {
  const { settings } = useLoaderData<typeof loader>();
  const reply = useActionData<Reply>();
  // a save shows the stored values again: the form (and its file inputs) starts over from them
  return <SiteSettingsPage key={JSON.stringify(settings)} settings={settings} reply={reply} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
