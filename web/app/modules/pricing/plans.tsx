// The plan cards and the subscription form (docs/specs.md#pricing-plans), shared by /pricing and
// the prompt a customer without a plan gets on every client page (PlanPrompt, in the client layout).
import { useState } from 'react';
import { Link, useFetcher, useLocation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react';
import { DEFAULT_STOPOUT, dec, type Category } from '@broker/engine/domain';
import { Modal } from '~/components/ui/modal.tsx';
import { SelectField, SubmitButton, useSchemaForm } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { Reply } from '~/shared/forms.ts';
import { LogoutButton } from '~/modules/shell/chrome.tsx';
import type { Plan, PricingView } from './pricing.server.ts';
import { SubscribeSchema, promptExempt } from './schemas.ts';

const CATEGORY_LABELS: Record<Category, string> = {
  forex: 'Forex', commodity: 'Commodities', index: 'Indices', stock: 'Stocks', crypto: 'Crypto',
};

export const isFree = (p: Pick<Plan, 'price'>) => dec(p.price).isZero();

/** The cards: name, description, price, leverage and stop-out per market; the current plan's button disabled. */
export function PlanCards({ view, onChoose, level = 2, focusId }: {
  view: PricingView;
  onChoose: (plan: Plan) => void;
  /** the heading level of each card's name under the page's or dialog's title */
  level?: 2 | 3;
  /** the card whose button takes the focus (back from the subscription form) */
  focusId?: number;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const H = level === 2 ? 'h2' : 'h3';
  return (
    <div className="plan-grid">
      {view.plans.map((p) => {
        const current = p.id === view.currentPlanId;
        const nameId = `plan-${p.id}-name`;
        return (
          <article key={p.id} className={`plan-card ${current ? 'plan-current' : ''}`} aria-labelledby={nameId} data-plan={p.name}>
            <div className="plan-head">
              <H id={nameId} className="plan-name">{p.name}</H>
              {current ? <span className="chip chip-open">{t('Current plan')}</span> : null}
            </div>
            {p.description ? <p className="muted plan-desc">{p.description}</p> : null}
            <p className="plan-price">{isFree(p) ? t('Free') : f.money(p.price, p.currency)}</p>
            <table className="plan-terms">
              <caption className="sr-only">{t('Leverage and stop-out of {{plan}}', { plan: p.name })}</caption>
              <thead>
                <tr><th scope="col">{t('Market')}</th><th scope="col">{t('Leverage')}</th><th scope="col">{t('Stop-out')}</th></tr>
              </thead>
              <tbody>
                {p.terms.map((x) => (
                  <tr key={x.category}>
                    <th scope="row">{t(CATEGORY_LABELS[x.category])}</th>
                    <td>{x.leverage ? `1:${x.leverage}` : t('normal')}</td>
                    <td>{f.percent(x.stopout ?? DEFAULT_STOPOUT)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <button type="button" className="btn btn-primary btn-block plan-choose" disabled={current || !view.canSubscribe}
              autoFocus={focusId === p.id} onClick={() => onChoose(p)}>
              {current ? t('Current plan') : t('Choose {{plan}}', { plan: p.name })}
            </button>
          </article>
        );
      })}
    </div>
  );
}

/**
 * Confirming a plan: the real wallet it is paid from (none for a free plan) and what that wallet is
 * charged, converted at the live rate when its currency is not the plan's. Posts to /pricing; on
 * success the page reloads with a toast, a short balance goes to /deposits ('Not enough balance').
 */
export function SubscribeForm({ view, plan, redirectTo, onBack, backLabel = 'Back', onDone }: {
  view: PricingView;
  plan: Plan;
  redirectTo: string;
  onBack: () => void;
  backLabel?: 'Back' | 'Cancel';
  /** the subscription went through (the page reloads with its toast): close the dialog */
  onDone?: () => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<Reply>();
  const free = isFree(plan);
  const [walletId, setWalletId] = useState<number | undefined>(view.wallets[0]?.id);
  const [form, fields] = useSchemaForm({
    id: `subscribe-${plan.id}`, schema: SubscribeSchema, lastResult: fetcher.data?.result,
    defaultValue: { intent: 'subscribe', planId: plan.id, balanceId: free ? undefined : walletId, redirectTo },
  });
  useFetcherToast(fetcher, { onSuccess: () => onDone?.() });
  const wallet = view.wallets.find((w) => w.id === walletId);
  const current = view.plans.find((p) => p.id === view.currentPlanId && p.id !== plan.id);
  const charge = wallet ? view.charges[`${plan.id}:${wallet.currency}`] : undefined;
  const converted = !!wallet && wallet.currency !== plan.currency;
  const available = wallet ? dec(wallet.balance).minus(wallet.margin) : null;
  // a hint only: the server decides with the floating P/L too, and sends a short balance to /deposits
  const short = !free && available !== null && charge != null && available.lessThan(charge);
  const pending = fetcher.state !== 'idle';
  return (
    <fetcher.Form method="post" action="/pricing" {...getFormProps(form)} className="subscribe-form">
      <input {...getInputProps(fields.intent, { type: 'hidden' })} />
      <input {...getInputProps(fields.planId, { type: 'hidden' })} />
      <input {...getInputProps(fields.redirectTo, { type: 'hidden' })} />
      <dl className="subscribe-summary">
        <div><dt>{t('Plan')}</dt><dd>{plan.name}</dd></div>
        <div><dt>{t('Price')}</dt><dd>{free ? t('Free') : f.money(plan.price, plan.currency)}</dd></div>
        {!free && wallet ? (
          <>
            <div><dt>{t('Available')}</dt><dd>{f.money(available!.toFixed(), wallet.currency)}</dd></div>
            <div>
              <dt>{t('Charged')}</dt>
              <dd data-testid="plan-charge">
                {charge == null ? t('No conversion rate from {{from}} to {{to}}', { from: plan.currency, to: wallet.currency })
                  : `${converted ? '≈ ' : ''}${f.money(charge, wallet.currency)}`}
              </dd>
            </div>
          </>
        ) : null}
      </dl>
      {free ? <p className="muted">{t('This plan is free: nothing is charged.')}</p> : null}
      {current ? (
        // switching: what the customer gives up and what they pay, before they confirm
        <div className="notice plan-switch" data-testid="plan-switch">
          <p>{t('You leave {{current}} now: its leverage and stop-out no longer apply, and what you paid for it is not refunded.', { current: current.name })}</p>
          <p>
            {free ? t('{{plan}} costs nothing.', { plan: plan.name })
              : t('You pay {{amount}} for {{plan}} now.', { plan: plan.name, amount: wallet && charge != null ? f.money(charge, wallet.currency) : f.money(plan.price, plan.currency) })}
            {' '}{t("{{plan}}'s leverage applies to your open positions at once, which changes their margin.", { plan: plan.name })}
          </p>
        </div>
      ) : null}
      {!free && view.wallets.length === 0 ? (
        <p className="notice notice-error">{t('You have no real wallet to pay from.')} <Link to="/deposits">{t('Deposit')}</Link></p>
      ) : null}
      {!free && view.wallets.length ? (
        <SelectField label={t('Pay from')} errors={fields.balanceId.errors}
          selectProps={{ ...getSelectProps(fields.balanceId), autoFocus: true, onChange: (e) => setWalletId(Number(e.currentTarget.value)) }}
          options={view.wallets.map((w) => ({ value: String(w.id), label: `${t('Real')} · ${w.currency} · ${f.money(w.balance, w.currency)}` }))} />
      ) : null}
      {short ? (
        <p className="notice notice-error">{t('The free margin of this wallet does not cover the price.')} <Link to="/deposits">{t('Deposit')}</Link></p>
      ) : null}
      {converted ? <p className="field-hint">{t('Converted from {{from}} at the live rate when you confirm.', { from: plan.currency })}</p> : null}
      <div className="subscribe-actions">
        <button type="button" className="btn btn-ghost" onClick={onBack} autoFocus={free || !view.wallets.length}>{backLabel === 'Cancel' ? t('Cancel') : t('Back')}</button>
        <SubmitButton pending={pending} disabled={!free && (!wallet || charge == null)}>{t('Confirm')}</SubmitButton>
      </div>
    </fetcher.Form>
  );
}

/**
 * The prompt that cannot be dismissed (no close button, Escape does nothing, focus trapped): a
 * customer without a plan chooses one. The layout renders it when the server says it is due
 * (pricing.server.ts planPrompt); it stays off the pages that fund a wallet (PROMPT_EXEMPT).
 */
export function PlanPrompt({ view }: { view: PricingView }) {
  const { t } = useTranslation();
  const location = useLocation();
  const [chosen, setChosen] = useState<Plan | null>(null);
  const [back, setBack] = useState<number | undefined>();
  if (promptExempt(location.pathname)) return null;
  return (
    <Modal open dismissible={false} onClose={() => {}} title={t('Choose your plan')} size="lg"
      footer={<LogoutButton className="btn btn-ghost btn-sm" />}>
      <p className="muted plan-prompt-intro">{t('Choose a plan to continue. Its leverage and stop-out apply to your positions at once.')}</p>
      {chosen ? (
        <SubscribeForm key={chosen.id} view={view} plan={chosen} redirectTo={location.pathname + location.search}
          onBack={() => { setBack(chosen.id); setChosen(null); }} />
      ) : (
        <PlanCards view={view} level={3} focusId={back} onChoose={setChosen} />
      )}
    </Modal>
  );
}
