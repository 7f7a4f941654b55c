// The admin deposit list's 'Events' of a card / wallet deposit: each provider notification and
// status check (received, verified, applied, or rejected with its reason), in a dialog.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { PaymentEventRow } from './events.server.ts';

const OUTCOME: Record<PaymentEventRow['outcome'], string> = { received: 'Received', verified: 'Verified', applied: 'Applied', rejected: 'Rejected' };
const OUTCOME_CHIP: Record<PaymentEventRow['outcome'], string> = { received: 'chip-pending', verified: 'chip-pending', applied: 'chip-approved', rejected: 'chip-declined' };
const KIND: Record<string, string> = { webhook: 'Notification', status: 'Status check', return: 'Status check', capture: 'Capture', expiry: 'Expiry' };

export function PaymentEventsButton({ depositId, events }: { depositId: number; events: PaymentEventRow[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [open, setOpen] = useState(false);
  if (events.length === 0) return null;
  return (
    <>
      <button type="button" className="btn btn-sm btn-ghost" onClick={() => setOpen(true)}
        aria-label={t('Payment events of deposit #{{id}}', { id: depositId })}>{t('Events')} ({f.rate(events.length, 0)})</button>
      <Modal open={open} onClose={() => setOpen(false)} title={t('Payment events of deposit #{{id}}', { id: depositId })} size="lg">
        <table className="payment-events">
          <caption className="sr-only">{t('Payment events of deposit #{{id}}', { id: depositId })}</caption>
          <thead>
            <tr><th scope="col">{t('Date')}</th><th scope="col">{t('Type')}</th><th scope="col">{t('Payment')}</th><th scope="col">{t('Amount')}</th><th scope="col">{t('Outcome')}</th></tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id}>
                <td>{f.dateTime(e.createdAt)}</td>
                <td>{t(KIND[e.kind] ?? e.kind)}<span className="muted payment-event-id">{e.eventId}</span></td>
                <td>{t(e.state === 'paid' ? 'Paid' : e.state === 'failed' ? 'Failed' : 'Pending')}</td>
                <td>{e.amount !== null && e.currency ? f.money(e.amount, e.currency) : '-'}</td>
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
