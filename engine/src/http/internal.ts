// web → engine calls carry the shared secret in x-engine-secret.
import { timingSafeEqual } from 'node:crypto';
import { HttpError } from './errors.ts';

export function requireSecret(headers: Record<string, string | undefined>, secret: string) {
  const got = Buffer.from(headers['x-engine-secret'] ?? '');
  const want = Buffer.from(secret);
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw new HttpError(401, 'Unauthorized');
}
