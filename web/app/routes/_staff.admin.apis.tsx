import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { useFetcher, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getFormProps, getInputProps } from '@conform-to/react';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { parseIntent, type Reply } from '~/shared/forms.ts';
import { ErrorList, Field, SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { readApiCards, saveApiCard } from '~/modules/settings/apis.server.ts';
import { API_FIELDS, API_TITLES, ApiSchemas, type ApiCardView } from '~/modules/settings/apis.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/apis');

// /admin/apis — data-provider settings (admin only, from the permission map): a card per provider.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  return { cards: await readApiCards(sql) };
}

/** typed keys never travel back in a reply */
const HIDDEN = ['value1', 'value2'];

export async function action({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), ApiSchemas, { coerce: false });
  if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: HIDDEN });
  const r = await saveApiCard(sql, submission.value, { actorId: s.user.id, ip: clientIp(request, context) });
  if (!r.ok) return replyRefusal(submission, r, { intent, hideFields: HIDDEN });
  const name = API_TITLES[submission.value.intent];
  return replyDone(submission, '{{name}} updated successfully', { intent, values: { name }, resetForm: true });
}

export default function ApisPage() {
  const { t } = useTranslation();
  const { cards } = useLoaderData<typeof loader>();
  return (
    <section className="page">
      <h1 className="page-title">{t('API Settings')}</h1>
      <div className="api-cards">
        {cards.map((c) => <ApiCard key={`${c.key}:${JSON.stringify(c)}`} card={c} />)}
      </div>
    </section>
  );
}

function ApiCard({ card }: { card: ApiCardView }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<Reply>({ key: `api-${card.key}` });
  useFetcherToast(fetcher);
  const pending = fetcher.state !== 'idle';
  const [form, fields] = useSchemaForm({
    id: `api-${card.key}`, schema: ApiSchemas[card.key], parse: { coerce: false },
    lastResult: fetcher.state === 'idle' && !fetcher.data?.ok ? fetcher.data?.result : null,
    defaultValue: { intent: card.key, value1: card.values.value1 ?? '', value2: card.values.value2 ?? '', practice: card.practice ? 'on' : undefined },
  });
  const anySecret = Object.values(card.secrets).some((s) => s?.set);
  const title = t(API_TITLES[card.key]);
  return (
    <div className="card" data-testid={`api-card-${card.key}`}>
      <h2>{title}</h2>
      <fetcher.Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="intent" value={card.key} />
        {API_FIELDS[card.key].map((fd) => {
          const field = fields[fd.name];
          const secret = card.secrets[fd.name];
          return fd.secret ? (
            <Field key={fd.name} label={t(fd.label)} errors={field.errors}
              hint={secret?.set ? t('Stored ({{masked}}). Leave empty to keep it.', { masked: secret.masked }) : t('Not set')}
              inputProps={{ id: field.id, name: field.name, type: 'password', autoComplete: 'new-password', placeholder: secret?.set ? secret.masked : '' }} />
          ) : (
            <Field key={fd.name} label={t(fd.label)} errors={field.errors} inputProps={{ ...getInputProps(field, { type: 'text' }), autoComplete: 'off' }} />
          );
        })}
        {card.key === 'oandaAPI' ? (
          <div className="api-switch">
            <label className="switch">
              <input {...getInputProps(fields.practice, { type: 'checkbox', value: 'on' })} role="switch" />
              <span>{t('Practice account (fxpractice); off: live (fxtrade)')}</span>
            </label>
          </div>
        ) : null}
        {card.key === 'currencyAPI' ? (
          <p className="muted" data-testid="currency-quota">
            {t('Quota')}: {card.quota ? t('{{used}} used of {{total}} this month', { used: f.amount(card.quota.used), total: f.amount(card.quota.total) }) : t('not read yet')}
          </p>
        ) : null}
        {anySecret ? (
          <div className="api-switch">
            <label className="field-check settings-clear"><input type="checkbox" name="clear" value="on" /> {t('Remove the stored keys')}</label>
          </div>
        ) : null}
        <ErrorList id={form.errorId} errors={form.errors} />
        <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
      </fetcher.Form>
    </div>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
