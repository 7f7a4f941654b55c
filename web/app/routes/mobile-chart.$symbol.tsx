import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/utils/db.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { pageMeta } from '~/modules/shell/meta.ts';
import { PriceChart } from '~/modules/trading/chart.tsx';
import { RealtimeProvider } from '~/modules/trading/realtime.tsx';

// /mobile-chart/:symbol — full-height chart, dark, daily, the symbol fixed by the URL (client-area.md §2).
export async function loader({ request, params }: LoaderFunctionArgs) {
  const sql = db();
  await requireAccess(request, sql);
  const symbol = params.symbol ?? '';
  const [inst] = await sql`SELECT name, base, quote, digits FROM instruments WHERE name = ${symbol}`;
  // an unknown symbol shows the chart's "not available" note (the candles answer 404)
  if (!inst) return { symbol, label: symbol, digits: 5 };
  return { symbol: inst.name as string, label: `${inst.base}/${inst.quote}`, digits: Number(inst.digits) };
}

export default function Page() {
  const { symbol, label, digits } = useLoaderData<typeof loader>();
  return (
    <RealtimeProvider pricesOnly>
      <main className="mobile-chart" data-theme="dark">
        <h1 className="sr-only">{label}</h1>
        <PriceChart symbol={symbol} digits={digits} theme="dark" className="full-height" />
      </main>
    </RealtimeProvider>
  );
}

export const meta = pageMeta('Chart');
