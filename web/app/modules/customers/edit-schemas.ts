// The Edit Customer page's forms (docs/specs.md#customer-records), shared by the browser (Conform) and the
// route's action: the profile form and the balance adjustment. Messages are i18n keys.
import { z } from 'zod';
import { NUMBER_FIELD, parseDecimal, type DecimalSpec } from '@broker/engine/domain';
import { birthDate, required } from '~/modules/auth/schemas.ts';

/** The tabs of the page, in order; the active one is the URL's `tab` (profile when absent or unknown). */
export const EDIT_TABS = ['profile', 'trades', 'deposits', 'withdraws', 'tracking'] as const;
export type EditTab = (typeof EDIT_TABS)[number];
export const TAB_LABELS: Record<EditTab, string> = {
  profile: 'Profile', trades: 'Trades', deposits: 'Deposits', withdraws: 'Withdraws', tracking: 'Tracking',
};
export function readTab(v: string | null): EditTab {
  return (EDIT_TABS as readonly string[]).includes(v ?? '') ? (v as EditTab) : 'profile';
}

/** The spec's value of an unassigned manager or plan select (docs/specs.md#customer-records). */
export const UNASSIGNED = -2;

const ID_TEXT = /^[1-9][0-9]{0,15}$/;

/** A manager / plan select: -2 (or nothing: the disabled placeholder is not posted) is unassigned. */
const assignee = (message: string) => z.union([z.string(), z.number()]).optional()
  .transform((v, ctx) => {
    const s = v === undefined ? '' : String(v).trim();
    if (s === '' || s === String(UNASSIGNED)) return null;
    if (!ID_TEXT.test(s)) { ctx.addIssue({ code: z.ZodIssueCode.custom, message }); return z.NEVER; }
    return Number(s);
  });

/** An optional text field: trimmed, at most `max` characters. */
const optionalText = (max: number, message: string) => z.string().trim().max(max, message).optional().transform((v) => v ?? '');

const email = z.string({ required_error: 'Email is required' }).trim()
  .min(1, 'Email is required').max(254, 'Invalid email').email('Invalid email')
  .transform((v) => v.toLowerCase());

/** Blank keeps the password; else the rule of every new password (at least 8 characters). */
const optionalPassword = z.string().optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.string().min(8, 'Password must be at least 8 characters').max(200, 'Password is too long').optional());

/** Switches: Conform reads a checked box as true, an unchecked one is not posted. */
const flag = z.boolean().optional().default(false);

export const CustomerProfileSchema = z.object({
  fullName: required('Full name is required'),
  email,
  password: optionalPassword,
  phone: optionalText(40, 'Phone is too long'),
  birthDate: z.string().optional().transform((v) => v?.trim() || undefined).pipe(birthDate.optional()),
  country: optionalText(100, 'Select a country from the list'),
  city: optionalText(100, 'City is too long'),
  postalCode: optionalText(20, 'Postal code is too long'),
  address: optionalText(300, 'Address is too long'),
  managerId: assignee('Select a manager from the list'),
  pricingTableId: assignee('Select a plan from the list'),
  isEmailVerified: flag,
  isActive: flag,
});

/**
 * A viewer who sees the contact details masked (a sales agent while 'Show Email & Phone in Agent
 * Dashboard' is off) neither receives nor sends them: the save keeps the stored ones.
 */
export const CustomerProfileSchemaMasked = CustomerProfileSchema.omit({ email: true, phone: true });

/**
 * The account fields of the form: password, manager, plan and the verified / active flags are
 * the back-office's (roles 1 and 2, docs/specs.md#customer-records). A sales agent's form neither
 * shows nor sends them, its schema drops them, and the save keeps the stored ones.
 */
export const ACCOUNT_FIELDS = ['password', 'managerId', 'pricingTableId', 'isEmailVerified', 'isActive'] as const;
const NO_ACCOUNT = { password: true, managerId: true, pricingTableId: true, isEmailVerified: true, isActive: true } as const;

/** The profile form's schema for what the viewer may see and change (editAccess). */
export function customerProfileSchema(access: { masked: boolean; canEditAccount: boolean }) {
  const base = access.masked ? CustomerProfileSchemaMasked : CustomerProfileSchema;
  // typed as the full form: the fields a viewer may not send are neither shown nor validated
  return (access.canEditAccount ? base : base.omit(NO_ACCOUNT)) as typeof CustomerProfileSchema;
}

type Full = z.output<typeof CustomerProfileSchema>;
export type CustomerProfileInput = Omit<Full, 'email' | 'phone' | (typeof ACCOUNT_FIELDS)[number]>
  & Partial<Pick<Full, 'email' | 'phone' | (typeof ACCOUNT_FIELDS)[number]>>;

/** balances.balance is numeric(24, 8): an adjustment has at most 8 decimals and 16 integer digits. */
export const ADJUST_AMOUNT: DecimalSpec = { label: 'Amount', scale: 8, intDigits: 16 };
export const REASON_MAX = 500;
const CLIENT_REF = /^[A-Za-z0-9-]{8,64}$/;

export const BalanceSchema = z.object({
  balanceId: z.string({ required_error: 'Wallet not found' }).regex(ID_TEXT, 'Wallet not found').transform(Number),
  type: z.enum(['add', 'subtract'], { errorMap: () => ({ message: 'Choose add or subtract' }) }),
  amount: z.union([z.string(), z.number()], { required_error: 'Amount is required' }).transform((v, ctx) => {
    const r = parseDecimal(v, ADJUST_AMOUNT);
    if (!r.ok) { ctx.addIssue({ code: z.ZodIssueCode.custom, message: r.message }); return z.NEVER; }
    return r.value;
  }).describe(NUMBER_FIELD),
  reason: z.string({ required_error: 'Reason is required' }).trim()
    .min(1, 'Reason is required').max(REASON_MAX, 'Reason allows at most 500 characters'),
  // the form's random id: a double submit posts one ledger entry
  clientRef: z.string({ required_error: 'Something went wrong' }).regex(CLIENT_REF, 'Something went wrong'),
});
export type BalanceInput = z.output<typeof BalanceSchema>;

/** The balance form reads the raw strings (the decimal parser refuses '' and '1e3' naming the field). */
export const BALANCE_PARSE = { coerce: false } as const;
