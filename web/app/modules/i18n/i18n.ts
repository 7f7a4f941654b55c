// i18next options shared by the server render and the browser. Keys are the English text,
// so ':' and '.' inside keys are not separators.
import type { InitOptions } from 'i18next';

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
