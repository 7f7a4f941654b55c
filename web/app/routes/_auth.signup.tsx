// Sign-up at /signup (docs/specs.md#client-pages, #client-validation): a two-column form; an 'Account Created' modal
// whose text depends on the email-verification setting; the form is reset.
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { assertSameOrigin } from '~/shared/request.server.ts';
import { requireAnonymous } from '~/modules/auth/guards.server.ts';
import { authContext } from '~/modules/auth/request-context.server.ts';
import { AuthError, authErrorHeaders, retryAfterHeaders, loadAuthConfig, signUp } from '~/modules/auth/auth.server.ts';
import { SignupSchema } from '~/modules/auth/schemas.ts';
import { countryOptions } from '~/modules/auth/countries.server.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import { Recaptcha } from '~/modules/auth/recaptcha.tsx';
import { Field, SelectField, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import { parseForm } from '~/shared/forms.ts';
import { withPhoneRule } from '~/shared/contact.server.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { getRecaptchaSiteKey } from '~/modules/auth/captcha.server.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/signup');

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  const sql = db();
  const [cfg, siteKey] = await Promise.all([loadAuthConfig(sql), getRecaptchaSiteKey(sql)]);
  return {
    countries: countryOptions(await requestLocale(request, sql)),
    currencies: cfg.currencies,
    emailVerify: cfg.emailVerify,
    recaptchaSiteKey: siteKey,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const formData = await readFormData(request);
  const submission = parseForm(formData, withPhoneRule(SignupSchema));
  const hideFields = ['password', 'passwordConfirmation'];
  if (submission.status !== 'success') return replyRefused(submission, { hideFields, toast: null, extra: { created: null } });
  const ctx = await authContext(request, context);
  try {
    const created = await signUp(ctx.sql, ctx.cfg, ctx.store, { ...submission.value, ip: ctx.ip });
    return replyDone(submission, null, { resetForm: true, extra: { created: created as typeof created | null } });
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return replyRefused(submission, {
      status: e.status, headers: authErrorHeaders(e), formErrors: [e.message], hideFields, toast: e.message, values: e.values, extra: { created: null },
    });
  }
}

// Retry-After of a 429 reaches the browser
export const headers = retryAfterHeaders;

export default function SignUp() {
  const { countries, currencies, emailVerify, recaptchaSiteKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const pending = useIsPending();
  const [humanKey, setHumanKey] = useState('');
  const [created, setCreated] = useState(false);
  const [form, fields] = useSchemaForm({ id: 'signup', schema: SignupSchema, lastResult: actionData?.result, defaultValue: { currency: currencies[0] } });
  useReplyToast(actionData, {
    onSuccess: () => {
      setCreated(true);
      setHumanKey('');
    },
  });
  const verificationSent = actionData?.created?.verificationSent ?? emailVerify;
  return (
    <>
      <h1 className="auth-title">{t('Sign Up')}</h1>
      <Form method="post" {...getFormProps(form)} className="form-grid">
        <Field label={t('Full Name')} errors={fields.fullName.errors} inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'name' }} />
        <Field label={t('Email')} errors={fields.email.errors} inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email' }} />
        <Field label={t('Password')} errors={fields.password.errors} inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }} />
        <Field label={t('Confirm Password')} errors={fields.passwordConfirmation.errors} inputProps={{ ...getInputProps(fields.passwordConfirmation, { type: 'password' }), autoComplete: 'new-password' }} />
        <Field label={t('Phone')} errors={fields.phone.errors} inputProps={{ ...getInputProps(fields.phone, { type: 'tel' }), autoComplete: 'tel' }} />
        <Field label={t('Birth Date')} errors={fields.birthDate.errors} inputProps={{ ...getInputProps(fields.birthDate, { type: 'date' }), autoComplete: 'bday' }} />
        <SelectField label={t('Country')} errors={fields.country.errors} placeholder={t('Select country')}
          selectProps={{ ...getSelectProps(fields.country), autoComplete: 'country-name' }}
          options={countries} />
        <Field label={t('City')} errors={fields.city.errors} inputProps={{ ...getInputProps(fields.city, { type: 'text' }), autoComplete: 'address-level2' }} />
        <Field label={t('Address')} errors={fields.address.errors} inputProps={{ ...getInputProps(fields.address, { type: 'text' }), autoComplete: 'street-address' }} />
        <Field label={t('Postal Code')} errors={fields.postalCode.errors} inputProps={{ ...getInputProps(fields.postalCode, { type: 'text' }), autoComplete: 'postal-code' }} />
        <Field label={`${t('Promo Code')} (${t('optional')})`} errors={fields.promoCode.errors} inputProps={{ ...getInputProps(fields.promoCode, { type: 'text' }) }} />
        {currencies.length > 1 ? (
          <SelectField label={t('Currency')} errors={fields.currency.errors} selectProps={getSelectProps(fields.currency)}
            options={currencies.map((c) => ({ value: c, label: c }))} />
        ) : (
          <input {...getInputProps(fields.currency, { type: 'hidden' })} />
        )}
        {recaptchaSiteKey ? (
          <div className="span-2">
            <input type="hidden" name="humanKey" value={humanKey} />
            <Recaptcha siteKey={recaptchaSiteKey} onChange={setHumanKey} />
          </div>
        ) : null}
        <div className="span-2">
          <SubmitButton className="btn-block" pending={pending} disabled={!!recaptchaSiteKey && !humanKey}>{t('Sign Up')}</SubmitButton>
        </div>
      </Form>
      <p className="auth-alt">
        {t('Already have an account?')} <Link to="/">{t('Sign In')}</Link>
      </p>
      <Modal open={created} onClose={() => setCreated(false)} title={t('Account Created')} size="sm"
        footer={<Link to="/" className="btn btn-primary">{t('Login')}</Link>}>
        <p>{verificationSent
          ? t('A verification email has been sent to your email address. Please click the link in it to verify your account.')
          : t('Your account has been created successfully.')}</p>
      </Modal>
    </>
  );
}

export const meta = pageMeta('Sign Up');
