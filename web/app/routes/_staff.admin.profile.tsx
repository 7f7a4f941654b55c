// /admin/profile — the staff member's own record, where the staff top bar's Profile leads
// (docs/specs.md#profile): name and page language (saved), email, role and two-factor state
// (shown), the password (current + new, the /security rule). Every staff role; only the session's
// own user, no id read from the form: modules/profile/staff-profile.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { parseIntent } from '~/shared/forms.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { defaultStore } from '~/modules/auth/rate-limit.server.ts';
import { ChangePasswordSchema } from '~/modules/auth/schemas.ts';
import { changePassword } from '~/modules/auth/security.server.ts';
import { actingUserId } from '~/modules/auth/impersonation.server.ts';
import { SECURITY_TOASTS } from '~/modules/auth/messages.ts';
import { langCookie, listLanguages, requestLocale } from '~/modules/i18n/i18n.server.ts';
import { StaffProfileSchema } from '~/modules/profile/schemas.ts';
import { loadStaffProfile, saveStaffProfile } from '~/modules/profile/staff-profile.server.ts';
import { StaffProfilePage } from '~/modules/profile/staff-profile-page.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/profile');

const FORMS = { details: StaffProfileSchema, password: ChangePasswordSchema };
const SECRET_FIELDS = ['currentPassword', 'newPassword'];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return loadStaffProfile(sql, s, await listLanguages(sql), await requestLocale(request, sql));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const ip = clientIp(request, context);
  const { intent, submission } = parseIntent(await readFormData(request), FORMS);
  if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: SECRET_FIELDS });
  if (intent === 'password') {
    const v = submission.value as { currentPassword: string; newPassword: string };
    const r = await changePassword(sql, await defaultStore(sql), {
      userId: s.user.id, sessionId: s.sessionId, actorId: actingUserId(s), currentPassword: v.currentPassword, newPassword: v.newPassword, ip,
    });
    if (!r.ok) {
      return replyRefusal(submission, r, {
        intent, hideFields: SECRET_FIELDS,
        headers: r.status === 429 ? { 'retry-after': String(Number(r.values?.minutes ?? 1) * 60) } : undefined,
      });
    }
    return replyDone(submission, SECURITY_TOASTS.passwordChanged, { intent, resetForm: true });
  }
  const v = submission.value as { fullName: string; language: string };
  const r = await saveStaffProfile(sql, s, v, await listLanguages(sql), ip);
  if (!r.ok) return replyRefusal(submission, r, { intent });
  // the page language is the language cookie's (the top bar's switcher writes the same one)
  return replyDone(submission, r.toast, { intent, headers: { 'set-cookie': langCookie(v.language) } });
}

export default function Page() {
  return <StaffProfilePage />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
