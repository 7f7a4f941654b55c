// A lead's fields (docs/specs.md#affiliates-and-the-leads-api), one schema for every writer: the leads API, the
// CSV import and the CRM's add and edit lead. The country must be one resolveCountry reads and the phone a
// possible number there (the contact rules, shared/contact.server.ts).
import { z } from 'zod';
import { phoneE164, resolveCountry } from '~/shared/contact.server.ts';

const opt = (max: number) => z.string().trim().max(max, `At most ${max} characters`).optional();

/** The fields themselves (no refinement yet: `.extend` stays possible). */
const LeadFields = z.object({
  firstName: z.string({ required_error: 'First name is required' }).trim().min(1, 'First name is required').max(100, 'At most 100 characters'),
  lastName: z.string({ required_error: 'Last name is required' }).trim().min(1, 'Last name is required').max(100, 'At most 100 characters'),
  email: z.string({ required_error: 'Email is required' }).trim().max(254, 'At most 254 characters').email('Invalid email address'),
  phone: z.string({ required_error: 'Phone is required' }).trim().min(1, 'Phone is required').max(40, 'At most 40 characters'),
  country: z.string({ required_error: 'Country is required' }).trim().min(1, 'Country is required').max(100, 'At most 100 characters')
    .refine((c) => resolveCountry(c) !== null, 'Unknown country (an ISO 3166 code such as GB, or the country name)'),
  city: opt(100),
  funnelLink: z.string().trim().max(500, 'At most 500 characters').url('Invalid URL').refine((u) => /^https?:\/\//i.test(u), 'Invalid URL').optional(),
  reference: opt(200),
  leadSourceId: opt(200),
});

function contactRule(v: { phone: string; country: string }, ctx: z.RefinementCtx) {
  const c = resolveCountry(v.country);
  if (c && !phoneE164(v.phone, c.code)) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'Invalid phone number for this country' });
}

/** What the leads API and the CSV import take (a batch's lead may carry its clientId; nothing else). */
export const LeadInput = LeadFields.extend({
  clientId: z.string().trim().min(1).max(100, 'At most 100 characters').optional(),
}).strict().superRefine(contactRule);
export type LeadInput = z.infer<typeof LeadInput>;

/** The CRM's add and edit lead: the same fields and rules (the form's other fields are its own). */
const CrmLead = LeadFields.superRefine(contactRule);

/** A staff-typed lead checked with the one schema: its clean values, or the field errors (first message per field). */
export function checkLeadFields(v: Record<string, unknown>):
  { ok: true; value: z.infer<typeof LeadFields> & { countryName: string } } | { ok: false; fieldErrors: Record<string, string[]> } {
  // the form posts an empty optional field as nothing
  const input = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined && x !== ''));
  const p = CrmLead.safeParse(Object.fromEntries(Object.keys(LeadFields.shape).filter((k) => k in input).map((k) => [k, input[k]])));
  if (p.success) return { ok: true, value: { ...p.data, countryName: resolveCountry(p.data.country)!.name } };
  const fieldErrors: Record<string, string[]> = {};
  for (const i of p.error.issues) fieldErrors[String(i.path[0] ?? 'form')] ??= [i.message];
  return { ok: false, fieldErrors };
}
