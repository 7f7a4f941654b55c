// One way to read a posted form, in the browser (Conform's onValidate) and in the action:
// Conform's parseWithZod with the page's zod schema, one schema per `intent` where a page has
// several actions, and one answer shape (`Reply`) that every form and fetcher of a page reads.
import { parseWithZod } from '@conform-to/zod';
import type { SubmissionResult } from '@conform-to/react';
import { z } from 'zod';

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
}

/** Conform's parse of a form with its schema, messages as formatIssues says. */
export function parseForm<S extends z.ZodTypeAny>(payload: FormData | URLSearchParams, schema: S, o: ParseOptions = {}) {
  return parseWithZod(payload, { schema, formatError: formatIssues, disableAutoCoercion: o.coerce === false });
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
