// The Edit Customer page (/admin/customers/edit/:id, docs/specs.md#customer-records): the left panel (avatar,
// name, email, Active/Inactive, Login as, a card per wallet with Add and Subtract), and the tabs
// Profile, Trades, Deposits, Withdraws and Tracking (the active one in the URL's `tab`). What a
// role sees and may press comes from the loader (editAccess); the action checks it again.
import { useEffect, useMemo, useRef, useState } from 'react';
import { gatewayLabel } from '~/modules/gateways/kinds.ts';
import { Form, Link, useFetcher, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getFormProps, getInputProps, getSelectProps, getTextareaProps } from '@conform-to/react';
import { DataTable, type ColumnDef } from '~/components/ui/data-table.tsx';
import { CheckboxField, ErrorList, Field, SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { Modal } from '~/components/ui/modal.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import { BALANCE_PARSE, BalanceSchema, customerProfileSchema, EDIT_TABS, TAB_LABELS, UNASSIGNED } from './edit-schemas.ts';
import type { EditLoader } from './edit-route.server.ts';
import type { Wallet } from './edit.server.ts';
import { TrackingTab } from './tracking.tsx';
import { ScrollRegion } from './edit-scroll.tsx';

type Data = Awaited<ReturnType<EditLoader>>;

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0], parts[parts.length - 1]] : parts;
  return letters.map((p) => [...p][0] ?? '').join('').toUpperCase() || '?';
}

export function EditCustomerPage() {
  const { t } = useTranslation();
  const data = useLoaderData<EditLoader>();
  const { customer, access } = data;
  const [adjusting, setAdjusting] = useState<{ wallet: Wallet; type: 'add' | 'subtract' } | null>(null);
  return (
    <div className="page customer-edit">
      <div className="customer-edit-head">
        <h1 className="page-title">{t('Edit Customer')}</h1>
        {access.history ? (
          <Link className="btn btn-ghost btn-sm" to={`/admin/audit?targetKind=user&targetId=${customer.id}`}>{t('History')}</Link>
        ) : null}
      </div>
      <div className="customer-edit-grid">
        <aside className="card customer-panel" aria-label={t('Customer')}>
          <div className="customer-id">
            <span className="avatar customer-avatar" aria-hidden="true">{initials(customer.fullName)}</span>
            <div className="customer-names">
              <strong className="customer-name">{customer.fullName}</strong>
              <span className="muted customer-email" data-testid="customer-email">{customer.email}</span>
              <span className={`chip ${customer.isActive ? 'chip-approved' : 'chip-declined'}`}>{customer.isActive ? t('Active') : t('Inactive')}</span>
            </div>
          </div>
          {access.canLoginAs ? (
            <Form method="post" action={`/admin/customers/login-as/${customer.id}`} reloadDocument>
              <button type="submit" className="btn btn-primary btn-block">{t('Login as')}</button>
            </Form>
          ) : null}
          <h2 className="section-title">{t('Balances')}</h2>
          {customer.wallets.length === 0 ? <p className="muted">{t('No wallets')}</p> : null}
          <ul className="wallet-cards">
            {customer.wallets.map((w) => (
              <WalletCard key={w.id} wallet={w} canAdjust={access.canAdjust} onAdjust={(type) => setAdjusting({ wallet: w, type })} />
            ))}
          </ul>
        </aside>
        <section className="card customer-tabs">
          <nav className="tabs page-tabs" aria-label={t('Customer')}>
            {EDIT_TABS.map((tab) => (
              <Link key={tab} to={`?tab=${tab}`} className={`tab${data.tab === tab ? ' active' : ''}`}
                aria-current={data.tab === tab ? 'page' : undefined} preventScrollReset>{t(TAB_LABELS[tab])}</Link>
            ))}
          </nav>
          <TabBody data={data} />
        </section>
      </div>
      {adjusting ? (
        <BalanceDialog key={`${adjusting.wallet.id}-${adjusting.type}`} wallet={adjusting.wallet} type={adjusting.type}
          clientRef={data.clientRef} onClose={() => setAdjusting(null)} />
      ) : null}
    </div>
  );
}

