// The add-user and edit-user modals and the presence and status cells, shared by the customer
// lists and Admin & Staffs (docs/specs.md#customers-and-staff-lists). The add modal knows its list
// as the spec says (the URL's second segment: 'users' is Admin & Staffs, anything else customers)
// to pick the default role: 1 on Admin & Staffs, 3 on the customer lists.
import { getInputProps, getSelectProps } from '@conform-to/react';
import { useLocation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { CheckboxField, Field, SelectField } from '~/components/ui/fields.tsx';
import { ALL_ROLES, AddUserSchema, EditUserSchema, ROLE_NAMES, STAFF_ROLES } from './schemas.ts';

/** The role column: 'Customer' for role 3; the spec shows N/A for others on the customer lists. */
export function roleLabel(roleId: number): string {
  return ROLE_NAMES[roleId] ?? 'N/A';
}

export function OnlineName({ name, online }: { name: string; online: boolean }) {
  const { t } = useTranslation();
  const label = online ? t('Online') : t('Offline');
  return (
    <span className="user-name">
      <span className={`dot ${online ? 'dot-open' : 'dot-closed'}`} title={label} aria-hidden="true" />
      <span className="sr-only">{label}: </span>
      <span>{name}</span>
    </span>
  );
}

export function StatusChip({ active }: { active: boolean }) {
  const { t } = useTranslation();
  return <span className={`chip ${active ? 'chip-approved' : 'chip-declined'}`}>{active ? t('Active') : t('Inactive')}</span>;
}

export function AddUserDialog({ open, onClose, roles = ALL_ROLES }: { open: boolean; onClose: () => void; roles?: readonly number[] }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const onUsers = pathname.split('/')[2] === 'users';
  const defaultRole = onUsers ? 1 : 3;
  return (
    <FormDialog open={open} onClose={onClose} schema={AddUserSchema} intent="add" title={t('Add user')} size="lg"
      defaultValue={{ roleId: defaultRole, isEmailVerified: 'on', isActive: 'on' }}>
      {(fields) => (
        <div className="form-grid user-form-grid">
          <Field label={t('Full name')} errors={fields.fullName.errors} inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'off' }} />
          <Field label={t('Email')} errors={fields.email.errors} inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off' }} />
          <Field label={t('Password')} errors={fields.password.errors} inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }} />
          <SelectField label={t('Role')} errors={fields.roleId.errors} selectProps={getSelectProps(fields.roleId)}
            options={roles.filter((r) => !onUsers || r !== 3).map((r) => ({ value: String(r), label: t(roleLabel(r)) }))} />
          <CheckboxField label={t('Email verified')} inputProps={getInputProps(fields.isEmailVerified, { type: 'checkbox' })} />
          <CheckboxField label={t('Active')} inputProps={getInputProps(fields.isActive, { type: 'checkbox' })} />
        </div>
      )}
    </FormDialog>
  );
}

export interface EditableUser { id: number; fullName: string; email: string; roleId: number; isEmailVerified: boolean; isActive: boolean; whitelist: string }

export function EditUserDialog({ user, onClose }: { user: EditableUser | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <FormDialog open={!!user} onClose={onClose} schema={EditUserSchema} intent="edit" id={user?.id} title={t('Edit user')} size="lg"
      defaultValue={user ? {
        fullName: user.fullName, email: user.email, roleId: user.roleId, isEmailVerified: user.isEmailVerified ? 'on' : undefined, isActive: user.isActive ? 'on' : undefined, whitelist: user.whitelist,
      } : undefined}>
      {(fields) => (
        <div className="form-grid user-form-grid">
          <Field label={t('Full name')} errors={fields.fullName.errors} inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'off' }} />
          <Field label={t('Email')} errors={fields.email.errors} inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off' }} />
          <Field label={t('Password')} errors={fields.password.errors} hint={t('Leave empty to keep the current password')}
            inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }} />
          <SelectField label={t('Role')} errors={fields.roleId.errors} selectProps={getSelectProps(fields.roleId)}
            options={STAFF_ROLES.map((r) => ({ value: String(r), label: t(roleLabel(r)) }))} />
          <Field label={t('IP whitelist')} errors={fields.whitelist.errors} className="user-form-wide"
            hint={t('Comma-separated IP addresses or CIDR ranges; blank disables whitelisting')}
            inputProps={{ ...getInputProps(fields.whitelist, { type: 'text' }), autoComplete: 'off', placeholder: '203.0.113.5, 10.0.0.0/8' }} />
          <CheckboxField label={t('Email verified')} inputProps={getInputProps(fields.isEmailVerified, { type: 'checkbox' })} />
          <CheckboxField label={t('Active')} inputProps={getInputProps(fields.isActive, { type: 'checkbox' })} />
        </div>
      )}
    </FormDialog>
  );
}
