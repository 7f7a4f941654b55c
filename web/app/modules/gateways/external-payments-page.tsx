// /admin/externalPayments (docs/specs.md#payment-gateways): the server-paged list (ID, logo, name, link, custom
// label, custom value, actions), add and edit in one dialog (the logo is a file: multipart), and
// delete after 'Are you sure to delete this payment?'.
import { useMemo, useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import { getInputProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { ErrorList, Field } from '~/components/ui/fields.tsx';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { UPLOAD_KINDS } from '~/modules/uploads/kinds.ts';
import type { externalPaymentsLoader, ExternalPaymentRow } from './external-payments.server.ts';
import { ExternalPaymentSchema } from './external-schemas.ts';

const LOGO_ACCEPT = UPLOAD_KINDS.external_payment_logo.types.map((t) => `image/${t}`).join(',');

type Editing = { row: ExternalPaymentRow | null } | null;

export function ExternalPaymentsPage() {
  const { t } = useTranslation();
  const { rows, total } = useLoaderData<typeof externalPaymentsLoader>();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<ExternalPaymentRow | null>(null);

  const columns = useMemo<ColumnDef<ExternalPaymentRow>[]>(() => [
    { id: 'id', header: t('ID'), cell: ({ row }) => row.original.id },
    {
      id: 'logo', header: t('Logo'), enableSorting: false,
      cell: ({ row }) => (row.original.logo
        ? <img className="external-logo-thumb" src={row.original.logo} alt={row.original.name} width={40} height={40} loading="lazy" />
        : <span className="muted">—</span>),
    },
    { id: 'name', header: t('Name'), cell: ({ row }) => <strong>{row.original.name}</strong> },
    {
      id: 'link', header: t('Link'), enableSorting: false,
      cell: ({ row }) => (
        <a className="external-cell-text" href={row.original.link} target="_blank" rel="noopener noreferrer">
          {row.original.link}<span className="sr-only"> ({t('opens in a new tab')})</span>
        </a>
      ),
    },
    { id: 'customLabel', header: t('Custom label'), enableSorting: false, cell: ({ row }) => row.original.customLabel ?? <span className="muted">—</span> },
    { id: 'customValue', header: t('Custom value'), enableSorting: false, cell: ({ row }) => <span className="external-cell-text">{row.original.customValue ?? <span className="muted">—</span>}</span> },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit {{name}}', { name: row.original.name })}
            onClick={() => setEditing({ row: row.original })}>{t('Edit')}</button>
          <button type="button" className="btn btn-sm btn-ghost btn-danger-text" aria-label={t('Delete {{name}}', { name: row.original.name })}
            onClick={() => setDeleting(row.original)}>{t('Delete')}</button>
        </div>
      ),
    },
  ], [t]);

  const row = editing?.row ?? null;
  const defaults: Record<string, string> = row
    ? { name: row.name, link: row.link, customLabel: row.customLabel ?? '', customValue: row.customValue ?? '' }
    : {};

  return (
    <section className="page external-payments-admin">
      <h1 className="page-title">{t('External payments')}</h1>
      <DataTable columns={columns} data={rows} total={total} getRowId={(r) => String(r.id)} caption={t('External payments')}
        toolbar={<button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ row: null })}>{t('Add New')}</button>} />

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={row?.id} intent="save" schema={ExternalPaymentSchema} parse={CATALOG_PARSE}
        encType="multipart/form-data" title={row ? t('Edit External Payment') : t('Add External Payment')} defaultValue={defaults}>
        {(fields) => {
          const logoError = fields.logo.errors?.length ? 'external-logo-error' : undefined;
          return (
            <div className="form-grid">
              <div className="field span-2">
                <label htmlFor="external-logo">{t('Logo')}</label>
                <input id="external-logo" type="file" name="logo" accept={LOGO_ACCEPT}
                  aria-invalid={logoError ? true : undefined} aria-describedby={['external-logo-hint', logoError].filter(Boolean).join(' ')} />
                <div className="field-hint" id="external-logo-hint">
                  {row ? t('Leave empty to keep the current logo.') : t('PNG, JPEG, WebP or GIF, at most 1 MB')}
                </div>
                <div className="field-msg"><ErrorList id={logoError} errors={fields.logo.errors} /></div>
              </div>
              <Field label={t('Name')} errors={fields.name.errors} inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }} />
              <Field label={t('Link')} errors={fields.link.errors}
                inputProps={{ ...getInputProps(fields.link, { type: 'text' }), inputMode: 'url', placeholder: 'https://', autoComplete: 'off' }} />
              <Field label={t('Custom label')} errors={fields.customLabel.errors} inputProps={{ ...getInputProps(fields.customLabel, { type: 'text' }), autoComplete: 'off' }} />
              <Field label={t('Custom value')} errors={fields.customValue.errors} inputProps={{ ...getInputProps(fields.customValue, { type: 'text' }), autoComplete: 'off' }} />
            </div>
          );
        }}
      </FormDialog>

      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={deleting ? t('Delete {{name}}', { name: deleting.name }) : undefined} message={t('Are you sure to delete this payment?')} />
    </section>
  );
}
