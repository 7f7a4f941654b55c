// The sales-status chip's colours (docs/specs.md#crm-configuration): the status's own colour as the
// chip's background and, on it, black or white text, whichever contrasts more (WCAG 2.1's
// relative luminance and contrast ratio). Black or white always reaches at least 4.58:1 on any
// colour, so every chip's text meets AA (4.5:1) whatever colour was chosen.

/** A colour stored in sales_statuses.color: '#' and six hex digits. */
export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** The colour a new status starts with (the column's default). */
export const DEFAULT_STATUS_COLOR = '#64748b';

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance of '#rrggbb' (0 black … 1 white); a malformed colour reads as the default. */
export function luminance(hex: string): number {
  const h = HEX_COLOR.test(hex) ? hex : DEFAULT_STATUS_COLOR;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG contrast ratio of two colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The chip's text colour on `background`: black or white, whichever contrasts more. */
export function chipTextColor(background: string): '#000000' | '#ffffff' {
  return contrastRatio(background, '#000000') >= contrastRatio(background, '#ffffff') ? '#000000' : '#ffffff';
}