function WalletCard({ wallet, canAdjust, onAdjust }: { wallet: Wallet; canAdjust: boolean; onAdjust: (type: 'add' | 'subtract') => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const mode = wallet.mode === 'real' ? t('Real') : t('Demo');
  return (
    <li className="wallet-card" data-testid={`wallet-${wallet.id}`}>
      <div className="wallet-card-head">
        <span className={`chip chip-${wallet.mode}`}>{mode}</span>
        <span className="muted">{wallet.currency}</span>
      </div>
      <div className="wallet-balance num" data-testid={`wallet-balance-${wallet.id}`}>{f.money(wallet.balance, wallet.currency)}</div>
      {canAdjust ? (
        <div className="wallet-actions">
          <button type="button" className="btn btn-sm btn-primary" onClick={() => onAdjust('add')}
            aria-label={t('Add to {{mode}} {{currency}} balance', { mode, currency: wallet.currency })}>{t('Add')}</button>
          <button type="button" className="btn btn-sm btn-danger" onClick={() => onAdjust('subtract')}
            aria-label={t('Subtract from {{mode}} {{currency}} balance', { mode, currency: wallet.currency })}>{t('Subtract')}</button>
        </div>
      ) : null}
    </li>
  );
}

/**
 * Add or subtract: amount (> 0, up to 8 decimals) and a reason. Success redirects to this page
 * with the toast (the page's data reloads, docs/specs.md#customer-records); a refusal keeps the dialog open with
 * the server's message.
 */
function BalanceDialog({ wallet, type, clientRef, onClose }: { wallet: Wallet; type: 'add' | 'subtract'; clientRef: string; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<Reply>();
  const pending = fetcher.state !== 'idle';
  const [form, fields] = useSchemaForm({
    id: `balance-${wallet.id}-${type}`, schema: BalanceSchema, parse: BALANCE_PARSE,
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
    defaultValue: { balanceId: String(wallet.id), type, amount: '', reason: '', clientRef },
  });
  useFetcherToast(fetcher);
  // a success answers a redirect (no data of its own): close once the reload is done
  const sent = useRef<{ data: unknown } | null>(null);
  useEffect(() => {
    if (fetcher.state === 'submitting') sent.current = { data: fetcher.data };
    if (fetcher.state !== 'idle' || !sent.current) return;
    const answer = fetcher.data;
    if (answer === sent.current.data || answer?.ok) onClose();
    sent.current = null;
  }, [fetcher.state, fetcher.data, onClose]);
  const title = type === 'add' ? t('Add balance') : t('Subtract balance');
  return (
    <Modal open onClose={onClose} title={title} size="sm" dismissible={!pending}
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>{t('Cancel')}</button>
        <SubmitButton form={form.id} pending={pending} tone={type === 'add' ? 'btn-primary' : 'btn-danger'}>{type === 'add' ? t('Add') : t('Subtract')}</SubmitButton>
      </>}>
      <fetcher.Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="balance" />
        <input type="hidden" name="balanceId" value={wallet.id} />
        <input type="hidden" name="type" value={type} />
        <input type="hidden" name="clientRef" value={clientRef} />
        <p className="muted balance-current">
          {t('Current balance')}: <strong>{f.money(wallet.balance, wallet.currency)}</strong> ({wallet.mode === 'real' ? t('Real') : t('Demo')} · {wallet.currency})
        </p>
        <Field label={t('Amount')} errors={fields.amount.errors}
          inputProps={{ ...getInputProps(fields.amount, { type: 'text' }), inputMode: 'decimal', autoComplete: 'off' }} />
        <div className="field">
          <label htmlFor={fields.reason.id}>{t('Reason')}</label>
          <textarea {...getTextareaProps(fields.reason)} rows={3} maxLength={500}
            aria-invalid={fields.reason.errors?.length ? true : undefined}
            aria-describedby={fields.reason.errors?.length ? `${fields.reason.id}-error` : undefined} />
          <div className="field-msg"><ErrorList id={`${fields.reason.id}-error`} errors={fields.reason.errors} /></div>
        </div>
        <ErrorList id={form.errorId} errors={form.errors} />
      </fetcher.Form>
    </Modal>
  );
}

function TabBody({ data }: { data: Data }) {
  const list = data.list;
  switch (list.tab) {
    case 'trades': return <TradesTab rows={list.rows} total={list.total} />;
    case 'deposits': return <MoneyTab kind="deposits" rows={list.rows} total={list.total} />;
    case 'withdraws': return <MoneyTab kind="withdraws" rows={list.rows} total={list.total} />;
    case 'tracking': return <TrackingTab customerId={data.customer.id} rows={list.rows} total={list.total} />;
    default: return <ProfileTab data={data} />;
  }
}

function ProfileTab({ data }: { data: Data }) {
  const { t } = useTranslation();
  const { customer, access } = data;
  const fetcher = useFetcher<Reply>();
  const pending = fetcher.state !== 'idle';
  const [form, fields] = useSchemaForm({
    id: `customer-profile-${customer.id}`,
    // masked email and phone, and the account fields of a sales agent, are neither fields nor validated
    schema: customerProfileSchema(access),
    lastResult: fetcher.state === 'idle' && fetcher.data?.intent === 'profile' ? fetcher.data.result : null,
    defaultValue: {
      fullName: customer.fullName, ...(access.masked ? {} : { email: customer.email, phone: customer.phone }),
      password: '', birthDate: customer.birthDate ?? '', country: customer.country, city: customer.city,
      postalCode: customer.postalCode, address: customer.address,
      managerId: String(customer.managerId ?? UNASSIGNED), pricingTableId: String(customer.pricingTableId ?? UNASSIGNED),
      isEmailVerified: customer.isEmailVerified ? 'on' : undefined, isActive: customer.isActive ? 'on' : undefined,
    } as never,
  });
  useFetcherToast(fetcher, { intent: 'profile' });
  const readOnly = !access.canEdit;
  const select = (name: 'managerId' | 'pricingTableId' | 'country', label: string, placeholder: string, options: { value: string; label: string }[], placeholderValue: string) => {
    const meta = fields[name];
    const errorId = meta.errors?.length ? `${meta.id}-error` : undefined;
    return (
      <div className="field">
        <label htmlFor={meta.id}>{label}</label>
        <select {...getSelectProps(meta)} aria-invalid={errorId ? true : undefined} aria-describedby={errorId}>
          <option value={placeholderValue} disabled>{placeholder}</option>
          {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </select>
        <div className="field-msg"><ErrorList id={errorId} errors={meta.errors} /></div>
      </div>
    );
  };
  const countries = data.countries;
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="customer-profile-form">
      <input type="hidden" name="intent" value="profile" />
      <fieldset disabled={readOnly} className="form-grid">
        <legend className="sr-only">{t('Profile')}</legend>
        <Field label={t('Full Name')} errors={fields.fullName.errors} inputProps={{ ...getInputProps(fields.fullName, { type: 'text' }), autoComplete: 'off' }} />
        {access.masked ? (
          <Field label={t('Email')} hint={t('Hidden for your role')} inputProps={{ id: 'customer-email-masked', type: 'text', value: customer.email, readOnly: true, disabled: true }} />
        ) : (
          <Field label={t('Email')} errors={fields.email.errors} inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off' }} />
        )}
        {readOnly || !access.canEditAccount ? null : (
          <Field label={t('Password')} hint={t('Leave blank to keep the current password')} errors={fields.password.errors}
            inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }} />
        )}
        {access.masked ? (
          <Field label={t('Phone')} hint={t('Hidden for your role')} inputProps={{ id: 'customer-phone-masked', type: 'text', value: customer.phone, readOnly: true, disabled: true }} />
        ) : (
          <Field label={t('Phone')} errors={fields.phone.errors} inputProps={{ ...getInputProps(fields.phone, { type: 'tel' }), autoComplete: 'off' }} />
        )}
        <Field label={t('Birth Date')} errors={fields.birthDate.errors} inputProps={getInputProps(fields.birthDate, { type: 'date' })} />
        {select('country', t('Country'), t('Select country'), countries, '')}
        <Field label={t('City')} errors={fields.city.errors} inputProps={getInputProps(fields.city, { type: 'text' })} />
        <Field label={t('Postal Code')} errors={fields.postalCode.errors} inputProps={getInputProps(fields.postalCode, { type: 'text' })} />
        <Field label={t('Address')} errors={fields.address.errors} inputProps={getInputProps(fields.address, { type: 'text' })} />
        {/* the account fields are the back-office's (roles 1 and 2): a sales agent is not offered them */}
        {access.canEditAccount ? (
          <>
            {select('managerId', t('Manager'), t('Select manager'), data.managers, String(UNASSIGNED))}
            {select('pricingTableId', t('Pricing Plan'), t('Select plan'), data.plans, String(UNASSIGNED))}
            <div className="span-2 customer-flags">
              <CheckboxField label={t('Email Verified')} inputProps={getInputProps(fields.isEmailVerified, { type: 'checkbox' })} />
              <CheckboxField label={t('Active')} inputProps={getInputProps(fields.isActive, { type: 'checkbox' })} />
            </div>
          </>
        ) : null}
      </fieldset>
      <ErrorList id={form.errorId} errors={form.errors} />
      {readOnly ? null : (
        <div className="form-actions">
          <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
        </div>
      )}
    </fetcher.Form>
  );
}

