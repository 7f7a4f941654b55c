// /admin/deposits (docs/specs.md#money): every customer's deposits in the shared server table,
// status and date filters and search in the URL; pending rows are approved or declined after a
// confirmation (four-eyes and the rest are decideMoney's).
import { useMemo, useState } from 'react';
import { gatewayLabel } from '~/modules/gateways/kinds.ts';
import { Link, useSearchParams } from '@remix-run/react';
import { getTextareaProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { DateRangeDialog } from '~/components/ui/date-range-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ErrorList } from '~/components/ui/fields.tsx';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import { DecisionSchemas } from './deposit-schemas.ts';
import { DepositStatusChip } from './deposit-client.tsx';
import { HistoryLink, useCanSeeAudit } from '~/modules/audit/history-link.tsx';
import { PaymentEventsButton } from '~/modules/money/payment-events-staff.tsx';
import type { StaffDepositRow, DepositStatus, DepositDispute } from './deposits.server.ts';
import { DISPUTE_LABELS } from '~/modules/money/dispute.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';

export interface StaffDepositsData {
  rows: StaffDepositRow[];
  total: number;
  /** more than EXACT_COUNT_LIMIT match: the total is PostgreSQL's estimate */
  estimated?: boolean;
  /** the count's limit: above it the total is estimated */
  countLimit?: number;
  filters: { status: DepositStatus | ''; dateStart: string; dateEnd: string };
}

type T = (key: string, values?: Record<string, unknown>) => string;
// approve and decline restate whose deposit and how much, so the confirm names what it decides
type Acting = { decision: 'approve' | 'decline'; id: number; customer: string; amount: string } | { decision: 'debitDispute'; id: number; amount: string; currency: string } | null;

export function StaffDepositsPage({ data }: { data: StaffDepositsData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [, setParams] = useSearchParams();
  const [filterOpen, setFilterOpen] = useState(false);
  const [acting, setActing] = useState<Acting>(null);
  const columns = useMemo(() => staffColumns(t, f, setActing), [t, f]);
  const { filters } = data;
  const setFilter = (changes: Record<string, string>) => setParams((prev) => {
    const next = new URLSearchParams(prev);
    next.delete('page');
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v); else next.delete(k);
    }
    return next;
  }, { preventScrollReset: true });
  return (
    <section className="page deposits-admin">
      <h1 className="page-title">{t('Deposit History')}</h1>
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={t('Deposit History')}
        toolbar={<div className="statement-toolbar">
          {data.estimated ? <span className="muted">{t('More than {{limit}} match: the total is an estimate.', { limit: f.amount(data.countLimit ?? EXACT_COUNT_LIMIT) })}</span> : null}
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
        </div>} />
      <DateRangeDialog open={filterOpen} value={{ start: filters.dateStart, end: filters.dateEnd }} onClose={() => setFilterOpen(false)}
        onSubmit={({ start, end }) => { setFilterOpen(false); setFilter({ dateStart: start, dateEnd: end }); }} />
      <ConfirmDialog open={acting?.decision === 'approve'} onClose={() => setActing(null)} intent="approve" fields={{ id: acting?.id ?? '' }}
        title={t('Approve deposit')} confirmLabel={t('Approve')} danger={false}
        message={acting?.decision === 'approve' ? t('Approve deposit #{{id}} of {{amount}} for {{customer}}?', { id: acting.id, amount: acting.amount, customer: acting.customer }) : ''} />
      <ConfirmDialog open={acting?.decision === 'debitDispute'} onClose={() => setActing(null)} intent="debitDispute" fields={{ id: acting?.id ?? '' }}
        title={t('Debit the disputed amount')}
        message={acting?.decision === 'debitDispute'
          ? t('Debit {{amount}} from the customer\'s wallet for deposit #{{id}}? This can be done once.', { amount: f.money(acting.amount, acting.currency), id: acting.id })
          : ''}
        confirmLabel={t('Debit')} danger />
      <FormDialog open={acting?.decision === 'decline'} onClose={() => setActing(null)} title={t('Decline deposit')} schema={DecisionSchemas.decline}
        intent="decline" id={acting?.id} submitLabel={t('Decline')} size="sm">
        {(fields) => (
          <>
            <p>{acting?.decision === 'decline' ? t('Decline deposit #{{id}} of {{amount}} for {{customer}}?', { id: acting.id, amount: acting.amount, customer: acting.customer }) : null}</p>
            <div className="field">
              <label htmlFor={fields.declineReason.id}>{t('Decline reason (optional)')}</label>
              <textarea {...getTextareaProps(fields.declineReason)} rows={3} maxLength={500} />
              <ErrorList id={fields.declineReason.errorId} errors={fields.declineReason.errors} />
            </div>
          </>
        )}
      </FormDialog>
    </section>
  );
}

