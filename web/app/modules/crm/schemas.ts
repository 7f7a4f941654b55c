// The lead lists' URL filters and actions (docs/specs.md#crm-lead-lists): one zod schema per action, told apart by
// `intent`, shared by the page (Conform) and the action. Messages are i18n keys.
import { z } from 'zod';
import { RECORD_ID, parseIntent } from '~/shared/forms.ts';

const ID = /^[1-9][0-9]{0,15}$/;

/** The list's own URL parameters: the status (All or one status) and the agent filter (a user id). */
export const LEAD_FILTERS = {
  status: z.string().default('').transform((v) => (v === 'All' ? '' : v.slice(0, 60))),
  agent: z.string().default('').refine((v) => v === '' || (ID.test(v) && Number.isSafeInteger(Number(v))), { message: 'Agent not found' }),
};

const text = (max: number, message = 'Too long') => z.string().trim().max(max, message).optional().transform((v) => v ?? '');
const optionalText = (max: number) => z.string().trim().max(max, 'Too long').optional().transform((v) => (v ? v : null));
/** A staff picker: a user id, or -2 / empty for unassigned. */
const picker = z.coerce.number().int().optional().transform((v) => (v === undefined || v === -2 ? null : v))
  .refine((v) => v === null || (v > 0 && Number.isSafeInteger(v)), { message: 'Something went wrong' });

/** Ids of the selected rows, comma-separated; 'all' selects every row of the current filtered list. */
const selection = {
  all: z.enum(['0', '1']).optional().transform((v) => v === '1'),
  ids: z.string().max(20_000).optional().transform((v, ctx) => {
    const list = (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (list.some((s) => !ID.test(s) || !Number.isSafeInteger(Number(s)))) {
      ctx.addIssue({ code: 'custom', message: 'Something went wrong' });
      return z.NEVER;
    }
    return [...new Set(list.map(Number))];
  }),
  /** a token the page picks to follow a large action's progress (the loader's ?bulkProgress=) */
  progress: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'Something went wrong').optional(),
};

export const MoveSchema = z.object({ target: z.enum(['sales', 'retentions', 'archived']), ...selection })
  .refine((v) => v.all || v.ids.length > 0, { message: 'Select at least one lead', path: ['ids'] });

export const AssignSchema = z.object({ agentId: RECORD_ID, ...selection })
  .refine((v) => v.all || v.ids.length > 0, { message: 'Select at least one lead', path: ['ids'] });

/**
 * The form's copy of a lead's fields (the browser's check: lengths and formats). The server checks every
 * add and edit with the one lead schema the leads API and the CSV import use (lead-input.server.ts
 * checkLeadFields: the country from the list, the phone a possible number there); the messages are its.
 */
const leadFields = {
  firstName: z.string({ required_error: 'First name is required' }).trim().min(1, 'First name is required').max(100, 'At most 100 characters'),
  lastName: z.string({ required_error: 'Last name is required' }).trim().min(1, 'Last name is required').max(100, 'At most 100 characters'),
  email: z.string({ required_error: 'Email is required' }).trim().max(254, 'At most 254 characters').email('Invalid email address'),
  phone: z.string({ required_error: 'Phone is required' }).trim().min(1, 'Phone is required').max(40, 'At most 40 characters'),
  country: z.string({ required_error: 'Country is required' }).trim().min(1, 'Country is required').max(100, 'At most 100 characters'),
  city: text(100),
  funnelLink: optionalText(500),
  reference: optionalText(200),
  leadStatus: z.string({ required_error: 'Status is required' }).trim().min(1, 'Status is required').max(60, 'Status is required'),
};

export const EditLeadSchema = z.object({
  id: RECORD_ID,
  ...leadFields,
  // agents (roles 5, 6) post only the status: the server keeps the stored values (and requires the others of staff who may edit them)
  firstName: leadFields.firstName.optional(),
  lastName: leadFields.lastName.optional(),
  email: leadFields.email.optional(),
  phone: leadFields.phone.optional(),
  country: leadFields.country.optional(),
  leadStatus: leadFields.leadStatus.optional(),
  leadSourceId: optionalText(200),
  managerId: picker,
  agentId: picker,
  retId: picker,
});

export const AddLeadSchema = z.object(leadFields);

export const DeleteLeadSchema = z.object({ id: RECORD_ID });

export const NoteSchema = z.object({
  leadId: RECORD_ID,
  content: z.string({ required_error: 'Note is required' }).trim().min(1, 'Note is required').max(5000, 'Note is too long'),
});

export const ConvertLeadSchema = z.object({
  id: RECORD_ID,
  password: z.string({ required_error: 'Password is required' }).min(8, 'Password must be at least 8 characters').max(200, 'Password is too long'),
});

/** An agent reveals one masked contact of one lead (when the broker allows it to their role; audited). */
export const RevealSchema = z.object({ id: RECORD_ID, field: z.enum(['email', 'phone']) });

export const LEAD_ACTIONS = {
  move: MoveSchema, assign: AssignSchema, edit: EditLeadSchema, add: AddLeadSchema, delete: DeleteLeadSchema,
  note: NoteSchema, convert: ConvertLeadSchema, reveal: RevealSchema,
};
export type LeadActionName = keyof typeof LEAD_ACTIONS;

export function parseLeadForm(form: FormData) {
  return parseIntent(form, LEAD_ACTIONS);
}
