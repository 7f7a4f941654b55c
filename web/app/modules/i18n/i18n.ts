// i18next options shared by the server render and the browser. Keys are the English text,
// so ':' and '.' inside keys are not separators.
import type { InitOptions, i18n as I18n } from 'i18next';
import { formatAmount } from '~/components/ui/format.ts';
import { NUMBER_EXAMPLE } from '~/components/ui/number-input.ts';

export const FALLBACK_LANGUAGE = 'en';
export const LANG_COOKIE = 'lang';
export const LANG_STORAGE_KEY = 'lang';

export type Resources = Record<string, string>;

export function i18nOptions(locale: string, resources: Record<string, Resources>): InitOptions {
  return {
    lng: locale,
    fallbackLng: FALLBACK_LANGUAGE,
    defaultNS: 'translation',
    ns: ['translation'],
    keySeparator: false,
    nsSeparator: false,
    returnEmptyString: false,
    // `example`: the number the refusals of a typed number show, '… a number like {{example, decimal}}'
    interpolation: { escapeValue: false, defaultVariables: { example: NUMBER_EXAMPLE } },
    resources: Object.fromEntries(Object.entries(resources).map(([lng, r]) => [lng, { translation: r }])),
    initImmediate: false,
    react: { useSuspense: false },
  };
}

/**
 * The `decimal` format of a translation ('{{example, decimal}}'): a decimal string written by the
 * formatting module in the text's language (de '12,5'), so a message shows numbers as the page
 * writes them and as its fields read them (docs/specs.md#number-input). Every instance gets it
 * after init (the server's renders, the browser's).
 */
export function addNumberFormat(instance: I18n): I18n {
  instance.services.formatter?.add('decimal', (value: unknown, lng: string | undefined) => formatAmount(String(value), lng ?? FALLBACK_LANGUAGE));
  return instance;
}

/** Where the browser gets a language's translations (and English, the fallback): one JSON per version. */
export function bundleUrl(locale: string, version: string | undefined): string {
  return `/i18n/${encodeURIComponent(locale)}?v=${encodeURIComponent(version ?? '')}`;
}

const loading = new Map<string, Promise<Record<string, Resources> | null>>();

/** The translations of `locale` (and English) from GET /i18n/{locale}, once per version; null when they could not be loaded. */
export function fetchBundle(locale: string, version: string | undefined): Promise<Record<string, Resources> | null> {
  const url = bundleUrl(locale, version);
  let p = loading.get(url);
  if (!p) {
    p = fetch(url, { credentials: 'same-origin' })
      .then((r) => (r.ok ? (r.json() as Promise<Record<string, Resources>>) : null))
      .catch(() => null);
    loading.set(url, p);
    void p.then((r) => { if (!r) loading.delete(url); });
  }
  return p;
}

/** Adds the translations of `locale` to a browser instance that lacks them. */
export async function loadBundle(i18n: I18n, locale: string, version: string | undefined): Promise<void> {
  if (i18n.hasResourceBundle(locale, 'translation')) return;
  const resources = await fetchBundle(locale, version);
  for (const [lng, res] of Object.entries(resources ?? {})) {
    if (!i18n.hasResourceBundle(lng, 'translation')) i18n.addResourceBundle(lng, 'translation', res, true, true);
  }
}
