// The staff's withdrawal pages (docs/specs.md#money): Pending Withdraws (search,
// Approve after a confirmation, Decline with a reason), Withdraw History (no search: status and
// date filters), both in the shared server table with their state in the URL; and the fee
// settings form. Four-eyes, the ledger and the audit are decideMoney's. Approve offers paying out
// through a gateway where one can (modules/money/payout-staff.tsx); a row shows its payout under its status.
import { useMemo, useState } from 'react';
import { Link, useFetcher, useSearchParams } from '@remix-run/react';
import { getFormProps, getInputProps, getTextareaProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '@tanstack/react-table';
import { parseDecimal } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { DateRangeDialog } from '~/components/ui/date-range-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ErrorList, Field, SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { plainDecimal, useFormat, type Formatter } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import { withdrawFee } from './fees.ts';
import { DecisionSchemas, FeeSettingsSchema, WITHDRAW_PARSE } from './withdrawal-schemas.ts';
import { WithdrawalStatusChip, useMethodLabel } from './withdrawal-parts.tsx';
import type { BankDetails } from './money.server.ts';
import type { StaffWithdrawalRow, WithdrawalStatus } from './withdrawals.server.ts';
import { ApprovePayoutDialog, PayoutCell } from '~/modules/money/payout-staff.tsx';
import type { PayoutView } from './payout-view.ts';
import { readNumber } from '~/components/ui/number-input.ts';

/** A row with its payout (modules/payments/payouts.server.ts) and, pending, the gateways that can pay it out. */
export type StaffPayoutRow = StaffWithdrawalRow & { payout?: PayoutView | null; payoutOptions?: string[] };

export interface StaffWithdrawalsData {
  rows: StaffPayoutRow[];
  total: number;
  /** above countLimit matching withdrawals the total is PostgreSQL's estimate */
  estimated?: boolean;
  countLimit?: number;
  /** History only: the status and date filters */
  filters?: { status: WithdrawalStatus | ''; dateStart: string; dateEnd: string };
}

type T = (key: string, values?: Record<string, unknown>) => string;
// approve and decline restate whose withdrawal and how much, so the confirm names what it decides
type Acting = { decision: 'approve' | 'decline'; id: number; customer: string; amount: string; total: string; options?: string[] } | null;

export function StaffWithdrawalsPage({ mode, data }: { mode: 'pending' | 'history'; data: StaffWithdrawalsData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const approveQuestion = (a: NonNullable<Acting>) => t('Approve withdrawal #{{id}} of {{amount}} for {{customer}}?', { id: a.id, amount: a.amount, customer: a.customer });
  const method = useMethodLabel();
  const [, setParams] = useSearchParams();
  const [filterOpen, setFilterOpen] = useState(false);
  const [acting, setActing] = useState<Acting>(null);
  const title = mode === 'pending' ? t('Pending Withdraws') : t('Withdraw History');
  const columns = useMemo(() => staffColumns(t, f, method, mode === 'pending' ? setActing : null), [t, f, mode]); // eslint-disable-line react-hooks/exhaustive-deps -- method is t with a lookup
  const filters = data.filters;
  const setFilter = (changes: Record<string, string>) => setParams((prev) => {
    const next = new URLSearchParams(prev);
    next.delete('page');
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v); else next.delete(k);
    }
    return next;
  }, { preventScrollReset: true });

  return (
    <section className={`page withdraws-admin withdraws-${mode}`}>
      <h1 className="page-title">{title}</h1>
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={title}
        searchable={mode === 'pending'}
        toolbar={filters || data.estimated ? (
          <div className="statement-toolbar">
            {data.estimated ? <span className="muted">{t('More than {{limit}} match: the total is an estimate.', { limit: f.amount(data.countLimit ?? 0) })}</span> : null}
            {filters ? <>
            <label className="inline-filter">
              {t('Status')}
              <select value={filters.status} onChange={(e) => setFilter({ status: e.target.value })}>
                <option value="">{t('All')}</option>
                <option value="pending">{t('Pending')}</option>
                <option value="approved">{t('Approved')}</option>
                <option value="declined">{t('Declined')}</option>
              </select>
            </label>
            {filters.dateStart || filters.dateEnd ? <span className="muted">{filters.dateStart || '…'} – {filters.dateEnd || '…'}</span> : null}
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setFilterOpen(true)}>{t('Filter')}</button>
            </> : null}
          </div>
        ) : undefined} />
      {filters ? (
        <DateRangeDialog open={filterOpen} value={{ start: filters.dateStart, end: filters.dateEnd }} onClose={() => setFilterOpen(false)}
          onSubmit={({ start, end }) => { setFilterOpen(false); setFilter({ dateStart: start, dateEnd: end }); }} />
      ) : null}
      {mode === 'pending' ? (
        <>
          <ApprovePayoutDialog id={acting?.decision === 'approve' && acting.options?.length ? acting.id : null} options={acting?.options ?? []} onClose={() => setActing(null)}
            question={acting ? approveQuestion(acting) : ''} />
          <ConfirmDialog open={acting?.decision === 'approve' && !acting.options?.length} onClose={() => setActing(null)} intent="approve" fields={{ id: acting?.id ?? '' }}
            title={t('Approve withdrawal')} message={acting ? approveQuestion(acting) : ''}
            confirmLabel={t('Approve')} danger={false} />
          <FormDialog open={acting?.decision === 'decline'} onClose={() => setActing(null)} title={t('Decline withdrawal')}
            schema={DecisionSchemas.decline} parse={WITHDRAW_PARSE} intent="decline" id={acting?.id} submitLabel={t('Decline')} size="sm">
            {(fields) => (
              <>
                <p>{acting ? t('Decline withdrawal #{{id}} of {{amount}} for {{customer}}? Its total of {{total}} goes back to the wallet.', { id: acting.id, amount: acting.amount, customer: acting.customer, total: acting.total }) : null}</p>
                <div className="field">
                  <label htmlFor={fields.declineReason.id}>{t('Decline Reason')}</label>
                  <textarea {...getTextareaProps(fields.declineReason)} rows={3} maxLength={500}
                    aria-invalid={fields.declineReason.errors?.length ? true : undefined}
                    aria-describedby={fields.declineReason.errors?.length ? fields.declineReason.errorId : undefined} />
                  <div className="field-msg"><ErrorList id={fields.declineReason.errorId} errors={fields.declineReason.errors} /></div>
                </div>
              </>
            )}
          </FormDialog>
        </>
      ) : null}
    </section>
  );
}

