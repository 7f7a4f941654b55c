// The customer's deposit pages (docs/specs.md#money): /deposits (Deposit and History tabs, the
// result modal), the bank transfer page and the crypto page. Figures come from the server; the
// live summary of fee and total is fees.ts's depositFee, the same function the server stores with.
import { useMemo, useState, type ReactNode } from 'react';
import { gatewayLabel } from '~/modules/gateways/kinds.ts';
import { Form, Link, useLocation, useNavigate, useNavigation, useSearchParams } from '@remix-run/react';
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { parseDecimal } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { DateRangeDialog } from '~/components/ui/date-range-dialog.tsx';
import { ErrorList, Field, SelectField, SubmitButton, useSchemaForm, type ListOfErrors } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useReplyToast, useToast } from '~/components/ui/toast.tsx';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import { depositFee, MONEY_INPUT, type FeeSummary } from './fees.ts';
import { BankDepositFormSchema, cryptoConfirmSchema, DepositSchema, depositResult, type CryptoNetwork } from './deposit-schemas.ts';
import type { DepositRow, DepositStatus, DepositWallet, ExternalPayment, GatewayOption } from './deposits.server.ts';
import { readNumber } from '~/components/ui/number-input.ts';

// ---------------------------------------------------------------- shared bits

/** The fee and total of a typed amount (read in the page's language), or null while the amount is not a valid one. */
export function liveSummary(amount: string, feePercent: string | undefined): FeeSummary | null {
  if (feePercent === undefined) return null;
  const a = parseDecimal(amount, MONEY_INPUT);
  return a.ok ? depositFee(a.value, feePercent) : null;
}

const STATUS_LABEL: Record<DepositStatus, string> = { pending: 'Pending', approved: 'Approved', declined: 'Declined' };

/** pending amber, approved green, declined red; staff also see a first approval waiting for a second. */
export function DepositStatusChip({ status, awaitingSecond, staff }: { status: DepositStatus; awaitingSecond?: boolean; staff?: boolean }) {
  const { t } = useTranslation();
  if (staff && awaitingSecond && status === 'pending') return <span className="chip chip-pending">{t('Awaiting second approval')}</span>;
  return <span className={`chip chip-${status}`}>{t(STATUS_LABEL[status])}</span>;
}

export function KycNotice({ show }: { show: boolean }) {
  const { t } = useTranslation();
  if (!show) return null;
  return <p className="notice notice-error" role="note">{t('Please verify KYC to enable deposit')} <Link to="/kyc">{t('Verify now')}</Link></p>;
}

