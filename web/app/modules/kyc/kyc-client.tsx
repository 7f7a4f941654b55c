// The customer's /kyc page (docs/specs.md#kyc): with no document the form; a document under
// review shows the 'KYC Submitted' card, an approved one 'KYC Approved', each with its status; a declined one its reason
// and Resubmit, which opens the form again (the new document is a new row).
import { useId, useState, type InputHTMLAttributes } from 'react';
import { useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { SelectField, SubmitButton, ErrorList, useSchemaForm, type ListOfErrors } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import { KYC_ACCEPT, KYC_STATUS_LABELS, KYC_TYPES, KYC_TYPE_LABELS, KycBrowserSchema, type KycDocument, type KycFile, type KycStatus } from './kyc.ts';

export function KycStatusChip({ status }: { status: KycStatus }) {
  const { t } = useTranslation();
  return <span className={`chip chip-${status}`} data-testid="kyc-status">{t(KYC_STATUS_LABELS[status])}</span>;
}

export function KycPage({ document, maxSize }: { document: KycDocument | null; maxSize: string }) {
  const { t } = useTranslation();
  // Resubmit opens the form; the next document (a new id) closes it again
  const [resubmitFor, setResubmitFor] = useState<number | null>(null);
  // the form's answer is toasted here: on success the reloaded page replaces the form at once
  useFetcherToast(useFetcher<KycReply>({ key: KYC_FETCHER }));
  const showForm = !document || (document.status === 'declined' && resubmitFor === document.id);
  return (
    <section className="page kyc-page">
      <h1 className="page-title">{t('KYC')}</h1>
      {showForm ? (
        <KycForm maxSize={maxSize} onCancel={document ? () => setResubmitFor(null) : undefined} />
      ) : document.status === 'declined' ? (
        <Declined document={document} onResubmit={() => setResubmitFor(document.id)} />
      ) : (
        <Submitted document={document} />
      )}
    </section>
  );
}

function Details({ document }: { document: KycDocument }) {
  const { t } = useTranslation();
  const f = useFormat();
  const files = ([['front', 'Front Side'], ['back', 'Back Side'], ['address', 'Proof of Address']] as const)
    .filter(([k]) => document.files[k]);
  return (
    <dl className="kyc-details">
      <div><dt>{t('Document Type')}</dt><dd>{t(KYC_TYPE_LABELS[document.type])}</dd></div>
      <div><dt>{t('Submitted')}</dt><dd>{f.clientDateTime(document.createdAt)}</dd></div>
      {files.length ? (
        <div>
          <dt>{t('Files')}</dt>
          <dd className="kyc-file-links">
            {files.map(([k, label]) => <OwnFileLink key={k} file={document.files[k]!} label={t(label)} />)}
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

function OwnFileLink({ file, label }: { file: KycFile; label: string }) {
  const { t } = useTranslation();
  return (
    <a href={`/uploads/${file.id}`} target="_blank" rel="noreferrer" title={file.name}>
      {label}{file.image ? '' : ` (${t('PDF')})`}
    </a>
  );
}

function Submitted({ document }: { document: KycDocument }) {
  const { t } = useTranslation();
  return (
    <div className="card kyc-card">
      <div className="kyc-card-head">
        {/* once approved the heading says so: 'Submitted' read as still waiting */}
        <h2>{document.status === 'approved' ? t('KYC Approved') : t('KYC Submitted')}</h2>
        <KycStatusChip status={document.status} />
      </div>
      <p className="muted">
        {document.status === 'approved' ? t('Your identity is verified.') : t('Your documents are under review. You will be notified once they are checked.')}
      </p>
      <Details document={document} />
    </div>
  );
}

function Declined({ document, onResubmit }: { document: KycDocument; onResubmit: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="card kyc-card">
      <div className="kyc-card-head">
        <h2>{t('KYC Declined')}</h2>
        <KycStatusChip status="declined" />
      </div>
      <p className="notice notice-error kyc-reason">
        <strong>{t('Decline Reason')}:</strong> <span data-testid="kyc-reason">{document.declineReason || '—'}</span>
      </p>
      <Details document={document} />
      <button type="button" className="btn btn-primary" onClick={onResubmit}>{t('Resubmit')}</button>
    </div>
  );
}

type KycReply = Reply;
const KYC_FETCHER = 'kyc-submit';

function KycForm({ onCancel, maxSize }: { onCancel?: () => void; maxSize: string }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<KycReply>({ key: KYC_FETCHER });
  const pending = fetcher.state !== 'idle';
  const [form, fields] = useSchemaForm({
    id: 'kyc-form', schema: KycBrowserSchema, defaultValue: { type: 'national_id' },
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  const values = fetcher.state === 'idle' ? fetcher.data?.values : undefined;
  const options = KYC_TYPES.map((v) => ({ value: v, label: t(KYC_TYPE_LABELS[v]) }));
  return (
    <div className="card kyc-card">
      <h2>{t('Verify your identity')}</h2>
      <p className="muted">
        {t('Upload a photo or scan of your document: PNG, JPEG, WebP or PDF, up to {{max}} each. The front side is required.', { max: maxSize })}
      </p>
      <fetcher.Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="kyc-form">
        <SelectField label={t('Document Type')} errors={fields.type.errors} options={options} selectProps={getSelectProps(fields.type)} />
        <FileField label={t('Front Side')} errors={fields.front.errors} values={values} inputProps={{ ...getInputProps(fields.front, { type: 'file' }), accept: KYC_ACCEPT }} />
        <FileField label={t('Back Side')} errors={fields.back.errors} values={values} inputProps={{ ...getInputProps(fields.back, { type: 'file' }), accept: KYC_ACCEPT }} />
        <FileField label={t('Proof of Address')} hint={t('A utility bill or a bank statement')} errors={fields.address.errors} values={values}
          inputProps={{ ...getInputProps(fields.address, { type: 'file' }), accept: KYC_ACCEPT }} />
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="kyc-actions">
          {onCancel ? <button type="button" className="btn btn-ghost" onClick={onCancel} disabled={pending}>{t('Cancel')}</button> : null}
          <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
        </div>
      </fetcher.Form>
    </div>
  );
}

/** A file input; its error may carry values (the upload service's 'larger than {{max}}'). */
function FileField({ label, inputProps, errors, values, hint }: {
  label: string;
  inputProps: InputHTMLAttributes<HTMLInputElement> & { key?: string };
  errors?: ListOfErrors;
  values?: Record<string, string | number>;
  hint?: string;
}) {
  const { t } = useTranslation();
  const fallbackId = useId();
  const id = inputProps.id ?? fallbackId;
  const shown = errors?.filter((e): e is string => !!e) ?? [];
  const errorId = shown.length ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  const { key, ...rest } = inputProps;
  return (
    <div className="field">
      <label htmlFor={id}>{label}{rest.required ? <span aria-hidden="true"> *</span> : null}</label>
      <input key={key} {...rest} id={id} aria-invalid={errorId ? true : undefined} aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined} />
      {hint ? <div className="field-hint" id={hintId}>{hint}</div> : null}
      <div className="field-msg">
        {shown.length ? (
          <ul id={errorId} className="field-errors">
            {shown.map((e) => <li key={e} className="field-error">{t(e, values)}</li>)}
          </ul>
        ) : null}
      </div>
    </div>
  );
}
