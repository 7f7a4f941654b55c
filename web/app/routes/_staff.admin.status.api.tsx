import { useCallback, useEffect, useState } from 'react';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData, useRevalidator } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { readApiCards } from '~/modules/settings/apis.server.ts';
import { HEALTH_APIS, HEALTH_LABELS, STALE_MESSAGE, STATUS_LABELS, applyHeartbeat, expireHealth, initialHealth, type HealthStatus } from '~/modules/status/health.ts';
import { useHeartbeatStream } from '~/modules/status/heartbeat-stream.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/status/api');

// /admin/status/api — API Status (Health Monitor, admin only from the permission map): a row per
// feed api turned Connected / Disconnected by the engine's live heartbeats, and the currency
// API's quota (read again every 30 s).
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql, context);
  const currency = (await readApiCards(sql)).find((c) => c.key === 'currencyAPI')!;
  return { currency: { configured: !!currency.secrets.value1?.set, quota: currency.quota ?? null } };
}

export function StatusText({ status }: { status: HealthStatus }) {
  const { t } = useTranslation();
  // the dot's colour and the word: colour is never the only cue
  return <span className={`api-status api-status-${status}`} data-status={status}>{t(STATUS_LABELS[status])}</span>;
}

export default function ApiStatusPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { currency } = useLoaderData<typeof loader>();
  const [rows, setRows] = useState(initialHealth);
  const onBeat = useCallback((data: unknown) => setRows((r) => applyHeartbeat(r, data)), []);
  const live = useHeartbeatStream(onBeat);
  // a row the engine stopped reporting on goes back to Checking rather than stay green
  useEffect(() => {
    const timer = setInterval(() => setRows((r) => expireHealth(r)), 5000);
    return () => clearInterval(timer);
  }, []);
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => { if (document.visibilityState === 'visible' && state === 'idle') revalidate(); }, 30_000);
    return () => clearInterval(timer);
  }, [revalidate, state]);
  return (
    <section className="page">
      <h1 className="page-title">{t('API Status')}</h1>
      <div className="card">
        <p className="muted" role="status">{live ? t('Live: rows update as the engine reports.') : t('Connecting to the engine…')}</p>
        <div className="table-scroll">
          <table className="health-table">
            <thead>
              <tr><th scope="col">{t('API')}</th><th scope="col">{t('Status')}</th><th scope="col">{t('Message')}</th><th scope="col">{t('Last update')}</th></tr>
            </thead>
            <tbody>
              {HEALTH_APIS.map((api) => {
                const r = rows[api];
                return (
                  <tr key={api} data-testid={`health-${api}`}>
                    <th scope="row">{t(HEALTH_LABELS[api])}</th>
                    <td><StatusText status={r.status} /></td>
                    <td className="health-msg">{r.msg === 'N/A' || r.msg === 'not configured' || r.msg === STALE_MESSAGE ? t(r.msg) : r.msg}</td>
                    <td className="health-msg">{r.at ? f.dateTime(r.at) : '—'}</td>
                  </tr>
                );
              })}
              <tr data-testid="health-currency">
                <th scope="row">{t('Currency API')}</th>
                <td>{currency.configured ? <StatusText status={currency.quota ? 'connected' : 'checking'} /> : <StatusText status="disconnected" />}</td>
                <td className="health-msg">
                  {!currency.configured ? t('not configured') : currency.quota
                    ? t('Quota: {{used}}/{{total}}', { used: f.amount(currency.quota.used), total: f.amount(currency.quota.total) }) : t('N/A')}
                </td>
                <td className="health-msg">—</td>
              </tr>
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
