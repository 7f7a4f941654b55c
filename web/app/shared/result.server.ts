// What the trading-configuration modules answer, and its form reply: `{ ok: true, toast }` or a
// refusal `{ ok: false, status, message, field?, values? }` that changed nothing. The message is an
// i18n key written literally at `refuse(...)` (web/test/i18n-keys.ts collects them); `values` fill
// its {{placeholders}} in the toast.
import type { Submission } from '@conform-to/react';
import { data } from '@remix-run/node';
import type { Reply } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';

export interface Refusal {
  ok: false; status: number; message: string; field?: string; values?: Record<string, string | number>;
  /** what shows under the field when the toast's message has values (field errors are shown without them) */
  fieldMessage?: string;
  /** several fields refused at once (each with its messages); the toast is the first */
  fieldErrors?: Record<string, string[]>;
  /** what a caller may branch on beyond the status (a page that redirects on 'short' balance, say) */
  code?: string;
}
/** Who made a change, for its audit row. */
export interface Actor { actorId: number; ip: string | null }

/** A change that succeeded (with what it returns) or was refused having changed nothing. */
export type Result<T extends object = object> = ({ ok: true } & T) | Refusal;
/** A Result whose success says what happened: the toast of the form's reply. */
export type Outcome<T extends object = object> = Result<{ toast: string } & T>;

export const refuse = (status: number, message: string, field?: string, values?: Record<string, string | number>, fieldMessage?: string): Refusal =>
  ({ ok: false, status, message, field, values, fieldMessage });

/** A refusal naming several fields: the first field's first message is the toast. */
export function refuseFields(status: number, fieldErrors: Record<string, string[]>): Refusal {
  const [first] = Object.values(fieldErrors);
  return { ok: false, status, message: first?.[0] ?? 'Something went wrong', fieldErrors };
}

/**
 * A refusal thrown from deep inside a change, mostly a transaction (sql.begin rolls back on a
 * throw): `abort(...)` throws it, `refusalOf(e)` reads it back where the change is caught.
 */
export class Refused extends Error {
  constructor(readonly refusal: Refusal) { super(refusal.message); }
}
export function abort(...args: Parameters<typeof refuse>): never {
  throw new Refused(refuse(...args));
}
export const refusalOf = (e: unknown): Refusal | undefined => (e instanceof Refused ? e.refusal : undefined);

/** PostgreSQL's unique_violation, foreign_key_violation and check_violation. */
export const pgCode = (e: unknown): string | undefined => (e as { code?: string } | null)?.code;

type AnySubmission = Submission<unknown, string[], unknown>;

/** The Reply of a refusal: its message as the toast (with its values), and under its field too. */
export function replyRefusal<Extra extends object = object>(submission: AnySubmission, r: Refusal, o: { intent?: string; hideFields?: string[]; headers?: HeadersInit; extra?: Extra } = {}) {
  return replyRefused(submission, {
    intent: o.intent, hideFields: o.hideFields, headers: o.headers, status: r.status, toast: r.message, values: r.values,
    extra: o.extra, fieldErrors: r.fieldErrors ?? (r.field ? { [r.field]: [r.fieldMessage ?? r.message] } : undefined),
  });
}

/** The Reply of an outcome: the toast, or the refusal's (replyRefusal). */
export function replyOutcome(submission: AnySubmission, r: Outcome, intent?: string) {
  if (r.ok) return replyDone(submission, r.toast, { intent });
  return replyRefusal(submission, r, { intent });
}

/** A refusal that has no parsed form to answer with (an upload refused before the form is read): the toast, and the field's error under it. */
export function refusedWithout(status: number, message: string, field?: string, values?: Record<string, string>) {
  const body: Reply = { ok: false, toast: message, values, result: field ? { status: 'error', error: { [field]: [message] } } : undefined };
  return data(body, { status });
}
