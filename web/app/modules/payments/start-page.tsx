// The start page of a payment that begins with a browser form (Perfect Money's SCI entry form, or
// any adapter's 'form' start): the deposit's figures and the provider's form, submitted at once by
// the browser; the button does the same where JavaScript is off.
import { useEffect, useRef } from 'react';
import { gatewayLabel } from '~/modules/gateways/kinds.ts';
import { Link } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '~/components/ui/format.ts';
import { FeeLines } from '~/modules/money/deposit-client.tsx';
import type { StartPageData } from './start.server.ts';

export function PaymentStartPage({ data }: { data: StartPageData }) {
  const { t } = useTranslation();
  const f = useFormat();
  const form = useRef<HTMLFormElement>(null);
  const d = data.deposit;
  const gateway = gatewayLabel(t, data.gateway.name);
  // once, after hydration: the provider's page replaces this one
  useEffect(() => { form.current?.submit(); }, []);
  return (
    <section className="page deposit-detail">
      <h1 className="page-title">{t('Continue to payment')}</h1>
      <p><Link to="/deposits">← {t('Back to deposits')}</Link></p>
      <div className="deposit-layout">
        <div className="card wallet-pay-card">
          <p className="wallet-pay-amount">{f.money(d.total, d.currency)}</p>
          <p className="muted">{t('Deposit #{{id}}', { id: d.id })} · {gateway}</p>
        </div>
        <div className="card">
          <h2 className="card-title">{t('Payment')}</h2>
          <FeeLines summary={{ amount: d.amount, fee: d.fee, total: d.total }} currency={d.currency} feePercent={data.gateway.feePercent} />
          <p role="status">{t('You are being taken to {{gateway}} to pay. If nothing happens, press the button.', { gateway })}</p>
          {/* a plain form, not Remix's: it leaves the app for the provider's page */}
          <form ref={form} action={data.form.action} method={data.form.method.toLowerCase()} acceptCharset="utf-8">
            {data.form.fields.map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />)}
            <button type="submit" className="btn btn-primary btn-block">{t('Continue to {{gateway}}', { gateway })}</button>
          </form>
        </div>
      </div>
    </section>
  );
}
