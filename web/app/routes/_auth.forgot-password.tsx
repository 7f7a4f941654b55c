// Forgot password (docs/specs.md#client-pages): one email field, captcha when a site key is set,
// then a 'Verification Email Sent' modal. The answer is the same whether the email exists.
import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import { getZodConstraint, parseWithZod } from '@conform-to/zod';
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { assertSameOrigin } from '~/utils/request.server.ts';
import { requireAnonymous } from '~/modules/auth/guards.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, retryAfterHeaders, requestPasswordReset } from '~/modules/auth/auth.server.ts';
import { ForgotPasswordSchema } from '~/modules/auth/schemas.ts';
import { Recaptcha } from '~/modules/auth/recaptcha.tsx';
import { Field, SubmitButton, useIsPending } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useToast } from '~/components/ui/toast.tsx';
import { pageMeta } from '~/modules/shell/meta.ts';
import { getRecaptchaSiteKey } from '~/modules/auth/captcha.server.ts';
import { db } from '~/utils/db.server.ts';

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  return { recaptchaSiteKey: await getRecaptchaSiteKey(db()) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseWithZod(await request.formData(), { schema: ForgotPasswordSchema });
  if (submission.status !== 'success') return data({ result: submission.reply(), sentTo: null, error: null }, { status: 400 });
  const ctx = await authContext(request, context);
  try {
    await requestPasswordReset(ctx.sql, ctx.store, ctx.cfg, { ...submission.value, ip: ctx.ip });
    return data({ result: submission.reply({ resetForm: true }), sentTo: submission.value.email, error: null });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return data({ result: submission.reply({ formErrors: [e.message] }), sentTo: null, error: { message: e.message, values: e.values } }, { status: e.status, headers: authErrorHeaders(e) });
  }
}

// Retry-After of a 429 reaches the browser
export const headers = retryAfterHeaders;

export default function ForgotPassword() {
  const { recaptchaSiteKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const { push } = useToast();
  const pending = useIsPending();
  const [humanKey, setHumanKey] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [form, fields] = useForm({
    id: 'forgot',
    lastResult: actionData?.result,
    constraint: getZodConstraint(ForgotPasswordSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ForgotPasswordSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  });
  useEffect(() => {
    if (actionData?.error) push({ type: 'error', title: actionData.error.message || 'Something went wrong', values: actionData.error.values });
    if (actionData?.sentTo) setSentTo(actionData.sentTo);
  }, [actionData, push]);
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
