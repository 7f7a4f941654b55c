// /admin/promo-code (docs/specs.md#crm-configuration): one read-only field 'Promo Code' with the
// placeholder 'Click generate to get promo code', a copy button ('Copied to clipboard') and
// Generate. The page posts the code it shows, so a double click makes one code.
import { useFetcher, useLoaderData } from '@remix-run/react';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { SubmitButton } from '~/components/ui/fields.tsx';
import { useFetcherToast, useToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import type { promoCodeLoader } from './promo-code.server.ts';

export function PromoCodePage() {
  const { t } = useTranslation();
  const { code } = useLoaderData<typeof promoCodeLoader>();
  const fetcher = useFetcher<Reply & { code?: string }>();
  const { push } = useToast();
  const id = useId();
  const pending = fetcher.state !== 'idle';
  useFetcherToast(fetcher);
  // the loader runs again after the post: the page shows the stored code
  const shown = code ?? '';

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(shown);
      push({ type: 'success', title: 'Copied to clipboard' });
    } catch {
      push({ type: 'error', title: 'Something went wrong' });
    }
  };

  return (
    <section className="page crm-config">
      <h1 className="page-title">{t('Promo Code')}</h1>
      <div className="card promo-card">
        <fetcher.Form method="post" className="promo-form">
          <input type="hidden" name="intent" value="generate" />
          <input type="hidden" name="current" value={shown} />
          <div className="field">
            <label htmlFor={id}>{t('Promo Code')}</label>
            <div className="promo-row">
              <input id={id} type="text" readOnly value={shown} placeholder={t('Click generate to get promo code')} className="promo-input" />
              <button type="button" className="btn btn-ghost" onClick={copy} disabled={!shown} aria-label={t('Copy promo code')}>{t('Copy')}</button>
              <SubmitButton pending={pending}>{t('Generate')}</SubmitButton>
            </div>
          </div>
        </fetcher.Form>
        <p className="field-hint">
          {t('Customers who sign up with your promo code are credited to you. Generating a new code replaces this one: the old code stops working at sign-up.')}
        </p>
      </div>
    </section>
  );
}
