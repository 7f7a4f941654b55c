// The add-user and edit-user modals and the presence and status cells, shared by the customer
// lists and Admin & Staffs (docs/specs.md#customers-and-staff-lists). The add modal knows its list
// as the spec says (the URL's second segment: 'users' is Admin & Staffs, anything else customers)
// to pick the default role: 1 on Admin & Staffs, 3 on the customer lists.
import { getInputProps, getSelectProps } from '@conform-to/react';
import { Link, useLocation } from '@remix-run/react';
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
            options={roles.map((r) => ({ value: String(r), label: t(roleLabel(r)) }))} />
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

const ICONS = {
  edit: 'M4 20h4L18.5 9.5a2.1 2.1 0 0 0-4-4L4 16v4zM13.5 6.5l4 4',
  delete: 'M4 7h16M10 11v6M14 11v6M5 7l1 12a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2l1-12M9 7V4h6v3',
};
const Icon = ({ d }: { d: string }) => (
  <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round"><path d={d} /></svg>
);

/** A row action as an icon, named for screen readers and as a tooltip: a link (to) or a button (onClick). */
export function RowAction({ label, icon, to, onClick }: { label: string; icon: keyof typeof ICONS; to?: string; onClick?: () => void }) {
  const cls = `btn btn-sm btn-ghost user-action user-action-${icon}`;
  return to
    ? <Link to={to} className={cls} aria-label={label} title={label}><Icon d={ICONS[icon]} /></Link>
    : <button type="button" className={cls} aria-label={label} title={label} onClick={onClick}><Icon d={ICONS[icon]} /></button>;
}
