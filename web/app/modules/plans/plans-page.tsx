// The back-office pricing plans page (docs/specs.md#trading-configuration): the table with the five leverages and the five
// stop-out values, add, 'Edit Plan' and delete.
import { useMemo, useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import { getInputProps, getTextareaProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import type { Category } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { ErrorList, Field } from '~/components/ui/fields.tsx';
import { plainDecimal, useFormat } from '~/components/ui/format.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import type { plansLoader, PlanAdminRow } from './plans-admin.server.ts';
import { PLAN_MARKETS, PlanSchema } from './schemas.ts';

/** The column headers and field labels per market, as the collector of i18n keys reads them. */
function marketLabels(t: TFunction) {
  return {
    leverageHeader: { forex: t('Forex Lev.'), commodity: t('Comm. Lev.'), stock: t('Stock Lev.'), index: t('Index Lev.'), crypto: t('Crypto Lev.') },
    stopoutHeader: { forex: t('Forex Stop-out'), commodity: t('Comm. Stop-out'), stock: t('Stock Stop-out'), index: t('Index Stop-out'), crypto: t('Crypto Stop-out') },
    leverage: { forex: t('Forex leverage'), commodity: t('Commodity leverage'), stock: t('Stock leverage'), index: t('Index leverage'), crypto: t('Crypto leverage') },
    stopout: { forex: t('Forex stop-out (%)'), commodity: t('Commodity stop-out (%)'), stock: t('Stock stop-out (%)'), index: t('Index stop-out (%)'), crypto: t('Crypto stop-out (%)') },
  } satisfies Record<string, Record<Category, string>>;
}

type Editing = { row: PlanAdminRow | null } | null;

export function PlansPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { rows, total, canEdit } = useLoaderData<typeof plansLoader>();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<PlanAdminRow | null>(null);
  const L = useMemo(() => marketLabels(t), [t]);

  const columns = useMemo<ColumnDef<PlanAdminRow>[]>(() => [
    { id: 'id', header: t('ID'), cell: ({ row }) => row.original.id },
    { id: 'name', header: t('Name'), cell: ({ row }) => <strong>{row.original.name}</strong> },
    { id: 'price', header: t('Price'), cell: ({ row }) => <span className="num">{f.money(row.original.price, row.original.currency)}</span> },
    ...PLAN_MARKETS.map((m): ColumnDef<PlanAdminRow> => ({
      id: `${m}Leverage`, header: L.leverageHeader[m],
      cell: ({ row }) => {
        const v = row.original.leverage[m];
        return v === null ? <span className="muted" title={t('The instrument\'s leverage')}>—</span> : <span className="num">1:{f.amount(v)}</span>;
      },
    })),
    ...PLAN_MARKETS.map((m): ColumnDef<PlanAdminRow> => ({
      id: `${m}Stopout`, header: L.stopoutHeader[m], enableSorting: false,
      cell: ({ row }) => {
        const v = row.original.stopout[m];
        return v === null ? <span className="muted" title={t('The default stop-out, 50 %')}>—</span> : <span className="num">{f.percent(v)}</span>;
      },
    })),
    // a manager reads the list: no actions column
    ...(!canEdit ? [] : [{
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }: { row: { original: PlanAdminRow } }) => (
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit {{name}}', { name: row.original.name })}
            onClick={() => setEditing({ row: row.original })}>{t('Edit')}</button>
          <button type="button" className="btn btn-sm btn-ghost btn-danger-text" aria-label={t('Delete {{name}}', { name: row.original.name })}
            onClick={() => setDeleting(row.original)}>{t('Delete')}</button>
        </div>
      ),
    } satisfies ColumnDef<PlanAdminRow>]),
  ], [t, f, L, canEdit]);

  const row = editing?.row ?? null;
  const defaults: Record<string, string> = row
    ? { name: row.name, description: row.description, price: row.price }
    : { price: '0' };
  if (row) {
    for (const m of PLAN_MARKETS) {
      defaults[`${m}Leverage`] = row.leverage[m] === null ? '' : String(row.leverage[m]);
      defaults[`${m}Stopout`] = plainDecimal(row.stopout[m]);
    }
  }

  return (
    <section className="page">
      <h1 className="page-title">{t('Pricing Plans')}</h1>
      <div className="compact-table">
        <DataTable columns={columns} data={rows} total={total} getRowId={(r) => String(r.id)} caption={t('Pricing Plans')}
          toolbar={canEdit ? <button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ row: null })}>{t('Add New')}</button> : undefined} />
      </div>

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={row?.id} intent="save" schema={PlanSchema} parse={CATALOG_PARSE}
        title={row ? t('Edit Plan') : t('Add Plan')} defaultValue={defaults} size="lg">
        {(fields) => {
          const description = getTextareaProps(fields.description);
          const descriptionError = fields.description.errors?.length ? `${description.id}-error` : undefined;
          return (
            <div className="form-grid">
              <Field label={t('Name')} errors={fields.name.errors} inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }} />
              <Field label={t('Price ({{currency}})', { currency: row?.currency ?? 'USD' })} errors={fields.price.errors}
                inputProps={{ ...getInputProps(fields.price, { type: 'text' }), inputMode: 'decimal' }} />
              <div className="field span-2">
                <label htmlFor={description.id}>{t('Description')}</label>
                <textarea {...description} rows={2} aria-invalid={descriptionError ? true : undefined} aria-describedby={descriptionError} />
                <div className="field-msg"><ErrorList id={descriptionError} errors={fields.description.errors} /></div>
              </div>
              {PLAN_MARKETS.map((m) => {
                const lev = fields[`${m}Leverage` as 'forexLeverage'];
                const so = fields[`${m}Stopout` as 'forexStopout'];
                return [
                  <Field key={`${m}-lev`} label={L.leverage[m]} errors={lev.errors}
                    inputProps={{ ...getInputProps(lev, { type: 'text' }), inputMode: 'numeric' }} />,
                  <Field key={`${m}-so`} label={L.stopout[m]} errors={so.errors}
                    inputProps={{ ...getInputProps(so, { type: 'text' }), inputMode: 'decimal' }} />,
                ];
              })}
              <div className="span-2 field-hint">
                <p>{t('Empty leverage: the instrument\'s own. Empty stop-out: the default 50 %.')}</p>
                <p>{t('A leverage change applies to new orders: open positions keep the margin they were opened with. A stop-out change applies to open positions at once.')}</p>
              </div>
            </div>
          );
        }}
      </FormDialog>

      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={deleting ? t('Delete {{name}}', { name: deleting.name }) : undefined} message={t('Are you sure to delete this plan?')} />
    </section>
  );
}
