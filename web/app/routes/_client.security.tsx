// /security (docs/specs.md#security-and-two-factor-sign-in): change password (current + new; every
// other session ends) and two-factor sign-in with an authenticator app (QR + key, a code confirms,
// ten recovery codes shown once; off with a code). Also the page staff must enrol on while the
// site requires two-factor sign-in of staff. Rules: modules/auth/security.server.ts and two-factor.server.ts.
import { getFormProps, getInputProps } from '@conform-to/react';
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { defaultStore } from '~/modules/auth/rate-limit.server.ts';
import { ChangePasswordSchema, SecondFactorSchema, TotpCodeSchema } from '~/modules/auth/schemas.ts';
import { runSecurityAction, type SecurityAction } from '~/modules/auth/security.server.ts';
import { enrolmentRequired, twoFactorState } from '~/modules/auth/two-factor.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { Field, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { parseIntent, type Reply } from '~/shared/forms.ts';
import { useFormat } from '~/components/ui/format.ts';
import { Modal } from '~/components/ui/modal.tsx';
import { useReplyToast, useToast } from '~/components/ui/toast.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import styles from '~/styles/security.css?url';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/security');

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: styles }];

const FORMS = {
  password: ChangePasswordSchema,
  start: z.object({}),
  cancel: z.object({}),
  confirm: TotpCodeSchema,
  disable: SecondFactorSchema,
};
const SECRET_FIELDS = ['currentPassword', 'newPassword', 'code'];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const impersonating = s.impersonatorId !== null;
  return {
    // a login-as session sees whether two-factor is on, never a secret
    twoFactor: await twoFactorState(sql, s.user, !impersonating),
    mustEnrol: await enrolmentRequired(sql, s),
    impersonating,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), FORMS);
  if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: SECRET_FIELDS });
  const r = await runSecurityAction(sql, await defaultStore(sql), s, { intent, ...submission.value } as SecurityAction, clientIp(request, context));
  if (!r.ok) {
    return replyRefusal(submission, r, {
      intent, hideFields: SECRET_FIELDS,
      headers: r.status === 429 ? { 'retry-after': String(Number(r.values?.minutes ?? 1) * 60) } : undefined,
    });
  }
  return replyDone(submission, r.toast, { intent, resetForm: true, extra: { recoveryCodes: r.recoveryCodes ?? null } });
}

type Answer = Reply & { recoveryCodes?: string[] | null };

export default function Page() {
  const { t } = useTranslation();
  const { twoFactor, mustEnrol, impersonating } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer | undefined;
  const [codes, setCodes] = useState<string[] | null>(null);
  useReplyToast(answer, { onSuccess: (r) => { if (r.intent === 'confirm' && r.recoveryCodes) setCodes(r.recoveryCodes); } });
  const last = (intent: string) => (answer?.intent === intent ? answer.result : undefined);
  return (
    <section className="page security-page">
      <h1 className="page-title">{t('Security')}</h1>
      {mustEnrol ? (
        <p className="notice security-notice" role="status">{t('Two-factor sign-in is required for staff accounts. Set it up to continue.')}</p>
      ) : null}
      <div className="security-grid">
        <PasswordCard lastResult={last('password')} />
        <section className="card security-card" aria-labelledby="two-factor-title">
          <h2 id="two-factor-title" className="card-title">{t('Two-Factor Authentication')}</h2>
          {impersonating ? <p className="notice security-notice">{t('Only the account holder can change two-factor sign-in.')}</p> : null}
          {twoFactor.enabled ? (
            <Enabled enabledAt={twoFactor.enabledAt} recoveryLeft={twoFactor.recoveryLeft} readOnly={impersonating} lastResult={last('disable')} />
          ) : twoFactor.pending ? (
            <Enrol pending={twoFactor.pending} lastResult={last('confirm')} />
          ) : (
            <Off readOnly={impersonating} />
          )}
        </section>
      </div>
      <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
    </section>
  );
}

type LastResult = Answer['result'];

function PasswordCard({ lastResult }: { lastResult: LastResult }) {
  const { t } = useTranslation();
  const pending = useIsPending({ intent: 'password' });
  const [form, fields] = useSchemaForm({ id: 'change-password', schema: ChangePasswordSchema, lastResult });
  return (
    <section className="card security-card" aria-labelledby="password-title">
      <h2 id="password-title" className="card-title">{t('Change Password')}</h2>
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="password" />
        <Field label={t('Current Password')} errors={fields.currentPassword.errors}
          inputProps={{ ...getInputProps(fields.currentPassword, { type: 'password' }), autoComplete: 'current-password' }} />
        <Field label={t('New Password')} errors={fields.newPassword.errors} hint={t('At least 8 characters. Your other sessions are signed out.')}
          inputProps={{ ...getInputProps(fields.newPassword, { type: 'password' }), autoComplete: 'new-password' }} />
        <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
      </Form>
    </section>
  );
}

