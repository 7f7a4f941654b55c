// The refusals of the back-office's number fields (spreads, lot sizes, pricing plans, instruments,
// gateway fees) show an example of a number the field accepts, written in the page's language, and
// their bounds written as the language writes numbers (issue 24): every message the number inputs
// register (modules/catalog/numbers.ts NUMBER_MESSAGES), in every shipped language, rendered by
// i18next with the app's options and decimal format.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import i18next from 'i18next';
import { addNumberFormat, i18nOptions } from '~/modules/i18n/i18n.ts';
import { formatAmount } from '~/components/ui/format.ts';
import { NUMBER_EXAMPLE } from '~/components/ui/number-input.ts';
import { NUMBER_MESSAGES, readDecimal, readWhole } from '~/modules/catalog/numbers.ts';
// the forms whose schemas register their messages
import '~/modules/catalog/schemas.ts';
import '~/modules/plans/schemas.ts';
import '~/modules/instruments/schemas.ts';
import '~/modules/gateways/kinds.ts';

const dir = path.resolve(import.meta.dirname, '../../seeds/translations');
const LANGS = ['en', 'de', 'es', 'fr'];

describe('number field messages of the back-office', () => {
  test('the forms register their messages', () => {
    expect(NUMBER_MESSAGES.size).toBeGreaterThanOrEqual(23);
    for (const m of ['Forex spread must be a number from 0 to 999999999999 with at most 8 decimals', 'Digits must be a whole number from 0 to 10',
      'Fee must be a percent from 0 to 100 with at most 4 decimals', 'Price must be a number of at least 0 with at most 2 decimals']) expect(NUMBER_MESSAGES.has(m), m).toBe(true);
  });

  test.each(LANGS)('%s: each shows a valid example and its bounds in the language', async (lang) => {
    const resources = Object.fromEntries(LANGS.map((l) => [l, JSON.parse(readFileSync(path.join(dir, `${l}.json`), 'utf8'))]));
    const i18n = i18next.createInstance();
    await i18n.init(i18nOptions(lang, resources));
    addNumberFormat(i18n);
    for (const [key, rule] of NUMBER_MESSAGES) {
      const text = i18n.t(key);
      expect(Object.hasOwn(resources[lang], key), `${lang}: ${key} is translated`).toBe(true);
      // no number of 4 or more digits written without the language's grouping
      expect(text, `${lang}: ${text}`).not.toMatch(/\d{4,}/);
      if (rule.kind === 'decimal') {
        expect(readDecimal(NUMBER_EXAMPLE, rule.bounds), `${key}: ${NUMBER_EXAMPLE} is valid`).not.toBeNull();
        expect(text, `${lang}: ${text}`).toMatch(new RegExp(`\\(.* ${formatAmount(NUMBER_EXAMPLE, lang).replace('.', '\\.')}\\)$`));
      } else {
        const example = /\(.* (\d+)\)$/.exec(text)?.[1];
        expect(example, `${lang}: ${text} ends with an example`).toBeDefined();
        expect(readWhole(example!, rule.min, rule.max), `${lang}: ${text}`).not.toBeNull();
      }
    }
  });
});
