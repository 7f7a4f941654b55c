// The payout pieces of the staff's withdrawal pages (modules/payments/payouts.server.ts): the
// approve dialog that offers "Pay manually" or "Pay out through {gateway}" (for a bank payout, the
// customer's bank picked from the provider's own list next to the bank name they typed, and the
// account holder's name the provider resolves), and a withdrawal's payout state (gateway,
// requested / sent / paid / failed, the provider's id and word).
import { useEffect, useState } from 'react';
import { useFetcher } from '@remix-run/react';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { useTranslation } from 'react-i18next';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { DecisionSchemas, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { ErrorList, SelectField, type useSchemaForm } from '~/components/ui/fields.tsx';
import type { PayoutView } from './payout-view.ts';
import { PayoutEventsButton } from './payment-events-staff.tsx';
import { gatewayLabel } from '~/modules/gateways/kinds.ts';

/** The gateways paying to the withdrawal's bank account: the approver picks the provider's bank (payouts.server.ts isBankPayout). */
const BANK_PAYOUTS = new Set(['flutterwave']);

const STATUS_LABEL: Record<PayoutView['status'], string> = { requested: 'Requested', sent: 'Sent', paid: 'Paid', failed: 'Failed', review: 'Needs review' };
const STATUS_CHIP: Record<PayoutView['status'], string> = { requested: 'chip-pending', sent: 'chip-pending', paid: 'chip-approved', failed: 'chip-declined', review: 'chip-declined' };

/** A withdrawal's payout in the staff lists (under its status): gateway, state, the provider's id and word, its events. */
export function PayoutCell({ withdrawalId, payout }: { withdrawalId: number; payout: PayoutView }) {
  const { t } = useTranslation();
  return (
    <span className="payout-cell">
      <span>{t('Payout')}: {gatewayLabel(t, payout.gateway)} <span className={`chip ${STATUS_CHIP[payout.status]}`}>{t(STATUS_LABEL[payout.status])}</span></span>
      {payout.bank ? <span className="muted cell-wrap">{t('To {{bank}} · {{account}}', { bank: payout.bank.name, account: payout.bank.accountNumber })}</span> : null}
      {payout.providerRef ? <span className="muted">{t('Payout ID')} {payout.providerRef}</span> : null}
      {payout.providerStatus && payout.status !== 'failed' ? <span className="muted">{payout.providerStatus}</span> : null}
      {(payout.status === 'failed' || payout.status === 'review') && payout.reason ? <span className="cell-wrap">{payout.reason}</span> : null}
      {payout.status === 'review' ? <span className="cell-wrap muted">{t('Not refunded and not resent automatically: check the payout at the provider, then Check status')}</span> : null}
      {payout.status === 'requested' && payout.lastError ? <span className="cell-wrap muted">{t('Not answered yet: retried automatically')}</span> : null}
      <span className="row-actions">
        <PayoutCheckButton withdrawalId={withdrawalId} show={payout.status === 'requested' || payout.status === 'sent' || payout.status === 'review'} />
        <PayoutEventsButton withdrawalId={withdrawalId} events={payout.events} />
      </span>
    </span>
  );
}

/**
 * Approve with a choice of how the money leaves: manually (the bank transfer staff make) or through
 * a gateway that can pay this withdrawal. The server checks the choice again.
 */
export function ApprovePayoutDialog({ id, options, onClose, question }: { id: number | null; options: string[]; onClose: () => void; question: string }) {
  const { t } = useTranslation();
  return (
    <FormDialog open={id !== null} onClose={onClose} title={t('Approve withdrawal')} schema={DecisionSchemas.approve} parse={WITHDRAW_PARSE}
      intent="approve" id={id ?? undefined} submitLabel={t('Approve')} size="sm" defaultValue={{ payout: 'manual' }}>
      {(fields) => <PayoutChoice id={id ?? 0} question={question} options={options} fields={fields} />}
    </FormDialog>
  );
}

type ApproveFields = ReturnType<typeof useSchemaForm<typeof DecisionSchemas.approve>>[1];

function PayoutChoice({ id, question, options, fields }: { id: number; question: string; options: string[]; fields: ApproveFields }) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState('manual');
  return (
    <>
      <p>{question}</p>
      <fieldset className="payout-choice">
        <legend>{t('How is it paid?')}</legend>
        <label>
          <input type="radio" name={fields.payout.name} value="manual" defaultChecked onChange={() => setChosen('manual')} />
          <span>{t('Pay manually')}</span>
        </label>
        {options.map((g) => (
          <label key={g}>
            <input type="radio" name={fields.payout.name} value={g} onChange={() => setChosen(g)} />
            <span>{t('Pay out through {{gateway}}', { gateway: gatewayLabel(t, g) })}</span>
          </label>
        ))}
        <p className="muted">{t('A payout is sent once the approval is final (a second approval when one is required).')}</p>
        <ErrorList id={fields.payout.errorId} errors={fields.payout.errors} />
      </fieldset>
      {BANK_PAYOUTS.has(chosen) ? <BankPicker id={id} gateway={chosen} field={fields.bankCode} /> : null}
    </>
  );
}

