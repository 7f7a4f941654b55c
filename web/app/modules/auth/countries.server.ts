// The country list of the sign-up and profile forms: an offline dataset, common names sorted.
import countries from 'world-countries';

let cached: string[] | undefined;
export function countryNames(): string[] {
  cached ??= countries.map((c) => c.name.common).sort((a, b) => a.localeCompare(b, 'en'));
  return cached;
}
