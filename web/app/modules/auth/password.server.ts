// argon2id password hashing (OWASP parameters: 19 MiB, 2 iterations, 1 lane).
import { hash, verify } from '@node-rs/argon2';

const OPTIONS = { algorithm: 2 /* Algorithm.Argon2id (a const enum isolatedModules cannot read) */, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash never signs anyone in
  }
}
