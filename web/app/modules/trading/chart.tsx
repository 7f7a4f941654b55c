// A candlestick chart of one instrument (lightweight-charts v4) from the engine's daily candles,
// its last candle moved by the live prices of the page's SSE connection.
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { IChartApi, ISeriesApi, UTCTimestamp } from 'lightweight-charts';
import { useRealtime, type PriceItem } from '~/shared/realtime.tsx';
import { useFormat } from '~/components/ui/format.ts';

interface Bar { time: UTCTimestamp; open: number; high: number; low: number; close: number }
const DAY = 86_400;

const THEMES = {
  dark: { bg: '#0f1419', text: '#c9d1d9', grid: '#1c2530', up: '#2ea043', down: '#f85149' },
  light: { bg: '#ffffff', text: '#1f2328', grid: '#eef1f4', up: '#1a7f37', down: '#cf222e' },
};

export function PriceChart({ symbol, digits = 5, theme = 'dark', className }: { symbol: string; digits?: number; theme?: 'dark' | 'light'; className?: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const el = useRef<HTMLDivElement>(null);
  const series = useRef<ISeriesApi<'Candlestick'> | null>(null);
  const last = useRef<Bar | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');

  useEffect(() => {
    let chart: IChartApi | undefined;
    let disposed = false;
    setState('loading');
    void (async () => {
      const { createChart, ColorType } = await import('lightweight-charts');
      if (disposed || !el.current) return;
      const c = THEMES[theme];
      chart = createChart(el.current, {
        autoSize: true,
        layout: { background: { type: ColorType.Solid, color: c.bg }, textColor: c.text },
        grid: { vertLines: { color: c.grid }, horzLines: { color: c.grid } },
        rightPriceScale: { borderColor: c.grid },
        // the axes and the crosshair in the page's language, through the formatting module (the
        // library's own are English months and numbers, and a lone day number among the months)
        localization: { locale: f.locale, priceFormatter: (p: number) => f.rate(p, digits), timeFormatter: (time: unknown) => f.chartDay(Number(time)) },
        timeScale: { borderColor: c.grid, timeVisible: false, tickMarkFormatter: (time: unknown, kind: number) => f.chartTick(Number(time), kind) },
      });
      const s = chart.addCandlestickSeries({
        upColor: c.up, downColor: c.down, borderUpColor: c.up, borderDownColor: c.down, wickUpColor: c.up, wickDownColor: c.down,
        priceFormat: { type: 'price', precision: digits, minMove: 1 / 10 ** digits },
      });
      series.current = s;
      try {
        const res = await fetch(`/dashboard/candles/${encodeURIComponent(symbol)}`, { headers: { accept: 'application/json' } });
        if (!res.ok) throw new Error(String(res.status));
        const body = (await res.json()) as { candles: { ts: number; open: number; high: number; low: number; close: number }[] };
        if (disposed) return;
        const bars: Bar[] = body.candles.map((k) => ({ time: Math.floor(k.ts / 1000) as UTCTimestamp, open: k.open, high: k.high, low: k.low, close: k.close }));
        s.setData(bars);
        last.current = bars.at(-1) ?? null;
        chart.timeScale().fitContent();
        setState('ready');
      } catch {
        if (!disposed) setState('error');
      }
    })();
    return () => {
      disposed = true;
      series.current = null;
      last.current = null;
      chart?.remove();
    };
  }, [symbol, theme, digits, f]);

  useRealtime((event, data) => {
    if (event !== 'priceUpdate' || !series.current) return;
    const item = (data as PriceItem[]).find((p) => p.name === symbol);
    if (!item) return;
    const mid = (item.bids + item.asks) / 2;
    const day = (Math.floor(Date.now() / 1000 / DAY) * DAY) as UTCTimestamp;
    const prev = last.current;
    const bar: Bar = !prev || prev.time < day
      ? { time: day, open: prev?.close ?? mid, high: Math.max(mid, prev?.close ?? mid), low: Math.min(mid, prev?.close ?? mid), close: mid }
      : { ...prev, high: Math.max(prev.high, mid), low: Math.min(prev.low, mid), close: mid };
    try {
      series.current.update(bar);
      last.current = bar;
    } catch { /* out-of-order bar */ }
  });

  return (
    <div className={`price-chart ${className ?? ''}`} data-state={state}>
      <div ref={el} className="price-chart-canvas" aria-label={t('Chart of {{symbol}}', { symbol: symbol.replace('_', '/') })} role="figure" />
      {state === 'loading' ? <div className="price-chart-note"><span className="spinner" aria-hidden="true" /> {t('Loading chart…')}</div> : null}
      {state === 'error' ? <div className="price-chart-note">{t('The chart is not available right now.')}</div> : null}
    </div>
  );
}
