// Every number and date the pages show, formatted for the user's language with Intl (README
// "Number formats"). Values from numeric columns arrive as decimal strings and are handed to
// Intl as strings: Intl.NumberFormat rounds decimal strings exactly (half away from zero), so
// no digit is lost to a float on the way. Live values computed in the browser are numbers.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

export type Numeric = number | string;
type When = Date | string | number | null | undefined;

/** Per-crypto decimals: Intl knows ISO 4217 currencies only and would give BTC 2 decimals. */
const CRYPTO_DECIMALS: Record<string, number> = { BTC: 8, ETH: 8, LTC: 8, BCH: 8, XRP: 6, USDT: 2, USDC: 2 };
const DECIMAL = /^-?\d+(\.\d+)?$/;

// Answers of Intl that depend only on their input, kept: asking Intl again for every number of a
// page costs more than the formatting. Bounded, as the input can come from a cookie.
const MAX_KEPT = 500;
function keep<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_KEPT) map.clear();
  map.set(key, value);
  return value;
}

const locales = new Map<string, string>();
/** A language code Intl accepts ('de', 'pt-BR'); anything else falls back to English. */
export function safeLocale(locale: string | null | undefined): string {
  const raw = String(locale ?? '');
  const hit = locales.get(raw);
  if (hit !== undefined) return hit;
  let out: string;
  try {
    out = Intl.getCanonicalLocales(raw.replace('_', '-'))[0] ?? 'en';
  } catch {
    out = 'en';
  }
  return keep(locales, raw, out);
}

const cache = new Map<string, Intl.NumberFormat>();
/** The options this module passes (the key names each of them). */
type NumberOptions = Pick<Intl.NumberFormatOptions, 'style' | 'currency' | 'unit' | 'minimumFractionDigits' | 'maximumFractionDigits'>;
function numberFormat(locale: string, options: NumberOptions): Intl.NumberFormat {
  const o = options;
  const key = `${locale}|${o.style ?? ''}|${o.currency ?? ''}|${o.unit ?? ''}|${o.minimumFractionDigits ?? ''}|${o.maximumFractionDigits ?? ''}`;
  let f = cache.get(key);
  if (!f) {
    // 'negative': a value that rounds to zero shows no minus sign
    f = new Intl.NumberFormat(locale, { signDisplay: 'negative', ...(options as Intl.NumberFormatOptions) } as Intl.NumberFormatOptions);
    cache.set(key, f);
  }
  return f;
}

/** A finite number, or a plain decimal string (kept as a string for exact rounding); else null. */
function value(v: Numeric | null | undefined): number | string | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return DECIMAL.test(s) ? s : null;
}

function fmt(v: Numeric | null | undefined, locale: string, options: NumberOptions, empty: string): string {
  const x = value(v);
  // Intl.NumberFormat.format takes decimal strings (ES2023 Intl.NumberFormat v3); the DOM lib types lag behind
  return x === null ? empty : numberFormat(safeLocale(locale), options).format(x as number);
}

