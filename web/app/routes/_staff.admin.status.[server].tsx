import { useEffect } from 'react';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData, useRevalidator } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { serverInfo } from '~/modules/status/server-info.server.ts';
import { useFormat } from '~/components/ui/format.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';

// /admin/status/server — Server Information (admin only, from the permission map): the web
// server's CPU and memory, read again every few seconds while the page is open.
const REFRESH_MS = 5000;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAccess(request);
  return { server: await serverInfo() };
}

export default function ServerInformation() {
  const { server } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const f = useFormat();
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => { if (document.visibilityState === 'visible' && state === 'idle') revalidate(); }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [revalidate, state]);
  const rows: [string, string, number?][] = [
    [t('CPU Model'), server.cpuModel],
    [t('CPU Usage'), f.percent(server.cpuUsage), server.cpuUsage],
    [t('Logical Cores'), f.amount(server.cores)],
    [t('Memory Usage'), f.percent(server.memoryUsage), server.memoryUsage],
    [t('Total Memory'), t('{{mb}} MB', { mb: f.amount(server.totalMemoryMb) })],
  ];
  return (
    <section className="page">
      <h1 className="page-title">{t('Server Information')}</h1>
      <div className="card">
        <dl className="server-info">
          {rows.map(([label, value, gauge]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>
                {value}
                {gauge !== undefined ? <meter min={0} max={100} low={70} high={90} optimum={0} value={gauge} aria-label={label} /> : null}
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
