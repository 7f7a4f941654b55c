// The contact rules of a lead, in one place (issue 15): how an email and a phone are compared for
// duplicates and how a country typed by anyone (an ISO code or a name) is read. Every writer of a
// lead's phone or country (the leads API, the CSV import, the CRM's add and edit, sign-up, the
// backfill of older leads) stores `phone_e164` from `leadPhoneE164`, and Voiso dials it, so a
// national number typed by staff ('030 1234567', Germany) and the same number posted as
// '+49 30 1234567' are one phone.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import countries from 'world-countries';

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