/** Decimals of a currency: the crypto table, else Intl's ISO 4217 digits (USD 2, JPY 0, KWD 3). */
const decimals = new Map<string, number>();
export function currencyDecimals(currency: string): number {
  const c = currency.trim().toUpperCase();
  if (c in CRYPTO_DECIMALS) return CRYPTO_DECIMALS[c];
  const hit = decimals.get(c);
  if (hit !== undefined) return hit;
  let dp: number;
  try {
    dp = new Intl.NumberFormat('en', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    dp = 2;
  }
  return keep(decimals, c, dp);
}

/** Money with the currency's decimals and the locale's symbol placement: en '$10,078.10', de '10.078,10 $'. */
export function formatMoney(v: Numeric | null | undefined, currency: string, locale = 'en', empty = '—'): string {
  const c = currency.trim().toUpperCase();
  const dp = currencyDecimals(c);
  if (!/^[A-Z]{3}$/.test(c)) return `${fmt(v, locale, { minimumFractionDigits: dp, maximumFractionDigits: dp }, empty)} ${c}`.trim();
  return fmt(v, locale, { style: 'currency', currency: c, minimumFractionDigits: dp, maximumFractionDigits: dp }, empty);
}

/** A rate (price) with the instrument's digits: EUR/USD 1.08556, USD/JPY 151.234. */
export function formatRate(v: Numeric | null | undefined, digits: number, locale = 'en', empty = '—'): string {
  const dp = Math.min(20, Math.max(0, Math.trunc(digits)));
  return fmt(v, locale, { minimumFractionDigits: dp, maximumFractionDigits: dp }, empty);
}

/** Profit/loss of an order: 5 decimals (docs/specs.md#trading-formulas). */
export function formatPnl(v: Numeric | null | undefined, locale = 'en', empty = '—'): string {
  return fmt(v, locale, { minimumFractionDigits: 5, maximumFractionDigits: 5 }, empty);
}

/** A value already in percent (185.5 means 185.5 %), 2 decimals: en '185.50%', de '185,50 %'. */
export function formatPercent(v: Numeric | null | undefined, locale = 'en', empty = '—'): string {
  return fmt(v, locale, { style: 'unit', unit: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }, empty);
}

/** Units or lots: as many decimals as the value has (up to 8), no trailing zeros: '1,000', '0.01'. */
export function formatAmount(v: Numeric | null | undefined, locale = 'en', empty = '—'): string {
  return fmt(v, locale, { maximumFractionDigits: 8 }, empty);
}

// ---------------------------------------------------------------- dates

export interface DateOptions {
  /** true: 24-hour clock, false: 12-hour with AM/PM; unset: English per the specs (12-hour), other languages per their custom. */
  hour24?: boolean;
}

const dateCache = new Map<string, Intl.DateTimeFormat>();
function toDate(v: When): Date | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}
const pad = (n: number) => String(n).padStart(2, '0');
// Dates and times are written in UTC, never in the process's or the browser's own time zone: the
// server's render and the browser's hydration must write the same text (a browser elsewhere than
// the server otherwise gets React's hydration errors #418/#423 on every page showing a time).
const TIME_ZONE = 'UTC';
function clock(d: Date, hour24: boolean) {
  const h = d.getUTCHours();
  return hour24 ? `${pad(h)}:${pad(d.getUTCMinutes())}` : `${h % 12 === 0 ? 12 : h % 12}:${pad(d.getUTCMinutes())} ${h < 12 ? 'AM' : 'PM'}`;
}
const isEnglish = (locale: string) => safeLocale(locale).split('-')[0] === 'en';

/** Another language's date and time: its own order of day, month and year, and its clock unless told. */
function localized(d: Date, locale: string, hour24: boolean | undefined): string {
  const loc = safeLocale(locale);
  const key = `${loc}|${hour24}`;
  let f = dateCache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(loc, {
      year: 'numeric', month: '2-digit', day: '2-digit', hour: hour24 === undefined ? '2-digit' : hour24 ? '2-digit' : 'numeric', minute: '2-digit', timeZone: TIME_ZONE,
      ...(hour24 === undefined ? {} : { hourCycle: hour24 ? 'h23' : 'h12' }),
    });
    dateCache.set(key, f);
  }
  return f.format(d);
}

/** Admin and CRM lists, notifications, API Status. English: DD/MM/YYYY h:mm A (the specs); other languages: theirs. UTC. */
export function formatDateTime(v: When, locale = 'en', opts: DateOptions = {}): string {
  const d = toDate(v);
  if (!d) return '';
  if (!isEnglish(locale)) return localized(d, locale, opts.hour24);
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${clock(d, !!opts.hour24)}`;
}

/** Client pages. English: YYYY-MM-DD h:mm A (the specs); other languages: theirs. UTC. */
export function formatClientDateTime(v: When, locale = 'en', opts: DateOptions = {}): string {
  const d = toDate(v);
  if (!d) return '';
  if (!isEnglish(locale)) return localized(d, locale, opts.hour24);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${clock(d, !!opts.hour24)}`;
}

