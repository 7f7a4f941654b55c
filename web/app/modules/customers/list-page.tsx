// All Customers and Inactive Customers (docs/specs.md#customers-and-staff-lists): the server pages,
// sorts and searches (state in the URL, the kit's debounce); each row shows its live presence,
// links to the customer's edit page and can be deleted after 'Are you sure to delete this user?'.
// Add opens the add-user modal (a customer by default).
import { useMemo, useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '@tanstack/react-table';
import { DataTable } from '~/components/ui/data-table.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { AddUserDialog, OnlineName, RowAction, StatusChip } from '~/modules/users/user-dialogs.tsx';
import type { CustomerRow, CustomersLoader } from './list.server.ts';
import { isCustomer } from '~/shared/roles.ts';

const TITLES = { all: 'All Customers', inactive: 'Inactive Customers' } as const;

export function CustomersPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const data = useLoaderData<CustomersLoader>();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<CustomerRow | null>(null);
  const title = t(TITLES[data.type]);

  const columns = useMemo<ColumnDef<CustomerRow>[]>(() => [
    { id: 'id', header: t('ID'), cell: ({ row: { original: r } }) => r.id },
    { id: 'full_name', header: t('Full Name'), cell: ({ row: { original: r } }) => <OnlineName name={r.fullName} online={r.online} /> },
    { id: 'email', header: t('Email'), cell: ({ row: { original: r } }) => <span className="user-email">{r.email}</span> },
    { id: 'phone', header: t('Phone'), enableSorting: false, cell: ({ row: { original: r } }) => r.phone || <span className="muted">—</span> },
    { id: 'birthDate', header: t('Birth Date'), enableSorting: false, cell: ({ row: { original: r } }) => (r.birthDate ? f.day(r.birthDate) : <span className="muted">—</span>) },
    { id: 'country', header: t('Country'), enableSorting: false, cell: ({ row: { original: r } }) => r.country || <span className="muted">—</span> },
    { id: 'role', header: t('Role'), enableSorting: false, cell: ({ row: { original: r } }) => t(isCustomer(r.roleId) ? 'Customer' : 'N/A') },
    { id: 'verified', header: t('Email Verified'), enableSorting: false, cell: ({ row: { original: r } }) => (r.isEmailVerified ? t('Yes') : t('No')) },
    { id: 'status', header: t('Status'), enableSorting: false, cell: ({ row: { original: r } }) => <StatusChip active={r.isActive} /> },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row: { original: r } }) => (
        <div className="row-actions">
          <RowAction to={`/admin/customers/edit/${r.id}`} icon="edit" label={t('Edit {{name}}', { name: r.fullName })} />
          <RowAction icon="delete" label={t('Delete {{name}}', { name: r.fullName })} onClick={() => setDeleting(r)} />
        </div>
      ),
    },
  ], [t, f]);

  return (
    <section className="page users-page">
      <h1 className="page-title">{title}</h1>
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={title}
        toolbar={<>
          {data.estimated ? <span className="muted">{t('More than {{limit}} match: the total is an estimate.', { limit: f.amount(data.countLimit) })}</span> : null}
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setAdding(true)}>{t('Add new')}</button>
        </>} />
      <AddUserDialog open={adding} onClose={() => setAdding(false)} roles={data.canAddStaff ? undefined : [3]} />
      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={t('Delete {{name}}', { name: deleting?.fullName ?? '' })} confirmLabel={t('Delete')}
        message={t('Are you sure to delete this user?')} />
    </section>
  );
}
