// A notification in the reader's language (the bell, the notifications page, the live toast),
// and the toast and sound as one arrives on the stream (docs/specs.md#notifications).
import { useRevalidator } from '@remix-run/react';
import { gatewayLabel } from '~/modules/gateways/kinds.ts';
import { useTranslation } from 'react-i18next';
import { useToast } from '~/components/ui/toast.tsx';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import { useRealtime } from '~/shared/realtime.tsx';
import type { NotificationEvent } from '@broker/engine/contract/events';
import { closeReasonLabel } from '@broker/engine/contract/events';
import { pendingEndLabel } from '@broker/engine/contract/pending';
import { pendingTypeLabel } from '~/shared/pending-labels.ts';
import { KYC_TYPE_LABELS, type KycType } from '~/modules/kyc/kyc.ts';
import { DISPUTE_LABELS } from '~/modules/money/dispute.ts';
import type { NotificationItem } from './notifications.server.ts';

const DISPUTE_ENDS: Record<string, string> = { won: 'won', lost: 'lost', closed: 'closed' };

type Notice = Pick<NotificationItem, 'title' | 'description' | 'data'>;

/**
 * A notification in the reader's language: one with values (data) is worded and formatted
 * here, at render time; any other shows its stored text.
 */
export function notificationText(n: Notice, t: (key: string, values?: Record<string, unknown>) => string, f: Formatter): { title: string; description: string } {
  const d = n.data;
  if (d?.kind === 'position.closed') {
    const values = { amount: f.amount(d.amount), instrument: d.instrument, rate: f.rate(d.rate, d.digits), pnl: f.pnl(d.pnl) };
    return {
      title: t('Position #{{id}} closed: {{reason}}', { id: d.id, reason: t(closeReasonLabel(d.reason)) }),
      description: d.side === 'buy' ? t('Buy {{amount}} {{instrument}} at {{rate}}, P/L {{pnl}}', values) : t('Sell {{amount}} {{instrument}} at {{rate}}, P/L {{pnl}}', values),
    };
  }
  if (d?.kind === 'pending.cancelled') {
    const values = { id: d.id, reason: t(pendingEndLabel(d.reason)) };
    return {
      title: d.reason === 'expired' ? t('Pending order #{{id}} expired', values) : t('Pending order #{{id}} cancelled: {{reason}}', values),
      description: t('{{order}} {{amount}} {{instrument}} at {{price}}', {
        order: t(pendingTypeLabel(d.side, d.orderType)), amount: f.amount(d.amount), instrument: d.instrument, price: f.rate(d.price, d.digits),
      }),
    };
  }
  if (d?.kind === 'money.decided') {
    const amount = f.money(d.amount, d.currency);
    const deposit = d.subject === 'deposit';
    if (d.decision === 'approved') {
      return deposit
        ? { title: t('Deposit #{{id}} approved', { id: d.id }), description: t('{{amount}} was credited to your wallet.', { amount }) }
        : { title: t('Withdrawal #{{id}} approved', { id: d.id }), description: t('{{amount}} is on its way to your bank account.', { amount }) };
    }
    return deposit
      ? { title: t('Deposit #{{id}} declined', { id: d.id }), description: t('Reason: {{reason}}', { reason: d.reason ?? '' }) }
      : { title: t('Withdrawal #{{id}} declined', { id: d.id }), description: t('{{amount}} is back in your wallet. Reason: {{reason}}', { amount, reason: d.reason ?? '' }) };
  }
  if (d?.kind === 'kyc.decided') {
    return d.decision === 'approved'
      ? { title: t('KYC approved'), description: t('Your identity is verified.') }
      : { title: t('KYC declined'), description: t('Reason: {{reason}}', { reason: d.reason ?? '' }) };
  }
  // staff: what waits for them
  if (d?.kind === 'withdrawal.requested') {
    return {
      title: t('Withdrawal #{{id}} requested', { id: d.id }),
      description: t('{{customer}} asked to withdraw {{amount}}.', { customer: d.customer, amount: f.money(d.amount, d.currency) }),
    };
  }
  if (d?.kind === 'deposit.submitted') {
    return {
      title: t('Deposit #{{id}} awaits approval', { id: d.id }),
      description: t('{{customer}} sent {{amount}} by {{gateway}}.', { customer: d.customer, amount: f.money(d.amount, d.currency), gateway: gatewayLabel(t, d.gateway) }),
    };
  }
  if (d?.kind === 'kyc.submitted') {
    return {
      title: t('KYC document #{{id}} to review', { id: d.id }),
      description: t('{{customer}} uploaded a document ({{type}}).', { customer: d.customer, type: KYC_TYPE_LABELS[d.type as KycType] ? t(KYC_TYPE_LABELS[d.type as KycType]) : d.type }),
    };
  }
  if (d?.kind === 'payout.review') {
    return {
      title: t('Payout of withdrawal #{{id}} needs review', { id: d.id }),
      description: t('{{amount}} through {{gateway}}: the answer did not say whether it was paid. Nothing was refunded. {{reason}}', { amount: f.money(d.amount, d.currency), gateway: gatewayLabel(t, d.gateway), reason: d.reason }),
    };
  }
  if (d?.kind === 'leads.assigned') {
    return {
      title: t('Leads assigned to you'),
      description: d.count === 1
        ? t('A lead was assigned to you by {{by}}.', { by: d.by })
        : t('{{count}} leads were assigned to you by {{by}}.', { count: f.amount(d.count) as unknown as number, by: d.by }),
    };
  }
  if (d?.kind === 'deposit.disputed') {
    const kind = DISPUTE_LABELS[d.dispute] ? t(DISPUTE_LABELS[d.dispute]) : d.dispute;
    const amount = d.amount && d.currency ? f.money(d.amount, d.currency) : '-';
    return {
      title: d.phase === 'opened'
        ? t('Deposit #{{id}}: {{kind}} reported', { id: d.id, kind })
        : t('Deposit #{{id}}: {{kind}} ended ({{end}})', { id: d.id, kind, end: DISPUTE_ENDS[d.phase] ? t(DISPUTE_ENDS[d.phase]) : d.phase }),
      description: t('{{customer}}, {{gateway}}, {{amount}}.', { customer: d.customer, gateway: gatewayLabel(t, d.gateway), amount }),
    };
  }
  return { title: n.title, description: n.description };
}

/**
 * Inside a RealtimeProvider with the user's topic: each notification as it arrives is a toast
 * (unless the page already said it), a sound, and the bell refreshed through the layout's loader.
 */
export function LiveNotifications() {
  const { push } = useToast();
  const { t } = useTranslation();
  const f = useFormat();
  // the bell's data reloads at once (the dashboard's order events coalesce their own reloads)
  const { revalidate } = useRevalidator();
  useRealtime((event, data) => {
    if (event !== 'notification') return;
    const n = (data ?? {}) as Partial<NotificationEvent>;
    // toast: false when the page already told the user (an engine close is toasted by the dashboard)
    if (n.toast !== false) {
      const text = notificationText({ title: n.title ?? t('Notification'), description: n.description ?? '', data: n.data ?? null }, t, f);
      push({ type: 'info', title: text.title, description: text.description, translated: true });
    }
    beep();
    revalidate();
  });
  return null;
}

/** A short notification sound made with Web Audio (no file to fetch). */
function beep() {
  try {
    const Ctor = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctor) return;
    const ctx = new Ctor();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.35);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.35);
    osc.onended = () => void ctx.close();
  } catch {
    /* audio not allowed yet */
  }
}
