// The one reader of typed numbers (components/ui/number-input.ts, docs/specs.md#number-input): what
// the page's language writes is read into an exact decimal string, with the formatter's separators;
// form schemas read their number fields through it (shared/forms.ts), and the refusals show the
// example in the language.
import { describe, expect, test } from 'vitest';
import { createInstance } from 'i18next';
import { formatAmount, formatMoney } from '~/components/ui/format.ts';
import { inputNumber, numberExample, numberReader, numberSeparators, parseLocaleNumber, readNumber } from '~/components/ui/number-input.ts';
import { numberFields, parseForm } from '~/shared/forms.ts';
import { addNumberFormat, i18nOptions } from '~/modules/i18n/i18n.ts';
import { DepositSchema } from '~/modules/money/deposit-schemas.ts';
import { LotsSchema } from '~/modules/catalog/schemas.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { ModifyOrderSchema } from '~/modules/trading/schemas.ts';

const NB = '\u00a0', NNB = '\u202f';
const read = (text: string, locale: string) => readNumber(text, locale);

describe('parseLocaleNumber: each language\'s separators', () => {
  test.each([
    // English: '.' decimal, ',' grouping
    ['1,000.50', 'en', '1000.50'], ['1000.50', 'en', '1000.50'], ['12.5', 'en', '12.5'], ['1,000', 'en', '1000'],
    ['1,234,567.891', 'en', '1234567.891'], ['0.5', 'en', '0.5'], ['7', 'en', '7'],
    // German: ',' decimal, '.' grouping
    ['12,50', 'de', '12.50'], ['1.000,50', 'de', '1000.50'], ['1.000', 'de', '1000'], ['1,5', 'de', '1.5'],
    ['6.600,65', 'de', '6600.65'], ['1000,5', 'de', '1000.5'],
    // French: ',' decimal, a space grouping: the narrow no-break space Intl writes, the no-break space and a plain space
    [`1${NNB}000,50`, 'fr', '1000.50'], [`1${NB}000,50`, 'fr', '1000.50'], ['1 000,50', 'fr', '1000.50'], ['12,5', 'fr', '12.5'],
    // Spanish: as German ('1000,5' ungrouped, as Intl writes four digits, and '10.000,5')
    ['1000,50', 'es', '1000.50'], ['10.000,50', 'es', '10000.50'], ['1.000,5', 'es', '1000.5'],
  ])('%s in %s is %s', (text, locale, out) => {
    expect(parseLocaleNumber(text, locale)).toEqual({ ok: true, value: out });
  });

  test('what the formatter writes reads back as the same number, in every shipped language', () => {
    for (const locale of ['en', 'de', 'es', 'fr']) {
      expect(read(formatAmount('1234567.125', locale), locale), locale).toBe('1234567.125');
      expect(read(formatAmount('-0.5', locale), locale), locale).toBe('-0.5');
    }
    // the amount of the issue, as the German page shows it ('6.600,65 $')
    expect(formatMoney('6600.65', 'USD', 'de')).toBe(`6.600,65${NB}$`);
    expect(read('6.600,65', 'de')).toBe('6600.65');
  });

  test('the ambiguity rule: the other language\'s separators are refused, never guessed', () => {
    // English: ',' only groups three digits; German: '.' only groups three digits
    for (const [text, locale] of [['1,5', 'en'], ['12,50', 'en'], ['1,00', 'en'], ['0,125', 'en'], ['12.5', 'de'], ['12.50', 'de'], ['0.125', 'de'], ['1.000.5', 'de'], ['1,000,5', 'de']]) {
      expect(parseLocaleNumber(text, locale), `${text} in ${locale}`).toEqual({ ok: false });
    }
    // a grouped number starts with 1–9 and has whole groups
    expect(parseLocaleNumber('0,125', 'en')).toEqual({ ok: false });
    expect(parseLocaleNumber('1,00,000', 'en')).toEqual({ ok: false });
    expect(parseLocaleNumber('1,0000', 'en')).toEqual({ ok: false });
    expect(parseLocaleNumber('1.000,5', 'en')).toEqual({ ok: false });
  });

  test('bad input is refused', () => {
    for (const text of ['', ' ', 'abc', '1e5', '12.5.1', '1,2,3', '--1', '+1', '.5', '5.', '1,000.', 'Infinity', 'NaN', '0x10', '12 5', '1.5abc', '١٢']) {
      expect(parseLocaleNumber(text, 'en'), JSON.stringify(text)).toEqual({ ok: false });
    }
    expect(parseLocaleNumber('1 000,5', 'de')).toEqual({ ok: false }); // a space groups in French, not in German
  });

  test('negatives (a minus or the minus sign) and whitespace around', () => {
    expect(read('-12.5', 'en')).toBe('-12.5');
    expect(read('\u22121.000,5', 'de')).toBe('-1000.5');
    expect(read('  12,50\t', 'de')).toBe('12.50');
    expect(read(`${NB}1${NNB}000,5${NNB}`, 'fr')).toBe('1000.5');
  });

  test('many decimals stay exact: a string, never a float', () => {
    expect(read('0,1234567890123456789012345', 'de')).toBe('0.1234567890123456789012345');
    expect(read('9,007,199,254,740,993.000000000000000001', 'en')).toBe('9007199254740993.000000000000000001');
  });

  test('an unknown language reads as English (the formatter\'s fallback)', () => {
    expect(numberSeparators('xx-invalid-!!')).toEqual({ decimal: '.', group: ',' });
    expect(read('1,000.5', 'not a locale')).toBe('1000.5');
  });
});

