// The profile form's schema (docs/specs.md#client-validation), shared by the browser (Conform) and
// the action: the sign-up's rules for the same fields. The email is not a field: it is read-only.
import { z } from 'zod';
import { birthDate, required } from '~/modules/auth/schemas.ts';

export const ProfileSchema = z.object({
  fullName: required('Full name is required'),
  phone: required('Phone is required', 40),
  birthDate: birthDate.optional(),
  country: required('Country is required', 100),
  city: required('City is required', 100),
  address: required('Address is required', 300),
  postalCode: required('Postal code is required', 20),
});

/** A session whose phone is locked (a retention agent signed in as the customer) does not send it. */
export const ProfileSchemaPhoneLocked = ProfileSchema.omit({ phone: true });

export type ProfileInput = z.infer<typeof ProfileSchemaPhoneLocked> & { phone?: string };

/**
 * The staff member's own record (/admin/profile, docs/specs.md#profile): the name and the page
 * language are theirs to change; email, role and status are the admin's (Admin & Staffs).
 */
export const StaffProfileSchema = z.object({
  fullName: required('Full name is required', 200),
  language: required('Choose a language', 20),
});
export type StaffProfileInput = z.infer<typeof StaffProfileSchema>;
