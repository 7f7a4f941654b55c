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

const newPassword = passwordRule('Password is required');

const required = (message: string, max = 200) => z.string({ required_error: message }).trim().min(1, message).max(max, message);

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
    birthDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'Invalid date')
      .refine((v) => !Number.isNaN(Date.parse(v)) && Date.parse(v) < Date.now(), 'Invalid date')
      .optional(),
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

export const ResetPasswordSchema = z.object({ password: newPassword });

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
