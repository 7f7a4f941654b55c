// The shipped translations keep one word per term (a glossary), and a status reads as a status.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const dir = path.resolve(import.meta.dirname, '../../seeds/translations');
const lang = (l: string) => JSON.parse(readFileSync(path.join(dir, `${l}.json`), 'utf8')) as Record<string, string>;

/** English term → the one word each language uses for it, and the words it must not use. */
const GLOSSARY: { term: RegExp; words: Record<string, { use: RegExp; never?: RegExp }> }[] = [
  {
    term: /\bmargin\b/i,
    words: {
      de: { use: /Margin/, never: /\bMarge\b/ },
      es: { use: /margen/i, never: /\bmargin\b/i },
      fr: { use: /marge/i, never: /\bmargin\b/i },
    },
  },
];

describe('glossary', () => {
  for (const { term, words } of GLOSSARY) {
    for (const [l, rule] of Object.entries(words)) {
      test(`${l}: '${term.source}' is always ${rule.use.source}`, () => {
        const texts = lang(l);
        const wrong = Object.entries(lang('en')).filter(([k]) => term.test(k))
          .filter(([k]) => !rule.use.test(texts[k] ?? '') || (rule.never && rule.never.test(texts[k] ?? '')))
          .map(([k]) => `${k} → ${texts[k]}`);
        expect(wrong).toEqual([]);
      });
    }
  }
});

describe('statuses', () => {
  test("German: an open position or order is 'Offen', not 'Geöffnet' (that is a door)", () => {
    const de = lang('de');
    expect([de['Open'], de['OPENED']]).toEqual(['Offen', 'OFFEN']);
  });
});