type TradeRow = Extract<Data['list'], { tab: 'trades' }>['rows'][number];

function TradesTab({ rows, total }: { rows: TradeRow[]; total: number }) {
  const { t } = useTranslation();
  const f = useFormat();
  const columns = useMemo<ColumnDef<TradeRow>[]>(() => [
    { id: 'id', header: t('ID'), enableSorting: false, cell: ({ row: { original: o } }) => o.id },
    { id: 'wallet', header: t('Wallet'), enableSorting: false, cell: ({ row: { original: o } }) => <span className={`chip chip-${o.mode}`}>{o.mode === 'real' ? t('Real') : t('Demo')} · {o.currency}</span> },
    { id: 'type', header: t('Type'), enableSorting: false, cell: ({ row: { original: o } }) => <span className={o.type === 'buy' ? 'up' : 'down'}>{o.type === 'buy' ? t('Buy') : t('Sell')}</span> },
    { id: 'instrument', header: t('Instrument'), enableSorting: false, cell: ({ row: { original: o } }) => o.instrument },
    { id: 'amount', header: t('Amount'), enableSorting: false, cell: ({ row: { original: o } }) => f.amount(o.amount) },
    { id: 'openRate', header: t('Open Rate'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.openRate, o.digits) },
    { id: 'closeRate', header: t('Close Rate'), enableSorting: false, cell: ({ row: { original: o } }) => f.rate(o.closeRate, o.digits) },
    { id: 'pnl', header: t('Pro/Loss'), enableSorting: false, cell: ({ row: { original: o } }) => (o.proLoss === null ? '—' : <span className={Number(o.proLoss) > 0 ? 'up' : 'down'}>{f.pnl(o.proLoss)}</span>) },
    { id: 'status', header: t('Status'), enableSorting: false, cell: ({ row: { original: o } }) => (o.closeTime ? <span className="chip chip-closed">{t('Closed')}</span> : <span className="chip chip-open">{t('Open')}</span>) },
    { id: 'date', header: t('Date'), enableSorting: false, cell: ({ row: { original: o } }) => <span className="nowrap">{f.dateTime(o.createdAt)}</span> },
  ], [t, f]);
  return <ScrollRegion label={t('Trades')}><DataTable columns={columns} data={rows} total={total} searchable={false} getRowId={(r) => String(r.id)} caption={t('Trades')} /></ScrollRegion>;
}

