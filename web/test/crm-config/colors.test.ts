// The sales-status chip's text colour: black or white, whichever contrasts more, which always
// meets WCAG AA (4.5:1) on any background colour.
import { describe, expect, test } from 'vitest';
import { chipTextColor, contrastRatio, luminance } from '~/modules/crm-config/colors.ts';

describe('chip text colour', () => {
  test('known values: WCAG luminance and contrast', () => {
    expect(luminance('#000000')).toBe(0);
    expect(luminance('#ffffff')).toBeCloseTo(1, 10);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 10);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  test('dark backgrounds get white text, light ones black', () => {
    expect(chipTextColor('#000000')).toBe('#ffffff');
    expect(chipTextColor('#1f6feb')).toBe('#ffffff');
    expect(chipTextColor('#ffffff')).toBe('#000000');
    expect(chipTextColor('#d29922')).toBe('#000000');
    expect(chipTextColor('#3fb950')).toBe('#000000');
  });

  test('every colour of a sweep of the RGB cube reaches at least 4.5:1', () => {
    let worst = 21;
    for (let r = 0; r < 256; r += 15) for (let g = 0; g < 256; g += 15) for (let b = 0; b < 256; b += 15) {
      const bg = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
      worst = Math.min(worst, contrastRatio(bg, chipTextColor(bg)));
    }
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });
});
