// Forgot password (docs/specs.md#client-pages): one email field, captcha when a site key is set,
// then a 'Verification Email Sent' modal. The answer is the same whether the email exists.
import { getFormProps, getInputProps } from '@conform-to/react';
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { requireAnonymous } from '~/modules/auth/guards.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, retryAfterHeaders, requestPasswordReset } from '~/modules/auth/auth.server.ts';
import { ForgotPasswordSchema } from '~/modules/auth/schemas.ts';
import { Recaptcha } from '~/modules/auth/recaptcha.tsx';
import { Field, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { getRecaptchaSiteKey } from '~/modules/auth/captcha.server.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/forgot-password');

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  return { recaptchaSiteKey: await getRecaptchaSiteKey(db()) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseForm(await readFormData(request), ForgotPasswordSchema);
  if (submission.status !== 'success') return replyRefused(submission, { toast: null, extra: { sentTo: null } });
  const ctx = await authContext(request, context);
  try {
    await requestPasswordReset(ctx.sql, ctx.store, ctx.cfg, { ...submission.value, ip: ctx.ip });
    return replyDone(submission, null, { resetForm: true, extra: { sentTo: submission.value.email as string | null } });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return replyRefused(submission, { status: e.status, headers: authErrorHeaders(e), formErrors: [e.message], toast: e.message, values: e.values, extra: { sentTo: null } });
  }
}

// Retry-After of a 429 reaches the browser
export const headers = retryAfterHeaders;

export default function ForgotPassword() {
  const { recaptchaSiteKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const pending = useIsPending();
  const [humanKey, setHumanKey] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [form, fields] = useSchemaForm({ id: 'forgot', schema: ForgotPasswordSchema, lastResult: actionData?.result });
  useReplyToast(actionData, { onSuccess: (r) => setSentTo(r.sentTo) });
  return (
    <>
      <h1 className="auth-title">{t('Forgot Password')}</h1>
      <p className="muted">{t('Enter your email address and we will send you a link to reset your password.')}</p>
      <Form method="post" {...getFormProps(form)}>
        <Field label={t('Email')} errors={fields.email.errors} inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email', autoFocus: true }} />
        {recaptchaSiteKey ? (
          <>
            <input type="hidden" name="humanKey" value={humanKey} />
            <Recaptcha siteKey={recaptchaSiteKey} onChange={setHumanKey} />
          </>
        ) : null}
        <SubmitButton className="btn-block" pending={pending} disabled={!!recaptchaSiteKey && !humanKey}>{t('Submit')}</SubmitButton>
      </Form>
      <p className="auth-alt"><Link to="/">{t('Back to Sign In')}</Link></p>
      <Modal open={!!sentTo} onClose={() => setSentTo(null)} title={t('Verification Email Sent')} size="sm"
        footer={<Link to="/" className="btn btn-primary">{t('Login')}</Link>}>
        <p>{t('A verification email has been sent to {{email}}. Please click the link in it to reset your password.', { email: sentTo ?? '' })}</p>
      </Modal>
    </>
  );
}

export const meta = pageMeta('Forgot Password');
