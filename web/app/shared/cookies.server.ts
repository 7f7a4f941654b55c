// The cookies this app sets: the session token (its row lives in the sessions table,
// modules/auth/session.server.ts) and the flash toast (toast.server.ts). Secure in production.
import { env } from './env.server.ts';

export const SESSION_COOKIE = '__session';
/** remember me: the session cookie lives 30 days, else it ends with the browser */
export const REMEMBER_SECONDS = 30 * 24 * 60 * 60;

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function sessionCookie(token: string, remember: boolean): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (remember) parts.push(`Max-Age=${REMEMBER_SECONDS}`);
  if (env().NODE_ENV === 'production') parts.push('Secure');
  return parts.join('; ');
}

export function clearSessionCookie(): string {
  const parts = [`${SESSION_COOKIE}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0'];
  if (env().NODE_ENV === 'production') parts.push('Secure');
  return parts.join('; ');
}
