// Reset password at /reset-password/:token: the new password and its confirmation, then the
// 'Password Updated' modal with a Login link to '/'. Tokens are single-use and expire: a used or
// expired link shows that, with a link to ask for a new one, instead of a form that cannot work.
import { getFormProps, getInputProps } from '@conform-to/react';
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, retryAfterHeaders, resetPassword, resetTokenState, type ResetLinkState } from '~/modules/auth/auth.server.ts';
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
  return { state: await resetTokenState(db(), params.token ?? '') };
}

const LINK_MESSAGES: Record<Exclude<ResetLinkState, 'valid'>, string> = {
  used: MESSAGES.resetUsed, expired: MESSAGES.resetExpired, invalid: MESSAGES.resetInvalid,
};
const hideFields = ['password', 'passwordConfirmation'];

export async function action({ request, params, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseForm(await readFormData(request), ResetPasswordSchema);
  if (submission.status !== 'success') return replyRefused(submission, { hideFields, toast: null });
  const ctx = await authContext(request, context);
  try {
    await resetPassword(ctx.sql, ctx.store, { token: params.token ?? '', password: submission.value.password, ip: ctx.ip });
    return replyDone(submission, null, { resetForm: true });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    // the link was used or expired meanwhile: the page says which instead of the form
    if (e.message === MESSAGES.resetInvalid) {
      return replyRefused(submission, { status: 400, hideFields, toast: null, extra: { state: await resetTokenState(ctx.sql, params.token ?? '') } });
    }
    return replyRefused(submission, { status: e.status, headers: authErrorHeaders(e), formErrors: [e.message], hideFields, toast: e.message, values: e.values });
  }
}

// Retry-After of a 429 reaches the browser
export const headers = retryAfterHeaders;

export default function ResetPassword() {
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const pending = useIsPending();
  const [done, setDone] = useState(false);
  const [form, fields] = useSchemaForm({ id: 'reset', schema: ResetPasswordSchema, lastResult: actionData?.result });
  useReplyToast(actionData, { onSuccess: () => setDone(true) });
  const state: ResetLinkState = (actionData && 'state' in actionData ? actionData.state as ResetLinkState : undefined) ?? loaded.state;
  return (
    <>
      <h1 className="auth-title">{t('Reset Password')}</h1>
      {state !== 'valid' && !done ? (
        <div className="notice notice-error" role="alert" data-testid="reset-link-state">
          <p>{t(LINK_MESSAGES[state])}</p>
          <Link to="/forgot-password" className="btn btn-primary">{t('Request a new link')}</Link>
        </div>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          <Field label={t('New Password')} errors={fields.password.errors}
            inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password', autoFocus: true }} />
          <Field label={t('Confirm Password')} errors={fields.passwordConfirmation.errors}
            inputProps={{ ...getInputProps(fields.passwordConfirmation, { type: 'password' }), autoComplete: 'new-password' }} />
          <SubmitButton className="btn-block" pending={pending}>{t('Submit')}</SubmitButton>
        </Form>
      )}
      <p className="auth-alt"><Link to="/">{t('Back to Sign In')}</Link></p>
      <Modal open={done} onClose={() => setDone(false)} title={t('Password Updated')} size="sm" dismissible={false}
        footer={<Link to="/" className="btn btn-primary">{t('Login')}</Link>}>
        <p>{t('Your new password has been set successfully. Please click the button below to login.')}</p>
      </Modal>
    </>
  );
}

export const meta = pageMeta('Reset Password');
