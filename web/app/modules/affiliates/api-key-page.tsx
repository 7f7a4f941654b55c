// /affiliate/api: the read-only key field ('Click generate to get API key'), Generate, copy
// ('Copied to clipboard'), and the downloads: the API's documentation (OpenAPI description and a
// readable page) and the example leads CSV. The full key shows once, right after Generate.
import { useFetcher, useLoaderData } from '@remix-run/react';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { SubmitButton } from '~/components/ui/fields.tsx';
import { useFetcherToast, useToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import type { apiKeyLoader } from './api-key.server.ts';

export function ApiKeyPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { key, limit, maxBatch } = useLoaderData<typeof apiKeyLoader>();
  const fetcher = useFetcher<Reply & { key?: string; prefix?: string }>();
  const { push } = useToast();
  const id = useId();
  const hintId = useId();
  const pending = fetcher.state !== 'idle';
  useFetcherToast(fetcher);
  const fresh = fetcher.data?.ok && fetcher.data.key ? fetcher.data.key : null;
  const shown = fresh ?? (key ? `${key.prefix}…` : '');

  const copy = async () => {
    if (!fresh) return;
    try {
      await navigator.clipboard.writeText(fresh);
      push({ type: 'success', title: 'Copied to clipboard' });
    } catch {
      push({ type: 'error', title: 'Something went wrong' });
    }
  };

  return (
    <section className="page crm-config affiliate-api">
      <h1 className="page-title">{t('API Key')}</h1>
      <div className="card promo-card">
        <fetcher.Form method="post" className="promo-form">
          <input type="hidden" name="intent" value="generate" />
          <div className="field">
            <label htmlFor={id}>{t('API Key')}</label>
            <div className="promo-row">
              <input id={id} type="text" readOnly value={shown} placeholder={t('Click generate to get API key')} className="promo-input affiliate-key"
                aria-describedby={hintId} data-testid="api-key" />
              <button type="button" className="btn btn-ghost" onClick={copy} disabled={!fresh} aria-label={t('Copy API key')}>{t('Copy')}</button>
              <SubmitButton pending={pending}>{t('Generate')}</SubmitButton>
            </div>
          </div>
        </fetcher.Form>
        <p className="field-hint" id={hintId} role={fresh ? 'status' : undefined}>
          {fresh
            ? t('Copy your key now: it is shown only once. Only its fingerprint is kept.')
            : key
              ? t('Your key starting {{prefix}} was generated on {{date}}. Only its fingerprint is kept: generate a new key if you lost it; the old one stops working at once.', { prefix: key.prefix, date: f.dateTime(key.createdAt) })
              : t('Generate a key to send leads through the API. Generating a new key replaces the old one at once.')}
        </p>
      </div>
      <div className="card affiliate-api-docs">
        <h2 className="card-title">{t('API documentation')}</h2>
        <p>{t('Send leads with POST /api/v1/leads and your key in the Authorization header (Bearer) or X-API-Key; up to {{max}} leads per request, {{calls}} calls a minute per key.', { max: maxBatch, calls: limit.max })}</p>
        <ul className="affiliate-api-links">
          <li><a className="btn btn-sm" href="/api/v1/openapi.json?download" download="leads-api-openapi.json">{t('Download API documentation (OpenAPI)')}</a></li>
          <li><a className="btn btn-sm" href="/api/v1/docs" target="_blank" rel="noreferrer">{t('Read the API documentation')}</a></li>
          <li><a className="btn btn-sm" href="/leads-example.csv" download="leads-example.csv">{t('Download example leads CSV')}</a></li>
        </ul>
      </div>
    </section>
  );
}
