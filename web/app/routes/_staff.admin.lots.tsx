import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { Category } from '@broker/engine/domain';
import { CONTRACT_SIZE } from '@broker/engine/domain';
import { lotsAction, readLots, type LotSettings } from '~/modules/catalog/lots.server.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { LotsSchema, MAX_LOT_SIZES, SPREAD_MARKETS } from '~/modules/catalog/schemas.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { ErrorList, SelectField, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { useReplyToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/lots');

// /admin/lots — Lot Settings (docs/specs.md#trading-configuration): each market by 'lot' or 'amount', and the lot
// selector's sizes (label and units), saved together.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return readLots(sql);
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  // numbers typed on the page are read in its language (docs/specs.md#number-input)
  return lotsAction(sql, await readFormData(request), { actorId: s.user.id, ip: clientIp(request, context) }, await requestLocale(request, sql));
}


export default function LotsPage() {
  const { t } = useTranslation();
  const lots = useLoaderData<typeof loader>();
  const reply = useActionData<Reply>();
  useReplyToast(reply);
  const pending = useIsPending();
  return (
    <section className="page">
      <h1 className="page-title">{t('Lot Settings')}</h1>
      <LotsForm key={JSON.stringify(lots)} lots={lots} lastResult={reply?.ok ? null : reply?.result} pending={pending} />
    </section>
  );
}

function LotsForm({ lots, lastResult, pending }: { lots: LotSettings; lastResult: Reply['result'] | null | undefined; pending: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const labels: Record<Category, string> = { forex: t('Forex'), commodity: t('Commodities'), index: t('Indices'), crypto: t('Crypto'), stock: t('Stocks') };
  const [form, fields] = useSchemaForm({
    id: 'lots', schema: LotsSchema, parse: CATALOG_PARSE, lastResult,
    defaultValue: { ...Object.fromEntries(SPREAD_MARKETS.map((m) => [`lot_${m}`, lots.states[m]])), selector: lots.selector },
  });
  const rows = fields.selector.getFieldList();
  const options = [{ value: 'lot', label: t('Lot') }, { value: 'amount', label: t('Amount') }];
  return (
    <Form method="post" {...getFormProps(form)} className="lots-form">
      <div className="card settings-card">
        <h2 className="section-title">{t('Trade by lot or by amount')}</h2>
        <p className="muted">{t('By lot, the order dialog asks for lots (a forex lot is 100,000 units); by amount, for units.')}</p>
        <div className="form-grid">
          {SPREAD_MARKETS.map((m) => {
            const field = fields[`lot_${m}` as 'lot_forex'];
            return <SelectField key={m} label={labels[m]} errors={field.errors} selectProps={getSelectProps(field)} options={options} />;
          })}
        </div>
      </div>

      <div className="card settings-card">
        <h2 className="section-title">{t('Lot selector')}</h2>
        <p className="muted">{t('The sizes offered in the order dialog of a market traded by lot: a label and the units it stands for.')}</p>
        <table className="lot-table">
          <thead>
            <tr><th scope="col">{t('Label')}</th><th scope="col">{t('Value (units)')}</th><th scope="col"><span className="sr-only">{t('Actions')}</span></th></tr>
          </thead>
          <tbody>
            {rows.length === 0 ? <tr><td colSpan={3} className="table-empty">{t('No lot sizes')}</td></tr> : null}
            {rows.map((row, index) => {
              const r = row.getFieldset();
              const units = Number(r.value.value);
              const hint = !r.value.errors?.length && units > 0 ? `lot-hint-${index}` : undefined;
              return (
                <tr key={row.key}>
                  <td>
                    <input {...getInputProps(r.label, { type: 'text' })} aria-label={t('Label of size {{n}}', { n: index + 1 })}
                      aria-invalid={r.label.errors?.length ? true : undefined} aria-describedby={r.label.errors?.length ? r.label.errorId : undefined} />
                    <ErrorList id={r.label.errorId} errors={r.label.errors} />
                  </td>
                  <td>
                    <input {...getInputProps(r.value, { type: 'text' })} inputMode="decimal" aria-label={t('Value of size {{n}}', { n: index + 1 })}
                      aria-invalid={r.value.errors?.length ? true : undefined} aria-describedby={r.value.errors?.length ? r.value.errorId : hint} />
                    <ErrorList id={r.value.errorId} errors={r.value.errors} />
                    {hint ? (
                      <div id={hint} className="field-hint">{t('Forex lots: {{lots}}', { lots: f.amount(units / CONTRACT_SIZE.forex) })}</div>
                    ) : null}
                  </td>
                  <td>
                    <button className="btn btn-sm btn-ghost btn-danger-text" {...form.remove.getButtonProps({ name: fields.selector.name, index })}
                      aria-label={t('Remove size {{n}}', { n: index + 1 })}>{t('Remove')}</button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <ErrorList id={fields.selector.errorId} errors={fields.selector.errors} />
        <button className="btn btn-sm btn-ghost" disabled={rows.length >= MAX_LOT_SIZES}
          {...form.insert.getButtonProps({ name: fields.selector.name, defaultValue: { label: '', value: '' } })}>{t('Add row')}</button>
      </div>
      <ErrorList id={form.errorId} errors={form.errors} />
      <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
    </Form>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
