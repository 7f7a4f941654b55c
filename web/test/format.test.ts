// The one formatting module: money, rates, P/L, percentages, amounts and dates for the user's
// language (README "Number formats"). The expected strings are what Intl produces; U+00A0 is
// the no-break space Intl puts between a German number and its sign.
import { describe, expect, test } from 'vitest';
import {
  currencyDecimals, formatAmount, formatChartTick, formatClientDateTime, formatDateTime, formatMoney, formatPercent, formatPnl, formatRate, formatterFor, safeLocale,
} from '~/components/ui/format.ts';

const NB = '\u00a0';

describe('money: the currency decimals and the locale separators', () => {
  test.each([
    ['10078.1', 'USD', 'en', '$10,078.10'],
    ['10078.1', 'USD', 'de', `10.078,10${NB}$`],
    ['10078.1', 'EUR', 'de', `10.078,10${NB}€`],
    ['1234.5', 'JPY', 'en', '¥1,235'],
    ['1234.5', 'JPY', 'de', `1.235${NB}¥`],
    ['1.2345', 'KWD', 'en', 'KWD\u00a01.235'],
    ['0.123456789', 'BTC', 'en', `BTC${NB}0.12345679`],
    ['0.123456789', 'BTC', 'de', `0,12345679${NB}BTC`],
    [10078.1, 'USD', 'en', '$10,078.10'],
    ['-0.001', 'USD', 'en', '$0.00'],
    ['-12.5', 'USD', 'en', '-$12.50'],
  ] as const)('%s %s in %s is %s', (v, currency, locale, out) => {
    expect(formatMoney(v, currency, locale)).toBe(out);
  });
  test('decimal strings round exactly, beyond a float\'s precision', () => {
    expect(formatMoney('12345678901234567.125', 'USD', 'en')).toBe('$12,345,678,901,234,567.13');
    expect(formatMoney('1.005', 'USD', 'en')).toBe('$1.01'); // 1.005 as a float is 1.00499…
  });
  test('currency decimals: Intl for ISO codes, a table for crypto', () => {
    expect([currencyDecimals('USD'), currencyDecimals('JPY'), currencyDecimals('KWD'), currencyDecimals('BTC'), currencyDecimals('USDT')]).toEqual([2, 0, 3, 8, 2]);
  });
  test('no value, or not a number, shows a dash', () => {
    expect(formatMoney(null, 'USD', 'en')).toBe('—');
    expect(formatMoney('abc', 'USD', 'en')).toBe('—');
    expect(formatMoney(Number.NaN, 'USD', 'en')).toBe('—');
  });
});

describe('rates, P/L, percentages and amounts', () => {
  test.each([
    ['rate', () => formatRate('1.0855600000', 5, 'en'), '1.08556'],
    ['rate', () => formatRate('1.0855600000', 5, 'de'), '1,08556'],
    ['rate', () => formatRate(151.2, 3, 'en'), '151.200'],
    ['rate', () => formatRate('43250.5', 2, 'de'), '43.250,50'],
    ['P/L', () => formatPnl('-12.345678', 'en'), '-12.34568'],
    ['P/L', () => formatPnl('1234.5', 'de'), '1.234,50000'],
    ['P/L', () => formatPnl(0.000001, 'en'), '0.00000'],
    ['percent', () => formatPercent(185727.16, 'en'), '185,727.16%'],
    ['percent', () => formatPercent('185727.1604', 'de'), `185.727,16${NB}%`],
    ['amount', () => formatAmount('1000.00000000', 'en'), '1,000'],
    ['amount', () => formatAmount('0.01000000', 'de'), '0,01'],
    ['amount', () => formatAmount('2500.5', 'de'), '2.500,5'],
  ] as const)('%s: %s', (_, run, out) => {
    expect(run()).toBe(out);
  });
});

