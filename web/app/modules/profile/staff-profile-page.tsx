// /admin/profile: the staff member's own record (docs/specs.md#profile). Two cards: the record
// (name and page language editable; email and role shown, changed by an admin under Admin &
// Staffs) and the password (current + new). Two-factor sign-in is set up on /security.
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Field, SelectField, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { ChangePasswordSchema } from '~/modules/auth/schemas.ts';
import { ROLE_LABELS, TWO_FACTOR_ENROL_PATH, type RoleId } from '~/modules/auth/permissions.ts';
import { StaffProfileSchema } from './schemas.ts';
import type { loadStaffProfile } from './staff-profile.server.ts';

export function StaffProfilePage() {
  const { t } = useTranslation();
  const { record, languages, language } = useLoaderData<Awaited<ReturnType<typeof loadStaffProfile>>>();
  const answer = useActionData() as Reply | undefined;
  useReplyToast(answer);
  const last = (intent: string) => (answer?.intent === intent ? answer.result : undefined);
  const detailsPending = useIsPending({ intent: 'details' });
  const passwordPending = useIsPending({ intent: 'password' });
  const [form, fields] = useSchemaForm({
    id: 'staff-profile', schema: StaffProfileSchema, lastResult: last('details'),
    defaultValue: { fullName: record.fullName, language },
  });
  const [pwForm, pw] = useSchemaForm({ id: 'staff-password', schema: ChangePasswordSchema, lastResult: last('password') });
  return (
    <section className="page staff-profile">
      <h1 className="page-title">{t('My Profile')}</h1>
      <div className="staff-profile-grid">
        <section className="card" aria-labelledby="staff-profile-title">
          <h2 id="staff-profile-title" className="card-title">{t('Details')}</h2>
          <Form method="post" {...getFormProps(form)}>
            <input type="hidden" name="intent" value="details" />
            <Field label={t('Full Name')} errors={fields.fullName.errors} inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'name' }} />
            <Field label={t('Email')} hint={t('Your email and role are changed by an admin under Admin & Staffs.')}
              inputProps={{ id: 'staff-profile-email', type: 'email', value: record.email, readOnly: true, 'aria-readonly': true, autoComplete: 'off' }} />
            <Field label={t('Role')} inputProps={{ id: 'staff-profile-role', type: 'text', value: t(ROLE_LABELS[record.roleId as RoleId] ?? ''), readOnly: true, 'aria-readonly': true }} />
            <SelectField label={t('Language')} errors={fields.language.errors} selectProps={getSelectProps(fields.language)}
              options={languages.map((l) => ({ value: l.code, label: l.name }))} />
            <SubmitButton pending={detailsPending}>{t('Save')}</SubmitButton>
          </Form>
        </section>
        <section className="card" aria-labelledby="staff-password-title">
          <h2 id="staff-password-title" className="card-title">{t('Change Password')}</h2>
          <Form method="post" {...getFormProps(pwForm)}>
            <input type="hidden" name="intent" value="password" />
            <Field label={t('Current Password')} errors={pw.currentPassword.errors}
              inputProps={{ ...getInputProps(pw.currentPassword, { type: 'password' }), autoComplete: 'current-password' }} />
            <Field label={t('New Password')} errors={pw.newPassword.errors} hint={t('At least 8 characters. Your other sessions are signed out.')}
              inputProps={{ ...getInputProps(pw.newPassword, { type: 'password' }), autoComplete: 'new-password' }} />
            <SubmitButton pending={passwordPending}>{t('Submit')}</SubmitButton>
          </Form>
          <p className="muted">
            {t('Two-Factor Authentication')}: {record.twoFactor ? t('On') : t('Off')}. <Link to={TWO_FACTOR_ENROL_PATH}>{t('Security')}</Link>
          </p>
        </section>
      </div>
    </section>
  );
}
