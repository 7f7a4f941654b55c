// The languages and translations forms of the back-office (/admin/languages, /admin/languages/:code):
// one zod schema per action, shared by the dialogs (Conform's onValidate) and the actions.
import { z } from 'zod';
import { RECORD_ID } from '~/shared/forms.ts';

/** A BCP-47-like short code as languages.code's CHECK takes it: en, fr, pt-BR, zh-Hant. */
export const LANGUAGE_CODE = /^[a-z]{2}(-[A-Za-z]{2,4})?$/;

const code = z.string({ required_error: 'Code is required' }).trim()
  .min(1, { message: 'Code is required' })
  .regex(LANGUAGE_CODE, { message: 'Code must be a language code such as en, fr or pt-BR' });

export const LanguageSchema = z.object({
  /** the code of the language being edited (the form's id); none when adding */
  id: z.string().regex(LANGUAGE_CODE).optional(),
  code,
  name: z.string({ required_error: 'Name is required' }).trim()
    .min(1, { message: 'Name is required' }).max(60, { message: 'Name allows at most 60 characters' }),
});
export type LanguageInput = z.output<typeof LanguageSchema>;

export const LANGUAGE_ACTIONS = { save: LanguageSchema };

export const TranslationSchema = z.object({
  id: RECORD_ID.optional(),
  code,
  // keys are the English text: kept exactly as typed (no trim), as the code asks for them
  key: z.string({ required_error: 'Key is required' }).min(1, { message: 'Key is required' })
    .max(500, { message: 'Key allows at most 500 characters' }),
  value: z.string({ required_error: 'Value is required' }).refine((v) => v.trim().length > 0, { message: 'Value is required' })
    .refine((v) => v.length <= 5000, { message: 'Value allows at most 5000 characters' }),
});
export type TranslationInput = z.output<typeof TranslationSchema>;

export const DeleteTranslationSchema = z.object({ id: RECORD_ID });

export const TRANSLATION_ACTIONS = { save: TranslationSchema, delete: DeleteTranslationSchema };

/** The {{placeholders}} of a text, sorted: a translation keeps its key's. */
export function placeholders(s: string): string {
  return (s.match(/\{\{\s*[\w.]+\s*\}\}/g) ?? []).map((p) => p.replace(/\s/g, '')).sort().join(',');
}

/** Missing keys shown a page at a time. */
export const MISSING_PAGE_SIZE = 20;
