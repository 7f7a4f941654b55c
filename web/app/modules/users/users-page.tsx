// Admin & Staffs (/admin/users; docs/specs.md#customers-and-staff-lists): the staff users (roles 1,
// 2, 4, 5, 6) paged, sorted and searched on the server; add (an admin by default), edit ('Edit
// user': role, whitelist, optional new password) and delete after 'Are you sure to delete this user?'.
import { useMemo, useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '@tanstack/react-table';
import { DataTable } from '~/components/ui/data-table.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { AddUserDialog, EditUserDialog, OnlineName, RowAction, StatusChip, roleLabel } from './user-dialogs.tsx';
import type { StaffRow, usersLoader } from './list.server.ts';

export function UsersPage() {
  const { t } = useTranslation();
  const data = useLoaderData<typeof usersLoader>();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<StaffRow | null>(null);
  const [deleting, setDeleting] = useState<StaffRow | null>(null);
  const title = t('Admin & Staffs');

  const columns = useMemo<ColumnDef<StaffRow>[]>(() => [
    { id: 'id', header: t('ID'), cell: ({ row: { original: r } }) => r.id },
    { id: 'full_name', header: t('Full Name'), cell: ({ row: { original: r } }) => <OnlineName name={r.fullName} online={r.online} /> },
    { id: 'email', header: t('Email'), cell: ({ row: { original: r } }) => <span className="user-email">{r.email}</span> },
    { id: 'role', header: t('Role'), enableSorting: false, cell: ({ row: { original: r } }) => t(roleLabel(r.roleId)) },
    { id: 'verified', header: t('Email Verified'), enableSorting: false, cell: ({ row: { original: r } }) => (r.isEmailVerified ? t('Yes') : t('No')) },
    { id: 'status', header: t('Status'), enableSorting: false, cell: ({ row: { original: r } }) => <StatusChip active={r.isActive} /> },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row: { original: r } }) => (
        <div className="row-actions">
          <RowAction icon="edit" label={t('Edit {{name}}', { name: r.fullName })} onClick={() => setEditing(r)} />
          {r.id === data.me ? null : <RowAction icon="delete" label={t('Delete {{name}}', { name: r.fullName })} onClick={() => setDeleting(r)} />}
        </div>
      ),
    },
  ], [t, data.me]);

  return (
    <section className="page users-page">
      <h1 className="page-title">{title}</h1>
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={title}
        toolbar={<button type="button" className="btn btn-primary btn-sm" onClick={() => setAdding(true)}>{t('Add new')}</button>} />
      {/* docs/specs.md#customers-and-staff-lists: the add form offers every role, 1 to 6 (a customer added here is provisioned as on the customer lists) */}
      <AddUserDialog open={adding} onClose={() => setAdding(false)} />
      <EditUserDialog user={editing} onClose={() => setEditing(null)} />
      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={t('Delete {{name}}', { name: deleting?.fullName ?? '' })} confirmLabel={t('Delete')}
        message={t('Are you sure to delete this user?')} />
    </section>
  );
}