function staffColumns(t: T, f: Formatter, method: (g: string) => string, act: ((a: Acting) => void) | null): ColumnDef<StaffPayoutRow>[] {
  const money = (v: string, r: StaffPayoutRow) => f.money(v, r.currency);
  const subject = (r: StaffPayoutRow) => ({ id: r.id, customer: r.email, amount: money(r.amount, r), total: money(r.total, r) });
  const columns: ColumnDef<StaffPayoutRow>[] = [
    { id: 'id', header: t('ID'), cell: ({ row }) => row.original.id },
    {
      id: 'user', header: t('User'), enableSorting: false,
      cell: ({ row }) => <Link className="cell-email" to={`/admin/customers/edit/${row.original.userId}`}>{row.original.email}</Link>,
    },
    { id: 'gateway', header: t('Gateway'), enableSorting: false, cell: ({ row }) => <span className="cell-short">{method(row.original.gateway)}</span> },
    {
      id: 'description', header: t('Description'), enableSorting: false,
      cell: ({ row }) => (row.original.bank ? <BankLines bank={row.original.bank} /> : <span>{row.original.description || '—'}</span>),
    },
    {
      id: 'reason', header: t('Decline Reason'), enableSorting: false,
      cell: ({ row }) => (row.original.declineReason ? <span className="cell-text">{row.original.declineReason}</span> : '—'),
    },
    { id: 'amount', header: t('Amount'), cell: ({ row }) => money(row.original.amount, row.original) },
    { id: 'fee', header: t('Fee'), enableSorting: false, cell: ({ row }) => money(row.original.fee, row.original) },
    { id: 'total', header: t('Total'), enableSorting: false, cell: ({ row }) => money(row.original.total, row.original) },
    {
      id: 'status', header: t('Status'), enableSorting: false,
      // a withdrawal paid out through a gateway shows its payout under its status
      cell: ({ row }) => (
        <span className="status-cell">
          <WithdrawalStatusChip status={row.original.status} awaitingSecond={row.original.awaitingSecond} />
          {row.original.payout ? <PayoutCell withdrawalId={row.original.id} payout={row.original.payout} /> : null}
        </span>
      ),
    },
    { id: 'created_at', header: t('Date'), cell: ({ row }) => <span className="cell-date">{f.dateTime(row.original.createdAt)}</span> },
  ];
  if (act) {
    columns.push({
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (row.original.status === 'pending' ? (
        <span className="row-actions">
          <button type="button" className="btn btn-sm btn-primary" onClick={() => act({ decision: 'approve', ...subject(row.original), options: row.original.payoutOptions })}
            aria-label={t('Approve withdrawal #{{id}}', { id: row.original.id })}>{t('Approve')}</button>
          <button type="button" className="btn btn-sm btn-danger" onClick={() => act({ decision: 'decline', ...subject(row.original) })}
            aria-label={t('Decline withdrawal #{{id}}', { id: row.original.id })}>{t('Decline')}</button>
        </span>
      ) : '—'),
    });
  }
  return columns;
}

