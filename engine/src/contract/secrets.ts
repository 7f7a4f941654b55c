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

/** How a secret is shown back in a form: never in full. */
export function maskSecret(plain: string): string {
  if (!plain) return '';
  if (plain.length <= 8) return '•'.repeat(plain.length);
  return `${plain.slice(0, 4)}${'•'.repeat(Math.min(plain.length - 8, 12))}${plain.slice(-4)}`;
}
