// A provider's events in the staff lists, in a dialog: a card / wallet deposit's notifications and
// status checks (the deposit list's 'Events'), and a withdrawal payout's answers (Withdraw History).
// Each: received, verified, applied, or rejected with its reason.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { PaymentEventRow } from './payment-events.server.ts';

type Outcome = PaymentEventRow['outcome'];
const OUTCOME: Record<Outcome, string> = { received: 'Received', verified: 'Verified', applied: 'Applied', rejected: 'Rejected' };
const OUTCOME_CHIP: Record<Outcome, string> = { received: 'chip-pending', verified: 'chip-pending', applied: 'chip-approved', rejected: 'chip-declined' };
const PAYMENT_KINDS: Record<string, string> = { webhook: 'Notification', status: 'Status check', return: 'Status check', capture: 'Capture', expiry: 'Expiry' };
const PAYOUT_KINDS: Record<string, string> = { create: 'Payout request', webhook: 'Notification', status: 'Status check' };
/** A payment's state; a chargeback / refund of a credited deposit (disputes.server.ts) says which, and 'Resolved' when it ends. */
const STATES: Record<string, string> = {
  paid: 'Paid', failed: 'Failed', pending: 'Pending',
  chargeback: 'Chargeback', dispute: 'Dispute', refund: 'Refund', reversal: 'Reversal', resolved: 'Resolved',
};

/** One event as both dialogs show it (a payout's events carry no amount). */
interface ProviderEvent {
  id: number; createdAt: string; kind: string; state: string; outcome: Outcome; reason: string | null; eventId: string;
  amount?: string | null; currency?: string | null;
}

function ProviderEventsButton({ title, events, kinds, stateHeader, withAmount }: {
  title: string; events: ProviderEvent[]; kinds: Record<string, string>; stateHeader: string; withAmount: boolean;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const [open, setOpen] = useState(false);
  if (events.length === 0) return null;
  return (
    <>
      <button type="button" className="btn btn-sm btn-ghost" onClick={() => setOpen(true)} aria-label={title}>{t('Events')} ({f.rate(events.length, 0)})</button>
      <Modal open={open} onClose={() => setOpen(false)} title={title} size="lg">
        <table className="payment-events">
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{t('Date')}</th><th scope="col">{t('Type')}</th><th scope="col">{t(stateHeader)}</th>
              {withAmount ? <th scope="col">{t('Amount')}</th> : null}
              <th scope="col">{t('Outcome')}</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id}>
                <td>{f.dateTime(e.createdAt)}</td>
                <td>{kinds[e.kind] ? t(kinds[e.kind]) : e.kind}<span className="muted payment-event-id">{e.eventId}</span></td>
                <td>{t(STATES[e.state] ?? 'Pending')}</td>
                {withAmount ? <td>{e.amount && e.currency ? f.money(e.amount, e.currency) : '-'}</td> : null}
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

/** The admin deposit list's 'Events' of a card / wallet deposit. */
export function PaymentEventsButton({ depositId, events }: { depositId: number; events: PaymentEventRow[] }) {
  const { t } = useTranslation();
  return <ProviderEventsButton title={t('Payment events of deposit #{{id}}', { id: depositId })} events={events} kinds={PAYMENT_KINDS} stateHeader="Payment" withAmount />;
}

/** What the provider said about a payout (its answer to the request, notifications, status checks). */
export function PayoutEventsButton({ withdrawalId, events }: { withdrawalId: number; events: ProviderEvent[] }) {
  const { t } = useTranslation();
  return <ProviderEventsButton title={t('Payout events of withdrawal #{{id}}', { id: withdrawalId })} events={events} kinds={PAYOUT_KINDS} stateHeader="Payout" withAmount={false} />;
}
