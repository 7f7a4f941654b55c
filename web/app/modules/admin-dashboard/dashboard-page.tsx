// The admin dashboard (/admin; docs/specs.md#admin-dashboard): From / To with Reset (state in the URL), the
// five cards, the Recent Transactions bar chart and the Trade Engagement pie, and the live open
// exposure, valued with the domain's exposure formula at the prices the engine streams; a position
// opened or closed (the stream's staff topic `exposure`) has the table read again (GET
// /admin/exposure, at most once a second), so rows come and go without a reload. The charts
// are recharts 2 (recharts 3 renders no SVG on the server: recharts/recharts#5997), drawn at a
// fixed width that fits a 390 px screen on the server and at the card's width once the page runs;
// each has a table for screen readers, and the SVG itself is hidden from them.
import { useEffect, useRef, useState } from 'react';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Cell, Pie, PieChart, Tooltip, XAxis, YAxis } from 'recharts';
import { float, type Category } from '@broker/engine/domain';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import { RealtimeProvider, useRealtime, useRealtimeStatus, type PriceItem } from '~/shared/realtime.tsx';
import type { DashboardLoaderData } from './route.server.ts';
import type { DashboardData, ExposureRow } from './dashboard.server.ts';

const CATEGORY_LABELS: Record<Category, string> = {
  forex: 'Forex', commodity: 'Commodities', index: 'Indices', stock: 'Stocks', crypto: 'Crypto',
};

