// Adds UI strings to the four shipped languages: reads {"English text": {"es": …, "fr": …, "de": …}}
// from a JSON file (or stdin) and writes seeds/translations/{en,es,fr,de}.json sorted by key, so
// two branches that add keys merge without conflicts. An existing translation is replaced.
//   node --import tsx scripts/i18n-add.ts new-keys.json
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, '..', 'seeds', 'translations');
const input = JSON.parse(readFileSync(process.argv[2] ?? 0, 'utf8')) as Record<string, Record<'es' | 'fr' | 'de', string>>;

for (const lang of ['en', 'es', 'fr', 'de'] as const) {
  const file = path.join(dir, `${lang}.json`);
  const current = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  for (const [key, tr] of Object.entries(input)) {
    const value = lang === 'en' ? key : tr[lang];
    if (!value) throw new Error(`no ${lang} text for "${key}"`);
    current[key] = value;
  }
  const sorted = Object.fromEntries(Object.keys(current).sort().map((k) => [k, current[k]]));
  writeFileSync(file, JSON.stringify(sorted, null, 2) + '\n');
}
console.log(`${Object.keys(input).length} keys in en, es, fr, de`);
