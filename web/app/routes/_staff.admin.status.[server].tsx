import { useEffect } from 'react';
import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData, useRevalidator } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { serverInfo } from '~/modules/status/server-info.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { useFormat } from '~/components/ui/format.ts';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/admin/status/server');

// /admin/status/server — Server Information (admin only, from the permission map): the web
// process's machine and the engine's (GET /v1/server through the contract's client), read again
// every few seconds while the page is open.
const REFRESH_MS = 5000;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAccess(request);
  const [web, eng] = await Promise.all([serverInfo(), engine().serverInfo()]);
  return { server: web, engine: eng.ok && 'server' in eng ? eng.server : null };
}

interface Figures {
  cpuModel: string; cpuUsage: number; cores: number; memoryUsage: number; totalMemoryMb: number;
  processMemoryMb: number; uptimeSeconds: number; processCpu?: number;
}

function InfoList({ info }: { info: Figures }) {
  const { t } = useTranslation();
  const f = useFormat();
  const rows: [string, string, number?][] = [
    [t('CPU Model'), info.cpuModel],
    [t('CPU Usage'), f.percent(info.cpuUsage), info.cpuUsage],
    [t('Logical Cores'), f.amount(info.cores)],
    [t('Memory Usage'), f.percent(info.memoryUsage), info.memoryUsage],
    [t('Total Memory'), t('{{mb}} MB', { mb: f.amount(info.totalMemoryMb) })],
    ...(info.processCpu !== undefined ? [[t('Process CPU'), f.percent(info.processCpu), info.processCpu] as [string, string, number]] : []),
    [t('Process Memory'), t('{{mb}} MB', { mb: f.amount(info.processMemoryMb) })],
    [t('Uptime'), t('{{hours}} h {{minutes}} min', { hours: f.amount(Math.floor(info.uptimeSeconds / 3600)), minutes: f.amount(Math.floor((info.uptimeSeconds % 3600) / 60)) })],
  ];
  return (
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
  );
}

export default function ServerInformation() {
  const { server, engine: eng } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => { if (document.visibilityState === 'visible' && state === 'idle') revalidate(); }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [revalidate, state]);
  return (
    <section className="page">
      <h1 className="page-title">{t('Server Information')}</h1>
      <div className="server-cards">
        <div className="card" data-testid="server-web">
          <h2>{t('Web server')}</h2>
          <InfoList info={server} />
        </div>
        <div className="card" data-testid="server-engine">
          <h2>{t('Trading engine')}</h2>
          {eng ? <InfoList info={eng} /> : <p className="notice notice-error" role="status">{t('The engine cannot be reached.')}</p>}
        </div>
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
