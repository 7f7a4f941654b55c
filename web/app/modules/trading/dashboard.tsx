// The trading dashboard (docs/specs.md#client-pages): instrument
// lists with search, favorites and tabs, the chart with floating SELL / BUY, the account
// summary, the positions, and the live updates of the page's one SSE connection.
import { useEffect, useMemo, useState } from 'react';
import { Link, useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { searchInstruments } from '~/shared/instrument-search.ts';
import { marketGroup, planValue, type Category, type Side } from '@broker/engine/domain';
import { useFetcherToast, useToast } from '~/components/ui/toast.tsx';
import { GENERIC_ERROR } from '~/shared/forms.ts';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import { PriceChart } from './chart.tsx';
import { OrderDialog } from './order-dialog.tsx';
import { Positions } from './positions.tsx';
import { closeReasonLabel } from '@broker/engine/contract/events';
import { pendingEndLabel } from '@broker/engine/contract/pending';
import { pendingTypeLabel } from '~/shared/pending-labels.ts';
import { useRealtime, useRealtimeStatus, type PriceItem } from '~/shared/realtime.tsx';
import { setStreamOpen, useStreamRefresh } from './stream-refresh.ts';
import { accountSummary, floatingFromExposure, leverageFor } from './dialog.ts';
import { FIRST_CATEGORY, type ActionReply } from './schemas.ts';
import type { DashboardData, InstrumentRow, Quote } from './trading.server.ts';

export const DEFAULT_SYMBOL = 'USD_CNH';
export const TABS: { category: Category; label: string }[] = [
  { category: FIRST_CATEGORY, label: 'FOREX' },
  { category: 'commodity', label: 'COMMODITIES' },
  { category: 'index', label: 'INDICES' },
  { category: 'stock', label: 'STOCK' },
  { category: 'crypto', label: 'CRYPTO' },
];

type Prices = Record<string, Quote>;

export type AllInstruments = { instruments: InstrumentRow[]; quotes: Prices };

/**
 * The instruments the page did not come with (the other tabs', for the tabs and the search):
 * asked for once the page is in the browser, so that they are there when the user switches tabs
 * (GET /dashboard/instruments); asked again after a failure, a few times, further apart.
 */
export function useAllInstruments(needed: boolean, load: () => Promise<AllInstruments> = fetchAllInstruments): AllInstruments | null {
  const [all, setAll] = useState<AllInstruments | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!needed || all || attempt > 5) return;
    let gone = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    load().then((r) => { if (!gone) setAll(r); }, () => {
      if (!gone) retry = setTimeout(() => setAttempt((n) => n + 1), 1000 * 2 ** attempt);
    });
    return () => { gone = true; clearTimeout(retry); };
  }, [needed, all, attempt, load]);
  return all;
}

async function fetchAllInstruments(): Promise<AllInstruments> {
  const r = await fetch('/dashboard/instruments', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!r.ok) throw new Error(`GET /dashboard/instruments: ${r.status}`);
  return (await r.json()) as AllInstruments;
}

function usePrices(initial: Prices) {
  const [prices, setPrices] = useState<Prices>(initial);
  useEffect(() => setPrices((cur) => ({ ...initial, ...cur })), [initial]);
  useRealtime((event, data) => {
    if (event !== 'priceUpdate' || !Array.isArray(data)) return;
    setPrices((cur) => {
      const next = { ...cur };
      for (const p of data as PriceItem[]) {
        const old = cur[p.name];
        // bids and asks are replaced and the previous values kept (§4)
        next[p.name] = { bid: p.bids, ask: p.asks, prevBid: old?.bid ?? null, prevAsk: old?.ask ?? null };
      }
      return next;
    });
  });
  return prices;
}

// The list's rows take the page's `t` and formatter rather than each asking for its own: a list
// is some hundred cells, and the hooks cost more than the cells (the server renders every row).
// They are kept light for the same reason: one text node per cell (a template string, not text
// and expressions side by side, which React separates with comments) and the price's direction
// arrow drawn by the stylesheet (.price.up::after), not an element of its own.
type Words = { t: TFunction; f: Formatter };

