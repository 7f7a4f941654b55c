// Zod schemas of the visitor forms, shared by the browser (Conform) and the server actions.
// Messages are i18n keys (the English text), quoted from docs/specs.md#client-validation where it gives them.
import { z } from 'zod';

const email = z
  .string({ required_error: 'Email is required' })
  .trim()
  .max(254, 'Invalid email')
  .email('Invalid email')
  .transform((v) => v.toLowerCase());

/** The rule of every new password (sign-up, reset, change): at least 8 characters, at most 200. */
const passwordRule = (requiredMessage: string) => z
  .string({ required_error: requiredMessage })
  .min(8, 'Password must be at least 8 characters')
  .max(200, 'Password is too long');

/** A required text field: trimmed, not empty, at most `max` characters (one message for both). */
export const required = (message: string, max = 200) => z.string({ required_error: message }).trim().min(1, message).max(max, message);

/** Youngest and oldest age a birth date may give (docs/specs.md#client-validation). */
export const MIN_AGE = 18;
export const MAX_AGE = 120;

/** A YYYY-MM-DD that names a real calendar day ('2023-02-30' is not one). */
export function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** The day `years` years before `now` (UTC), as YYYY-MM-DD; 29 February falls back to the 28th. */
export function yearsBefore(years: number, now = new Date()): string {
  const y = now.getUTCFullYear() - years, mo = now.getUTCMonth(), d = now.getUTCDate();
  const t = new Date(Date.UTC(y, mo, d));
  const day = t.getUTCMonth() === mo ? t : new Date(Date.UTC(y, mo + 1, 0));
  return day.toISOString().slice(0, 10);
}

/**
 * A birth date (sign-up and profile; optional in both): a real calendar day giving an age from
 * MIN_AGE to MAX_AGE today. Compared as YYYY-MM-DD text, so no time zone moves a day.
 */
export const birthDate = z
  .string()
  .refine(isCalendarDate, 'Invalid date')
  .refine((v) => !isCalendarDate(v) || v <= yearsBefore(MIN_AGE), 'You must be at least 18 years old')
  .refine((v) => !isCalendarDate(v) || v >= yearsBefore(MAX_AGE), 'Invalid date');

const newPassword = passwordRule('Password is required');

export const LoginSchema = z.object({
  email,
  password: z.string({ required_error: 'Password is required' }).max(200),
  remember: z.boolean().optional().default(false),
  humanKey: z.string().max(4000).optional(),
});

// the 'Passwords must match' check runs even while other fields are still invalid
const passwordsMatch = z
  .object({ password: z.string().optional(), passwordConfirmation: z.string().optional() })
  .refine((v) => !v.password || v.password === v.passwordConfirmation, { message: 'Passwords must match', path: ['passwordConfirmation'] });

export const SignupSchema = z
  .object({
    fullName: required('Full name is required'),
    email,
    password: newPassword,
    passwordConfirmation: z.string({ required_error: 'Passwords must match' }),
    phone: required('Phone is required', 40),
    birthDate: birthDate.optional(),
    country: required('Country is required', 100),
    city: required('City is required', 100),
    address: required('Address is required', 300),
    postalCode: required('Postal code is required', 20),
    promoCode: z.string().trim().max(32).optional(),
    currency: z.string({ required_error: 'Currency is required' }).regex(/^[A-Z]{3}$/, 'Currency is required'),
    humanKey: z.string().max(4000).optional(),
  })
  .and(passwordsMatch);

export const ForgotPasswordSchema = z.object({ email, humanKey: z.string().max(4000).optional() });

/** 'Resend verification' on the sign-in page: the address typed there. */
export const ResendVerificationSchema = z.object({ email });

/** Reset password: the new password typed twice, checked here on the server as in the browser. */
export const ResetPasswordSchema = z
  .object({ password: newPassword, passwordConfirmation: z.string({ required_error: 'Passwords must match' }) })
  .and(passwordsMatch);

/** /security: change password (docs/specs.md#client-validation). */
export const ChangePasswordSchema = z.object({
  currentPassword: z.string({ required_error: 'Current password is required' }).min(1, 'Current password is required').max(200, 'Password is too long'),
  newPassword: passwordRule('New password is required'),
});

/** A code from the authenticator app: six digits (spaces allowed, as apps show them). */
export const TotpCodeSchema = z.object({
  code: z.string({ required_error: 'Code is required' }).trim().regex(/^\d{3} ?\d{3}$/, 'Enter the 6-digit code from your app'),
});

/** The second step of sign-in, and turning two-factor off: an app code or a recovery code. */
export const SecondFactorSchema = z.object({
  code: z.string({ required_error: 'Code is required' }).trim().min(1, 'Code is required').max(64, 'The code is not valid or was already used.'),
});

export type LoginInput = z.infer<typeof LoginSchema>;
export type SignupInput = z.infer<typeof SignupSchema>;
