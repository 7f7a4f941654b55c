import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node';
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteLoaderData, type ShouldRevalidateFunction } from '@remix-run/react';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import styles from './styles/app.css?url';
import { db } from '~/shared/db.server.ts';
import { readToast } from '~/shared/toast.server.ts';
import { getPublicBranding } from '~/shared/settings.server.ts';
import { detectLocale, listLanguages, translationBundle } from '~/modules/i18n/i18n.server.ts';
import { LANG_STORAGE_KEY, bundleUrl, loadBundle } from '~/modules/i18n/i18n.ts';
import { ToastProvider } from '~/components/ui/toast.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { LAYOUT_ACCESS } from '~/modules/auth/permissions.ts';

// the root loader (language, branding, flash toast) serves every page, signed in or not
export const access = LAYOUT_ACCESS.public;

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: styles }];

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const [languages, branding] = await Promise.all([listLanguages(sql), getPublicBranding(sql)]);
  const locale = await detectLocale(request, languages);
  // the translations themselves are not in the page: the browser loads them once per version
  // (GET /i18n/{locale}?v=), the server renders with its own copy; the titles are for meta
  const { version, titles } = await translationBundle(sql, locale);
  const { toast, headers } = readToast(request);
  return data({ locale, i18n: version, titles, languages, branding, toast }, headers ? { headers } : undefined);
}

/** The forms whose answer changes the page language: the root reloads after them. */
const LANGUAGE_FORMS = ['/lang', '/admin/profile'];

/**
 * The root's data (language, translations, branding, a flash toast) changes only with the language
 * (POST /lang, or the staff member's own record: LANGUAGE_FORMS) or after an action that redirects (the toast it sets travels in a cookie this
 * loader reads). So it is not reloaded by an action that answered with data (every fetcher call,
 * a form showing its errors), by a revalidation of the same URL, or by a change of search params
 * only (pagination, filters, tabs).
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, formAction, actionResult, currentUrl, nextUrl, defaultShouldRevalidate }) => {
  // the forms that change the page language (the switcher; the staff member's own record)
  if (formAction && LANGUAGE_FORMS.includes(new URL(formAction, currentUrl).pathname)) return true;
  if (formMethod && formMethod.toUpperCase() !== 'GET') return actionResult === undefined ? defaultShouldRevalidate : false;
  if (currentUrl.pathname === nextUrl.pathname) return false;
  return defaultShouldRevalidate;
};

export type RootData = Awaited<ReturnType<typeof loader>>['data'];

export function useRootData() {
  return useRouteLoaderData<typeof loader>('root') as RootData | undefined;
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRootData();
  const locale = root?.locale ?? 'en';
  const favicon = root?.branding.faviconPath;
  return (
    <html lang={locale} data-theme={root?.branding.theme ?? 'dark'}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {favicon ? <link rel="icon" href={favicon} /> : null}
        {/* the page's translations, fetched while the scripts load (entry.client waits for them) */}
        {root ? <link rel="preload" href={bundleUrl(locale, root.i18n)} as="fetch" crossOrigin="anonymous" data-i18n={root.i18n} /> : null}
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  const root = useRootData();
  const { i18n } = useTranslation();
  const locale = root?.locale ?? 'en';
  const version = root?.i18n;
  // a newly chosen language: its translations are loaded, then the page switches to it
  useEffect(() => {
    let gone = false;
    void loadBundle(i18n, locale, version).then(() => {
      if (!gone && i18n.language !== locale) void i18n.changeLanguage(locale);
    });
    return () => { gone = true; };
  }, [i18n, locale, version]);
  useEffect(() => {
    // the switcher's choice is kept in localStorage as well as the cookie (docs/specs.md#client-language)
    try {
      if (window.localStorage.getItem(LANG_STORAGE_KEY) !== locale) window.localStorage.setItem(LANG_STORAGE_KEY, locale);
    } catch {
      /* storage disabled */
    }
  }, [locale]);
  return (
    <ToastProvider flash={root?.toast ?? null}>
      <Outlet />
    </ToastProvider>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
