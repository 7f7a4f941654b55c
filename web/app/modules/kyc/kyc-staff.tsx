// The staff's /admin/kyc (docs/specs.md#kyc): every document, server-paged, filtered by status,
// upload date and the customer's name or e-mail (all in the URL); the files open in a viewer;
// Approve (after a confirmation) unless approved, Decline always, with a reason. Only a
// customer's latest document can be decided: older ones say they were superseded.
import { useMemo, useState } from 'react';
import { useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getTextareaProps } from '@conform-to/react';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { DateRangeDialog } from '~/components/ui/date-range-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { ErrorList } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { KycStatusChip } from './kyc-client.tsx';
import {
  KYC_REASON_MAX, KYC_STATUSES, KYC_STATUS_LABELS, KYC_TYPE_LABELS, KycDeclineSchema,
  type KycDocument, type KycFile, type KycFileField, type KycStatus,
} from './kyc.ts';

export interface KycRow extends KycDocument {
  userId: number;
  fullName: string;
  email: string;
  latest: boolean;
}

export interface KycListData {
  rows: KycRow[];
  total: number;
  /** above countLimit matching documents the total is PostgreSQL's estimate */
  estimated?: boolean;
  countLimit?: number;
  status: 'all' | KycStatus;
  range: { dateStart: string; dateEnd: string };
}

const FILE_LABELS: Record<KycFileField, string> = { front: 'Front Side', back: 'Back Side', address: 'Proof of Address' };
const FILE_SHORT: Record<KycFileField, string> = { front: 'Front', back: 'Back', address: 'Address' };

