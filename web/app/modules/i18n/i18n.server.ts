// Languages and translations come from the database, kept in the process until they change
// (live-cache: a trigger NOTIFYs every web process), so an admin's edit shows on the next request
// without a restart. The locale comes from the `lang` cookie (what the switcher stores), then
// Accept-Language, then 'en'.
import { createHash } from 'node:crypto';
import { createInstance, type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { RemixI18Next } from 'remix-i18next/server';
import type { Sql } from '~/shared/db.server.ts';
import { cached, invalidateCached } from '~/shared/live-cache.server.ts';
import { readCookie } from '~/shared/cookies.server.ts';
import { FALLBACK_LANGUAGE, LANG_COOKIE, addNumberFormat, i18nOptions, type Resources } from './i18n.ts';
import { PAGE_TITLE_KEYS } from '~/modules/i18n/meta.ts';
// The English seed holds every key the code uses (web/test/i18n.test.ts checks it): the key list
// at run time. Bundled into the server build.
import englishSeed from '../../../../seeds/translations/en.json';

const CODE_KEYS: ReadonlySet<string> = new Set(Object.keys(englishSeed));

/** Every key the code uses, in the English seed's order (sorted). */
export function codeKeys(): readonly string[] {
  return ORDERED_KEYS;
}
const ORDERED_KEYS: readonly string[] = Object.freeze([...CODE_KEYS]);

/** Whether the code uses this i18n key; only such keys may be recorded as missing. */
export function isKnownKey(key: string): boolean {
  return CODE_KEYS.has(key);
}

export interface Language { code: string; name: string }

/** The languages in their order (frozen: the copy is shared by every request of the process). */
export function listLanguages(sql: Sql): Promise<Language[]> {
  return cached(sql, 'languages', 'all', async () => {
    const rows = await sql`SELECT code, name FROM languages ORDER BY position, code`;
    const langs = rows.map((r) => Object.freeze({ code: r.code as string, name: r.name as string }));
    if (!langs.some((l) => l.code === FALLBACK_LANGUAGE)) langs.unshift(Object.freeze({ code: FALLBACK_LANGUAGE, name: 'English' }));
    return Object.freeze(langs) as Language[];
  });
}

export async function detectLocale(request: Request, languages: Language[]): Promise<string> {
  const supported = languages.map((l) => l.code);
  const i18n = new RemixI18Next({
    detection: {
      supportedLanguages: supported,
      fallbackLanguage: FALLBACK_LANGUAGE,
      order: ['custom', 'header'],
      async findLocale(req) {
        const lang = readCookie(req, LANG_COOKIE);
        return lang && supported.includes(lang) ? lang : null;
      },
    },
  });
  const locale = await i18n.getLocale(request);
  return supported.includes(locale) ? locale : FALLBACK_LANGUAGE;
}

/**
 * The language a request's page is in (the root loader's): an action reads the numbers typed on
 * that page with it (components/ui/number-input.ts, docs/specs.md#number-input); a loader that
 * words data itself (country names) writes it in it.
 */
export async function requestLocale(request: Request, sql: Sql): Promise<string> {
  return detectLocale(request, await listLanguages(sql));
}

/** A language's translations (frozen: the copy is shared by every request of the process). */
export function loadTranslations(sql: Sql, locale: string): Promise<Readonly<Resources>> {
  return cached(sql, 'translations', locale, async () => {
    const rows = await sql`SELECT key, value FROM translations WHERE language_code = ${locale} AND value <> ''`;
    const out: Resources = {};
    // keys outside the code's list (recorded by anonymous visitors before that was refused) are
    // never shipped to a page
    for (const r of rows) if (isKnownKey(r.key)) out[r.key] = r.value;
    return Object.freeze(out);
  });
}

/** The resources the page needs: the locale's, plus English as fallback. */
export async function loadResources(sql: Sql, locale: string): Promise<Record<string, Readonly<Resources>>> {
  const [own, fallback] = await Promise.all([
    loadTranslations(sql, locale),
    locale !== FALLBACK_LANGUAGE ? loadTranslations(sql, FALLBACK_LANGUAGE) : undefined,
  ]);
  return fallback ? { [locale]: own, [FALLBACK_LANGUAGE]: fallback } : { [locale]: own };
}

/**
 * What a page's browser needs of a language, apart from the page itself: the locale's and the
 * fallback's translations as one JSON text (GET /i18n/{lng}?v=version, kept by the browser for a
 * year under that version), its version (a hash of the texts: any edit makes a new one), and the
 * page titles (the only texts that are not rendered by components, but by meta functions that
 * read the root's data). Pages carry the version and the titles, not the texts: the texts were
 * more than half of every page's loader data, encoded and compressed again for every request.
 */
export interface TranslationBundle { locale: string; version: string; json: string; titles: Readonly<Record<string, string>> }

const bundles = new WeakMap<object, { fallback: object | undefined; titleCount: number; bundle: TranslationBundle }>();

export async function translationBundle(sql: Sql, locale: string): Promise<TranslationBundle> {
  const resources = await loadResources(sql, locale);
  const own = resources[locale], fallback = locale === FALLBACK_LANGUAGE ? undefined : resources[FALLBACK_LANGUAGE];
  const kept = bundles.get(own);
  // (the title keys are registered as route modules load: all at start in a build, one by one in development)
  if (kept && kept.fallback === fallback && kept.titleCount === PAGE_TITLE_KEYS.size) return kept.bundle;
  const json = JSON.stringify(resources);
  const titles: Record<string, string> = {};
  for (const key of PAGE_TITLE_KEYS) titles[key] = own[key] || fallback?.[key] || key;
  const bundle: TranslationBundle = Object.freeze({
    locale, json, titles: Object.freeze(titles),
    version: createHash('sha1').update(json).digest('base64url').slice(0, 12),
  });
  if (Object.isFrozen(own)) bundles.set(own, { fallback, titleCount: PAGE_TITLE_KEYS.size, bundle });
  return bundle;
}

// One i18next instance per language and its translations, shared by the server renders (they only
// call t(); nothing on the server changes the language): keyed by the cached, frozen translations,
// so a new copy after an edit gets a new instance and the old one is collected with it.
const instances = new WeakMap<object, { fallback: object | undefined; instance: Promise<I18n> }>();

const MAX_KEPT = 5000;

/**
 * A page's render asks for a few hundred translations, most by their key alone ('Balance'), and
 * i18next works each one out afresh. A server instance never changes language or resources (a
 * change of translations makes a new instance), so the text of a key asked for alone is the same
 * every time: the `t` the components get (react-i18next's getFixedT, default namespace) keeps it.
 * A call whose options are only the values of the text's {{placeholders}} (strings and numbers:
 * 'Add {{name}} to favorites', a list's every row) fills the kept text in; any other (count,
 * context, a formatted or nested placeholder, a value missing) goes to i18next as before.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_]\w*)\s*\}\}/g;
// what an option means to i18next itself, rather than a value to put in the text
const I18NEXT_OPTIONS = new Set(['count', 'context', 'defaultValue', 'ordinal', 'lng', 'lngs', 'ns', 'keyPrefix', 'replace', 'returnObjects',
  'returnDetails', 'joinArrays', 'postProcess', 'interpolation', 'skipInterpolation', 'fallbackLng', 'nsSeparator', 'keySeparator']);

/** A text's parts around its placeholders (literal, name, literal, …), or null when i18next must do it. */
type Template = { parts: string[]; names: string[] } | null;

function templateOf(text: string): Template {
  // nesting ($t(…)), formats ({{x, number}}) and unescaped values ({{- x}}) stay i18next's
  if (/\$t\(/.test(text)) return null;
  const parts: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, m.index));
    names.push(m[1]);
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  if (parts.some((p) => p.includes('{{'))) return null;
  return { parts, names };
}

