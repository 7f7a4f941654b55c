// The country list of the sign-up, profile, Edit Customer and withdrawal forms: an offline dataset.
// The value stored is the country's English common name; the label is its name in the page's
// language (Intl.DisplayNames from its ISO code), sorted in that language, made on the server so
// the browser hydrates the same text.
import countries from 'world-countries';
import { safeLocale } from '~/components/ui/format.ts';

let cached: string[] | undefined;
export function countryNames(): string[] {
  cached ??= countries.map((c) => c.name.common).sort((a, b) => a.localeCompare(b, 'en'));
  return cached;
}

export interface CountryOption { value: string; label: string }

const options = new Map<string, readonly CountryOption[]>();

/** The countries for a form in `locale`; `keep` (a stored country the list lacks) stays choosable, first. */
export function countryOptions(locale: string, keep?: string | null): CountryOption[] {
  const loc = safeLocale(locale);
  let list = options.get(loc);
  if (!list) {
    let names: Intl.DisplayNames | null = null;
    try { names = new Intl.DisplayNames([loc], { type: 'region', fallback: 'none' }); } catch { names = null; }
    const collator = new Intl.Collator(loc);
    list = Object.freeze(countries
      .map((c) => ({ value: c.name.common, label: (loc.split('-')[0] === 'en' ? null : names?.of(c.cca2)) || c.name.common }))
      .sort((a, b) => collator.compare(a.label, b.label)));
    if (options.size > 50) options.clear();
    options.set(loc, list);
  }
  return keep && !list.some((o) => o.value === keep) ? [{ value: keep, label: keep }, ...list] : [...list];
}
