// Sign-in at '/' (docs/specs.md#client-pages). Success goes to /dashboard for customers and to the
// role's home for staff (to /security first when staff must enrol in two-factor sign-in); with
// two-factor on, to /two-factor for the code; a failure shows a toast at bottom-center.
import { getFormProps, getInputProps } from '@conform-to/react';
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { requireAnonymous } from '~/modules/auth/guards.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, resendVerification, retryAfterHeaders, signIn } from '~/modules/auth/auth.server.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { LoginSchema, ResendVerificationSchema } from '~/modules/auth/schemas.ts';
import { routeAccess, ROLE_HOME, TWO_FACTOR_ENROL_PATH, type RoleId } from '~/modules/auth/permissions.ts';
import { CHALLENGE_PATH, challengeCookie } from '~/modules/auth/two-factor.server.ts';
import { sessionCookie } from '~/shared/cookies.server.ts';
import { Recaptcha } from '~/modules/auth/recaptcha.tsx';
import { CheckboxField, Field, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { getRecaptchaSiteKey } from '~/modules/auth/captcha.server.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/');

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  return { recaptchaSiteKey: await getRecaptchaSiteKey(db()) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const formData = await readFormData(request);
  // 'Resend verification' (offered after an unverified sign-in): the same answer whether or not the address has an account
  if (formData.get('intent') === 'resend') {
    const resend = parseForm(formData, ResendVerificationSchema);
    if (resend.status !== 'success') return replyRefused(resend, { intent: 'resend' });
    const ctx = await authContext(request, context);
    try {
      await resendVerification(ctx.sql, ctx.store, ctx.cfg, { email: resend.value.email, ip: ctx.ip });
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      return replyRefused(resend, { intent: 'resend', status: e.status, headers: authErrorHeaders(e), toast: e.message, values: e.values });
    }
    return replyDone(resend, MESSAGES.verificationResent, { intent: 'resend' });
  }
  const submission = parseForm(formData, LoginSchema);
  if (submission.status !== 'success') return replyRefused(submission, { hideFields: ['password'], toast: null });
  const ctx = await authContext(request, context);
  try {
    const s = await signIn(ctx.sql, ctx.store, ctx.cfg, { ...submission.value, ip: ctx.ip, userAgent: ctx.userAgent });
    // two-factor on: no session yet, the code is asked for on the next step
    if (s.step === 'two-factor') return redirect(CHALLENGE_PATH, { headers: { 'set-cookie': challengeCookie(s.challenge) } });
    const to = s.mustEnrol ? TWO_FACTOR_ENROL_PATH : ROLE_HOME[s.roleId as RoleId] ?? '/dashboard';
    return redirect(to, { headers: { 'set-cookie': sessionCookie(s.token, s.remember) } });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return replyRefused(submission, {
      status: e.status, headers: authErrorHeaders(e), formErrors: [e.message], hideFields: ['password'],
      toast: e.message || MESSAGES.invalidCredentials, values: e.values, intent: 'login',
    });
  }
}

export const headers = retryAfterHeaders;

export default function SignIn() {
  const { recaptchaSiteKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const pending = useIsPending();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [humanKey, setHumanKey] = useState('');
  const [form, fields] = useSchemaForm({ id: 'login', schema: LoginSchema, lastResult: actionData?.result });
  // a failed sign-in: the server's message at bottom-center (docs/specs.md#toasts)
  useReplyToast(actionData, { position: 'bottom-center' });
  const disabled = !email || !password || (!!recaptchaSiteKey && !humanKey);
  return (
    <>
      <h1 className="auth-title">{t('Sign In')}</h1>
      <Form method="post" {...getFormProps(form)}>
        <Field label={t('Email')} errors={fields.email.errors}
          inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email', autoFocus: true, onInput: (e) => setEmail(e.currentTarget.value) }} />
        <Field label={t('Password')} errors={fields.password.errors}
          inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'current-password', onInput: (e) => setPassword(e.currentTarget.value) }} />
        <div className="auth-row">
          <CheckboxField label={t('Remember me')} inputProps={{ ...getInputProps(fields.remember, { type: 'checkbox' }) }} />
          <Link to="/forgot-password">{t('Forgot password?')}</Link>
        </div>
        {recaptchaSiteKey ? (
          <>
            <input type="hidden" name="humanKey" value={humanKey} />
            <Recaptcha siteKey={recaptchaSiteKey} onChange={setHumanKey} />
          </>
        ) : null}
        <SubmitButton className="btn-block" pending={pending} disabled={disabled}>{t('Login')}</SubmitButton>
      </Form>
      {/* the last sign-in was refused as unverified: a new link can be asked for (answered alike for any address) */}
      {actionData?.toast === MESSAGES.unverified || actionData?.intent === 'resend' ? (
        <Form method="post" className="auth-resend">
          <input type="hidden" name="intent" value="resend" />
          <input type="hidden" name="email" value={email} />
          <SubmitButton tone="btn-secondary" className="btn-block" pending={pending} disabled={!email || actionData?.intent === 'resend'}>{t('Resend verification')}</SubmitButton>
        </Form>
      ) : null}
      <p className="auth-alt">
        {t("Don't have an account?")} <Link to="/signup">{t('Sign Up')}</Link>
      </p>
    </>
  );
}

export const meta = pageMeta('Sign In');
