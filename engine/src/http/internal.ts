// web → engine calls carry the shared secret in the contract's header (contract/auth.ts).
import { timingSafeEqual } from 'node:crypto';
import { HttpError } from './errors.ts';
import { SECRET_HEADER } from '../contract/auth.ts';

export function requireSecret(headers: Record<string, string | undefined>, secret: string) {
  const got = Buffer.from(headers[SECRET_HEADER] ?? '');
  const want = Buffer.from(secret);
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw new HttpError(401, 'Unauthorized');
}