function PriceCell({ value, prev, digits, stale, t, f }: { value: number | undefined; prev: number | null | undefined; digits: number; stale?: boolean } & Words) {
  if (value === undefined) return <span className="price">—</span>;
  if (stale) {
    // the engine's last saved price: shown for orientation, not tradable until a live one arrives
    return <span className="price stale" title={t('Last saved price, waiting for a live one')}>{f.rate(value, digits)} <span className="sr-only">{t('(not live)')}</span></span>;
  }
  const up = prev !== null && prev !== undefined && value > prev;
  return <span className={up ? 'price up' : 'price down'}>{f.rate(value, digits)}</span>;
}

function InstrumentItem({ inst, q, open, selected, favorite, favoritePending, onSelect, onFavorite, t, f }: {
  inst: InstrumentRow; q: Quote | undefined; open: boolean; selected: boolean; favorite: boolean; favoritePending: boolean;
  onSelect: (name: string) => void; onFavorite: (inst: InstrumentRow) => void;
} & Words) {
  const live = inst.tradable && open;
  const state = live ? t('Open') : t('Closed');
  const pair = `${inst.base}/${inst.quote}`;
  return (
    <li className={selected ? 'instrument selected' : 'instrument'} data-symbol={inst.name}>
      <button type="button" className="instrument-main" onClick={() => onSelect(inst.name)} aria-pressed={selected}>
        <span className={live ? 'dot dot-open' : 'dot dot-closed'} title={state} aria-label={state} />
        <span className="instrument-name">
          <strong>{pair}</strong>
          {inst.alias ? <span className="muted">{inst.alias}</span> : null}
        </span>
        <span className="instrument-prices">
          <PriceCell value={q?.bid} prev={q?.prevBid} digits={inst.digits} stale={q?.stale} t={t} f={f} />
          <PriceCell value={q?.ask} prev={q?.prevAsk} digits={inst.digits} stale={q?.stale} t={t} f={f} />
        </span>
      </button>
      <button type="button" className={favorite ? 'fav on' : 'fav'} onClick={() => onFavorite(inst)} disabled={favoritePending} aria-busy={favoritePending || undefined}
        aria-label={favorite ? t('Remove {{name}} from favorites', { name: pair }) : t('Add {{name}} to favorites', { name: pair })}>
        {favorite ? '★' : '☆'}
      </button>
    </li>
  );
}

