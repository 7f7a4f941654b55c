// The payout pieces of the staff's withdrawal pages (modules/payments/payouts.server.ts): the
// approve dialog that offers "Pay manually" or "Pay out through {gateway}", and a withdrawal's
// payout state (gateway, requested / sent / paid / failed, the provider's id and word).
import { useState } from 'react';
import { useFetcher } from '@remix-run/react';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/components/ui/forms.ts';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { DecisionSchemas, WITHDRAW_PARSE } from '~/modules/money/withdrawal-schemas.ts';
import { ErrorList } from '~/components/ui/fields.tsx';
import type { PayoutEventRow, PayoutView } from './payouts.server.ts';

const GATEWAY_TITLE: Record<string, string> = { paypal: 'PayPal' };
export const gatewayTitle = (g: string) => GATEWAY_TITLE[g] ?? g;

const STATUS_LABEL: Record<PayoutView['status'], string> = { requested: 'Requested', sent: 'Sent', paid: 'Paid', failed: 'Failed' };
const STATUS_CHIP: Record<PayoutView['status'], string> = { requested: 'chip-pending', sent: 'chip-pending', paid: 'chip-approved', failed: 'chip-declined' };

/** A withdrawal's payout in the staff lists (under its status): gateway, state, the provider's id and word, its events. */
export function PayoutCell({ withdrawalId, payout }: { withdrawalId: number; payout: PayoutView }) {
  const { t } = useTranslation();
  return (
    <span className="payout-cell">
      <span>{t('Payout')}: {gatewayTitle(payout.gateway)} <span className={`chip ${STATUS_CHIP[payout.status]}`}>{t(STATUS_LABEL[payout.status])}</span></span>
      {payout.providerRef ? <span className="muted">{t('Payout ID')} {payout.providerRef}</span> : null}
      {payout.providerStatus && payout.status !== 'failed' ? <span className="muted">{payout.providerStatus}</span> : null}
      {payout.status === 'failed' && payout.reason ? <span className="cell-wrap">{payout.reason}</span> : null}
      {payout.status === 'requested' && payout.lastError ? <span className="cell-wrap muted">{t('Not answered yet: retried automatically')}</span> : null}
      <span className="row-actions">
        <PayoutCheckButton withdrawalId={withdrawalId} show={payout.status === 'requested' || payout.status === 'sent'} />
        <PayoutEventsButton withdrawalId={withdrawalId} events={payout.events} />
      </span>
    </span>
  );
}

/**
 * Approve with a choice of how the money leaves: manually (the bank transfer staff make) or through
 * a gateway that can pay this withdrawal. The server checks the choice again.
 */
export function ApprovePayoutDialog({ id, options, onClose }: { id: number | null; options: string[]; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <FormDialog open={id !== null} onClose={onClose} title={t('Approve withdrawal')} schema={DecisionSchemas.approve} parse={WITHDRAW_PARSE}
      intent="approve" id={id ?? undefined} submitLabel={t('Approve')} size="sm" defaultValue={{ payout: 'manual' }}>
      {(fields) => (
        <>
          <p>{t('Are you sure to approve withdrawal #{{id}}?', { id: id ?? '' })}</p>
          <fieldset className="payout-choice">
            <legend>{t('How is it paid?')}</legend>
            <label>
              <input type="radio" name={fields.payout.name} value="manual" defaultChecked />
              <span>{t('Pay manually')}</span>
            </label>
            {options.map((g) => (
              <label key={g}>
                <input type="radio" name={fields.payout.name} value={g} />
                <span>{t('Pay out through {{gateway}}', { gateway: gatewayTitle(g) })}</span>
              </label>
            ))}
            <p className="muted">{t('A payout is sent once the approval is final (a second approval when one is required).')}</p>
            <ErrorList id={fields.payout.errorId} errors={fields.payout.errors} />
          </fieldset>
        </>
      )}
    </FormDialog>
  );
}

const OUTCOME: Record<PayoutEventRow['outcome'], string> = { received: 'Received', verified: 'Verified', applied: 'Applied', rejected: 'Rejected' };
const OUTCOME_CHIP: Record<PayoutEventRow['outcome'], string> = { received: 'chip-pending', verified: 'chip-pending', applied: 'chip-approved', rejected: 'chip-declined' };
const KIND: Record<string, string> = { create: 'Payout request', webhook: 'Notification', status: 'Status check' };

/** What the provider said about a payout (its answer to the request, notifications, status checks), in a dialog. */
function PayoutEventsButton({ withdrawalId, events }: { withdrawalId: number; events: PayoutEventRow[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [open, setOpen] = useState(false);
  if (events.length === 0) return null;
  const title = t('Payout events of withdrawal #{{id}}', { id: withdrawalId });
  return (
    <>
      <button type="button" className="btn btn-sm btn-ghost" onClick={() => setOpen(true)} aria-label={title}>{t('Events')} ({f.rate(events.length, 0)})</button>
      <Modal open={open} onClose={() => setOpen(false)} title={title} size="lg">
        <table className="payment-events">
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr><th scope="col">{t('Date')}</th><th scope="col">{t('Type')}</th><th scope="col">{t('Payout')}</th><th scope="col">{t('Outcome')}</th></tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id}>
                <td>{f.dateTime(e.createdAt)}</td>
                <td>{t(KIND[e.kind] ?? e.kind)}<span className="muted payment-event-id">{e.eventId}</span></td>
                <td>{t(e.state === 'paid' ? 'Paid' : e.state === 'failed' ? 'Failed' : 'Pending')}</td>
                <td>
                  <span className={`chip ${OUTCOME_CHIP[e.outcome]}`}>{t(OUTCOME[e.outcome])}</span>
                  {e.reason ? <span className="payment-event-reason">{e.reason}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Modal>
    </>
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
