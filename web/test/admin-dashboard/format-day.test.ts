// The dashboard's day labels (useFormat().day): a YYYY-MM-DD UTC day in the language's order.
import { describe, expect, test } from 'vitest';
import { formatDay, formatterFor } from '~/components/ui/format.ts';

describe('formatDay', () => {
  test('English: DD/MM/YYYY, or DD/MM short; the day never moves with the time zone', () => {
    expect(formatDay('2026-01-05', 'en')).toBe('05/01/2026');
    expect(formatDay('2026-01-05', 'en', true)).toBe('05/01');
    expect(formatterFor('en').day('2099-12-31')).toBe('31/12/2099');
  });
  test('other languages: their own order', () => {
    expect(formatDay('2026-01-05', 'de')).toBe('05.01.2026');
    expect(formatDay('2026-01-05', 'fr')).toBe('05/01/2026');
  });
  test('anything else is empty', () => {
    for (const v of ['', null, undefined, '2026-1-5', 'x']) expect(formatDay(v, 'en')).toBe('');
  });
});
