// Numbers as people type them, read in the page's language: the inverse of format.ts, with the
// same separators (Intl's), so a field accepts what the page writes ('6.600,65 $' → '6.600,65').
// Returns an exact decimal string ('-1000.50'), never a float; the field's own parser (the
// engine's decimal-input.ts: scale, size, sign) then reads that canonical text. Rule
// (docs/specs.md#number-input):
//   - the decimal separator is the language's (en '.', de/es/fr ','), at most one;
//   - the grouping separator is the language's (en ',', de/es '.', fr a space: any space, the
//     no-break and the narrow no-break space alike), optional, only before the decimal separator,
//     and only between groups of exactly three digits after a first group of one to three starting
//     with 1–9 (de '0.125' is no number, not 125);
//   - so in en '1,000' is one thousand and '1,5' is refused (the message shows '12.5'); in de
//     '1.000' is one thousand, '1,5' is one and a half and '12.5' is refused (the message shows '12,5');
//   - a leading '-' (or the minus sign U+2212) for a negative; spaces around are ignored.
import { formatAmount, safeLocale } from './format.ts';

export interface Separators { decimal: string; group: string }

const separators = new Map<string, Separators>();
/** The language's decimal and grouping separators, as Intl formats them. */
export function numberSeparators(locale: string): Separators {
  const loc = safeLocale(locale);
  let s = separators.get(loc);
  if (!s) {
    const parts = new Intl.NumberFormat(loc, { useGrouping: true }).formatToParts(1234567.5);
    s = {
      decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
      group: parts.find((p) => p.type === 'group')?.value ?? ',',
    };
    separators.set(loc, s);
  }
  return s;
}

const SPACES = /^[\s\u00a0\u202f]$/;
const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const patterns = new Map<string, RegExp>();
function pattern(locale: string): RegExp {
  const { decimal, group } = numberSeparators(locale);
  const key = `${decimal}|${group}`;
  let re = patterns.get(key);
  if (!re) {
    // a space-like group separator: any of the spaces people (and Intl) write
    const g = SPACES.test(group) ? '[ \\u00a0\\u202f]' : escape(group);
    // a grouped number starts with 1–9: de '0.125' is no number, not 125
    re = new RegExp(`^([-\\u2212]?)(\\d+|[1-9]\\d{0,2}(?:${g}\\d{3})+)(?:${escape(decimal)}(\\d+))?$`);
    patterns.set(key, re);
  }
  return re;
}

export type LocaleNumber = { ok: true; value: string } | { ok: false };

/**
 * A number typed in `locale`'s way → its exact plain decimal string ('1.000,50' in de → '1000.50',
 * digits as typed); { ok: false } when it is not one in that language.
 */
export function parseLocaleNumber(input: string, locale: string): LocaleNumber {
  const text = input.trim();
  const m = pattern(locale).exec(text);
  if (!m) return { ok: false };
  const int = m[2].replace(/\D/g, '');
  return { ok: true, value: `${m[1] ? '-' : ''}${int}${m[3] !== undefined ? `.${m[3]}` : ''}` };
}

/** The exact decimal string of a number typed in `locale`, or null (a live check: nothing else is read as a number). */
export function readNumber(input: string, locale: string): string | null {
  const r = parseLocaleNumber(input, locale);
  return r.ok ? r.value : null;
}

/** A number typed in `locale` as a float for live figures and checks (never stored); NaN when it is not one. */
export function numberValue(input: string, locale: string): number {
  const r = readNumber(input, locale);
  return r === null ? NaN : Number(r);
}

const readers = new Map<string, (text: string) => string>();
/**
 * The reader a form's number fields go through (ParseOptions.numbers, shared/forms.ts): the
 * canonical text of a number typed in `locale`. An empty field (and a level's 'null') stays as it
 * is, for the field's own rule; anything else that is not a number of that language becomes 'NaN',
 * which every number field refuses with its message ('… must be a number like 12,5') — never read
 * in another language's way (de '12.5' is refused, not taken as 12.5).
 */
export function numberReader(locale: string): (text: string) => string {
  const loc = safeLocale(locale);
  let read = readers.get(loc);
  if (!read) {
    read = (text) => {
      const r = parseLocaleNumber(text, loc);
      if (r.ok) return r.value;
      const t = text.trim();
      return t === '' || t === 'null' ? text : 'NaN';
    };
    readers.set(loc, read);
  }
  return read;
}

const CANONICAL = /^(-?\d+)(?:\.(\d+))?$/;

/**
 * A stored decimal as a field's value on a page in `locale`: the language's decimal separator, no
 * grouping, every digit ('1234.50' → de '1234,50'), so the form posts back what it was filled with.
 * Anything that is not a plain decimal is left as it is.
 */
export function inputNumber(v: string | number | null | undefined, locale: string): string {
  if (v === null || v === undefined) return '';
  const text = String(v).trim();
  const m = CANONICAL.exec(text);
  if (!m) return text;
  return m[2] === undefined ? m[1] : `${m[1]}${numberSeparators(locale).decimal}${m[2]}`;
}

/** The example the refusals show ('… a number like 12,5'), formatted for the language. */
export const NUMBER_EXAMPLE = '12.5';
export function numberExample(locale: string): string {
  return formatAmount(NUMBER_EXAMPLE, locale);
}