function keepPlainTranslations(instance: I18n) {
  const fixed = instance.getFixedT.bind(instance);
  const kept = new Map<string, string>();
  const templates = new Map<string, Template>();
  /** The text i18next would interpolate for this key: the first language of the instance's list that has one, else the key. */
  const rawText = (key: string): string => {
    for (const lng of instance.languages ?? [instance.language]) {
      const v = instance.getResource(lng, 'translation', key);
      if (typeof v === 'string' && v !== '') return v;
    }
    return key;
  };
  const fill = (key: string, values: Record<string, unknown>): string | undefined => {
    for (const k in values) {
      if (I18NEXT_OPTIONS.has(k) || k.startsWith('defaultValue')) return undefined;
      const v = values[k];
      if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    }
    let tpl = templates.get(key);
    if (tpl === undefined) {
      tpl = templateOf(rawText(key));
      if (templates.size >= MAX_KEPT) templates.clear();
      templates.set(key, tpl);
    }
    if (!tpl) return undefined;
    let out = tpl.parts[0];
    for (let i = 0; i < tpl.names.length; i++) {
      const v = values[tpl.names[i]];
      if (v === undefined) return undefined;
      out += String(v) + tpl.parts[i + 1];
    }
    return out;
  };
  instance.getFixedT = ((lng: unknown, ns: unknown, keyPrefix: unknown) => {
    const t = fixed(lng as string, ns as string, keyPrefix as string);
    const defaultNs = ns === undefined || ns === null || ns === 'translation' || (Array.isArray(ns) && ns.length === 1 && ns[0] === 'translation');
    if (lng || keyPrefix || !defaultNs) return t;
    const plain = (key: unknown, ...rest: unknown[]) => {
      if (typeof key === 'string' && rest.length === 1 && rest[0] && typeof rest[0] === 'object' && Object.getPrototypeOf(rest[0]) === Object.prototype) {
        const text = fill(key, rest[0] as Record<string, unknown>);
        if (text !== undefined) return text;
      }
      if (typeof key !== 'string' || rest.length > 0) return (t as unknown as (...a: unknown[]) => unknown)(key, ...rest);
      let text = kept.get(key);
      if (text === undefined) {
        text = String(t(key));
        if (kept.size >= MAX_KEPT) kept.clear();
        kept.set(key, text);
      }
      return text;
    };
    // the properties i18next sets on its fixed t, kept on this one
    const { lng: l, lngs, ns: n, keyPrefix: k } = t as unknown as Record<string, unknown>;
    return Object.assign(plain, { lng: l, lngs, ns: n, keyPrefix: k }) as unknown as typeof t;
  }) as typeof instance.getFixedT;
}

