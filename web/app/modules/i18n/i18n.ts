// i18next options shared by the server render and the browser. Keys are the English text,
// so ':' and '.' inside keys are not separators.
import type { InitOptions, i18n as I18n } from 'i18next';

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
    interpolation: { escapeValue: false },
    resources: Object.fromEntries(Object.entries(resources).map(([lng, r]) => [lng, { translation: r }])),
    initImmediate: false,
    react: { useSuspense: false },
  };
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