export function KycStaffPage({ data }: { data: KycListData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [, setParams] = useSearchParams();
  const [filterOpen, setFilterOpen] = useState(false);
  const [viewing, setViewing] = useState<{ row: KycRow; field: KycFileField; file: KycFile } | null>(null);
  const [approving, setApproving] = useState<KycRow | null>(null);
  const [declining, setDeclining] = useState<KycRow | null>(null);

  const setFilter = (changes: Record<string, string>) => setParams((prev) => {
    const next = new URLSearchParams(prev);
    next.delete('page');
    for (const [k, v] of Object.entries(changes)) {
      if (v && v !== 'all') next.set(k, v); else next.delete(k);
    }
    return next;
  }, { preventScrollReset: true });

  const columns = useMemo<ColumnDef<KycRow>[]>(() => [
    { id: 'type', header: t('Document Type'), enableSorting: false, cell: ({ row }) => t(KYC_TYPE_LABELS[row.original.type]) },
    { id: 'fullName', header: t('Full Name'), enableSorting: false, cell: ({ row }) => row.original.fullName },
    { id: 'email', header: t('Client Email'), enableSorting: false, cell: ({ row }) => row.original.email },
    { id: 'status', header: t('Status'), enableSorting: false, cell: ({ row }) => <KycStatusChip status={row.original.status} /> },
    { id: 'created_at', header: t('Upload Date'), cell: ({ row }) => f.dateTime(row.original.createdAt) },
    {
      id: 'view', header: t('View'), enableSorting: false,
      cell: ({ row }) => {
        const files = (Object.keys(FILE_LABELS) as KycFileField[]).filter((k) => row.original.files[k]);
        if (!files.length) return <span className="muted">{t('No files')}</span>;
        return (
          <div className="kyc-files">
            {files.map((k) => {
              const file = row.original.files[k]!;
              const label = `${t(FILE_LABELS[k])}: ${row.original.fullName}`;
              return file.image ? (
                <button key={k} type="button" className="kyc-thumb" onClick={() => setViewing({ row: row.original, field: k, file })} aria-label={label} title={t(FILE_LABELS[k])}>
                  <img src={`/uploads/${file.id}`} alt="" loading="lazy" width={40} height={28} />
                  <span>{t(FILE_SHORT[k])}</span>
                </button>
              ) : (
                <a key={k} className="kyc-thumb kyc-pdf" href={`/uploads/${file.id}`} target="_blank" rel="noreferrer" aria-label={`${label} (${t('PDF')})`} title={file.name}>
                  <span aria-hidden="true" className="kyc-pdf-mark">{t('PDF')}</span>
                  <span>{t(FILE_SHORT[k])}</span>
                </a>
              );
            })}
          </div>
        );
      },
    },
    {
      id: 'reason', header: t('Decline Reason'), enableSorting: false,
      cell: ({ row }) => row.original.declineReason ? <span className="kyc-reason-cell">{row.original.declineReason}</span> : <span className="muted">—</span>,
    },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => {
        const r = row.original;
        if (!r.latest) return <span className="muted" title={t('The customer has submitted a newer document')}>{t('Superseded')}</span>;
        return (
          <div className="row-actions">
            {r.status !== 'approved' ? (
              <button type="button" className="btn btn-sm btn-primary" onClick={() => setApproving(r)} aria-label={`${t('Approve')}: ${r.fullName}`}>{t('Approve')}</button>
            ) : null}
            <button type="button" className="btn btn-sm btn-danger" onClick={() => setDeclining(r)} aria-label={`${t('Decline')}: ${r.fullName}`}>{t('Decline')}</button>
          </div>
        );
      },
    },
  ], [t, f]);

  const { dateStart, dateEnd } = data.range;
  return (
    <section className="page kyc-admin">
      <h1 className="page-title">{t('KYC Documents')}</h1>
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={t('KYC Documents')}
        toolbar={<div className="statement-toolbar">
          {data.estimated ? <span className="muted">{t('More than {{limit}} match: the total is an estimate.', { limit: f.amount(data.countLimit ?? 0) })}</span> : null}
          <label className="inline-filter">
            <span>{t('Status')}</span>
            <select value={data.status} onChange={(e) => setFilter({ status: e.target.value })}>
              <option value="all">{t('All')}</option>
              {KYC_STATUSES.map((s) => <option key={s} value={s}>{t(KYC_STATUS_LABELS[s])}</option>)}
            </select>
          </label>
          {dateStart || dateEnd ? <span className="muted">{dateStart || '…'} – {dateEnd || '…'}</span> : null}
          <button type="button" className="btn btn-sm btn-ghost" onClick={() => setFilterOpen(true)}>{t('Filter')}</button>
        </div>} />

      <DateRangeDialog open={filterOpen} value={{ start: dateStart, end: dateEnd }} onClose={() => setFilterOpen(false)}
        onSubmit={({ start, end }) => { setFilterOpen(false); setFilter({ dateStart: start, dateEnd: end }); }} />

      <Modal open={!!viewing} onClose={() => setViewing(null)} title={viewing ? `${t(FILE_LABELS[viewing.field])}: ${viewing.row.fullName}` : ''}
        footer={viewing ? <a className="btn btn-ghost" href={`/uploads/${viewing.file.id}`} target="_blank" rel="noreferrer">{t('Open in a new tab')}</a> : null}>
        {viewing ? <img className="kyc-viewer" src={`/uploads/${viewing.file.id}`} alt={`${t(FILE_LABELS[viewing.field])}: ${viewing.row.fullName}`} /> : null}
      </Modal>

      <ConfirmDialog open={!!approving} onClose={() => setApproving(null)} danger={false} title={t('Approve')} confirmLabel={t('Approve')}
        message={approving ? t('Approve the {{type}} of {{name}}?', { type: t(KYC_TYPE_LABELS[approving.type]), name: approving.fullName }) : ''}
        intent="approve" fields={approving ? { id: approving.id, from: approving.status } : undefined} />

      <FormDialog open={!!declining} onClose={() => setDeclining(null)} title={t('Decline')} schema={KycDeclineSchema} intent="decline"
        id={declining?.id} submitLabel={t('Decline')} size="sm">
        {(fields) => (
          <>
            <p>{declining ? t('Decline the {{type}} of {{name}}? The customer sees the reason and may submit again.', { type: t(KYC_TYPE_LABELS[declining.type]), name: declining.fullName }) : null}</p>
            <input type="hidden" name="from" value={declining?.status ?? ''} />
            <div className="field">
              <label htmlFor={fields.declineReason.id}>{t('Decline Reason')}</label>
              <ReasonInput props={getTextareaProps(fields.declineReason)} />
              <div className="field-msg"><ErrorList id={fields.declineReason.errorId} errors={fields.declineReason.errors} /></div>
            </div>
          </>
        )}
      </FormDialog>
    </section>
  );
}

function ReasonInput({ props }: { props: ReturnType<typeof getTextareaProps> }) {
  const { key, ...rest } = props;
  return <textarea key={key} {...rest} rows={4} maxLength={KYC_REASON_MAX} />;
}
