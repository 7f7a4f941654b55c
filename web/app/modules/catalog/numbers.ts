// Numbers typed into the trading-configuration forms (instruments, plans, spreads, lots), read as
// the raw strings of a form (parse with { coerce: false }) in the browser and in the action.
// Decimals go through the engine's one decimal parser (engine/src/domain/decimal-input.ts) with the
// column's numeric(p, s) as the bound, so nothing reaches PostgreSQL that its column would refuse
// or round. Each field names its own messages (literal i18n keys at the call site:
// the required_error and message properties), so a refusal says which field and what it accepts.
import { z } from 'zod';
import { NUMBER_FIELD, parseDecimal } from '@broker/engine/domain';
import type { ParseOptions } from '~/shared/forms.ts';

/** These forms hand the raw strings to their schemas: each field reads its own. */
export const CATALOG_PARSE: ParseOptions = { coerce: false };

export interface DecimalBounds {
  /** decimals allowed: the column's scale */
  scale: number;
  /** digits before the point: the column's precision − scale (or less) */
  intDigits: number;
  /** 0 allowed; else the value must be > 0 */
  zero?: boolean;
  /** an upper bound within the column's (a percent: 100) */
  max?: number;
  /** negatives allowed down to -max (a swap rate) */
  signed?: boolean;
}

interface Messages { required_error: string; message: string }

/**
 * The refusal of each number field of these forms, with what the field accepts: every one shows
 * a valid example written in the page's language (docs/specs.md#number-input): a decimal field's
 * translation ends in '{{example, decimal}}' (NUMBER_EXAMPLE, formatted), a whole number's in a
 * whole number it accepts; web/test/number-messages.test.ts holds every language to it.
 */
export const NUMBER_MESSAGES = new Map<string, { kind: 'decimal'; bounds: DecimalBounds } | { kind: 'whole'; min: number; max: number }>();

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** The canonical decimal string of a value within `b`, or null when it is not one. */
export function readDecimal(v: unknown, b: DecimalBounds): string | null {
  if (typeof v !== 'string') return null;
  let text = v.trim();
  const negative = b.signed && text.startsWith('-');
  if (negative) text = text.slice(1);
  const r = parseDecimal(text, { label: 'n', scale: b.scale, intDigits: b.intDigits, zero: b.zero || b.signed });
  if (!r.ok) return null;
  if (b.max !== undefined && Number(r.value) > b.max) return null;
  return negative && r.value !== '0' ? `-${r.value}` : r.value;
}

/** A required decimal: its canonical string ('007.50' → '7.5'). */
export function decimalInput(b: DecimalBounds, m: Messages) {
  NUMBER_MESSAGES.set(m.message, { kind: 'decimal', bounds: b });
  return z.unknown().transform((v, ctx) => {
    if (blank(v)) { ctx.addIssue({ code: 'custom', message: m.required_error }); return z.NEVER; }
    const r = readDecimal(v, b);
    if (r === null) { ctx.addIssue({ code: 'custom', message: m.message }); return z.NEVER; }
    return r;
  }).describe(NUMBER_FIELD);
}

/** An optional decimal: empty is null. */
export function optionalDecimalInput(b: DecimalBounds, m: Pick<Messages, 'message'>) {
  NUMBER_MESSAGES.set(m.message, { kind: 'decimal', bounds: b });
  return z.unknown().transform((v, ctx) => {
    if (blank(v)) return null;
    const r = readDecimal(v, b);
    if (r === null) { ctx.addIssue({ code: 'custom', message: m.message }); return z.NEVER; }
    return r;
  }).describe(NUMBER_FIELD);
}

const WHOLE = /^\d{1,9}$/;

/** A whole number within min..max, written as plain digits. */
export function readWhole(v: unknown, min: number, max: number): number | null {
  if (typeof v !== 'string' || !WHOLE.test(v.trim())) return null;
  const n = Number(v.trim());
  return n >= min && n <= max ? n : null;
}

export function wholeInput(min: number, max: number, m: Messages) {
  NUMBER_MESSAGES.set(m.message, { kind: 'whole', min, max });
  return z.unknown().transform((v, ctx) => {
    if (blank(v)) { ctx.addIssue({ code: 'custom', message: m.required_error }); return z.NEVER; }
    const n = readWhole(v, min, max);
    if (n === null) { ctx.addIssue({ code: 'custom', message: m.message }); return z.NEVER; }
    return n;
  }).describe(NUMBER_FIELD);
}

/** An optional whole number: empty is null. */
export function optionalWholeInput(min: number, max: number, m: Pick<Messages, 'message'>) {
  NUMBER_MESSAGES.set(m.message, { kind: 'whole', min, max });
  return z.unknown().transform((v, ctx) => {
    if (blank(v)) return null;
    const n = readWhole(v, min, max);
    if (n === null) { ctx.addIssue({ code: 'custom', message: m.message }); return z.NEVER; }
    return n;
  }).describe(NUMBER_FIELD);
}

/** A text field: trimmed, required, at most `max` characters and matching `pattern` when given. */
export function textInput(max: number, m: Messages, pattern?: RegExp) {
  return z.unknown().transform((v, ctx) => {
    const s = typeof v === 'string' ? v.trim() : '';
    if (!s) { ctx.addIssue({ code: 'custom', message: m.required_error }); return z.NEVER; }
    if (s.length > max || (pattern && !pattern.test(s))) { ctx.addIssue({ code: 'custom', message: m.message }); return z.NEVER; }
    return s;
  });
}

/** An optional text: trimmed, empty is null. */
export function optionalTextInput(max: number, m: Pick<Messages, 'message'>) {
  return z.unknown().transform((v, ctx) => {
    const s = typeof v === 'string' ? v.trim() : '';
    if (!s) return null;
    if (s.length > max) { ctx.addIssue({ code: 'custom', message: m.message }); return z.NEVER; }
    return s;
  });
}

/** A checkbox of a form read without coercion: 'on' (or 'true') is checked, absent is not. */
export const checkbox = z.unknown().transform((v) => v === 'on' || v === 'true' || v === true);
