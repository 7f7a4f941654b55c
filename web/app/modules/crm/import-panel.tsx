// 'Import CSV' on the leads lists (docs/specs.md#crm-lead-lists, admins and managers): the upload dialog
// and the progress of the caller's latest import, polled every second while it runs (a fetcher
// reloading the status route), with the report of rejected rows when it is done. A page reload
// finds the running import again (the status route without an id answers the latest one).
import { useEffect, useId, useState } from 'react';
import { useFetcher, useRevalidator } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { useToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { ImportStatus } from './import.server.ts';
import { ProgressBar } from '~/components/ui/progress-bar.tsx';

const STATUS_URL = '/admin/crm/lead-import';
type Upload = { ok: true; id: number; status: ImportStatus | null } | { ok: false; message: string; params: Record<string, string> };

export function ImportCsv({ initial }: { initial: ImportStatus | null }) {
  const { t } = useTranslation();
  const { push } = useToast();
  const [open, setOpen] = useState(false);
  const upload = useFetcher<Upload>();
  const poll = useFetcher<{ status: ImportStatus | null }>();
  const [id, setId] = useState<number | null>(null);
  const fileId = useId();
  const formId = useId();


  useEffect(() => {
    const d = upload.data;
    if (upload.state !== 'idle' || !d) return;
    if (d.ok) { setId(d.id); setOpen(false); poll.load(`${STATUS_URL}?id=${d.id}`); }
    else push({ type: 'error', title: t(d.message || 'Something went wrong', d.params), translated: true });
  }, [upload.state, upload.data]); // eslint-disable-line react-hooks/exhaustive-deps

  // the caller's latest import comes with the page (a reload shows a running import again)
  const status = poll.data?.status ?? (upload.data?.ok ? upload.data.status : null) ?? initial;
  const active = status && (status.status === 'queued' || status.status === 'running');
  const shownId = status?.id ?? id;

  // the list shows the new leads once the import is over
  const revalidator = useRevalidator();
  const [wasActive, setWasActive] = useState(false);
  useEffect(() => {
    if (active) setWasActive(true);
    else if (wasActive) { setWasActive(false); revalidator.revalidate(); }
  }, [active]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!active || shownId === null) return;
    const timer = setInterval(() => { if (poll.state === 'idle') poll.load(`${STATUS_URL}?id=${shownId}`); }, 1000);
    return () => clearInterval(timer);
  }, [active, shownId, poll.state]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <>
      <button type="button" className="btn btn-secondary btn-sm crm-import" onClick={() => setOpen(true)}>{t('Import CSV')}</button>
      {status ? <ImportProgress status={status} /> : null}
      <Modal open={open} onClose={() => setOpen(false)} title={t('Import CSV')} size="md" dismissible={upload.state === 'idle'}
        footer={<>
          <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)} disabled={upload.state !== 'idle'}>{t('Cancel')}</button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={upload.state !== 'idle'} aria-busy={upload.state !== 'idle'}>
            {upload.state !== 'idle' ? t('Uploading…') : t('Import')}
          </button>
        </>}>
        <upload.Form id={formId} method="post" action={STATUS_URL} encType="multipart/form-data">
          <p className="muted">{t('A CSV file (comma or semicolon separated, UTF-8) with the columns firstName, lastName, email, phone and country; city, funnelLink, reference and leadSourceId are optional.')}</p>
          <div className="field">
            <label htmlFor={fileId}>{t('CSV file')}</label>
            <input id={fileId} name="file" type="file" accept=".csv,text/csv" required />
          </div>
        </upload.Form>
      </Modal>
    </>
  );
}

function ImportProgress({ status }: { status: ImportStatus }) {
  const { t } = useTranslation();
  const f = useFormat();
  const total = status.totalRows ?? 0;
  const pct = total > 0 ? Math.round((status.rowsRead / total) * 100) : 0;
  const text = t('{{n}} of {{m}} rows: {{created}} created, {{duplicates}} duplicates, {{errors}} errors', {
    n: f.amount(status.rowsRead), m: f.amount(total), created: f.amount(status.created), duplicates: f.amount(status.duplicates), errors: f.amount(status.errors),
  });
  const label = t('Import of {{file}}', { file: status.fileName });
  return (
    <div className="crm-import-progress" aria-live="polite">
      <span className="crm-import-file">{label}</span>
      <ProgressBar label={label} pct={pct} text={text} />
      <span className="crm-import-text">{text}</span>
      {status.status === 'done' ? <a className="btn btn-link btn-sm" href={`${STATUS_URL}/${status.id}/report`} download>{t('Download the report')}</a> : null}
      {status.status === 'failed' ? <span className="field-error" role="alert">{t('The import failed: {{message}}', { message: status.message ?? '' })}</span> : null}
    </div>
  );
}