type MoneyRow = Extract<Data['list'], { tab: 'deposits' | 'withdraws' }>['rows'][number];

function statusChip(status: string, t: (k: string) => string) {
  return <span className={`chip chip-${status}`}>{t(status === 'approved' ? 'Approved' : status === 'declined' ? 'Declined' : 'Pending')}</span>;
}

function MoneyTab({ kind, rows, total }: { kind: 'deposits' | 'withdraws'; rows: MoneyRow[]; total: number }) {
  const { t } = useTranslation();
  const f = useFormat();
  const columns = useMemo<ColumnDef<MoneyRow>[]>(() => moneyColumns(kind, t, f), [kind, t, f]);
  const label = t(kind === 'deposits' ? 'Deposits' : 'Withdraws');
  return <ScrollRegion label={label}><DataTable columns={columns} data={rows} total={total} searchable={false} getRowId={(r) => String(r.id)} caption={label} /></ScrollRegion>;
}

function moneyColumns(kind: 'deposits' | 'withdraws', t: (k: string) => string, f: Formatter): ColumnDef<MoneyRow>[] {
  return [
    { id: 'id', header: t('ID'), enableSorting: false, cell: ({ row: { original: o } }) => o.id },
    { id: 'gateway', header: t('Gateway'), enableSorting: false, cell: ({ row: { original: o } }) => gatewayLabel(t, o.gateway) },
    { id: 'amount', header: t('Amount'), enableSorting: false, cell: ({ row: { original: o } }) => f.money(o.amount, o.currency) },
    { id: 'fee', header: t('Fee'), enableSorting: false, cell: ({ row: { original: o } }) => f.money(o.fee, o.currency) },
    { id: 'total', header: t('Total'), enableSorting: false, cell: ({ row: { original: o } }) => f.money(o.total, o.currency) },
    { id: 'status', header: t('Status'), enableSorting: false, cell: ({ row: { original: o } }) => statusChip(o.status, t) },
    ...(kind === 'withdraws' ? [{ id: 'reason', header: t('Decline Reason'), enableSorting: false, cell: ({ row: { original: o } }: { row: { original: MoneyRow } }) => o.declineReason ? <span className="cell-text">{o.declineReason}</span> : '—' }] : []),
    { id: 'date', header: t('Date'), enableSorting: false, cell: ({ row: { original: o } }) => <span className="nowrap">{f.dateTime(o.createdAt)}</span> },
  ];
}