describe('fields filled in the page\'s language', () => {
  test('a stored decimal is written with the language\'s decimal separator, every digit, no grouping', () => {
    expect(inputNumber('1234.50', 'de')).toBe('1234,50');
    expect(inputNumber('1.08556', 'fr')).toBe('1,08556');
    expect(inputNumber('1234.50', 'en')).toBe('1234.50');
    expect(inputNumber(0.5, 'es')).toBe('0,5');
    expect(inputNumber('', 'de')).toBe('');
    expect(inputNumber(null, 'de')).toBe('');
    // and reads back as itself
    for (const locale of ['en', 'de', 'es', 'fr']) expect(read(inputNumber('1234.125', locale), locale)).toBe('1234.125');
  });
});

describe('form schemas read their number fields in the page\'s language', () => {
  const form = (entries: Record<string, string>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(entries)) f.append(k, v);
    return f;
  };

  test('the number fields of a schema, nested lists included', () => {
    expect(numberFields(DepositSchema)?.test('amount')).toBe(true);
    expect(numberFields(DepositSchema)?.test('gateway')).toBe(false);
    expect(numberFields(LotsSchema)?.test('selector[3].value')).toBe(true);
    expect(numberFields(LotsSchema)?.test('selector[3].label')).toBe(false);
    expect(numberFields(ModifyOrderSchema)?.test('value')).toBe(true);
  });

  test('a German deposit amount \'12,50\' is 12.50; \'12.5\' is refused there', () => {
    const ok = parseForm(form({ balance_id: '1', gateway: 'bank', amount: '12,50' }), DepositSchema, { numbers: numberReader('de') });
    expect(ok.status).toBe('success');
    expect(ok.status === 'success' && ok.value.amount).toBe('12.5');
    const no = parseForm(form({ balance_id: '1', gateway: 'bank', amount: '12.5' }), DepositSchema, { numbers: numberReader('de') });
    expect(no.status).toBe('error');
    expect(no.status === 'error' ? no.error?.amount : null).toEqual(['Amount must be a number like 12.5']);
  });

  test('English \'1,000.50\' is 1000.5; without a language the canonical form only', () => {
    const ok = parseForm(form({ balance_id: '1', gateway: 'bank', amount: '1,000.50' }), DepositSchema, { numbers: numberReader('en') });
    expect(ok.status === 'success' && ok.value.amount).toBe('1000.5');
    expect(parseForm(form({ balance_id: '1', gateway: 'bank', amount: '1,000.50' }), DepositSchema).status).toBe('error');
  });

  test('a list\'s number fields too (the lot sizes)', () => {
    const r = parseForm(form({
      lot_forex: 'lot', lot_commodity: 'lot', lot_index: 'lot', lot_crypto: 'amount', lot_stock: 'amount',
      'selector[0].label': 'Micro', 'selector[0].value': '1.000', 'selector[1].label': 'Half', 'selector[1].value': '0,5',
    }), LotsSchema, { ...CATALOG_PARSE, numbers: numberReader('de') });
    expect(r.status).toBe('success');
    expect(r.status === 'success' && r.value.selector.map((s) => s.value)).toEqual(['1000', '0.5']);
  });

  test('the reply keeps what was typed (the fields are filled again with it)', () => {
    const r = parseForm(form({ balance_id: 'x', gateway: 'bank', amount: '1.000,50' }), DepositSchema, { numbers: numberReader('de') });
    expect(r.status).toBe('error');
    expect(r.reply().initialValue).toMatchObject({ amount: '1.000,50' });
  });

  test('an empty number field keeps its own message', () => {
    const r = parseForm(form({ balance_id: '1', gateway: 'bank', amount: '' }), DepositSchema, { numbers: numberReader('de') });
    expect(r.status === 'error' ? r.error?.amount : null).toEqual(['Amount is required']);
  });
});

describe('the refusal shows the example as the language writes it', () => {
  test.each([
    ['en', 'Amount must be a number like 12.5'],
    ['de', 'Der Betrag muss eine Zahl wie 12,5 sein'],
    ['fr', 'Le montant doit être un nombre comme 12,5'],
    ['es', 'El importe debe ser un número como 12,5'],
  ])('%s: %s', async (locale, text) => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const file = (l: string) => JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../seeds/translations/${l}.json`), 'utf8')) as Record<string, string>;
    const i18n = createInstance();
    await i18n.init(i18nOptions(locale, { en: file('en'), [locale]: file(locale) }));
    addNumberFormat(i18n);
    expect(i18n.t('Amount must be a number like 12.5')).toBe(text);
    expect(numberExample(locale)).toBe(formatAmount('12.5', locale));
  });

  test('every shipped translation of a "… like 12.5" message writes the example through the formatter', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    for (const l of ['en', 'de', 'es', 'fr']) {
      const file = JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../seeds/translations/${l}.json`), 'utf8')) as Record<string, string>;
      for (const [k, v] of Object.entries(file)) if (/like 12\.5$/.test(k)) expect(v, `${l}: ${k}`).toContain('{{example, decimal}}');
    }
  });
});