/** The bank the money goes to, compact for the list: name and country, holder, account number, SWIFT. */
function BankLines({ bank }: { bank: BankDetails }) {
  const { t } = useTranslation();
  return (
    <span className="bank-lines">
      <span><strong>{bank.bankName || '—'}</strong>{bank.bankCountry ? ` · ${bank.bankCountry}` : ''}</span>
      <span><span className="muted">{t('A/C name')}</span> {bank.accountName || '—'}</span>
      <span><span className="muted">{t('A/C no')}</span> {bank.accountNumber || '—'}</span>
      <span><span className="muted">{t('SWIFT')}</span> {bank.swiftCode || '—'}</span>
    </span>
  );
}

// ---------------------------------------------------------------- settings

export function WithdrawSettingsPage({ fees }: { fees: { percentage: string; fixed: string } }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<Reply>();
  const pending = fetcher.state !== 'idle';
  const [form, fields] = useSchemaForm({
    id: 'withdraw-settings', schema: FeeSettingsSchema, parse: WITHDRAW_PARSE,
    defaultValue: { feePercentage: plainDecimal(fees.percentage), feeFixed: plainDecimal(fees.fixed) },
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  useFetcherToast(fetcher);
  // the rule as the customer's summary applies it, on an example amount
  const read = (text: string) => readNumber(text, f.locale) ?? '';
  const pct = parseDecimal(read(String(fields.feePercentage.value ?? '')), { label: 'Fee', scale: 4, intDigits: 3, zero: true });
  const fixed = parseDecimal(read(String(fields.feeFixed.value ?? '')), { label: 'Fee', scale: 2, intDigits: 12, zero: true });
  const example = pct.ok && fixed.ok && Number(pct.value) <= 100 ? withdrawFee('100', pct.value, fixed.value) : null;
  return (
    <section className="page">
      <h1 className="page-title">{t('Withdraw Settings')}</h1>
      <div className="card settings-card">
        <p className="muted">{t('Fee = Fee (%) / 100 × amount + Fee (Fixed)')}</p>
        <fetcher.Form method="post" {...getFormProps(form)}>
          <div className="form-grid">
            <Field label={t('Fee (%)')} errors={fields.feePercentage.errors}
              inputProps={{ ...getInputProps(fields.feePercentage, { type: 'text' }), inputMode: 'decimal', autoComplete: 'off' }} />
            <Field label={t('Fee (Fixed)')} errors={fields.feeFixed.errors}
              inputProps={{ ...getInputProps(fields.feeFixed, { type: 'text' }), inputMode: 'decimal', autoComplete: 'off' }} />
          </div>
          <p className="muted" aria-live="polite">
            {example ? t('A withdrawal of {{amount}} pays a fee of {{fee}} (total {{total}}).', { amount: f.rate('100', 2), fee: f.rate(example.fee, 2), total: f.rate(example.total, 2) }) : '\u00a0'}
          </p>
          <ErrorList id={form.errorId} errors={form.errors} />
          <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
        </fetcher.Form>
      </div>
    </section>
  );
}
