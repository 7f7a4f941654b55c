// The forms of the CRM configuration pages (docs/specs.md#crm-configuration), one schema for the
// dialog and the action. They read the raw strings of the form (CATALOG_PARSE: no coercion), so
// each field names its own message: the spec's 'Status is required', 'isDefault is required',
// 'Name is required' and 'Manager is required', and ours for what the spec leaves open.
import { z } from 'zod';
import { RECORD_ID } from '~/shared/forms.ts';
import { textInput } from '~/modules/catalog/numbers.ts';
import { DEFAULT_STATUS_COLOR, HEX_COLOR } from './colors.ts';
export { CATALOG_PARSE as CRM_CONFIG_PARSE } from '~/modules/catalog/numbers.ts';

/** sales_statuses.status CHECK (length(status) BETWEEN 1 AND 60) */
export const STATUS_MAX = 60;
/** teams.name CHECK (length(name) BETWEEN 1 AND 120) */
export const TEAM_NAME_MAX = 120;
/** members one team may have (a form of checkboxes: bounded like any list a person posts) */
export const TEAM_MEMBERS_MAX = 500;

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const ID = /^\d{1,15}$/;

/** A record id chosen in a select: a positive whole number, else `message`. */
function idInput({ message }: { message: string }) {
  return z.unknown().transform((v, ctx) => {
    const s = typeof v === 'string' ? v.trim() : '';
    if (!ID.test(s) || Number(s) < 1) { ctx.addIssue({ code: 'custom', message }); return z.NEVER; }
    return Number(s);
  });
}

export const SalesStatusSchema = z.object({
  id: RECORD_ID.optional(),
  status: textInput(STATUS_MAX, { required_error: 'Status is required', message: 'Status allows at most 60 characters' }),
  color: z.unknown().transform((v, ctx) => {
    if (blank(v)) return DEFAULT_STATUS_COLOR;
    const s = typeof v === 'string' ? v.trim() : '';
    if (!HEX_COLOR.test(s)) { ctx.addIssue({ code: 'custom', message: 'Color must be a hex colour like #2f81f7' }); return z.NEVER; }
    return s.toLowerCase();
  }),
  // the spec's isDefault: a required boolean (the dialog's Yes / No select)
  isDefault: z.unknown().transform((v, ctx) => {
    if (v === 'true' || v === 'on' || v === true) return true;
    if (v === 'false' || v === false) return false;
    ctx.addIssue({ code: 'custom', message: 'isDefault is required' });
    return z.NEVER;
  }),
});
export type SalesStatusInput = z.output<typeof SalesStatusSchema>;

/** Delete a status; one that leads have needs the status they move to. */
export const DeleteSalesStatusSchema = z.object({
  id: RECORD_ID,
  replacementId: z.unknown().transform((v, ctx) => {
    if (blank(v)) return null;
    const s = typeof v === 'string' ? v.trim() : '';
    if (!ID.test(s) || Number(s) < 1) { ctx.addIssue({ code: 'custom', message: 'Choose the status its leads move to' }); return z.NEVER; }
    return Number(s);
  }),
});

export const SALES_STATUS_ACTIONS = { save: SalesStatusSchema, delete: DeleteSalesStatusSchema };

export const TeamSchema = z.object({
  id: RECORD_ID.optional(),
  name: textInput(TEAM_NAME_MAX, { required_error: 'Name is required', message: 'Name allows at most 120 characters' }),
  // the spec's userId: the manager, a required number
  userId: idInput({ message: 'Manager is required' }),
  // the spec's userIds: the members (sales and retention agents), any number, each once
  userIds: z.unknown().transform((v, ctx) => {
    const raw = blank(v) ? [] : Array.isArray(v) ? v : [v];
    const ids = new Set<number>();
    for (const x of raw) {
      const s = typeof x === 'string' ? x.trim() : '';
      if (!ID.test(s) || Number(s) < 1) { ctx.addIssue({ code: 'custom', message: 'Members must be sales or retention agents' }); return z.NEVER; }
      ids.add(Number(s));
    }
    if (ids.size > TEAM_MEMBERS_MAX) { ctx.addIssue({ code: 'custom', message: 'A team has at most 500 members' }); return z.NEVER; }
    return [...ids];
  }),
});
export type TeamInput = z.output<typeof TeamSchema>;

export const DeleteTeamSchema = z.object({ id: RECORD_ID });

export const TEAM_ACTIONS = { save: TeamSchema, delete: DeleteTeamSchema };

/** Generate a promo code; `current` is the code the page showed (a repeated post changes nothing). */
export const GeneratePromoSchema = z.object({
  current: z.unknown().transform((v) => (typeof v === 'string' ? v.trim().toUpperCase().slice(0, 32) : '')),
});

export const PROMO_ACTIONS = { generate: GeneratePromoSchema };