/** The i18next instance a server render of `locale` uses. */
export function serverI18n(locale: string, resources: Record<string, Readonly<Resources>>): Promise<I18n> {
  const own = resources[locale];
  const fallback = locale === FALLBACK_LANGUAGE ? undefined : resources[FALLBACK_LANGUAGE];
  const make = async () => {
    const instance = createInstance();
    await instance.use(initReactI18next).init(i18nOptions(locale, resources as Record<string, Resources>));
    addNumberFormat(instance);
    keepPlainTranslations(instance);
    return instance;
  };
  if (!own || !Object.isFrozen(own)) return make(); // not from the cache: nothing to key on
  const hit = instances.get(own);
  if (hit && hit.fallback === fallback) return hit.instance;
  const instance = make();
  instances.set(own, { fallback, instance });
  return instance;
}

/**
 * Records a key the UI asked for that has no translation yet (POST /translations/{lng}).
 * English gets the key itself as its text; other languages an empty value for a translator to fill.
 * Only keys of the code's key list are stored, so the table stays bounded (languages × keys).
 */
export async function saveMissingKey(sql: Sql, lng: string, key: string): Promise<boolean> {
  if (!isKnownKey(key)) return false;
  const [row] = await sql`
    INSERT INTO translations (language_code, key, value)
    SELECT code, ${key}, CASE WHEN code = ${FALLBACK_LANGUAGE} THEN ${key} ELSE '' END FROM languages WHERE code = ${lng}
    ON CONFLICT (language_code, key) DO NOTHING
    RETURNING id`;
  if (row) invalidateCached(sql, 'translations');
  return !!row;
}

export function langCookie(code: string): string {
  return `${LANG_COOKIE}=${encodeURIComponent(code)}; Path=/; SameSite=Lax; Max-Age=${365 * 24 * 3600}`;
}
