// Masking of a customer's contact details for agent sessions (docs/specs.md#agent-masking):
// a phone shows ****** and its last 2 digits; an email keeps the first 2 and last 2 characters
// of its local part with **** between (unchanged when the local part has 4 characters or fewer).

export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return `******${digits.slice(-2)}`;
}

export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return email;
  const local = email.slice(0, at);
  if (local.length <= 4) return email;
  return `${local.slice(0, 2)}****${local.slice(-2)}${email.slice(at)}`;
}
