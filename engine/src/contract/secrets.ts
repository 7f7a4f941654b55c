// Encryption at rest for gateway and provider secrets (AES-256-GCM), shared by web (which
// stores them) and the engine (which uses the market-data keys). node:crypto only, so both
// Node and Bun run it. Stored form: `enc:v1:<iv>:<tag>:<ciphertext>`, base64url parts.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

/** A 32-byte key from SECRETS_KEY: 64 hex characters are used as they are, anything else is hashed. */
export function secretsKey(raw: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(raw)) return Buffer.from(raw, 'hex');
  return createHash('sha256').update(raw).digest();
}

export function isEncrypted(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function encryptSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${PREFIX}${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
}

/** Decrypts a stored secret; a value that was never encrypted is returned as it is. */
export function decryptSecret(stored: string, key: Buffer): string {
  if (!isEncrypted(stored)) return stored;
  const [iv, tag, ct] = stored.slice(PREFIX.length).split(':');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * How a stored secret is shown to staff (docs/specs.md, Payment gateways: shown masked): its last
 * four characters at most ('••••abcd'), and nothing of one shorter than 12 ('••••').
 */
export function maskSecret(plain: string | null | undefined): string {
  if (!plain) return '';
  return plain.length >= 12 ? `••••${plain.slice(-4)}` : '••••';
}

/**
 * Whether a typed value is the masked form sent back unchanged (it starts with the mask's dots):
 * saving it keeps the stored secret rather than storing the dots.
 */
export function isMaskedSecret(typed: string | null | undefined): boolean {
  return !!typed && typed.trim().startsWith('••••');
}
