// The card-wallet payment page of PayPal (docs/specs.md#money: logo, the deposit's amount and
// currency, the wallet payment button). The button creates the PayPal order and takes the
// customer to PayPal's approval; PayPal brings them back to /payments/paypal/capture/{orderId}.
import { Form, Link, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '~/components/ui/format.ts';
import { SubmitButton } from '~/components/ui/fields.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { DepositStatusChip, FeeLines } from '~/modules/money/deposit-client.tsx';
import type { DepositStatus } from '~/modules/money/deposits.server.ts';

export interface PaypalPageData {
  deposit: { id: number; amount: string; fee: string; total: string; currency: string; status: DepositStatus };
  feePercent: string;
}

export function PaypalPaymentPage({ data, reply }: { data: PaypalPageData; reply: Reply | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const navigation = useNavigation();
  const pending = navigation.state !== 'idle' && navigation.formMethod?.toLowerCase() === 'post';
  useReplyToast(reply);
  const d = data.deposit;
  return (
    <section className="page deposit-detail">
      <h1 className="page-title">{t('Wallet Payment')}</h1>
      <p><Link to="/deposits">← {t('Back to deposits')}</Link></p>
      <div className="deposit-layout">
        <div className="card wallet-pay-card">
          <p className="wallet-pay-logo" role="img" aria-label="PayPal"><span aria-hidden="true">Pay</span><span aria-hidden="true">Pal</span></p>
          <p className="wallet-pay-amount">{f.money(d.total, d.currency)}</p>
          <p className="muted">{t('Deposit #{{id}}', { id: d.id })} · <DepositStatusChip status={d.status} /></p>
        </div>
        <div className="card">
          <h2 className="card-title">{t('Payment')}</h2>
          <FeeLines summary={{ amount: d.amount, fee: d.fee, total: d.total }} currency={d.currency} feePercent={data.feePercent} />
          {d.status === 'pending' ? (
            <Form method="post">
              <SubmitButton className="btn-block" pending={pending}>{t('Pay with PayPal')}</SubmitButton>
            </Form>
          ) : null}
        </div>
      </div>
    </section>
  );
}