/** Names compared loosely (case, spaces, word order): 'BRIGHT PASTOR' is 'Pastor Bright'. */
const sameName = (a: string, b: string) => {
  const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).sort().join(' ');
  return words(a) === words(b);
};

type BanksReply = Reply & { banks?: { code: string; name: string }[]; typed?: { bankName: string; accountNumber: string; accountName: string; country: string }; canResolve?: boolean };
type AccountReply = Reply & { accountName?: string | null };

/**
 * A bank payout's bank: the provider's banks of the withdrawal's country (fetched on the server,
 * cached there), the bank name the customer typed next to them so the approver matches the two,
 * and where the provider resolves names, the account holder's name for the chosen bank.
 */
function BankPicker({ id, gateway, field }: { id: number; gateway: string; field: ApproveFields['bankCode'] }) {
  const { t } = useTranslation();
  const banks = useFetcher<BanksReply>();
  const account = useFetcher<AccountReply>();
  useFetcherToast(banks);
  useFetcherToast(account);
  const [code, setCode] = useState('');
  // the name shown belongs to the bank it was asked for: another choice hides it
  const [checked, setChecked] = useState('');
  useEffect(() => {
    banks.submit({ intent: 'payout_banks', id: String(id), gateway }, { method: 'post', action: '/admin/withdraws/pending' });
    // once per withdrawal and gateway
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, gateway]);
  const data = banks.data?.ok ? banks.data : null;
  const gw = gatewayLabel(t, gateway);
  if (!data?.banks || !data.typed) {
    return <p className="muted" role="status">{banks.state !== 'idle' ? t('Loading the banks of {{gateway}}…', { gateway: gw }) : t('The bank list of the gateway is unavailable: try again')}</p>;
  }
  const resolved = account.state === 'idle' && account.data?.ok && checked === code ? account.data : null;
  return (
    <div className="payout-bank">
      <dl className="payout-typed">
        <dt>{t('Bank typed by the customer')}</dt><dd>{data.typed.bankName || '—'} · {data.typed.country}</dd>
        <dt>{t('Account number')}</dt><dd>{data.typed.accountNumber}</dd>
        <dt>{t('Account holder')}</dt><dd>{data.typed.accountName}</dd>
      </dl>
      <SelectField label={t("The customer's bank at {{gateway}}", { gateway: gw })} errors={field.errors}
        placeholder={t('Choose the bank')} options={data.banks.map((b) => ({ value: b.code, label: b.name }))}
        selectProps={{ name: field.name, value: code, onChange: (e) => setCode(e.target.value), required: true }} />
      {data.canResolve ? (
        <div className="payout-resolve">
          <button type="button" className="btn btn-sm btn-ghost" disabled={!code || account.state !== 'idle'}
            onClick={() => { setChecked(code); account.submit({ intent: 'payout_account', id: String(id), gateway, bankCode: code }, { method: 'post', action: '/admin/withdraws/pending' }); }}>
            {t('Check the account name')}
          </button>
          {resolved ? (
            <p role="status">{resolved.accountName
              ? t('{{gateway}} names this account: {{name}}', { gateway: gw, name: resolved.accountName })
              : t('{{gateway}} knows no such account at this bank', { gateway: gw })}</p>
          ) : null}
          {resolved?.accountName && !sameName(resolved.accountName, data.typed.accountName) ? (
            <p className="payout-differs">{t("This is not the account holder's name on the withdrawal: check the bank before approving")}</p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** 'Check status': the payout sent again (same reference) or asked about now; posts to Withdraw History's action. */
function PayoutCheckButton({ withdrawalId, show }: { withdrawalId: number; show: boolean }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<Reply>();
  // mounted whether or not the button shows: its toast still comes once the payout is settled
  useFetcherToast(fetcher);
  if (!show) return null;
  return (
    <fetcher.Form method="post" action="/admin/withdraws/history">
      <input type="hidden" name="intent" value="payout_check" />
      <input type="hidden" name="id" value={withdrawalId} />
      <button type="submit" className="btn btn-sm btn-ghost" disabled={fetcher.state !== 'idle'}
        aria-label={t('Check status of the payout of withdrawal #{{id}}', { id: withdrawalId })}>{t('Check status')}</button>
    </fetcher.Form>
  );
}
