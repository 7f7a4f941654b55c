// /admin/crm-config/sales-statuses (docs/specs.md#crm-configuration): the server-paged table
// (status as its coloured chip, is default Yes / No, actions), 'Add New', the add / edit dialog
// (status, colour, is default) and the delete confirmation, which asks where the status's leads
// move when it has any.
import { useMemo, useState } from 'react';
import { useFetcher, useLoaderData } from '@remix-run/react';
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { ErrorList, Field, SelectField, SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import type { salesStatusesLoader, SalesStatusRow } from './sales-statuses.server.ts';
import { CRM_CONFIG_PARSE, DeleteSalesStatusSchema, SalesStatusSchema } from './schemas.ts';
import { DEFAULT_STATUS_COLOR, HEX_COLOR } from './colors.ts';
import { StatusChip } from './status-chip.tsx';

type Editing = { row: SalesStatusRow | null } | null;

export function SalesStatusesPage() {
  const { t } = useTranslation();
  const { rows, total, choices } = useLoaderData<typeof salesStatusesLoader>();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<SalesStatusRow | null>(null);

  const columns = useMemo<ColumnDef<SalesStatusRow>[]>(() => [
    { id: 'status', header: t('Status'), cell: ({ row }) => <StatusChip status={row.original.status} color={row.original.color} /> },
    {
      id: 'isDefault', header: t('Is Default'),
      cell: ({ row }) => <span className={`chip ${row.original.isDefault ? 'chip-open' : 'chip-closed'}`}>{row.original.isDefault ? t('Yes') : t('No')}</span>,
    },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit {{name}}', { name: row.original.status })}
            onClick={() => setEditing({ row: row.original })}>{t('Edit')}</button>
          <button type="button" className="btn btn-sm btn-ghost btn-danger-text" aria-label={t('Delete {{name}}', { name: row.original.status })}
            onClick={() => setDeleting(row.original)}>{t('Delete')}</button>
        </div>
      ),
    },
  ], [t]);

  const row = editing?.row ?? null;
  const defaults = row
    ? { status: row.status, color: row.color, isDefault: row.isDefault ? 'true' : 'false' }
    : { status: '', color: DEFAULT_STATUS_COLOR, isDefault: 'false' };

  return (
    <section className="page crm-config">
      <h1 className="page-title">{t('Sales Statuses')}</h1>
      <DataTable columns={columns} data={rows} total={total} getRowId={(r) => String(r.id)} caption={t('Sales Statuses')}
        toolbar={<button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ row: null })}>{t('Add New')}</button>} />

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={row?.id} intent="save" schema={SalesStatusSchema} parse={CRM_CONFIG_PARSE}
        title={row ? t('Edit Sales Status') : t('Add Sales Status')} defaultValue={defaults} size="sm">
        {(fields) => {
          const color = typeof fields.color.value === 'string' && HEX_COLOR.test(fields.color.value) ? fields.color.value : DEFAULT_STATUS_COLOR;
          const preview = typeof fields.status.value === 'string' && fields.status.value.trim() ? fields.status.value.trim() : t('Status');
          return (
            <>
              <Field label={t('Status')} errors={fields.status.errors} inputProps={{ ...getInputProps(fields.status, { type: 'text' }), autoComplete: 'off' }} />
              <div className="status-color-row">
                <Field label={t('Color')} errors={fields.color.errors} hint={t('The chip\'s text is black or white, whichever reads better on it.')}
                  inputProps={{ ...getInputProps(fields.color, { type: 'color' }), className: 'color-input' }} />
                <div className="status-preview" aria-live="polite">
                  <span className="muted">{t('Preview')}</span> <StatusChip status={preview} color={color} />
                </div>
              </div>
              <SelectField label={t('Is Default')} errors={fields.isDefault.errors}
                selectProps={getSelectProps(fields.isDefault)}
                options={[{ value: 'true', label: t('Yes') }, { value: 'false', label: t('No') }]} />
              <p className="field-hint">
                {row?.isDefault
                  ? t('This is the default status: new leads get it. To change that, make another status the default.')
                  : t('New leads get the default status. Making this one the default replaces the current default.')}
              </p>
            </>
          );
        }}
      </FormDialog>

      {deleting ? <DeleteStatusDialog row={deleting} choices={choices} onClose={() => setDeleting(null)} /> : null}
    </section>
  );
}

/**
 * 'Are you sure to delete this sale status?' and Yes; for a status that leads have, the status
 * they move to (required), and the default status cannot be deleted.
 */
function DeleteStatusDialog({ row, choices, onClose }: { row: SalesStatusRow; choices: { id: number; status: string; isDefault: boolean }[]; onClose: () => void }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<Reply>();
  const pending = fetcher.state !== 'idle';
  const others = choices.filter((c) => c.id !== row.id);
  // a lead status select starts on a value (issue 24): the default status (a new lead's), else the first other
  const preset = others.find((c) => c.isDefault) ?? others[0];
  const [form, fields] = useSchemaForm({
    id: `delete-status-${row.id}`, schema: DeleteSalesStatusSchema, parse: CRM_CONFIG_PARSE,
    defaultValue: { id: String(row.id), replacementId: preset ? String(preset.id) : '' },
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  useFetcherToast(fetcher, { onSuccess: onClose });
  // leads may have come to it since the page loaded: the server's refusal shows the select too
  const needsReplacement = row.inUse || !!fields.replacementId.errors?.length;
  return (
    <Modal open onClose={onClose} title={t('Delete {{name}}', { name: row.status })} size="sm" dismissible={!pending}
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>{t('Cancel')}</button>
        <SubmitButton form={form.id} tone="btn-danger" pending={pending} disabled={row.isDefault}>{t('Yes')}</SubmitButton>
      </>}>
      <fetcher.Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="delete" />
        <input type="hidden" name="id" value={row.id} />
        <p>{t('Are you sure to delete this sale status?')}</p>
        {row.isDefault ? (
          <p className="notice notice-warn" role="note">{t('The default status cannot be deleted. Make another status the default first.')}</p>
        ) : needsReplacement ? (
          <>
            <p className="notice notice-warn" role="note">{t('Leads have this status. Choose the status they move to.')}</p>
            <SelectField label={t('Move its leads to')} errors={fields.replacementId.errors}
              selectProps={{ ...getSelectProps(fields.replacementId), required: true }}
              options={others.map((c) => ({ value: String(c.id), label: c.status }))} />
          </>
        ) : null}
        <ErrorList id={form.errorId} errors={form.errors} />
      </fetcher.Form>
    </Modal>
  );
}
