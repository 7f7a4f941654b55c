import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { getFormProps, getInputProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { Category } from '@broker/engine/domain';
import { readSpreads, spreadsAction } from '~/modules/catalog/spreads.server.ts';
import { db } from '~/shared/db.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { SPREAD_MARKETS, SpreadsSchema } from '~/modules/catalog/schemas.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { ErrorList, Field, SubmitButton, useIsPending, useSchemaForm } from '~/components/ui/fields.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';
import { requestLocale } from '~/modules/i18n/i18n.server.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/spreads');

// /admin/spreads — Spread Settings (docs/specs.md#trading-configuration): one form, five required numbers.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return { spreads: await readSpreads(sql) };
}
export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  // numbers typed on the page are read in its language (docs/specs.md#number-input)
  return spreadsAction(sql, await readFormData(request), { actorId: s.user.id, ip: clientIp(request, context) }, await requestLocale(request, sql));
}


export default function SpreadsPage() {
  const { t } = useTranslation();
  const { spreads } = useLoaderData<typeof loader>();
  const reply = useActionData<Reply>();
  useReplyToast(reply);
  const pending = useIsPending();
  // a save shows the stored values again (the form starts over from what the loader read)
  const version = JSON.stringify(spreads);
  return (
    <section className="page">
      <h1 className="page-title">{t('Spread Settings')}</h1>
      <div className="card settings-card">
        <p className="muted">{t('The spread cost of an order is (ask − bid) × the market\'s spread × the amount.')}</p>
        <SpreadsForm key={version} spreads={spreads} lastResult={reply?.ok ? null : reply?.result} pending={pending} />
      </div>
    </section>
  );
}

function SpreadsForm({ spreads, lastResult, pending }: { spreads: Record<Category, string>; lastResult: Reply['result'] | null | undefined; pending: boolean }) {
  const { t } = useTranslation();
  const labels: Record<Category, string> = {
    forex: t('Forex Spread'), commodity: t('Commodity Spread'), index: t('Index Spread'), crypto: t('Crypto Spread'), stock: t('Stock Spread'),
  };
  const [form, fields] = useSchemaForm({
    id: 'spreads', schema: SpreadsSchema, parse: CATALOG_PARSE, lastResult,
    defaultValue: Object.fromEntries(SPREAD_MARKETS.map((m) => [`spread_${m}`, spreads[m]])),
  });
  return (
    <Form method="post" {...getFormProps(form)}>
      <div className="form-grid">
        {SPREAD_MARKETS.map((m) => {
          const field = fields[`spread_${m}` as 'spread_forex'];
          return <Field key={m} label={labels[m]} errors={field.errors} inputProps={{ ...getInputProps(field, { type: 'text' }), inputMode: 'decimal' }} />;
        })}
      </div>
      <ErrorList id={form.errorId} errors={form.errors} />
      <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
    </Form>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