function staffColumns(t: T, f: Formatter, act: (a: Acting) => void): ColumnDef<StaffDepositRow>[] {
  const money = (v: string, r: StaffDepositRow) => f.money(v, r.currency);
  const subject = (r: StaffDepositRow) => ({ id: r.id, customer: r.email, amount: money(r.amount, r) });
  return [
    { id: 'id', header: t('ID'), cell: ({ row }) => row.original.id },
    {
      id: 'user', header: t('User'), enableSorting: false,
      cell: ({ row }) => <Link to={`/admin/customers/edit/${row.original.userId}`}>{row.original.email}</Link>,
    },
    { id: 'gateway', header: t('Gateway'), enableSorting: false, cell: ({ row }) => <span className="cell-text">{gatewayLabel(t, row.original.gateway)}</span> },
    { id: 'description', header: t('Description'), enableSorting: false, cell: ({ row }) => <StaffDescription row={row.original} /> },
    {
      id: 'reference', header: t('Reference'), enableSorting: false,
      cell: ({ row }) => (
        <span className="status-cell">
          <span className="cell-text cell-code">{row.original.reference ?? '-'}</span>
          <PaymentEventsButton depositId={row.original.id} events={row.original.paymentEvents} />
        </span>
      ),
    },
    { id: 'amount', header: t('Amount'), enableSorting: false, cell: ({ row }) => money(row.original.amount, row.original) },
    { id: 'fee', header: t('Fee'), enableSorting: false, cell: ({ row }) => money(row.original.fee, row.original) },
    { id: 'total', header: t('Total'), enableSorting: false, cell: ({ row }) => money(row.original.total, row.original) },
    {
      id: 'status', header: t('Status'), enableSorting: false,
      cell: ({ row }) => (
        <span className="status-cell">
          <DepositStatusChip status={row.original.status} awaitingSecond={row.original.awaitingSecond} staff />
          {row.original.dispute ? <DisputeFlag dispute={row.original.dispute} t={t} f={f} /> : null}
          {row.original.status === 'declined' && row.original.declineReason
            ? <span className="decline-reason">{t('Reason: {{reason}}', { reason: row.original.declineReason })}</span> : null}
        </span>
      ),
    },
    { id: 'created_at', header: t('Date'), cell: ({ row }) => <DateCell text={f.dateTime(row.original.createdAt)} /> },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (
        <span className="row-actions">
          {row.original.status === 'pending' ? (
            <>
              <button type="button" className="btn btn-sm btn-primary" onClick={() => act({ decision: 'approve', ...subject(row.original) })}
                aria-label={t('Approve deposit #{{id}}', { id: row.original.id })}>{t('Approve')}</button>
              <button type="button" className="btn btn-sm btn-danger" onClick={() => act({ decision: 'decline', ...subject(row.original) })}
                aria-label={t('Decline deposit #{{id}}', { id: row.original.id })}>{t('Decline')}</button>
            </>
          ) : row.original.dispute && !row.original.dispute.debitedAt && row.original.status === 'approved' ? null : <NoDecision />}
          {row.original.dispute && !row.original.dispute.debitedAt && row.original.status === 'approved' ? (
            <button type="button" className="btn btn-sm btn-danger"
              onClick={() => act({ decision: 'debitDispute', id: row.original.id, amount: row.original.dispute!.debit, currency: row.original.currency })}
              aria-label={t('Debit the disputed amount of deposit #{{id}}', { id: row.original.id })}>{t('Debit')}</button>
          ) : null}
          <HistoryLink targetKind="deposit" targetId={row.original.id} label={t('History of deposit #{{id}}', { id: row.original.id })} />
        </span>
      ),
    },
  ];
}

/** The flag of a deposit a provider reported a chargeback / refund of: kind, amount, state, and whether it was debited. */
function DisputeFlag({ dispute, t, f }: { dispute: DepositDispute; t: T; f: Formatter }) {
  const kind = DISPUTE_LABELS[dispute.kind] ? t(DISPUTE_LABELS[dispute.kind]) : dispute.kind;
  const amount = dispute.amount && dispute.currency ? ` ${f.money(dispute.amount, dispute.currency)}` : '';
  const state = dispute.state === 'open' ? '' : ` (${t(dispute.state === 'won' ? 'won' : dispute.state === 'lost' ? 'lost' : 'closed')})`;
  return (
    <span className="dispute-flag">
      <span className="chip chip-declined" title={f.dateTime(dispute.at)}>{kind}{amount}{state}</span>
      {dispute.debitedAt ? <span className="muted">{t('Debited {{date}}', { date: f.dateTime(dispute.debitedAt) })}</span> : null}
    </span>
  );
}

/** A decided deposit has no action: a dash, unless the History link is there. */
function NoDecision() {
  return useCanSeeAudit() ? null : <>-</>;
}

/** A date and its time, each kept whole when the column wraps. */
function DateCell({ text }: { text: string }) {
  const i = text.indexOf(' ');
  if (i < 0) return <span className="cell-date">{text}</span>;
  return <span className="cell-date"><span className="nowrap">{text.slice(0, i)}</span> <span className="nowrap">{text.slice(i + 1)}</span></span>;
}

/** A bank deposit's 'Sent From' details and its proof (served to staff through the upload route's check). */
function StaffDescription({ row }: { row: StaffDepositRow }) {
  const { t } = useTranslation();
  const d = row.details;
  // a crypto deposit: the transfer's hash the customer gave, to check on the chain before approving
  if ((row.gateway === 'btc' || row.gateway === 'usdt') && row.reference) {
    return (
      <span className="bank-description">
        <span className="cell-text">{row.description}</span>
        <span className="cell-text">{t('Transaction hash')}: <code className="mono cell-code">{row.reference}</code></span>
      </span>
    );
  }
  if (row.gateway !== 'bank' || !(d.bankName || d.accountName || d.accountNumber || d.proofUploadId)) return <span className="cell-text">{row.description}</span>;
  return (
    <span className="bank-description">
      {d.bankName ? <span>{t('Bank')}: {d.bankName}</span> : null}
      {d.accountName ? <span>{t('A/C name')}: {d.accountName}</span> : null}
      {d.accountNumber ? <span>{t('A/C no')}: {d.accountNumber}</span> : null}
      {d.proofUploadId ? <a href={`/uploads/${d.proofUploadId}`} target="_blank" rel="noopener noreferrer">{t('Proof')}<span className="sr-only"> ({t('opens in a new tab')})</span></a> : null}
    </span>
  );
}
