// Reset password at /reset-password/:token: one new-password field, then the
// 'Password Updated' modal with a Login link to '/'. Tokens are single-use and expire.
import { getFormProps, getInputProps } from '@conform-to/react';
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, retryAfterHeaders, resetPassword, resetTokenValid } from '~/modules/auth/auth.server.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { ResetPasswordSchema } from '~/modules/auth/schemas.ts';
import { Field, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import { parseForm } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/reset-password/:token');

export async function loader({ params }: LoaderFunctionArgs) {
  return { valid: await resetTokenValid(db(), params.token ?? '') };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseForm(await readFormData(request), ResetPasswordSchema);
  if (submission.status !== 'success') return replyRefused(submission, { hideFields: ['password'], toast: null });
  const ctx = await authContext(request, context);
  try {
    await resetPassword(ctx.sql, ctx.store, { token: params.token ?? '', password: submission.value.password, ip: ctx.ip });
    return replyDone(submission, null, { resetForm: true });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return replyRefused(submission, { status: e.status, headers: authErrorHeaders(e), formErrors: [e.message], hideFields: ['password'], toast: e.message, values: e.values });
  }
}

// Retry-After of a 429 reaches the browser
export const headers = retryAfterHeaders;

export default function ResetPassword() {
  const { valid } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const pending = useIsPending();
  const [done, setDone] = useState(false);
  const [form, fields] = useSchemaForm({ id: 'reset', schema: ResetPasswordSchema, lastResult: actionData?.result });
  useReplyToast(actionData, { onSuccess: () => setDone(true) });
  return (
    <>
      <h1 className="auth-title">{t('Reset Password')}</h1>
      {!valid && !done ? <p className="notice notice-error" role="alert">{t(MESSAGES.resetInvalid)}</p> : null}
      <Form method="post" {...getFormProps(form)}>
        <Field label={t('New Password')} errors={fields.password.errors}
          inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password', autoFocus: true }} />
        <SubmitButton className="btn-block" pending={pending}>{t('Submit')}</SubmitButton>
      </Form>
      <p className="auth-alt"><Link to="/">{t('Back to Sign In')}</Link></p>
      <Modal open={done} onClose={() => setDone(false)} title={t('Password Updated')} size="sm" dismissible={false}
        footer={<Link to="/" className="btn btn-primary">{t('Login')}</Link>}>
        <p>{t('Your new password has been set successfully. Please click the button below to login.')}</p>
      </Modal>
    </>
  );
}

export const meta = pageMeta('Reset Password');
