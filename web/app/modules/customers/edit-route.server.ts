// The loader and action of /admin/customers/edit/:id (routes/_staff.admin.customers.edit.$id.tsx).
// Every read and post opens the record through requireCustomerRecord (the role from the
// permission map, then the customers that role may see: anything else is 404), then does what
// the viewer's role allows (editAccess): the profile save and the balance adjustment refuse a
// role that has no button for them, whatever is posted.
import { randomUUID } from 'node:crypto';
import type { Sql } from '~/shared/sql.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { GENERIC_ERROR, parseForm, type Reply } from '~/shared/forms.ts';
import { withPhoneRule } from '~/shared/contact.server.ts';
import { answer, replyDone, replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { redirectWithToast } from '~/shared/toast.server.ts';
import { listTrades } from '~/modules/trades/trades.server.ts';
import { customerDeposits } from '~/modules/money/deposits.server.ts';
import { customerWithdrawals } from '~/modules/money/withdrawals.server.ts';
import { ACCOUNT_FIELDS, BALANCE_PARSE, BalanceSchema, customerProfileSchema, readTab, type EditTab } from './edit-schemas.ts';
import { editAccessFor, loadCustomer, saveCustomerProfile } from './edit.server.ts';
import { adjustBalance } from './balance.server.ts';
import { listTracking } from './tracking.server.ts';
import { numberReader } from '~/components/ui/number-input.ts';

/** The active tab's page of rows (only that tab is read). */
async function tabList(sql: Sql, tab: EditTab, userId: number, q: ListQuery) {
  switch (tab) {
    case 'trades': {
      const r = await listTrades(sql, 'all', { user: String(userId), instrument: '', side: '', dateStart: '', dateEnd: '', limit: q.limit, offset: q.offset, dir: q.dir });
      // the customer's email is the page's own (masked there for some viewers): not repeated per row
      return { tab, total: r.total, rows: r.rows.map(({ email: _email, ...row }) => row) } as const;
    }
    case 'deposits': return { tab, ...(await customerDeposits(sql, userId, { limit: q.limit, offset: q.offset, dateStart: '', dateEnd: '' })) } as const;
    case 'withdraws': return { tab, ...(await customerWithdrawals(sql, userId, { limit: q.limit, offset: q.offset })) } as const;
    case 'tracking': return { tab, ...(await listTracking(sql, userId, { limit: q.limit, offset: q.offset })) } as const;
    default: return { tab: 'profile' as const, total: 0, rows: [] as never[] } as const;
  }
}

/** The page's read, for a customer the route's requireCustomerRecord opened for this session. */
export async function editLoader(sql: Sql, session: CurrentSession, customerId: number, params: URLSearchParams, locale = 'en') {
  const access = await editAccessFor(sql, session);
  const tab = readTab(params.get('tab'));
  const q = listQuery(params, ['id']);
  const [base, list] = await Promise.all([loadCustomer(sql, customerId, access, locale), tabList(sql, tab, customerId, q)]);
  // the balance form's id: a double submit of one form posts one ledger entry
  return { ...base, access, tab, list, clientRef: randomUUID() };
}
export type EditLoader = typeof editLoader;

export type EditReply = Reply & { intent?: string };

const ACCOUNT_REFUSAL = 'Only admins and managers may change the password, manager, plan, verified or active status';

/** POST intent=profile (the profile form) or intent=balance (add / subtract on a wallet). */
export async function editAction(sql: Sql, session: CurrentSession, customerId: number, form: FormData, pageUrl: URL, ip: string | null, locale: string) {
  const access = await editAccessFor(sql, session);
  const intent = String(form.get('intent') ?? '');
  const actor = { id: session.user.id, ip };

  if (intent === 'profile') {
    const submission = parseForm(form, withPhoneRule(customerProfileSchema(access)), { numbers: numberReader(locale) });
    if (!access.canEdit) return replyRefused(submission, { intent, status: 403, toast: 'You may not edit this customer', hideFields: ['password'] });
    // a sales agent's form has no account field: one posted anyway is refused, not dropped silently
    if (!access.canEditAccount && ACCOUNT_FIELDS.some((f) => String(form.get(f) ?? '') !== '')) {
      return replyRefused(submission, { intent, status: 403, toast: ACCOUNT_REFUSAL, hideFields: ['password'] });
    }
    if (submission.status !== 'success') return replyRefused(submission, { intent, hideFields: ['password'] });
    const r = await saveCustomerProfile(sql, actor, customerId, submission.value);
    return r.ok
      ? replyDone(submission, r.toast, { intent, hideFields: ['password'] })
      : replyRefusal(submission, r, { intent, hideFields: ['password'] });
  }

  if (intent === 'balance') {
    const submission = parseForm(form, BalanceSchema, { ...BALANCE_PARSE, numbers: numberReader(locale) });
    if (!access.canAdjust) return replyRefused(submission, { intent, status: 403, toast: 'You may not change this balance' });
    if (submission.status !== 'success') return replyRefused(submission, { intent });
    const r = await adjustBalance(sql, actor, customerId, submission.value);
    if (!r.ok) return replyRefusal(submission, r, { intent });
    // docs/specs.md#customer-records: the balance modal reloads the whole page (its toast comes with it)
    const url = new URL(pageUrl);
    for (const p of ['index', '_data']) url.searchParams.delete(p);
    const search = url.searchParams.toString();
    return redirectWithToast(`${url.pathname.replace(/\.data$/, '')}${search ? `?${search}` : ''}`, { type: 'success', title: r.toast });
  }

  return answer({ status: 400, body: { ok: false, intent, toast: GENERIC_ERROR } satisfies EditReply });
}
