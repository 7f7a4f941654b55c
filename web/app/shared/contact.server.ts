// The contact rules of a lead, in one place (issue 15): how an email and a phone are compared for
// duplicates and how a country typed by anyone (an ISO code or a name) is read. Every writer of a
// lead's phone or country (the leads API, the CSV import, the CRM's add and edit, sign-up, the
// backfill of older leads) stores `phone_e164` from `leadPhoneE164`, and Voiso dials it, so a
// national number typed by staff ('030 1234567', Germany) and the same number posted as
// '+49 30 1234567' are one phone.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import countries from 'world-countries';
import { z } from 'zod';

const byCode = new Map(countries.map((c) => [c.cca2.toUpperCase(), c.name.common]));
const byName = new Map(countries.flatMap((c) => [[c.name.common.toLowerCase(), c.cca2], [c.name.official.toLowerCase(), c.cca2], [c.cca3.toLowerCase(), c.cca2]] as [string, string][]));

/** A country given as an ISO 3166 code (GB, GBR) or its name: its code and the name the CRM shows. */
export function resolveCountry(raw: string): { code: CountryCode; name: string } | null {
  const v = raw.trim();
  const code = v.length === 2 && byCode.has(v.toUpperCase()) ? v.toUpperCase() : byName.get(v.toLowerCase());
  return code ? { code: code as CountryCode, name: byCode.get(code)! } : null;
}

/**
 * The phone in E.164, read with the country as the default region ('07700 900123' in GB, '0044 7700 900123', '+44 …').
 * A number of a possible length for its country is taken (isPossible): the metadata's assigned ranges
 * change faster than releases, and a lead must not be refused for it (Ofcom's 07700 900xxx included).
 */
export function phoneE164(raw: string, country?: CountryCode): string | null {
  let v = raw.trim();
  if (/^00[1-9]/.test(v.replace(/[\s().-]/g, ''))) v = `+${v.replace(/[\s().-]/g, '').slice(2)}`;
  const p = parsePhoneNumberFromString(v, country);
  return p && p.isPossible() ? p.number : null;
}

/** A stored lead's phone_e164: its phone read in its country (as stored: a name or a code), or null. */
export function leadPhoneE164(phone: string | null | undefined, country: string | null | undefined): string | null {
  if (!phone || !phone.trim()) return null;
  return phoneE164(phone, country ? resolveCountry(country)?.code : undefined);
}

/** The email as duplicates compare it (leads.email_norm is the same expression, generated in SQL). */
export const normEmail = (e: string) => e.trim().toLowerCase();

/**
 * Why a typed phone breaks the contact rule, or null when it keeps it (or is empty: whether a phone is
 * required is the form's own rule). Read in the form's country (its name from the list or an ISO code);
 * without one the number must be international (+ or 00). The same rule as a lead's (docs/specs.md#client-validation).
 */
export function phoneProblem(phone: unknown, country: unknown): string | null {
  // empty or over 40 characters: the form's own rules answer (one message per field)
  if (typeof phone !== 'string' || !phone.trim() || phone.trim().length > 40) return null;
  const c = typeof country === 'string' && country.trim() ? resolveCountry(country) : null;
  if (phoneE164(phone, c?.code)) return null;
  return c ? 'Invalid phone number for this country' : 'Invalid phone number';
}

/**
 * A form's schema with the contact rule on its `phone` (read in its `country`), for the server's parse:
 * the browser's copy of the schema checks the length only (libphonenumber's metadata stays on the server).
 */
export function withPhoneRule<S extends z.ZodTypeAny>(schema: S) {
  return schema.superRefine((v: { phone?: unknown; country?: unknown } | undefined, ctx) => {
    const message = phoneProblem(v?.phone, v?.country);
    if (message) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['phone'], message });
  });
}
