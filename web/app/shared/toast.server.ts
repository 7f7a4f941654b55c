// Toasts set by an action that redirects: a short-lived flash cookie the root loader reads
// and clears (after the Epic Stack's toast.server.ts).
import { redirect } from '@remix-run/node';
import { z } from 'zod';
import { readCookie } from '~/shared/cookies.server.ts';

export const TOAST_COOKIE = 'toast';

export const ToastSchema = z.object({
  id: z.string().default(() => Math.random().toString(36).slice(2)),
  type: z.enum(['success', 'error', 'info']).default('info'),
  /** an i18n key */
  title: z.string(),
  description: z.string().optional(),
  values: z.record(z.union([z.string(), z.number()])).optional(),
});
export type Toast = z.infer<typeof ToastSchema>;
export type ToastInput = z.input<typeof ToastSchema>;

export function toastCookie(toast: ToastInput): string {
  const value = Buffer.from(JSON.stringify(ToastSchema.parse(toast))).toString('base64url');
  return `${TOAST_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=60`;
}

export function clearToastCookie(): string {
  return `${TOAST_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/** The pending toast, and the header that clears it. */
export function readToast(request: Request): { toast: Toast | null; headers: Headers | null } {
  const raw = readCookie(request, TOAST_COOKIE);
  if (!raw) return { toast: null, headers: null };
  let toast: Toast | null;
  try {
    const parsed = ToastSchema.safeParse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
    toast = parsed.success ? parsed.data : null;
  } catch {
    toast = null; // a cookie that is not ours to read
  }
  return { toast, headers: new Headers({ 'set-cookie': clearToastCookie() }) };
}

export function redirectWithToast(url: string, toast: ToastInput, init: ResponseInit = {}) {
  const headers = new Headers(init.headers);
  headers.append('set-cookie', toastCookie(toast));
  return redirect(url, { ...init, headers });
}
