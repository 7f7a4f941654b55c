// The external payment form (logo, name and link required; docs/specs.md#payment-gateways).
// Shared with the browser. The logo is a file read by the upload service: in the browser the
// schema sees the chosen File, in the action the id of the stored upload.
import { z } from 'zod';
import { RECORD_ID } from '~/shared/forms.ts';
import { optionalTextInput, textInput } from '~/modules/catalog/numbers.ts';

const noFile = (v: unknown) =>
  v === undefined || v === null || v === '' || (typeof File !== 'undefined' && v instanceof File && v.size === 0 && v.name === '');

/** An http or https address, in its canonical form (a lower-case scheme, as the table's check wants). */
export function readLink(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (!/^https?:\/\/[^\s]+$/i.test(s) || s.length > 500) return null;
  try {
    const u = new URL(s);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname || u.username || u.password) return null;
    return u.href;
  } catch {
    return null;
  }
}

export const ExternalPaymentSchema = z.object({
  id: RECORD_ID.optional(),
  logo: z.unknown(),
  name: textInput(120, { required_error: 'Name is required', message: 'Name allows at most 120 characters' }),
  link: z.unknown().transform((v, ctx) => {
    if (typeof v !== 'string' || v.trim() === '') { ctx.addIssue({ code: 'custom', message: 'Link is required' }); return z.NEVER; }
    const link = readLink(v);
    if (!link) { ctx.addIssue({ code: 'custom', message: 'Link must be an http or https address' }); return z.NEVER; }
    return link;
  }),
  customLabel: optionalTextInput(120, { message: 'Custom label allows at most 120 characters' }),
  customValue: optionalTextInput(500, { message: 'Custom value allows at most 500 characters' }),
}).superRefine((v, ctx) => {
  if (v.id === undefined && noFile(v.logo)) ctx.addIssue({ code: 'custom', path: ['logo'], message: 'Logo is required' });
});

export type ExternalPaymentInput = z.output<typeof ExternalPaymentSchema>;
export const DeleteExternalPaymentSchema = z.object({ id: RECORD_ID });
export const EXTERNAL_PAYMENT_ACTIONS = { save: ExternalPaymentSchema, delete: DeleteExternalPaymentSchema };
