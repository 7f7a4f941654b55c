// The action side of shared/forms.ts: every action answers a `Reply` (ok, toast, Conform's
// reply with the field errors) with its status, so one hook shows the toast on every page.
import { data, redirect } from '@remix-run/node';
import type { Submission } from '@conform-to/react';
import { refusalToast, type Reply } from '~/shared/forms.ts';

type AnySubmission = Submission<unknown, string[], unknown>;

export interface ReplyOptions<Extra> {
  status?: number;
  intent?: string;
  toast?: string | null;
  values?: Record<string, string | number>;
  /** fields never sent back (passwords) */
  hideFields?: string[];
  /** errors the server found (a refusal naming a field) shown under the fields */
  fieldErrors?: Record<string, string[]>;
  formErrors?: string[];
  /** a form that worked starts empty again */
  resetForm?: boolean;
  headers?: HeadersInit;
  /** what else the page reads from the answer */
  extra?: Extra;
}

/** A form that worked: its toast, and the form reset when asked. */
export function replyDone<Extra extends object = object>(submission: AnySubmission, toast: string | null, o: ReplyOptions<Extra> = {}) {
  const body: Reply & Extra = {
    ...(o.extra as Extra), ok: true, intent: o.intent, toast, values: o.values,
    result: submission.reply(o.resetForm ? { resetForm: true } : { hideFields: o.hideFields }),
  };
  return data(body, { status: o.status ?? 200, headers: o.headers });
}

/**
 * A refused form: 400 with its field errors and, unless told, the first message that names a
 * field as the toast; or the refusal of the rule behind it (o.toast, o.status; null: no toast).
 */
export function replyRefused<Extra extends object = object>(submission: AnySubmission, o: ReplyOptions<Extra> = {}) {
  const result = submission.reply({ hideFields: o.hideFields, fieldErrors: o.fieldErrors, formErrors: o.formErrors });
  const body: Reply & Extra = {
    ...(o.extra as Extra), ok: false, intent: o.intent, values: o.values,
    toast: o.toast === undefined ? refusalToast(result.error as Record<string, string[] | null> | undefined) : o.toast,
    result,
  };
  return data(body, { status: o.status ?? 400, headers: o.headers });
}

/**
 * A module's page read as the loader's response: its body with its status (a refused filter is a
 * 400 with the page still drawn); null is 404.
 */
export function answer<R extends { status: number; body: unknown }>(r: R | null) {
  if (!r) throw new Response('Not Found', { status: 404 });
  return data(r.body as R['body'], { status: r.status });
}

/** An action's answer that goes to another page (a url the server chose, never one from the form). */
export function replyRedirect(url: string) {
  return redirect(url);
}
