// /withdraws (docs/specs.md#money): the bank withdrawal form with
// its live summary (Amount, Gateway Fee, Total from fees.ts, the same function the server
// stores), and the customer's history with the bank Details and Show Reason popovers.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useFetcher } from '@remix-run/react';
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '@tanstack/react-table';
import { parseDecimal, dec } from '@broker/engine/domain';
import { DataTable } from '~/components/ui/data-table.tsx';
import { Field, SelectField, SubmitButton, ErrorList, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { Popover } from '~/components/ui/popover.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import { withdrawFee, withdrawalLeaves, MONEY_INPUT } from './fees.ts';
import { WithdrawSchema, WITHDRAW_PARSE, BANK_NAME_MAX, ACCOUNT_NUMBER_MAX } from './withdrawal-schemas.ts';
import { BankDetailsList, WithdrawalStatusChip, useMethodLabel } from './withdrawal-parts.tsx';
import type { WithdrawWallet, WithdrawalRow } from './withdrawals.server.ts';
import { readNumber } from '~/components/ui/number-input.ts';

export type WithdrawTabName = 'withdraw' | 'history';

export interface WithdrawFormData {
  wallets: WithdrawWallet[];
  defaultWalletId: number | null;
  fees: { percentage: string; fixed: string };
  kycNotice: boolean;
  fullName: string;
  countries: { value: string; label: string }[];
  /** the form's random id: a double submit is one request; a new one comes with each load */
  clientRef: string;
}

export interface WithdrawHistoryData { rows: WithdrawalRow[]; total: number }

/** `refusal`: why the Withdraw tab offers no form (a login-as session: the customer withdraws). */
export function WithdrawsPage({ tab, form, history, refusal = null }: { tab: WithdrawTabName; form: WithdrawFormData | null; history: WithdrawHistoryData | null; refusal?: string | null }) {
  const { t } = useTranslation();
  return (
    <section className="card withdraws-page">
      <h1 className="page-title">{t('Withdraws')}</h1>
      <div className="tabs" role="tablist" aria-label={t('Withdraws')}>
        <Link id="tab-withdraw" role="tab" aria-selected={tab === 'withdraw'} aria-controls="panel-withdraws" className={`tab ${tab === 'withdraw' ? 'active' : ''}`}
          to="?tab=withdraw" preventScrollReset replace>{t('Withdraw')}</Link>
        <Link id="tab-history" role="tab" aria-selected={tab === 'history'} aria-controls="panel-withdraws" className={`tab ${tab === 'history' ? 'active' : ''}`}
          to="?tab=history" preventScrollReset replace>{t('History')}</Link>
      </div>
      <div id="panel-withdraws" role="tabpanel" aria-labelledby={`tab-${tab}`} className="withdraws-panel">
        {tab === 'withdraw' && refusal ? <p className="notice" role="status">{t(refusal)}</p> : null}
        {tab === 'withdraw' && form ? <WithdrawTab data={form} /> : null}
        {tab === 'history' && history ? <HistoryTab data={history} /> : null}
      </div>
    </section>
  );
}

// ---------------------------------------------------------------- the Withdraw tab

function WithdrawTab({ data }: { data: WithdrawFormData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<Reply>();
  const pending = fetcher.state !== 'idle';
  // every select named (bank_country ''), so a reset after a success shows its placeholder again
  const defaultValue = { balance_id: data.defaultWalletId ? String(data.defaultWalletId) : '', account_name: data.fullName, bank_country: '' };
  const [form, fields] = useSchemaForm({
    id: 'withdraw-bank', schema: WithdrawSchema, defaultValue, parse: WITHDRAW_PARSE,
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  useFetcherToast(fetcher);

  const wallet = data.wallets.find((w) => String(w.id) === String(fields.balance_id.value ?? '')) ?? null;
  const amount = parseDecimal(readNumber(String(fields.amount.value ?? ''), f.locale) ?? '', MONEY_INPUT);
  const summary = amount.ok ? withdrawFee(amount.value, data.fees.percentage, data.fees.fixed) : null;
  const exceeds = !!summary && !!wallet && wallet.freeMargin !== null && dec(summary.total).gt(dec(wallet.freeMargin));
  const money = (v: string | null | undefined) => (wallet && v != null ? f.money(v, wallet.currency) : '—');
  // most of the balance: asked first, saying what remains; Yes submits the form again, confirmed
  const leaves = summary && wallet ? withdrawalLeaves(summary.total, wallet.balance) : null;
  const [asking, setAsking] = useState<{ total: string; leaves: string } | null>(null);
  const confirmed = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  const formProps = getFormProps(form);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    if (leaves !== null && summary && !confirmed.current) {
      e.preventDefault();
      setAsking({ total: summary.total, leaves });
      return;
    }
    confirmed.current = false;
    formProps.onSubmit(e);
  };

  if (data.wallets.length === 0) {
    return <p className="muted">{t('You have no real wallet to withdraw from.')}</p>;
  }
  return (
    <div className="withdraw-tab">
      {data.kycNotice ? (
        <p className="notice notice-error"><Link to="/kyc">{t('Please verify KYC to enable withdraw')}</Link></p>
      ) : null}
      <div className="withdraw-grid">
        <fetcher.Form method="post" {...formProps} onSubmit={submit} ref={formRef} className="withdraw-form">
          <input type="hidden" name="clientRef" value={data.clientRef} />
          <h2 className="section-title">{t('Bank withdrawal')}</h2>
          <div className="form-grid">
            <SelectField label={t('Wallet')} errors={fields.balance_id.errors} placeholder={t('Select wallet')}
              selectProps={getSelectProps(fields.balance_id)}
              options={data.wallets.map((w) => ({ value: String(w.id), label: `${t('Real')} · ${w.currency} · ${f.money(w.balance, w.currency)}` }))} />
            <Field label={t('Amount')} errors={fields.amount.errors}
              inputProps={{ ...getInputProps(fields.amount, { type: 'text' }), inputMode: 'decimal', autoComplete: 'off', placeholder: '0.00' }} />
            <Field label={t('Bank name')} errors={fields.bank_name.errors}
              inputProps={{ ...getInputProps(fields.bank_name, { type: 'text' }), maxLength: BANK_NAME_MAX, autoComplete: 'off' }} />
            <Field label={t('Account name')} hint={t('Withdrawals are paid only to an account in your own name.')}
              inputProps={{ id: 'withdraw-account-name', name: 'account_name', type: 'text', value: data.fullName, readOnly: true, 'aria-readonly': true }} />
            <Field label={t('Account number')} errors={fields.account_number.errors}
              inputProps={{ ...getInputProps(fields.account_number, { type: 'text' }), maxLength: ACCOUNT_NUMBER_MAX, autoComplete: 'off' }} />
            <Field label={t('Swift code')} errors={fields.swift_code.errors}
              inputProps={{ ...getInputProps(fields.swift_code, { type: 'text' }), maxLength: 11, autoComplete: 'off', autoCapitalize: 'characters', placeholder: 'AAAABBCC' }} />
            <div className="span-2">
              <SelectField label={t('Bank country')} errors={fields.bank_country.errors} placeholder={t('Select country')}
                selectProps={getSelectProps(fields.bank_country)} options={data.countries} />
            </div>
          </div>
          <ErrorList id={form.errorId} errors={form.errors} />
          {/* on a phone the summary comes after the form: the total is repeated next to the button */}
          <p className="withdraw-total-inline" aria-hidden="true">
            <span>{t('Total')}</span><strong>{money(summary?.total)}</strong>
          </p>
          <SubmitButton pending={pending} className="btn-block">{t('Withdraw')}</SubmitButton>
        </fetcher.Form>
        <ConfirmDialog open={!!asking} onClose={() => setAsking(null)} title={t('Withdraw most of your balance?')} confirmLabel={t('Withdraw')} danger={false}
          onConfirm={() => { confirmed.current = true; formRef.current?.requestSubmit(); }}
          message={asking ? <>
            {t('This withdrawal takes {{total}} from your wallet.', { total: money(asking.total) })}
            <span className="confirm-note">{t('{{left}} remains in it.', { left: money(asking.leaves) })}</span>
          </> : null} />
        <aside className="withdraw-summary" aria-label={t('Summary')}>
          <h2 className="section-title">{t('Summary')}</h2>
          <dl className="withdraw-figures" aria-live="polite">
            <div><dt>{t('Amount')}</dt><dd data-testid="summary-amount">{money(summary?.amount)}</dd></div>
            <div>
              <dt>{t('Gateway Fee')}</dt>
              <dd data-testid="summary-fee">{money(summary?.fee)}</dd>
            </div>
            <div className="withdraw-figures-total"><dt>{t('Total')}</dt><dd data-testid="summary-total">{money(summary?.total)}</dd></div>
          </dl>
          <p className="muted fee-rule">
            {t('Fee: {{percent}} of the amount + {{fixed}}', { percent: f.percent(data.fees.percentage), fixed: wallet ? f.money(data.fees.fixed, wallet.currency) : f.amount(data.fees.fixed) })}
          </p>
          <dl className="withdraw-figures">
            <div>
              <dt>{t('Available (free margin)')}</dt>
              <dd data-testid="summary-free-margin">{wallet ? (wallet.freeMargin === null ? t('Live prices are unavailable') : f.money(wallet.freeMargin, wallet.currency)) : '—'}</dd>
            </div>
          </dl>
          {exceeds ? <p className="field-error" role="status">{t('The total exceeds your free margin')}</p> : null}
        </aside>
      </div>
    </div>
  );
}

// ---------------------------------------------------------------- the History tab

type T = (key: string, values?: Record<string, unknown>) => string;

function HistoryTab({ data }: { data: WithdrawHistoryData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const method = useMethodLabel();
  const columns = useMemo(() => historyColumns(t, f, method), [t, f]); // eslint-disable-line react-hooks/exhaustive-deps -- method is t with a lookup
  return <DataTable columns={columns} data={data.rows} total={data.total} searchable={false} getRowId={(r) => String(r.id)} caption={t('Withdraw History')} />;
}

function historyColumns(t: T, f: Formatter, method: (g: string) => string): ColumnDef<WithdrawalRow>[] {
  const money = (v: string | null, r: WithdrawalRow) => f.money(v, r.currency);
  return [
    { id: 'id', header: t('ID'), enableSorting: false, cell: ({ row }) => row.original.id },
    { id: 'date', header: t('Date'), enableSorting: false, cell: ({ row }) => f.clientDateTime(row.original.createdAt) },
    { id: 'amount', header: t('Amount'), enableSorting: false, cell: ({ row }) => money(row.original.amount, row.original) },
    {
      id: 'total', header: t('Total'), enableSorting: false,
      cell: ({ row }) => (
        <span className="cell-stack">
          <span>{money(row.original.total, row.original)}</span>
          <span className="muted small">{t('Fee {{fee}}', { fee: money(row.original.fee, row.original) })}</span>
        </span>
      ),
    },
    {
      id: 'description', header: t('Description'), enableSorting: false,
      cell: ({ row }) => (
        <span className="cell-inline">
          <span>{row.original.bank?.bankName || row.original.description}</span>
          {row.original.bank ? (
            <Popover label={<>{t('Details')}<span className="sr-only"> {t('of withdrawal #{{id}}', { id: row.original.id })}</span></>} title={t('Bank details')}>
              <BankDetailsList bank={row.original.bank} />
            </Popover>
          ) : null}
        </span>
      ),
    },
    {
      id: 'status', header: t('Status'), enableSorting: false,
      cell: ({ row }) => (
        <span className="cell-inline">
          <WithdrawalStatusChip status={row.original.status} />
          {row.original.status === 'declined' && row.original.declineReason ? (
            <Popover label={<>{t('Show Reason')}<span className="sr-only"> {t('of withdrawal #{{id}}', { id: row.original.id })}</span></>} title={t('Decline Reason')}>
              <p className="popover-text">{row.original.declineReason}</p>
            </Popover>
          ) : null}
        </span>
      ),
    },
    { id: 'method', header: t('Method'), enableSorting: false, cell: ({ row }) => method(row.original.gateway) },
    { id: 'balance', header: t('Balance'), enableSorting: false, cell: ({ row }) => money(row.original.balanceAfter, row.original) },
  ];
}