/** Amount, fee and total of a deposit in the wallet's currency. */
export function FeeLines({ summary, currency, feePercent }: { summary: FeeSummary | null; currency: string; feePercent?: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const m = (v: string | undefined) => (currency ? f.money(v ?? null, currency) : '—');
  return (
    <dl className="money-summary" aria-live="polite">
      <div><dt>{t('Amount')}</dt><dd>{m(summary?.amount)}</dd></div>
      <div><dt>{feePercent !== undefined ? t('Fee ({{percent}})', { percent: f.percent(feePercent) }) : t('Fee')}</dt><dd>{m(summary?.fee)}</dd></div>
      <div className="money-total"><dt>{t('Total')}</dt><dd>{m(summary?.total)}</dd></div>
    </dl>
  );
}

function Detail({ label, children }: { label: ReactNode; children: ReactNode }) {
  return <div><dt>{label}</dt><dd>{children}</dd></div>;
}

// ---------------------------------------------------------------- /deposits

export interface DepositsData {
  tab: 'deposit' | 'history';
  wallets: DepositWallet[];
  gateways: GatewayOption[];
  externals: ExternalPayment[];
  kycNotice: boolean;
  history: { rows: DepositRow[]; total: number } | null;
  range: { dateStart: string; dateEnd: string };
}

export function DepositsPage({ data, reply }: { data: DepositsData; reply: Reply | undefined }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const tabLink = (tab: 'deposit' | 'history') => (tab === 'history' ? '?tab=history' : '?');
  return (
    <section className="page deposits-page">
      <h1 className="page-title">{t('Deposits')}</h1>
      <nav className="tabs page-tabs" aria-label={t('Deposits')}>
        {(['deposit', 'history'] as const).map((tab) => (
          <Link key={tab} to={tabLink(tab)} className={`tab ${data.tab === tab ? 'active' : ''}`} aria-current={data.tab === tab ? 'page' : undefined}
            preventScrollReset>
            {tab === 'deposit' ? t('Deposit') : t('History')}
          </Link>
        ))}
      </nav>
      {data.tab === 'deposit' ? <DepositForm data={data} reply={reply} /> : <DepositHistory data={data} />}
      <ResultModal status={params.get('status')} amount={params.get('amount')} currency={params.get('currency')} />
    </section>
  );
}

function DepositForm({ data, reply }: { data: DepositsData; reply: Reply | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const navigation = useNavigation();
  const firstWallet = data.wallets.length === 1 ? String(data.wallets[0].id) : '';
  const [walletId, setWalletId] = useState(firstWallet);
  const [gatewayName, setGatewayName] = useState(data.gateways.length === 1 ? data.gateways[0].name : '');
  const [amount, setAmount] = useState('');
  const [externalId, setExternalId] = useState('');
  const [form, fields] = useSchemaForm({
    id: 'deposit', schema: DepositSchema, lastResult: navigation.state === 'idle' ? reply?.result : null,
    defaultValue: { balance_id: walletId, gateway: gatewayName },
  });
  useReplyToast(reply);
  const wallet = data.wallets.find((w) => String(w.id) === walletId);
  const gateway = data.gateways.find((g) => g.name === gatewayName);
  const external = data.externals.find((x) => String(x.id) === externalId);
  const summary = liveSummary(readNumber(amount, f.locale) ?? '', gateway?.fee);
  const pending = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post';

  if (!data.wallets.length) {
    return (
      <div className="card">
        <KycNotice show={data.kycNotice} />
        <p>{t('You have no real wallet to deposit into yet.')}</p>
      </div>
    );
  }
  return (
    <div className={`deposit-layout ${data.externals.length ? '' : 'single'}`}>
      <div className="card">
        <KycNotice show={data.kycNotice} />
        <Form method="post" {...getFormProps(form)} className="deposit-form">
          <SelectField label={t('Account')} errors={fields.balance_id.errors} placeholder={t('Select wallet')}
            selectProps={{ ...getSelectProps(fields.balance_id), onChange: (e) => setWalletId(e.target.value) }}
            options={data.wallets.map((w) => ({ value: String(w.id), label: `${t('Real')} ${w.currency} #${w.id} · ${f.money(w.balance, w.currency)}` }))} />
          <SelectField label={t('Gateway')} errors={fields.gateway.errors} placeholder={t('Select gateway')}
            selectProps={{ ...getSelectProps(fields.gateway), onChange: (e) => setGatewayName(e.target.value) }}
            options={data.gateways.map((g) => ({ value: g.name, label: Number(g.fee) > 0 ? `${gatewayLabel(t, g.name)} (${f.percent(g.fee)})` : gatewayLabel(t, g.name) }))} />
          <Field label={`${t('Amount')}${wallet ? ` (${wallet.currency})` : ''}`} errors={fields.amount.errors}
            inputProps={{ ...getInputProps(fields.amount, { type: 'text' }), inputMode: 'decimal', autoComplete: 'off', onInput: (e) => setAmount(e.currentTarget.value) }} />
          <FeeLines summary={summary} currency={wallet?.currency ?? ''} feePercent={gateway?.fee} />
          <ErrorList id={form.errorId} errors={form.errors} />
          <SubmitButton className="btn-block" pending={pending}>{t('Deposit')}</SubmitButton>
        </Form>
      </div>
      {data.externals.length ? (
        <div className="card external-payments">
          <h2 className="card-title">{t('External payments')}</h2>
          <p className="muted">{t('Pay through one of these providers outside the platform; their page opens in a new tab.')}</p>
          <div className="field">
            <label htmlFor="external-payment">{t('External payment (optional)')}</label>
            <select id="external-payment" value={externalId} onChange={(e) => setExternalId(e.target.value)}>
              <option value="">{t('None')}</option>
              {data.externals.map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}
            </select>
          </div>
          {external ? (
            <div className="external-details">
              {external.logo ? <img src={external.logo} alt={external.name} className="external-logo" /> : null}
              <dl className="details-list">
                <Detail label={t('Name')}>{external.name}</Detail>
                {external.customLabel || external.customValue ? <Detail label={external.customLabel ?? ''}>{external.customValue ?? ''}</Detail> : null}
              </dl>
              <a className="btn btn-primary" href={external.link} target="_blank" rel="noopener noreferrer">
                {t('Pay with {{name}}', { name: external.name })}<span className="sr-only"> ({t('opens in a new tab')})</span>
              </a>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

function DepositHistory({ data }: { data: DepositsData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [, setParams] = useSearchParams();
  const [filterOpen, setFilterOpen] = useState(false);
  const history = data.history ?? { rows: [], total: 0 };
  const columns = useMemo(() => historyColumns(t, f), [t, f]);
  const { range } = data;
  return (
    <>
      <DataTable columns={columns} data={history.rows} total={history.total} searchable={false} getRowId={(r) => String(r.id)} caption={t('Deposit history')}
        toolbar={<div className="statement-toolbar">
          {range.dateStart || range.dateEnd ? <span className="muted">{range.dateStart || '…'} – {range.dateEnd || '…'}</span> : null}
          <button type="button" className="btn btn-sm btn-ghost" onClick={() => setFilterOpen(true)}>{t('Filter')}</button>
        </div>} />
      <DateRangeDialog open={filterOpen} value={{ start: range.dateStart, end: range.dateEnd }} onClose={() => setFilterOpen(false)}
        onSubmit={({ start, end }) => {
          setFilterOpen(false);
          setParams((prev) => {
            const next = new URLSearchParams(prev);
            next.delete('page');
            if (start) next.set('dateStart', start); else next.delete('dateStart');
            if (end) next.set('dateEnd', end); else next.delete('dateEnd');
            return next;
          }, { preventScrollReset: true });
        }} />
    </>
  );
}

type T = (key: string, values?: Record<string, unknown>) => string;

/** A bank deposit's description: where it was sent from. */
export function describeDeposit(r: DepositRow): string {
  const d = r.details;
  if (r.gateway === 'bank' && (d.bankName || d.accountNumber)) return [d.bankName, d.accountNumber].filter(Boolean).join(' · ');
  return r.description;
}

function historyColumns(t: T, f: Formatter): ColumnDef<DepositRow>[] {
  const money = (v: string | null, r: DepositRow) => (v === null ? '-' : f.money(v, r.currency));
  return [
    { id: 'id', header: t('ID'), enableSorting: false, cell: ({ row }) => row.original.id },
    { id: 'date', header: t('Date'), enableSorting: false, cell: ({ row }) => f.clientDateTime(row.original.createdAt) },
    { id: 'amount', header: t('Amount'), enableSorting: false, cell: ({ row }) => money(row.original.amount, row.original) },
    { id: 'fee', header: t('Fee'), enableSorting: false, cell: ({ row }) => money(row.original.fee, row.original) },
    { id: 'total', header: t('Total'), enableSorting: false, cell: ({ row }) => money(row.original.total, row.original) },
    { id: 'description', header: t('Description'), enableSorting: false, cell: ({ row }) => <span className="cell-text">{describeDeposit(row.original)}</span> },
    {
      id: 'status', header: t('Status'), enableSorting: false,
      cell: ({ row }) => (
        <span className="status-cell">
          <DepositStatusChip status={row.original.status} />
          {row.original.status === 'declined' && row.original.declineReason
            ? <span className="decline-reason">{t('Reason: {{reason}}', { reason: row.original.declineReason })}</span> : null}
        </span>
      ),
    },
    { id: 'gateway', header: t('Gateway'), enableSorting: false, cell: ({ row }) => gatewayLabel(t, row.original.gateway) },
    { id: 'balanceAfter', header: t('Balance after'), enableSorting: false, cell: ({ row }) => money(row.original.balanceAfter, row.original) },
  ];
}

/** ?status=success|pending|… : the result of a deposit, closed by dropping the query. */
function ResultModal({ status, amount, currency }: { status: string | null; amount: string | null; currency: string | null }) {
  const { t } = useTranslation();
  const f = useFormat();
  const navigate = useNavigate();
  const location = useLocation();
  const result = depositResult(status);
  if (!result) return null;
  const close = () => {
    const next = new URLSearchParams(location.search);
    for (const k of ['status', 'amount', 'currency']) next.delete(k);
    const q = next.toString();
    navigate(`${location.pathname}${q ? `?${q}` : ''}`, { replace: true, preventScrollReset: true });
  };
  const valid = amount !== null && parseDecimal(amount, MONEY_INPUT).ok;
  const shown = !valid ? '' : currency && /^[A-Za-z]{3,5}$/.test(currency) ? f.money(amount, currency.toUpperCase()) : f.rate(amount, 2);
  const title = result === 'success' ? t('Deposit Successful') : result === 'pending' ? t('Deposit Submitted') : t('Deposit Failed');
  const text = result === 'success'
    ? (shown ? t('{{amount}} was added to your account.', { amount: shown }) : t('Your deposit was added to your account.'))
    : result === 'pending'
      ? (shown ? t('Your deposit of {{amount}} was submitted and is waiting for approval.', { amount: shown }) : t('Your deposit was submitted and is waiting for approval.'))
      : t('Your deposit could not be completed. Please try again.');
  return (
    <Modal open onClose={close} title={title} size="sm" footer={<button type="button" className="btn btn-primary" onClick={close}>{t('OK')}</button>}>
      <p className={`deposit-result deposit-result-${result}`}>{text}</p>
    </Modal>
  );
}

// ---------------------------------------------------------------- bank transfer page

export interface BankPageData {
  wallet: { id: number; currency: string };
  fees: FeeSummary;
  feePercent: string;
  /** key1..key5: bank name, account holder, IBAN / account number, BIC / Swift, country */
  bank: (string | null)[];
  fullName: string;
  clientRef: string;
  kycNotice: boolean;
}

const BANK_LABELS = ['Bank name', 'Account holder name', 'IBAN / Account number', 'BIC / Swift code', 'Country'];

export function BankDepositPage({ data, reply }: { data: BankPageData; reply: Reply | undefined }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const location = useLocation();
  const pending = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post';
  const [form, fields] = useSchemaForm({
    id: 'bank-deposit', schema: BankDepositFormSchema, lastResult: navigation.state === 'idle' ? reply?.result : null,
  });
  useReplyToast(reply);
  return (
    <section className="page deposit-detail">
      <h1 className="page-title">{t('Bank Deposit')}</h1>
      <p><Link to="/deposits">← {t('Back to deposits')}</Link></p>
      <KycNotice show={data.kycNotice} />
      <div className="deposit-layout">
        <div className="card">
          <h2 className="card-title">{t('Bank details')}</h2>
          <p className="muted">{t('Transfer the total to this account, then tell us where you sent it from.')}</p>
          <dl className="details-list">
            {BANK_LABELS.map((label, i) => <Detail key={label} label={t(label)}>{data.bank[i] || '-'}</Detail>)}
          </dl>
          <FeeLines summary={data.fees} currency={data.wallet.currency} feePercent={data.feePercent} />
        </div>
        <div className="card">
          <h2 className="card-title">{t('Sent From')}</h2>
          <Form method="post" encType="multipart/form-data" action={`${location.pathname}${location.search}`} {...getFormProps(form)}>
            <input type="hidden" name="clientRef" value={data.clientRef} />
            <Field label={t('Bank name')} errors={fields.bank_name.errors} inputProps={{ ...getInputProps(fields.bank_name, { type: 'text' }), autoComplete: 'off' }} />
            <Field label={t('Account name')} inputProps={{ id: 'account_name', name: 'account_name', type: 'text', value: data.fullName, readOnly: true }}
              hint={t('Deposits are accepted only from your own account.')} />
            <Field label={t('Account number')} errors={fields.account_number.errors} inputProps={{ ...getInputProps(fields.account_number, { type: 'text' }), autoComplete: 'off' }} />
            <FileField label={t('Proof')} hint={t('A receipt or a screenshot of the transfer: an image or a PDF.')} errors={fields.proof.errors} values={reply?.values}
              inputProps={{ ...getInputProps(fields.proof, { type: 'file' }), accept: 'image/png,image/jpeg,image/webp,application/pdf' }} />
            <ErrorList id={form.errorId} errors={form.errors} />
            <SubmitButton className="btn-block" pending={pending}>{t('Submit')}</SubmitButton>
          </Form>
        </div>
      </div>
    </section>
  );
}

/** A file input whose error may carry values (the upload service's 'larger than {{max}}'). */
function FileField({ label, inputProps, errors, values, hint }: {
  label: string;
  inputProps: React.InputHTMLAttributes<HTMLInputElement> & { key?: string };
  errors?: ListOfErrors;
  values?: Record<string, string | number>;
  hint?: string;
}) {
  const { t } = useTranslation();
  const { key, ...rest } = inputProps;
  const id = rest.id ?? 'file';
  const shown = errors?.filter(Boolean) as string[] | undefined;
  const errorId = shown?.length ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input key={key} {...rest} id={id} aria-invalid={errorId ? true : undefined} aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined} />
      {hint ? <div id={hintId} className="field-hint">{hint}</div> : null}
      <div className="field-msg">
        {shown?.length ? <ul id={errorId} className="field-errors">{shown.map((e) => <li key={e} className="field-error">{t(e, values)}</li>)}</ul> : null}
      </div>
    </div>
  );
}

// ---------------------------------------------------------------- crypto page

export interface CryptoPageData {
  gateway: { name: string; title: string; feePercent: string };
  wallet: { id: number; currency: string };
  fees: FeeSummary;
  address: string;
  /** an uploaded QR file (/uploads/:id) or the QR drawn from the address (a data URL) */
  qr: string;
  quote: { currency: string; amount: string | null; rate: string | null; price: string | null };
  clientRef: string;
  kycNotice: boolean;
  /** the chain the transfer travels on: the transaction hash's format */
  network: CryptoNetwork;
}

export function CryptoDepositPage({ data, reply }: { data: CryptoPageData; reply: Reply | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { push } = useToast();
  const navigation = useNavigation();
  const location = useLocation();
  const pending = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post';
  const schema = useMemo(() => cryptoConfirmSchema(data.network), [data.network]);
  const [form, fields] = useSchemaForm({ id: 'crypto-deposit', schema, lastResult: navigation.state === 'idle' ? reply?.result : null });
  useReplyToast(reply);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(data.address);
      push({ type: 'success', title: 'Copied to clipboard' });
    } catch {
      push({ type: 'error', title: 'Something went wrong' });
    }
  };
  const { quote } = data;
  return (
    <section className="page deposit-detail">
      <h1 className="page-title">{t('Crypto Deposit')}</h1>
      <p><Link to="/deposits">← {t('Back to deposits')}</Link></p>
      <KycNotice show={data.kycNotice} />
      <div className="deposit-layout">
        <div className="card crypto-card">
          <h2 className="card-title">{gatewayLabel(t, data.gateway.name)}</h2>
          <img className="qr-code" src={data.qr} width={220} height={220} alt={t('QR code of the {{gateway}} wallet address', { gateway: gatewayLabel(t, data.gateway.name) })} />
          <div className="field">
            <label htmlFor="wallet-address">{t('Wallet address')}</label>
            <div className="copy-row">
              <input id="wallet-address" type="text" value={data.address} readOnly className="mono" />
              <button type="button" className="btn btn-ghost" onClick={copy}>{t('Copy')}</button>
            </div>
          </div>
        </div>
        <div className="card">
          <h2 className="card-title">{t('Payment')}</h2>
          <FeeLines summary={data.fees} currency={data.wallet.currency} feePercent={data.gateway.feePercent} />
          <dl className="details-list crypto-quote">
            <Detail label={t('Send')}>
              {quote.amount !== null ? <strong>{f.money(quote.amount, quote.currency)}</strong> : <span className="muted">{t('Rate unavailable')}</span>}
            </Detail>
            {quote.price !== null ? (
              <Detail label={t('Rate')}>{`1 ${quote.currency} = ${f.money(quote.price, data.wallet.currency)}`}</Detail>
            ) : null}
          </dl>
          <p className="muted">{t('Send the amount to the address, then enter the transaction hash and confirm. Your deposit is credited once the transfer is checked.')}</p>
          <Form method="post" action={`${location.pathname}${location.search}`} {...getFormProps(form)}>
            <input type="hidden" name="clientRef" value={data.clientRef} />
            <Field label={t('Transaction hash')} errors={fields.tx_hash.errors}
              hint={t(data.network === 'ethereum' ? 'Starts with 0x, then 64 hexadecimal characters' : data.network === 'unknown' ? '64 hexadecimal characters, with or without 0x' : '64 hexadecimal characters')}
              inputProps={{ ...getInputProps(fields.tx_hash, { type: 'text' }), className: 'mono', autoComplete: 'off', spellCheck: false }} />
            <ErrorList id={form.errorId} errors={form.errors} />
            <SubmitButton className="btn-block" pending={pending}>{t('Confirm')}</SubmitButton>
          </Form>
        </div>
      </div>
    </section>
  );
}
