// One way to read a posted form, in the browser (Conform's onValidate) and in the action:
// Conform's parseWithZod with the page's zod schema, one schema per `intent` where a page has
// several actions, and one answer shape (`Reply`) that every form and fetcher of a page reads.
import { parseWithZod } from '@conform-to/zod';
import type { SubmissionResult } from '@conform-to/react';
import { z } from 'zod';
import { NUMBER_FIELD } from '@broker/engine/domain';

export const GENERIC_ERROR = 'Something went wrong';

/**
 * What an action answers to a form or a fetcher: whether it worked, the toast to show (an i18n
 * key and its values), and Conform's reply, which carries the field errors shown under the fields.
 */
export interface Reply {
  ok: boolean;
  /** the action that answered, on a page with several */
  intent?: string;
  toast?: string | null;
  values?: Record<string, string | number>;
  result?: SubmissionResult<string[]>;
}

/** Issues of a value the page itself fills (a hidden field, a select): zod's words about them help nobody. */
const STRUCTURAL: ReadonlySet<string> = new Set([
  'invalid_type', 'invalid_literal', 'invalid_enum_value', 'invalid_union', 'invalid_union_discriminator', 'unrecognized_keys',
]);

/**
 * zod's own words for a wrong type, enum or literal ('Required', "Invalid enum value. Expected …")
 * are not i18n keys and say nothing a user can act on: the field shows the generic error. Every
 * message a schema wrote (a check's message, a required_error, a parser's custom issue) is kept.
 */
export function formatIssues(issues: z.ZodIssue[]): string[] {
  return issues.map((issue) => {
    if (!STRUCTURAL.has(issue.code)) return issue.message;
    const zods = z.defaultErrorMap(issue, { data: undefined, defaultError: '' }).message;
    return issue.message && issue.message !== zods ? issue.message : GENERIC_ERROR;
  });
}

export interface ParseOptions {
  /**
   * Conform's coercion (default on): an empty field is not given, 'on' is true, numbers are
   * numbers. Off for schemas that read the raw strings themselves (the engine's decimal parser
   * refuses an empty amount naming the field).
   */
  coerce?: boolean;
  /**
   * How the page's language writes numbers (components/ui/number-input.ts `numberReader(locale)`):
   * every number field of the schema (described NUMBER_FIELD) is read through it before the
   * schema sees it, so '12,50' on a German page is '12.50'. The browser's form passes the page's
   * language, the action the request's (docs/specs.md#number-input).
   */
  numbers?: (text: string) => string;
}

type Def = { typeName?: string; innerType?: z.ZodTypeAny; schema?: z.ZodTypeAny; in?: z.ZodTypeAny; type?: z.ZodTypeAny; options?: z.ZodTypeAny[] };
const defOf = (s: z.ZodTypeAny) => s._def as Def;
/** The schema a wrapper (optional, nullable, default, catch, transform, refine, pipe, brand) wraps. */
const inner = (s: z.ZodTypeAny): z.ZodTypeAny | undefined => {
  const d = defOf(s);
  return d.innerType ?? d.schema ?? d.in ?? (d.typeName === 'ZodBranded' ? d.type : undefined);
};

function isNumberField(s: z.ZodTypeAny): boolean {
  for (let t: z.ZodTypeAny | undefined = s; t; t = inner(t)) if (t.description === NUMBER_FIELD) return true;
  return false;
}

const numberFieldsOf = new WeakMap<z.ZodTypeAny, RegExp | null>();
const escapeName = (k: string) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * The names of a form schema's number fields as Conform writes them ('amount', 'selector[2].value'),
 * as one pattern; null when it has none.
 */
export function numberFields(schema: z.ZodTypeAny): RegExp | null {
  if (numberFieldsOf.has(schema)) return numberFieldsOf.get(schema)!;
  const names: string[] = [];
  const visit = (s: z.ZodTypeAny | undefined, prefix: string): void => {
    for (let t = s; t; t = inner(t)) {
      if (t instanceof z.ZodObject) {
        for (const [k, f] of Object.entries(t.shape as Record<string, z.ZodTypeAny>)) {
          const name = prefix ? `${prefix}\\.${escapeName(k)}` : escapeName(k);
          if (isNumberField(f)) names.push(name);
          else visit(f, name);
        }
        return;
      }
      if (t instanceof z.ZodArray) return visit(t.element as z.ZodTypeAny, `${prefix}\\[\\d+\\]`);
      const options = defOf(t).options;
      if (options) return options.forEach((o) => visit(o, prefix));
    }
  };
  visit(schema, '');
  const out = names.length ? new RegExp(`^(?:${[...new Set(names)].join('|')})$`) : null;
  numberFieldsOf.set(schema, out);
  return out;
}

/**
 * `v` (a form's values as Conform names them: { amount, selector: [{ value }] }) with each number
 * field's text replaced by `fn(text)`; a new object, `v` is left as it is.
 */
export function mapNumberFields(v: unknown, fields: RegExp, fn: (text: string, name: string) => string, name = ''): unknown {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return fields.test(name) ? fn(String(v), name) : v;
  if (Array.isArray(v)) return v.map((x, i) => mapNumberFields(x, fields, fn, `${name}[${i}]`));
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapNumberFields(x, fields, fn, name ? `${name}.${k}` : k)]));
  }
  return v;
}

const readingNumbers = new WeakMap<z.ZodTypeAny, WeakMap<(text: string) => string, z.ZodTypeAny>>();
/**
 * The schema behind a step that reads its number fields through `read` first. The payload Conform
 * keeps (and replies with, to fill the fields again) stays as typed.
 */
function readingNumbersOf(schema: z.ZodTypeAny, read: (text: string) => string): z.ZodTypeAny {
  const fields = numberFields(schema);
  if (!fields) return schema;
  let byReader = readingNumbers.get(schema);
  if (!byReader) readingNumbers.set(schema, (byReader = new WeakMap()));
  let out = byReader.get(read);
  if (!out) {
    out = z.preprocess((payload) => mapNumberFields(payload, fields, read), schema);
    byReader.set(read, out);
  }
  return out;
}

/** Conform's parse of a form with its schema, messages as formatIssues says. */
export function parseForm<S extends z.ZodTypeAny>(payload: FormData | URLSearchParams, schema: S, o: ParseOptions = {}) {
  const read = o.numbers ? readingNumbersOf(schema, o.numbers) : schema;
  return parseWithZod(payload, { schema: read as S, formatError: formatIssues, disableAutoCoercion: o.coerce === false });
}

/**
 * A page with several actions: the form's `intent` picks the schema. An unknown intent is an
 * error on the `intent` field (nothing else is read).
 */
export function parseIntent<S extends Record<string, z.ZodTypeAny>>(payload: FormData | URLSearchParams, schemas: S, o: ParseOptions = {}) {
  const intent = String(payload.get('intent') ?? '');
  const schema = Object.hasOwn(schemas, intent)
    ? schemas[intent]
    : z.object({ intent: z.enum(Object.keys(schemas) as [string, ...string[]]) });
  return { intent, submission: parseForm(payload, schema as S[keyof S], o) };
}

/** The id a create-or-edit form posts when it edits (FormDialog): `id: RECORD_ID.optional()`. */
export const RECORD_ID = z.coerce.number().int().positive().max(2 ** 53 - 1);

/** The toast of a refused form: the first message a schema wrote (it names the field), else the generic one. */
export function refusalToast(error: Record<string, string[] | null> | null | undefined): string {
  const messages = Object.values(error ?? {}).flatMap((m) => m ?? []);
  return messages.find((m) => m !== GENERIC_ERROR) ?? GENERIC_ERROR;
}
