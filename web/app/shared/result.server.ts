// What the trading-configuration modules answer, and its form reply: `{ ok: true, toast }` or a
// refusal `{ ok: false, status, message, field?, values? }` that changed nothing. The message is an
// i18n key written literally at `refuse(...)` (web/test/i18n-keys.ts collects them); `values` fill
// its {{placeholders}} in the toast.
import type { Submission } from '@conform-to/react';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';

export interface Refusal {
  ok: false; status: number; message: string; field?: string; values?: Record<string, string | number>;
  /** what shows under the field when the toast's message has values (field errors are shown without them) */
  fieldMessage?: string;
}
/** Who made a change, for its audit row. */
export interface Actor { actorId: number; ip: string | null }

export type Outcome<T extends object = object> = ({ ok: true; toast: string } & T) | Refusal;

export const refuse = (status: number, message: string, field?: string, values?: Record<string, string | number>, fieldMessage?: string): Refusal =>
  ({ ok: false, status, message, field, values, fieldMessage });

/** PostgreSQL's unique_violation, foreign_key_violation and check_violation. */
export const pgCode = (e: unknown): string | undefined => (e as { code?: string } | null)?.code;

type AnySubmission = Submission<unknown, string[], unknown>;

/** The Reply of an outcome: the toast, and a refusal's message under its field too. */
export function replyOutcome(submission: AnySubmission, r: Outcome, intent?: string) {
  if (r.ok) return replyDone(submission, r.toast, { intent });
  return replyRefused(submission, {
    intent, status: r.status, toast: r.message, values: r.values,
    fieldErrors: r.field ? { [r.field]: [r.fieldMessage ?? r.message] } : undefined,
  });
}