/**
 * A calendar day written YYYY-MM-DD (a UTC day, as the date filters name them). English:
 * DD/MM/YYYY, or DD/MM when `short` (the specs' day order); other languages: theirs.
 */
export function formatDay(v: string | null | undefined, locale = 'en', short = false): string {
  if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return '';
  const [y, m, d] = v.split('-');
  if (isEnglish(locale)) return short ? `${d}/${m}` : `${d}/${m}/${y}`;
  const loc = safeLocale(locale);
  const key = `day|${loc}|${short}`;
  let f = dateCache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(loc, { day: '2-digit', month: '2-digit', ...(short ? {} : { year: 'numeric' }), timeZone: TIME_ZONE });
    dateCache.set(key, f);
  }
  return f.format(new Date(`${v}T00:00:00Z`));
}

/**
 * A tick of a chart's time axis (lightweight-charts' tickMarkFormatter): `time` in seconds (UTC),
 * `kind` its TickMarkType (0 year, 1 month, 2 day of the month, 3+ a time). In the page's language,
 * never the chart library's English: en 'Dec', '3 Dec'; de 'Dez.', '3. Dez.'. A day always names
 * its month, so it never reads as a lone '3' among the months.
 */
export function formatChartTick(time: number, kind: number, locale = 'en'): string {
  const d = toDate(time * 1000);
  if (!d) return '';
  const loc = safeLocale(locale);
  const options: Intl.DateTimeFormatOptions = kind === 0 ? { year: 'numeric' } : kind === 1 ? { month: 'short' }
    : kind === 2 ? { day: 'numeric', month: 'short' } : { hour: '2-digit', minute: '2-digit', hourCycle: isEnglish(loc) ? 'h12' : 'h23' };
  const key = `tick|${loc}|${kind <= 2 ? kind : 3}`;
  let f = dateCache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(loc, { ...options, timeZone: TIME_ZONE });
    dateCache.set(key, f);
  }
  return f.format(d);
}

/** A UTC day of a chart (seconds) as formatDay writes it. */
function chartDay(time: number, locale: string): string {
  const d = toDate(time * 1000);
  return d ? formatDay(d.toISOString().slice(0, 10), locale) : '';
}

// ---------------------------------------------------------------- the hook

/** The formatters bound to one language. */
export function formatterFor(locale: string, opts: DateOptions = {}) {
  const loc = safeLocale(locale);
  return {
    locale: loc,
    money: (v: Numeric | null | undefined, currency: string) => formatMoney(v, currency, loc),
    rate: (v: Numeric | null | undefined, digits: number) => formatRate(v, digits, loc),
    pnl: (v: Numeric | null | undefined) => formatPnl(v, loc),
    percent: (v: Numeric | null | undefined) => formatPercent(v, loc),
    amount: (v: Numeric | null | undefined) => formatAmount(v, loc),
    dateTime: (v: When) => formatDateTime(v, loc, opts),
    clientDateTime: (v: When) => formatClientDateTime(v, loc, opts),
    day: (v: string | null | undefined, short = false) => formatDay(v, loc, short),
    /** a chart's time-axis tick and its crosshair's day (seconds, UTC) */
    chartTick: (time: number, kind: number) => formatChartTick(time, kind, loc),
    chartDay: (time: number) => chartDay(time, loc),
  };
}
export type Formatter = ReturnType<typeof formatterFor>;

/** The formatters for the page's language (the root loader's locale, which i18next renders in). */
export function useFormat(opts: DateOptions = {}): Formatter {
  const { i18n } = useTranslation();
  const locale = i18n.language || 'en';
  return useMemo(() => formatterFor(locale, opts), [locale, opts.hour24]); // eslint-disable-line react-hooks/exhaustive-deps -- opts is a new object each render; hour24 is all of it
}

// ---------------------------------------------------------------- machine formats (CSV)

/** An exact decimal as a plain machine number: no grouping, a point, no trailing zeros ('1000.00000000' → '1000'). */
export function plainDecimal(v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === '') return '';
  const s = String(v).trim();
  if (!DECIMAL.test(s)) return s;
  const out = s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  return out === '-0' ? '0' : out;
}