describe('dates', () => {
  const d = new Date(Date.UTC(2024, 0, 5, 13, 7));
  test.each([
    ['admin lists, English (spec)', () => formatDateTime(d), '05/01/2024 1:07 PM'],
    ['admin lists, English, 24-hour', () => formatDateTime(d, 'en', { hour24: true }), '05/01/2024 13:07'],
    ['client pages, English (spec)', () => formatClientDateTime(new Date(Date.UTC(2024, 11, 31, 0, 5)), 'en'), '2024-12-31 12:05 AM'],
    ['client pages, English, 24-hour', () => formatClientDateTime(new Date(Date.UTC(2024, 11, 31, 0, 5)), 'en', { hour24: true }), '2024-12-31 00:05'],
    ['client pages, German', () => formatClientDateTime(d, 'de'), '05.01.2024, 13:07'],
    ['admin lists, German', () => formatDateTime(d, 'de'), '05.01.2024, 13:07'],
    ['German, 12-hour asked for', () => formatClientDateTime(d, 'de', { hour24: false }), '05.01.2024, 1:07 PM'],
    ['French', () => formatClientDateTime(d, 'fr'), '05/01/2024 13:07'],
    ['empty', () => formatDateTime(null, 'de'), ''],
    ['not a date', () => formatClientDateTime('nope', 'en'), ''],
  ] as const)('%s', (_, run, out) => {
    expect(run()).toBe(out);
  });

  test('a time reads the same whatever the time zone of the process (server render = browser hydration)', () => {
    const zone = process.env.TZ;
    const at = '2024-01-05T23:30:00Z';
    try {
      for (const tz of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo']) {
        process.env.TZ = tz;
        expect([formatDateTime(at), formatClientDateTime(at), formatDateTime(at, 'de'), formatClientDateTime(at, 'fr')], tz)
          .toEqual(['05/01/2024 11:30 PM', '2024-01-05 11:30 PM', '05.01.2024, 23:30', '05/01/2024 23:30']);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone;
    }
  });
});

describe("a chart's time axis", () => {
  const at = Date.UTC(2024, 11, 3, 0, 0) / 1000;
  test.each([
    ['en', [formatChartTick(at, 0, 'en'), formatChartTick(at, 1, 'en'), formatChartTick(at, 2, 'en')], ['2024', 'Dec', 'Dec 3']],
    ['de', [formatChartTick(at, 0, 'de'), formatChartTick(at, 1, 'de'), formatChartTick(at, 2, 'de')], ['2024', 'Dez', '3. Dez.']],
    ['fr', [formatChartTick(at, 1, 'fr'), formatChartTick(at, 2, 'fr')], ['déc.', '3 déc.']],
    ['es', [formatChartTick(at, 1, 'es'), formatChartTick(at, 2, 'es')], ['dic', '3 dic']],
  ] as const)('%s: months in the language, a day with its month', (_, got, want) => {
    expect(got).toEqual(want);
  });
  test('the crosshair day and the price scale go through the same formatters', () => {
    const f = formatterFor('de');
    expect(f.chartDay(at)).toBe('03.12.2024');
    expect(f.rate(1234.5, 2)).toBe('1.234,50');
  });
});

describe('the language', () => {
  test('a language code Intl refuses falls back to English instead of throwing', () => {
    expect(safeLocale('de')).toBe('de');
    expect(safeLocale('pt_BR')).toBe('pt-BR');
    expect(safeLocale('not a language!')).toBe('en');
    expect(formatterFor('not a language!').money('1', 'USD')).toBe('$1.00');
  });
  test('bound formatters use their language', () => {
    const f = formatterFor('de');
    expect([f.money('10078.1', 'USD'), f.percent(50), f.pnl('1.5'), f.rate('1.1', 5), f.amount('1000')])
      .toEqual([`10.078,10${NB}$`, `50,00${NB}%`, '1,50000', '1,10000', '1.000']);
  });
});

describe('notifications', () => {
  test('a notification with values is worded and formatted in the reader\'s language; one without keeps its text', async () => {
    const { readFileSync } = await import('node:fs');
    const { default: i18next } = await import('i18next');
    const { notificationText } = await import('~/modules/notifications/notification-text.tsx');
    const de = JSON.parse(readFileSync(new URL('../../seeds/translations/de.json', import.meta.url), 'utf8'));
    const i18n = i18next.createInstance();
    await i18n.init({ lng: 'de', resources: { de: { translation: de } }, keySeparator: false, nsSeparator: false, interpolation: { escapeValue: false } });
    const data = { kind: 'position.closed' as const, id: 77, reason: 'sl', side: 'sell' as const, amount: '1000.00000000', instrument: 'EUR/USD', rate: '1.0855600000', digits: 5, pnl: '-1234.5' };
    const t = i18n.t.bind(i18n) as (k: string, v?: Record<string, unknown>) => string;
    expect(notificationText({ title: 'x', description: 'y', data }, t, formatterFor('de'))).toEqual({
      title: 'Position #77 geschlossen: Stop-Loss', description: 'Verkauf von 1.000 EUR/USD zu 1,08556, G/V -1.234,50000',
    });
    expect(notificationText({ title: 'Hello', description: 'raw', data: null }, t, formatterFor('de'))).toEqual({ title: 'Hello', description: 'raw' });
  });
});