export function Dashboard({ data, theme, pricingPlanOn }: { data: DashboardData; theme: 'dark' | 'light'; pricingPlanOn: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { push } = useToast();
  const connected = useRealtimeStatus();
  const all = useAllInstruments(!data.allInstruments);
  const instruments = all?.instruments ?? data.instruments;
  const loading = !all && !data.allInstruments;
  const prices = usePrices(useMemo(() => (all ? { ...data.quotes, ...all.quotes } : data.quotes), [all, data.quotes]));
  const [search, setSearch] = useState('');
  const [tab, setTab] = useState<Category>(FIRST_CATEGORY);
  const [selected, setSelected] = useState(() => (data.instruments.some((i) => i.name === DEFAULT_SYMBOL) ? DEFAULT_SYMBOL : data.instruments[0]?.name ?? DEFAULT_SYMBOL));
  const [dialog, setDialog] = useState<Side | null>(null);
  const favFetcher = useFetcher<ActionReply>();
  const byName = useMemo(() => new Map(instruments.map((i) => [i.name, i])), [instruments]);
  const favorites = new Set(data.favorites);
  const inst = byName.get(selected);
  const q = prices[selected];
  const isOpen = (c: Category) => data.status[marketGroup(c)] !== 'closed';

  // favorites: the spec's toasts
  useFetcherToast(favFetcher, { errorToast: GENERIC_ERROR });
  // the star being toggled waits for its answer (no double post)
  const favoritePending = favFetcher.state !== 'idle' ? Number(favFetcher.formData?.get('id')) : null;
  const toggleFavorite = (i: InstrumentRow) =>
    favFetcher.submit({ intent: favorites.has(i.id) ? 'favorite-remove' : 'favorite-add', id: String(i.id) }, { method: 'post', action: '/dashboard' });

  // order and balance events: refresh positions and summary, once per burst (the stream is the
  // refresh: an order's own answer does not reload while it is open, stream-refresh.ts); engine
  // closes get a toast with the reason
  const refresh = useStreamRefresh();
  useEffect(() => {
    setStreamOpen(connected);
    return () => setStreamOpen(false);
  }, [connected]);
  useRealtime((event, payload) => {
    if (event === 'order.closed') {
      const o = payload as { id: number; close_reason: string | null; pro_loss: string | null; instrument: string };
      if (o.close_reason && o.close_reason !== 'manual') {
        push({
          type: o.close_reason === 'tp' ? 'success' : 'info',
          title: 'Position #{{id}} closed: {{reason}}',
          description: 'Profit/Loss: {{pnl}}',
          values: { id: o.id, reason: t(closeReasonLabel(o.close_reason)), pnl: f.pnl(o.pro_loss ?? 0) },
        });
      }
      refresh();
    } else if (event === 'pending.filled' || event === 'pending.cancelled') {
      // a pending order the engine filled or ended: said, and the lists reloaded
      const o = payload as { id: number; status: string; cancel_reason: string | null; type: 'buy' | 'sell'; order_type: 'limit' | 'stop'; fill_rate: string | null; instrument: string };
      const inst = byName.get(o.instrument);
      if (event === 'pending.filled') {
        push({ type: 'success', title: 'Pending order #{{id}} filled', description: '{{order}} filled at {{rate}}',
          values: { id: o.id, order: t(pendingTypeLabel(o.type, o.order_type)), rate: f.rate(o.fill_rate, inst?.digits ?? 5) } });
      } else if (o.cancel_reason !== 'customer') {
        push({ type: 'info', title: o.status === 'expired' ? 'Pending order #{{id}} expired' : 'Pending order #{{id}} cancelled: {{reason}}',
          values: { id: o.id, reason: t(pendingEndLabel(o.cancel_reason)) } });
      }
      refresh();
    } else if (event === 'order.opened' || event === 'order.modified' || event === 'order.deleted' || event === 'order.trailed' || event === 'balance'
      || event === 'pending.placed' || event === 'pending.modified') {
      refresh();
    }
  });

  const balance = data.balance;
  const floating = floatingFromExposure(data.exposure, prices);
  const summary = balance ? accountSummary(Number(balance.balance), Number(balance.margin), floating) : null;
  const money = (n: number | null) => f.money(n, balance?.currency ?? '');

  const results = useMemo(() => searchInstruments(instruments, search), [instruments, search]);
  const list = (items: InstrumentRow[]) => (
    <ul className="instrument-list">
      {items.map((i) => (
        <InstrumentItem key={i.id} inst={i} q={prices[i.name]} open={isOpen(i.category)} selected={i.name === selected}
          favorite={favorites.has(i.id)} favoritePending={favoritePending === i.id} onSelect={setSelected} onFavorite={toggleFavorite} t={t} f={f} />
      ))}
    </ul>
  );
  const tradable = !!inst && inst.tradable && isOpen(inst.category) && !!balance;
  const plan = data.plan?.values ?? null;

  return (
    <div className="trading">
      <aside className="trading-side">
        {data.kycNotice ? (
          <p className="notice notice-error">{t('Please verify KYC to enable trading.')} <Link to="/kyc">{t('Verify now')}</Link></p>
        ) : null}
        <input type="search" className="table-search instrument-search" placeholder={t('Search instruments')} aria-label={t('Search instruments')}
          value={search} onChange={(e) => setSearch(e.target.value)} />
        {search.trim() ? (
          <section className="panel-list" aria-label={t('Search results')}>
            {results.length ? list(results) : <p className="muted">{t('No instruments found')}</p>}
          </section>
        ) : (
          <>
            <details className="favorites" open>
              <summary>{t('Favorites')} <span className="chip">{data.favorites.length}</span></summary>
              {data.favorites.length ? list(data.favorites.map((id) => instruments.find((i) => i.id === id)).filter((i): i is InstrumentRow => !!i))
                : <p className="muted">{t('Star an instrument to add it here.')}</p>}
            </details>
            <div className="tabs" role="tablist" aria-label={t('Markets')}>
              {TABS.map((x) => (
                <button key={x.category} type="button" role="tab" aria-selected={tab === x.category} className={`tab ${tab === x.category ? 'active' : ''}`} onClick={() => setTab(x.category)}>
                  {t(x.label)}
                </button>
              ))}
            </div>
            <section className="panel-list tab-panel" role="tabpanel" aria-label={t(TABS.find((x) => x.category === tab)!.label)}>
              {loading && tab !== FIRST_CATEGORY ? <p className="muted" role="status">{t('Loading…')}</p> : list(instruments.filter((i) => i.category === tab))}
              {!isOpen(tab) ? <div className="market-closed" role="note">{t('Market Closed')}</div> : null}
            </section>
          </>
        )}
      </aside>

      <div className="trading-main">
        <section className="chart-card card" aria-label={t('Chart')}>
          <div className="chart-head">
            <strong>{inst ? `${inst.base}/${inst.quote}` : selected}</strong>
            <span className="muted">{t('Daily')}</span>
            <span className={`live ${connected ? 'on' : ''}`}>{connected ? t('Live') : t('Reconnecting…')}</span>
          </div>
          <PriceChart symbol={selected} digits={inst?.digits ?? 5} theme={theme} />
          <div className="floating-trade">
            <button type="button" className="btn btn-sell" disabled={!tradable} onClick={() => setDialog('sell')}>
              <span>{t('SELL')}</span><strong>{q ? f.rate(q.bid, inst?.digits ?? 5) : '—'}</strong>
            </button>
            <button type="button" className="btn btn-buy" disabled={!tradable} onClick={() => setDialog('buy')}>
              <span>{t('BUY')}</span><strong>{q ? f.rate(q.ask, inst?.digits ?? 5) : '—'}</strong>
            </button>
          </div>
        </section>

        {summary ? (
          <section className="summary card" aria-label={t('Account summary')}>
            <div><span className="muted">{t('Balance')}</span><strong data-testid="summary-balance">{money(summary.balance)}</strong></div>
            <div><span className="muted">{t('Equity')}</span><strong data-testid="summary-equity">{money(summary.equity)}</strong></div>
            <div><span className="muted">{t('Used Margin')}</span><strong data-testid="summary-margin">{money(summary.usedMargin)}</strong></div>
            <div><span className="muted">{t('Free Margin')}</span><strong data-testid="summary-free-margin">{money(summary.freeMargin)}</strong></div>
            <div><span className="muted">{t('Margin Level')}</span><strong data-testid="summary-margin-level">{f.percent(summary.marginLevel)}</strong></div>
          </section>
        ) : <p className="notice notice-error">{t('No wallet is active.')}</p>}

        {pricingPlanOn ? (
          <section className="plan-panel card" aria-label={t('My Plan')}>
            <div>
              <span className="muted">{t('My Plan')}</span>
              <strong>{data.plan?.name ?? t('No plan')}</strong>
            </div>
            {inst ? <div><span className="muted">{t('Leverage')}</span><strong>1:{leverageFor(plan, inst.category, inst.leverage)}</strong></div> : null}
            {inst ? <div><span className="muted">{t('Stop-out')}</span><strong>{f.percent(planValue(plan, inst.category, 'stopout') ?? 50)}</strong></div> : null}
            <Link to="/pricing" className="btn btn-sm btn-ghost">{t('Change plan')}</Link>
          </section>
        ) : null}

        <Positions rows={data.positions.rows} total={data.positions.total} openOnly={data.positions.openOnly} closedOnly={data.positions.closedOnly} prices={prices} currency={balance?.currency ?? ''}
          pending={data.pending} />
      </div>

      {dialog && inst && balance ? (
        <OrderDialog key={`${dialog}-${inst.name}`} side={dialog} instrument={inst} price={q} currency={balance.currency}
          balance={Number(balance.balance)} usedMargin={Number(balance.margin)} floatingPnl={floating}
          leverage={leverageFor(plan, inst.category, inst.leverage)} spreadSetting={Number(data.spreads[inst.category] ?? 0)}
          kycBlocked={data.kycNotice} onClose={() => setDialog(null)} />
      ) : null}
    </div>
  );
}
