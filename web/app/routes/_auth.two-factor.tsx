// /two-factor: the second step of signing in when two-factor is on (docs/specs.md#security-and-two-factor-sign-in).
// The password was right; the pending sign-in is a short-lived HttpOnly cookie. No session exists
// until a code of the authenticator app (or a recovery code, used up) passes.
import { getFormProps, getInputProps } from '@conform-to/react';
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { db } from '~/shared/db.server.ts';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { toastCookie } from '~/shared/toast.server.ts';
import { requireAnonymous } from '~/modules/auth/guards.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, completeTwoFactorSignIn, retryAfterHeaders } from '~/modules/auth/auth.server.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { SecondFactorSchema } from '~/modules/auth/schemas.ts';
import { routeAccess, ROLE_HOME, type RoleId } from '~/modules/auth/permissions.ts';
import { readCookie, sessionCookie } from '~/shared/cookies.server.ts';
import { CHALLENGE_COOKIE, clearChallengeCookie, liveChallenge } from '~/modules/auth/two-factor.server.ts';
import { Field, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import { parseForm } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { readFormData } from '~/shared/body-limit.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/two-factor');

/** Back to the password: the pending sign-in is gone (expired, used, too many wrong codes). */
function startAgain(withToast: boolean) {
  const headers = new Headers({ 'set-cookie': clearChallengeCookie() });
  if (withToast) headers.append('set-cookie', toastCookie({ type: 'error', title: MESSAGES.challengeExpired }));
  return redirect('/', { headers });
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  const token = readCookie(request, CHALLENGE_COOKIE);
  if (!(await liveChallenge(db(), token))) throw startAgain(!!token);
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseForm(await readFormData(request), SecondFactorSchema);
  if (submission.status !== 'success') return replyRefused(submission, { hideFields: ['code'], toast: null });
  const ctx = await authContext(request, context);
  try {
    const s = await completeTwoFactorSignIn(ctx.sql, ctx.store, {
      challenge: readCookie(request, CHALLENGE_COOKIE), code: submission.value.code, ip: ctx.ip, userAgent: ctx.userAgent,
    });
    const headers = new Headers({ 'set-cookie': sessionCookie(s.token, s.remember) });
    headers.append('set-cookie', clearChallengeCookie());
    return redirect(ROLE_HOME[s.roleId as RoleId] ?? '/dashboard', { headers });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    if (e.message === MESSAGES.challengeExpired) return startAgain(true);
    return replyRefused(submission, {
      status: e.status, headers: authErrorHeaders(e), hideFields: ['code'],
      fieldErrors: e.status === 429 ? undefined : { code: [e.message] }, formErrors: e.status === 429 ? [e.message] : undefined,
      toast: e.message, values: e.values,
    });
  }
}

export const headers = retryAfterHeaders;

export default function TwoFactorSignIn() {
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const pending = useIsPending();
  const [form, fields] = useSchemaForm({ id: 'two-factor', schema: SecondFactorSchema, lastResult: actionData?.result });
  // like the sign-in error: bottom-center (docs/specs.md#toasts)
  useReplyToast(actionData, { position: 'bottom-center' });
  return (
    <>
      <h1 className="auth-title">{t('Two-Factor Authentication')}</h1>
      <p className="muted">{t('Enter the 6-digit code from your authenticator app, or one of your recovery codes.')}</p>
      <Form method="post" {...getFormProps(form)}>
        <Field label={t('Authentication code')} errors={fields.code.errors}
          inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'one-time-code', autoFocus: true, spellCheck: false, autoCapitalize: 'none' }} />
        <SubmitButton className="btn-block" pending={pending}>{t('Verify')}</SubmitButton>
      </Form>
      <p className="auth-alt"><Link to="/">{t('Back to Sign In')}</Link></p>
    </>
  );
}

export const meta = pageMeta('Two-Factor Authentication');
