// The forms' country lists: the stored value stays the English name, the label is the page's language.
import { describe, expect, test } from 'vitest';
import { countryNames, countryOptions } from '~/modules/auth/countries.server.ts';

describe('country options', () => {
  test('German labels, sorted in German, values in English', () => {
    const de = countryOptions('de');
    const uk = de.find((o) => o.value === 'United Kingdom');
    expect(uk?.label).toBe('Vereinigtes Königreich');
    expect(de.find((o) => o.value === 'Germany')?.label).toBe('Deutschland');
    const labels = de.map((o) => o.label);
    expect(labels).toEqual([...labels].sort(new Intl.Collator('de').compare));
    expect(de.map((o) => o.value).sort()).toEqual([...countryNames()].sort());
  });
  test('French and Spanish too; English keeps the list as it was', () => {
    expect(countryOptions('fr').find((o) => o.value === 'Germany')?.label).toBe('Allemagne');
    expect(countryOptions('es').find((o) => o.value === 'Germany')?.label).toBe('Alemania');
    expect(countryOptions('en').map((o) => o.label)).toEqual(countryNames());
  });
  test('a stored country the list lacks stays first, as it is', () => {
    expect(countryOptions('de', 'Atlantis')[0]).toEqual({ value: 'Atlantis', label: 'Atlantis' });
    expect(countryOptions('de', 'Germany')[0].value).not.toBe('Germany');
  });
});
