// /profile — the signed-in user's profile form (docs/specs.md#client-pages, #client-validation):
// full name, email read-only, phone, birth date, country from the offline list, city, address,
// postal code; PUT /profile/me's fields. A retention agent signed in as the customer sees the
// phone masked and disabled (docs/specs.md#agent-masking).
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { replyOutcome } from '~/shared/result.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { loadProfile, phoneLocked, saveProfile } from '~/modules/profile/profile.server.ts';
import { ProfileSchema, ProfileSchemaPhoneLocked } from '~/modules/profile/schemas.ts';
import { Field, SelectField, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { parseForm } from '~/shared/forms.ts';
import { withPhoneRule } from '~/shared/contact.server.ts';
import { useReplyToast } from '~/components/ui/toast.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/profile');

export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return loadProfile(sql, s, await requestLocale(request, sql));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const locked = await phoneLocked(sql, s);
  const submission = parseForm(await readFormData(request), locked ? ProfileSchemaPhoneLocked : withPhoneRule(ProfileSchema));
  if (submission.status !== 'success') return replyRefused(submission);
  const r = await saveProfile(sql, s, submission.value, clientIp(request, context));
  return replyOutcome(submission, r);
}

export default function Page() {
  const { t } = useTranslation();
  const { profile, countries } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const [form, fields] = useSchemaForm({
    id: 'profile',
    // typed as the full form; a locked phone is neither rendered as a field nor validated
    schema: (profile.phoneLocked ? ProfileSchemaPhoneLocked : ProfileSchema) as typeof ProfileSchema,
    lastResult: actionData?.result,
    defaultValue: {
      fullName: profile.fullName, ...(profile.phoneLocked ? {} : { phone: profile.phone }), birthDate: profile.birthDate ?? '',
      country: profile.country, city: profile.city, address: profile.address, postalCode: profile.postalCode,
    },
  });
  useReplyToast(actionData);
  return (
    <section className="card profile-card">
      <h1 className="page-title">{t('Personal Information')}</h1>
      <Form method="post" {...getFormProps(form)} className="form-grid">
        <Field label={t('Full Name')} errors={fields.fullName.errors} inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'name' }} />
        <Field label={t('Email')} hint={t('Your email address cannot be changed.')}
          inputProps={{ id: 'profile-email', type: 'email', value: profile.email, readOnly: true, 'aria-readonly': true, autoComplete: 'off' }} />
        {profile.phoneLocked ? (
          <Field label={t('Phone')} hint={t('Hidden in agent sessions')}
            inputProps={{ id: 'profile-phone', type: 'text', value: profile.phone, disabled: true }} />
        ) : (
          <Field label={t('Phone')} errors={fields.phone.errors} inputProps={{ ...getInputProps(fields.phone, { type: 'tel' }), autoComplete: 'tel' }} />
        )}
        <Field label={t('Birth Date')} errors={fields.birthDate.errors} inputProps={{ ...getInputProps(fields.birthDate, { type: 'date' }), autoComplete: 'bday' }} />
        <SelectField label={t('Country')} errors={fields.country.errors} placeholder={t('Select country')}
          selectProps={{ ...getSelectProps(fields.country), autoComplete: 'country-name' }}
          options={countries} />
        <Field label={t('City')} errors={fields.city.errors} inputProps={{ ...getInputProps(fields.city, { type: 'text' }), autoComplete: 'address-level2' }} />
        <Field label={t('Address')} errors={fields.address.errors} inputProps={{ ...getInputProps(fields.address, { type: 'text' }), autoComplete: 'street-address' }} />
        <Field label={t('Postal Code')} errors={fields.postalCode.errors} inputProps={{ ...getInputProps(fields.postalCode, { type: 'text' }), autoComplete: 'postal-code' }} />
        <div className="span-2 form-actions">
          <SubmitButton pending={pending}>{t('Save')}</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

export const meta = pageMeta('Personal Information');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
