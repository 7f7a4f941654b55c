// Browser start: i18next is initialised with the page language's translations (GET /i18n/{lng},
// preloaded by the page's head, kept by the browser per version) before the page hydrates; keys
// missing from them are saved through POST /translations/{lng}.
import { RemixBrowser } from '@remix-run/react';
import { startTransition, StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import i18next from 'i18next';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { addNumberFormat, i18nOptions, fetchBundle, FALLBACK_LANGUAGE } from '~/modules/i18n/i18n.ts';

const reported = new Set<string>();

async function hydrate() {
  // (the loader data arrives as a stream, decoded later: the page's head names the translations' version)
  const locale = document.documentElement.lang || FALLBACK_LANGUAGE;
  const preload = document.querySelector<HTMLLinkElement>('link[rel="preload"][data-i18n]');
  const resources = (await fetchBundle(locale, preload?.dataset.i18n)) ?? {};
  await i18next.use(initReactI18next).init({
    ...i18nOptions(locale, resources),
    saveMissing: true,
    saveMissingTo: 'current',
    // a counted key ('Total: {{count}}') is stored once, as itself: not as '_one'/'_other'
    // variants whose saved value would be the suffixed key
    saveMissingPlurals: false,
    missingKeyHandler(lngs, _ns, key) {
      const lng = lngs[0] ?? locale;
      const id = `${lng}\u0000${key}`;
      if (reported.has(id)) return;
      reported.add(id);
      void fetch(`/translations/${encodeURIComponent(lng)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key }),
        credentials: 'same-origin',
      }).catch(() => {});
    },
  });
  addNumberFormat(i18next);
  startTransition(() => {
    hydrateRoot(
      document,
      <I18nextProvider i18n={i18next}>
        <StrictMode>
          <RemixBrowser />
        </StrictMode>
      </I18nextProvider>,
    );
  });
}

void hydrate();
