// An incoming lead's fields (docs/specs.md#affiliates-and-the-leads-api), as the leads API and the CSV import both validate them: the
// country must be one resolveCountry reads and the phone a possible number there (the contact rules).
import { z } from 'zod';
import { phoneE164, resolveCountry } from '~/shared/contact.server.ts';

const opt = (max: number) => z.string().trim().max(max, `At most ${max} characters`).optional();

export const LeadInput = z.object({
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
  clientId: z.string().trim().min(1).max(100, 'At most 100 characters').optional(),
}).strict().superRefine((v, ctx) => {
  const c = resolveCountry(v.country);
  if (c && !phoneE164(v.phone, c.code)) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'Invalid phone number for this country' });
});
export type LeadInput = z.infer<typeof LeadInput>;