/** The width a chart is drawn at on the server (fits a 390 px screen); the card's width once the page runs. */
const SERVER_CHART_WIDTH = 300;
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(SERVER_CHART_WIDTH);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => {
      const w = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (w > 0) setWidth(Math.max(220, w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

export function DashboardPage() {
  const { t } = useTranslation();
  const data = useLoaderData<DashboardLoaderData>();
  const d = data.dashboard;
  return (
    <section className="page admin-dash">
      <h1 className="page-title">{t('Dashboard')}</h1>
      <DateFilter data={data} />
      {d ? (
        <>
          <Cards d={d} />
          <p className="muted admin-dash-note">
            {t('Money figures are in {{currency}}, the site currency, and leave out demo wallets; wallets in other currencies are converted at the live rate. Trade counts include demo trades.', { currency: d.currency })}
            {d.unconverted.length ? <> {t('Left out for want of a conversion rate: {{currencies}}.', { currencies: d.unconverted.join(', ') })}</> : null}
          </p>
          <div className="admin-dash-charts">
            <RecentChart d={d} />
            <EngagementChart d={d} />
          </div>
          <RealtimeProvider exposure>
            <ExposurePanel initial={d.exposure} currency={d.currency} />
          </RealtimeProvider>
        </>
      ) : <p className="muted">{t('Correct the dates to see the figures.')}</p>}
    </section>
  );
}

function DateFilter({ data }: { data: DashboardLoaderData }) {
  const { t } = useTranslation();
  const nav = useNavigation();
  const err = data.filterError;
  const fv = data.filters;
  const invalid = (name: string) => (err?.field === name ? { 'aria-invalid': true, 'aria-describedby': 'dash-date-error' } : {});
  const busy = nav.state === 'loading' && nav.location?.pathname === '/admin';
  return (
    <Form method="get" className="card admin-dash-filter" aria-label={t('Dates')}>
      <div className="field">
        <label htmlFor="dash-from">{t('From')}</label>
        <input id="dash-from" name="dateStart" type="date" defaultValue={fv.dateStart} key={`f${fv.dateStart}`} min="1970-01-01" max="2100-12-31" {...invalid('dateStart')} />
        {err?.field === 'dateStart' ? <p id="dash-date-error" className="field-error" role="alert">{t(err.message)}</p> : null}
      </div>
      <div className="field">
        <label htmlFor="dash-to">{t('To')}</label>
        <input id="dash-to" name="dateEnd" type="date" defaultValue={fv.dateEnd} key={`t${fv.dateEnd}`} min="1970-01-01" max="2100-12-31" {...invalid('dateEnd')} />
        {err?.field === 'dateEnd' ? <p id="dash-date-error" className="field-error" role="alert">{t(err.message)}</p> : null}
      </div>
      <div className="admin-dash-filter-buttons">
        <button type="submit" className="btn btn-primary" disabled={busy} aria-busy={busy}>{t('Apply')}</button>
        <Link className="btn btn-ghost" to="/admin">{t('Reset')}</Link>
      </div>
      {err && err.field !== 'dateStart' && err.field !== 'dateEnd' ? <p className="field-error" role="alert">{t(err.message)}</p> : null}
    </Form>
  );
}

function Cards({ d }: { d: DashboardData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const pl = d.profitLoss;
  const sign = (v: string) => (Number(v) > 0 ? 'up' : Number(v) < 0 ? 'down' : '');
  const period = d.range.dateStart || d.range.dateEnd
    ? t('{{from}} to {{to}}', { from: d.range.dateStart ? f.day(d.range.dateStart) : t('the start'), to: d.range.dateEnd ? f.day(d.range.dateEnd) : t('today') })
    : t('All time');
  return (
    <>
      <p className="admin-dash-period"><span className="muted">{t('Period')}:</span> {period}</p>
      <ul className="admin-dash-cards" aria-label={t('Totals')}>
        <li className="card admin-dash-card">
          <h2>{t('Total Deposits')}</h2>
          <p className="admin-dash-figure">{f.money(d.totalDeposits.amount, d.currency)}</p>
          <p className="muted">{t('{{n}} approved', { n: f.amount(d.totalDeposits.count) })}</p>
        </li>
        <li className="card admin-dash-card">
          <h2>{t('Total Withdraws')}</h2>
          <p className="admin-dash-figure">{f.money(d.totalWithdraws.amount, d.currency)}</p>
          <p className="muted">{t('{{n}} approved', { n: f.amount(d.totalWithdraws.count) })}</p>
        </li>
        <li className="card admin-dash-card">
          <h2>{t('Total Trades')}</h2>
          <p className="admin-dash-figure">{f.amount(d.totalTrades)}</p>
          <p className="muted">{t('opened in the period')}</p>
        </li>
        <li className="card admin-dash-card">
          <h2>{t('Total Users')}</h2>
          <p className="admin-dash-figure">{f.amount(d.totalUsers)}</p>
          <p className="muted">{t('customers who signed up')}</p>
        </li>
        <li className="card admin-dash-card admin-dash-pl">
          <h2>{t('Profit/Loss')}</h2>
          <p className={`admin-dash-figure ${sign(pl.total)}`}>{f.money(pl.total, d.currency)}</p>
          <dl className="admin-dash-breakdown">
            <div><dt>{t('Trading')}</dt><dd className={sign(pl.trading)}>{f.money(pl.trading, d.currency)}</dd></div>
            <div><dt>{t('Spreads')}</dt><dd>{f.money(pl.spreads, d.currency)}</dd></div>
            <div><dt>{t('Fees')}</dt><dd>{f.money(pl.fees, d.currency)}</dd></div>
          </dl>
          <p className="muted">{t("The broker's result: customers' realised losses less their profits on {{n}} closed trades, with the spreads and the deposit and withdrawal fees.", { n: f.amount(pl.closedTrades) })}</p>
        </li>
      </ul>
    </>
  );
}

function RecentChart({ d }: { d: DashboardData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [ref, width] = useWidth();
  const rows = d.recent.days.map((day, i) => ({ day, label: f.day(day, true), deposits: Number(d.recent.deposits[i]), withdrawals: Number(d.recent.withdrawals[i]) }));
  const money = (v: string) => f.money(v, d.currency);
  const narrow = width < 420;
  return (
    <section className="card admin-dash-chart" aria-labelledby="dash-recent-title">
      <h2 id="dash-recent-title" className="card-title">{t('Recent Transactions')}</h2>
      <p className="muted admin-dash-sub">{t('Approved deposits and withdrawals per day, {{from}} to {{to}}', { from: f.day(d.recent.days[0]), to: f.day(d.recent.days[d.recent.days.length - 1]) })}</p>
      <ul className="admin-dash-legend" aria-hidden="true">
        <li><span className="swatch swatch-deposits" />{t('Deposits')}</li>
        <li><span className="swatch swatch-withdrawals" />{t('Withdrawals')}</li>
      </ul>
      <div ref={ref} className="admin-dash-plot" aria-hidden="true">
        <BarChart width={width} height={narrow ? 240 : 320} data={rows} barCategoryGap="22.5%" accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} className="admin-dash-grid" />
          <XAxis dataKey="label" tickLine={false} className="admin-dash-axis" interval={0} fontSize={narrow ? 11 : 12} />
          <YAxis width={narrow ? 56 : 88} tickLine={false} className="admin-dash-axis" fontSize={narrow ? 11 : 12}
            tickFormatter={(v: number) => f.amount(Math.round(v))} />
          <Tooltip cursor={{ className: 'admin-dash-cursor' }} content={({ active, payload }) => {
            const p = active && payload?.length ? (payload[0].payload as (typeof rows)[number]) : null;
            if (!p) return null;
            const i = d.recent.days.indexOf(p.day);
            return (
              <div className="admin-dash-tip">
                <strong>{f.day(p.day)}</strong>
                <div><span className="swatch swatch-deposits" />{t('Deposits')}: {money(d.recent.deposits[i])}</div>
                <div><span className="swatch swatch-withdrawals" />{t('Withdrawals')}: {money(d.recent.withdrawals[i])}</div>
              </div>
            );
          }} />
          <Bar dataKey="deposits" className="admin-dash-bar-deposits" isAnimationActive={false} />
          <Bar dataKey="withdrawals" className="admin-dash-bar-withdrawals" isAnimationActive={false} />
        </BarChart>
      </div>
      <table className="sr-only">
        <caption>{t('Recent Transactions')} ({d.currency})</caption>
        <thead><tr><th scope="col">{t('Date')}</th><th scope="col">{t('Deposits')}</th><th scope="col">{t('Withdrawals')}</th></tr></thead>
        <tbody>
          {d.recent.days.map((day, i) => (
            <tr key={day}><th scope="row">{f.day(day)}</th><td>{money(d.recent.deposits[i])}</td><td>{money(d.recent.withdrawals[i])}</td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function EngagementChart({ d }: { d: DashboardData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [ref, width] = useWidth();
  const total = d.engagement.reduce((s, e) => s + e.trades, 0);
  const slices = d.engagement.filter((e) => e.trades > 0);
  const size = Math.min(240, width);
  return (
    <section className="card admin-dash-chart" aria-labelledby="dash-engagement-title">
      <h2 id="dash-engagement-title" className="card-title">{t('Trade Engagement')}</h2>
      <p className="muted admin-dash-sub">{t('Trades opened in the period per instrument category')}</p>
      <div className="admin-dash-pie">
        <div ref={ref} className="admin-dash-plot" aria-hidden="true">
          {total > 0 ? (
            <PieChart width={size} height={size} accessibilityLayer={false}>
              <Pie data={slices} dataKey="trades" nameKey="category" innerRadius="45%" outerRadius="95%" isAnimationActive={false} stroke="none" rootTabIndex={-1}>
                {slices.map((e) => <Cell key={e.category} className={`admin-dash-slice-${e.category}`} />)}
              </Pie>
            </PieChart>
          ) : <p className="muted">{t('No trades in this period.')}</p>}
        </div>
        <table className="admin-dash-table admin-dash-engagement">
          <caption className="sr-only">{t('Trade Engagement')}</caption>
          <thead><tr><th scope="col">{t('Category')}</th><th scope="col">{t('Trades')}</th><th scope="col">{t('Share')}</th></tr></thead>
          <tbody>
            {d.engagement.map((e) => (
              <tr key={e.category}>
                <th scope="row"><span className={`swatch admin-dash-swatch-${e.category}`} aria-hidden="true" />{t(CATEGORY_LABELS[e.category])}</th>
                <td>{f.amount(e.trades)}</td>
                <td>{total > 0 ? f.percent((e.trades / total) * 100) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The live value of a row: −(the customers' P/L) at the bid and ask, with the domain's exposurePnl. */
function brokerPnlAt(r: ExposureRow, bid: number, ask: number): number {
  return -float.exposurePnl({ long: Number(r.long), short: Number(r.short), offset: Number(r.offset) }, bid, ask);
}

/** The least time between two reads of the exposure after positions opened or closed. */
const EXPOSURE_READ_GAP_MS = 1000;

/**
 * The exposure rows: the loader's, then read again (GET /admin/exposure) when the stream says a
 * position opened or closed, and when the stream (re)opens (what it missed meanwhile): at most one
 * read at a time, at most one a second, the last event always followed by a read.
 */
function useExposureRows(initial: ExposureRow[]) {
  const [rows, setRows] = useState(initial);
  const connected = useRealtimeStatus();
  const state = useRef({ busy: false, again: false, last: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined, gone: false });
  // new loader data (the dates changed): start from it
  useEffect(() => setRows(initial), [initial]);
  const read = useRef(() => {});
  read.current = () => {
    const s = state.current;
    if (s.gone) return;
    if (s.busy) { s.again = true; return; }
    const wait = s.last + EXPOSURE_READ_GAP_MS - Date.now();
    if (wait > 0) {
      if (!s.timer) s.timer = setTimeout(() => { s.timer = undefined; read.current(); }, wait);
      return;
    }
    s.busy = true;
    s.last = Date.now();
    fetch('/admin/exposure', { headers: { accept: 'application/json' } })
      .then((r) => (r.ok ? (r.json() as Promise<{ exposure: ExposureRow[] }>) : null))
      .then((body) => { if (body && !s.gone) setRows(body.exposure); })
      .catch(() => { /* the next event or reconnect reads again */ })
      .finally(() => {
        s.busy = false;
        if (s.again) { s.again = false; read.current(); }
      });
  };
  useEffect(() => {
    const s = state.current;
    s.gone = false;
    return () => { s.gone = true; clearTimeout(s.timer); s.timer = undefined; };
  }, []);
  // the stream opened (or reopened): what opened or closed before it did is read once
  useEffect(() => { if (connected) read.current(); }, [connected]);
  return [rows, () => read.current()] as const;
}

function ExposurePanel({ initial, currency }: { initial: ExposureRow[]; currency: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const connected = useRealtimeStatus();
  const [rows, reread] = useExposureRows(initial);
  // the last streamed quote of each instrument shown: a row's value is its terms at it
  const [live, setLive] = useState<Record<string, { bid: number; ask: number }>>({});
  useRealtime((event, data) => {
    if (event === 'position.opened' || event === 'position.closed') return reread();
    if (event !== 'priceUpdate' || !Array.isArray(data)) return;
    const mine = new Set(rows.map((r) => r.instrument));
    const next: Record<string, { bid: number; ask: number }> = {};
    for (const p of data as PriceItem[]) {
      if (mine.has(p.name) && Number.isFinite(p.bids) && Number.isFinite(p.asks)) next[p.name] = { bid: p.bids, ask: p.asks };
    }
    if (Object.keys(next).length) setLive((cur) => ({ ...cur, ...next }));
  });
  const pnlOf = (r: ExposureRow): number | string | null => {
    const q = live[r.instrument];
    return q ? brokerPnlAt(r, q.bid, q.ask) : r.brokerPnl;
  };
  const known = rows.map(pnlOf).filter((v): v is number | string => v !== null);
  const total = known.reduce<number>((s, v) => s + Number(v), 0);
  const sign = (v: number | string | null) => (v === null ? '' : Number(v) > 0 ? 'up' : Number(v) < 0 ? 'down' : '');
  return (
    <section className="card admin-dash-exposure" aria-labelledby="dash-exposure-title">
      <div className="admin-dash-exposure-head">
        <h2 id="dash-exposure-title" className="card-title">{t('Open exposure')}</h2>
        <span className={`chip ${connected ? 'chip-open' : ''}`} role="status">{connected ? t('Live') : t('Not live')}</span>
      </div>
      <p className="muted admin-dash-sub">{t("Open positions of real wallets per instrument: net volume (units bought less units sold) and the broker's floating profit/loss (the negative of the customers') in {{currency}}, at the live prices.", { currency })}</p>
      {rows.length === 0 ? <p className="muted">{t('No open positions.')}</p> : (
        <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="dash-exposure-title">
          <table className="admin-dash-table">
            <caption className="sr-only">{t('Open exposure')} ({currency})</caption>
            <thead>
              <tr>
                <th scope="col">{t('Instrument')}</th>
                <th scope="col">{t('Positions')}</th>
                <th scope="col">{t('Bought')}</th>
                <th scope="col">{t('Sold')}</th>
                <th scope="col">{t('Net volume')}</th>
                <th scope="col">{t('Broker floating P/L')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const v = pnlOf(r);
                return (
                  <tr key={r.instrument}>
                    <th scope="row">{r.instrument} <span className="muted">{t(CATEGORY_LABELS[r.category])}</span></th>
                    <td>{f.amount(r.positions)}</td>
                    <td>{f.amount(r.buyUnits)}</td>
                    <td>{f.amount(r.sellUnits)}</td>
                    <td className={sign(r.netUnits)}>{f.amount(r.netUnits)}</td>
                    <td className={sign(v)}>{v === null ? <span className="muted">{t('No price')}</span> : money(f, v, currency)}</td>
                  </tr>
                );
              })}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{t('Total')}</th>
                <td>{f.amount(rows.reduce((s, r) => s + r.positions, 0))}</td>
                <td /><td /><td />
                <td className={sign(total)}>{money(f, total, currency)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </section>
  );
}

const money = (f: Formatter, v: number | string, currency: string) => f.money(typeof v === 'number' ? Number(v.toFixed(8)) : v, currency);
