// Random tokens handed to a browser or an email; the database keeps only their sha-256.
import { createHash, randomBytes } from 'node:crypto';

export function newToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
