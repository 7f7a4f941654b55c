import { data, type LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { db } from '~/shared/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { PriceChart } from '~/modules/trading/chart.tsx';
import { RealtimeProvider } from '~/shared/realtime.tsx';
import { findInstrument } from '~/modules/trading/symbol.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/mobile-chart/:symbol');

// /mobile-chart/:symbol — full-height chart, dark, daily, the symbol fixed by the URL (docs/specs.md#client-pages).
// EURUSD, EUR/USD, eur_usd all name EUR_USD; an unknown symbol answers 404 with the chart's
// "not available" note on the page rather than an empty chart.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql);
  const inst = await findInstrument(sql, params.symbol ?? '');
  if (!inst) return data({ symbol: null, label: params.symbol ?? '', digits: 5 }, { status: 404 });
  return { symbol: inst.name, label: inst.label, digits: inst.digits };
}

export default function Page() {
  const { t } = useTranslation();
  const { symbol, label, digits } = useLoaderData<typeof loader>();
  return (
    <RealtimeProvider pricesOnly>
      <main className="mobile-chart" data-theme="dark">
        <h1 className="sr-only">{label}</h1>
        {symbol
          ? <PriceChart symbol={symbol} digits={digits} theme="dark" className="full-height" />
          : <div className="price-chart full-height" data-state="error"><div className="price-chart-note" role="status">{t('The chart is not available right now.')}</div></div>}
      </main>
    </RealtimeProvider>
  );
}

export const meta = pageMeta('Chart');
