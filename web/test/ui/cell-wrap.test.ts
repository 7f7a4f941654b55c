// Free text in table cells (decline reasons) wraps between words. `overflow-wrap: anywhere` lets a
// table column shrink to one letter's width (it counts every letter as a break for the column's
// minimum), which cut long decline reasons mid-word; break-word only breaks a word wider than the cell.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const css = readFileSync(new URL('../../app/styles/app.css', import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
const rules = (selector: string) => [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)]
  .filter(([, sel]) => sel.split(',').some((s) => s.trim() === selector))
  .map(([, , body]) => body);

describe('free text in table cells', () => {
  test.each(['.cell-text', '.decline-reason', '.kyc-reason-cell', '.kyc-reason'])('%s wraps between words, never anywhere', (selector) => {
    const body = rules(selector).join(';');
    expect(body).toMatch(/overflow-wrap:\s*break-word/);
    expect(body).not.toMatch(/anywhere/);
  });

  test('the staff and customer decline reason cells use the wrapping class', () => {
    const src = (f: string) => readFileSync(new URL(`../../app/modules/${f}`, import.meta.url), 'utf8');
    expect(src('money/withdrawal-staff.tsx')).toMatch(/className="cell-text">\{row\.original\.declineReason\}/);
    expect(src('customers/edit-page.tsx')).toMatch(/className="cell-text">\{o\.declineReason\}/);
  });
});