function Off({ readOnly }: { readOnly: boolean }) {
  const { t } = useTranslation();
  const pending = useIsPending({ intent: 'start' });
  return (
    <>
      <p><span className="chip">{t('Off')}</span></p>
      <p className="muted">{t('Add a second step to signing in: a 6-digit code from an authenticator app on your phone, such as Google Authenticator, Microsoft Authenticator or 1Password.')}</p>
      {readOnly ? null : (
        <Form method="post">
          <input type="hidden" name="intent" value="start" />
          <SubmitButton pending={pending}>{t('Set up two-factor sign-in')}</SubmitButton>
        </Form>
      )}
    </>
  );
}

function Enrol({ pending: setup, lastResult }: { pending: { secret: string; qr: string }; lastResult: LastResult }) {
  const { t } = useTranslation();
  const confirming = useIsPending({ intent: 'confirm' });
  const cancelling = useIsPending({ intent: 'cancel' });
  const [form, fields] = useSchemaForm({ id: 'two-factor-confirm', schema: TotpCodeSchema, lastResult });
  return (
    <ol className="totp-steps">
      <li>
        <p>{t('Scan this QR code with your authenticator app.')}</p>
        <img className="totp-qr" src={setup.qr} width={184} height={184} alt={t('QR code that adds this account to your authenticator app')} />
      </li>
      <li>
        <p>{t('Or enter this key in the app by hand:')}</p>
        <code className="totp-secret">{setup.secret}</code>
      </li>
      <li>
        <Form method="post" {...getFormProps(form)}>
          <input type="hidden" name="intent" value="confirm" />
          <Field label={t('Code from your app')} errors={fields.code.errors}
            inputProps={{ ...getInputProps(fields.code, { type: 'text' }), inputMode: 'numeric', autoComplete: 'one-time-code', spellCheck: false }} />
          <div className="security-actions">
            <SubmitButton pending={confirming}>{t('Verify and turn on')}</SubmitButton>
            {/* submits the cancel form below (a form cannot hold another) */}
            <SubmitButton tone="btn-ghost" pending={cancelling} form="two-factor-cancel">{t('Cancel')}</SubmitButton>
          </div>
        </Form>
        <Form method="post" id="two-factor-cancel" hidden>
          <input type="hidden" name="intent" value="cancel" />
        </Form>
      </li>
    </ol>
  );
}

function Enabled({ enabledAt, recoveryLeft, readOnly, lastResult }: { enabledAt: string | null; recoveryLeft: number; readOnly: boolean; lastResult: LastResult }) {
  const { t } = useTranslation();
  const f = useFormat();
  const pending = useIsPending({ intent: 'disable' });
  const [form, fields] = useSchemaForm({ id: 'two-factor-disable', schema: SecondFactorSchema, lastResult });
  return (
    <>
      <p><span className="chip chip-on">{t('On')}</span>{enabledAt ? <span className="muted"> {t('since {{date}}', { date: f.clientDateTime(enabledAt) })}</span> : null}</p>
      <p className="muted">{t('Signing in asks for a code from your authenticator app after your password.')}</p>
      <p>{t('Recovery codes left: {{count}}', { count: recoveryLeft })}</p>
      {readOnly ? null : (
        <Form method="post" {...getFormProps(form)}>
          <input type="hidden" name="intent" value="disable" />
          <Field label={t('Code from your app or a recovery code')} errors={fields.code.errors}
            inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'one-time-code', spellCheck: false, autoCapitalize: 'none' }} />
          <SubmitButton tone="btn-danger" pending={pending}>{t('Turn off two-factor sign-in')}</SubmitButton>
        </Form>
      )}
    </>
  );
}

/** The recovery codes, shown once, right after two-factor was turned on. */
function RecoveryCodes({ codes, onDone }: { codes: string[] | null; onDone: () => void }) {
  const { t } = useTranslation();
  const { push } = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes!.join('\n'));
      push({ type: 'success', title: 'Copied to clipboard' });
    } catch {
      push({ type: 'error', title: 'Something went wrong' });
    }
  };
  return (
    <Modal open={!!codes} onClose={onDone} dismissible={false} size="md" title={t('Save your recovery codes')}
      footer={<>
        <button type="button" className="btn" onClick={copy}>{t('Copy')}</button>
        <button type="button" className="btn btn-primary" onClick={onDone}>{t('I have saved them')}</button>
      </>}>
      <p>{t('Each code signs you in once if you lose your phone. They are shown only now: keep them somewhere safe.')}</p>
      <ul className="recovery-codes" aria-label={t('Recovery codes')}>
        {codes?.map((c) => <li key={c}><code>{c}</code></li>)}
      </ul>
    </Modal>
  );
}

export const meta = pageMeta('Security');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
