// The positions area's Close dialog with a partial amount (docs/specs.md#partial-close) and the
// stop-loss dialog's trailing stop (docs/specs.md#trailing-stop). Numbers are typed in the page's
// language (number-input.ts) and checked as the engine checks them (depth.ts).
import { useState } from 'react';
import { useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Modal } from '~/components/ui/modal.tsx';
import { SubmitButton } from '~/components/ui/fields.tsx';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { inputNumber } from '~/components/ui/number-input.ts';
import type { Category } from '@broker/engine/domain';
import type { ActionReply } from './schemas.ts';
import type { PositionRow } from './trading.server.ts';
import { closeQuantity, distancePips, trailingMin, trailingProblem } from './depth.ts';

const instrumentOf = (row: PositionRow) => ({ category: (row.category ?? 'forex') as Category, quote: row.quote, digits: row.digits, trailingMin: row.trailingMin });

/**
 * Close asks first, restating the position, with the lots (or units) to close: all of them by
 * default; fewer closes that part and leaves the rest open. A whole close that fails is silently
 * ignored (docs/specs.md#toasts); a partial one says why.
 */
export function CloseDialog({ row, onClose }: { row: PositionRow; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const fetcher = useFetcher<ActionReply>();
  const lots = row.lots !== null;
  const [text, setText] = useState(() => inputNumber(row.lots ?? row.amount, f.locale).replace(/([.,]\d*?)0+$/, '$1').replace(/[.,]$/, ''));
  const asked = closeQuantity(text, { ...instrumentOf(row), amount: row.amount, lots: row.lots, spread: row.spread }, f.locale);
  const problem = 'problem' in asked ? asked.problem : null;
  const partial = 'whole' in asked && !asked.whole;
  const pending = fetcher.state !== 'idle';
  useFetcherToast(fetcher, { quietErrors: !partial, onSuccess: onClose, onError: partial ? undefined : onClose });
  const id = `close-qty-${row.id}`;
  return (
    <Modal open onClose={onClose} size="sm" title={t('Close position #{{id}}', { id: row.id })} dismissible={!pending}
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>{t('Cancel')}</button>
        <SubmitButton form={`close-form-${row.id}`} tone="btn-danger" pending={pending} disabled={!!problem} autoFocus>
          {partial ? t('Close part') : t('Close position')}
        </SubmitButton>
      </>}>
      <fetcher.Form id={`close-form-${row.id}`} method="post" action="/dashboard">
        <input type="hidden" name="intent" value="close" />
        <input type="hidden" name="orderId" value={row.id} />
        <input type="hidden" name="unit" value={lots ? 'lots' : 'amount'} />
        {partial ? <input type="hidden" name="quantity" value={asked.quantity} /> : null}
        <p>
          {t('Close this position at the market price?')}
          <span className="confirm-note">{t('{{side}} {{quantity}} {{instrument}}', {
            side: row.type === 'buy' ? t('Buy') : t('Sell'),
            quantity: lots ? t('{{lots}} lots', { lots: f.amount(row.lots) }) : t('{{units}} units', { units: f.amount(row.amount) }),
            instrument: `${row.base}/${row.quote}`,
          })}</span>
        </p>
        <div className="field">
          <label htmlFor={id}>{lots ? t('Lots to close') : t('Units to close')}</label>
          <input id={id} className="input" inputMode="decimal" autoComplete="off" value={text} onChange={(e) => setText(e.target.value)}
            aria-invalid={problem ? true : undefined} aria-describedby={`${id}-msg`} />
          <div id={`${id}-msg`} className={problem ? 'field-error' : 'field-hint'} role={problem ? 'alert' : undefined}>
            {problem ? t(problem.message, problem.values) : partial ? t('The rest stays open') : t('The whole position closes')}
          </div>
        </div>
      </fetcher.Form>
    </Modal>
  );
}

/**
 * The stop-loss dialog's trailing stop: a switch and the distance in price units (the
 * instrument's digits), shown in pips too. On, the engine moves the stop-loss behind the price as
 * it improves, never back. Posted as `trailing` (blank: off) with the stop-loss form.
 */
export function TrailingFields({ row, on, setOn, text, setText }: {
  row: PositionRow; on: boolean; setOn: (v: boolean) => void; text: string; setText: (v: string) => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const inst = instrumentOf(row);
  const min = trailingMin(inst);
  const problem = on ? trailingProblem(text, min, f.locale) : null;
  const pips = on ? distancePips(text, inst, f.locale) : null;
  const id = `trailing-${row.id}`;
  return (
    <div className="trailing">
      <label className="switch">
        <input type="checkbox" role="switch" checked={on} onChange={(e) => setOn(e.target.checked)} />
        <span>{t('Trailing stop')}</span>
      </label>
      <div className="field">
        <label htmlFor={id}>{t('Trailing distance')}</label>
        <input id={id} name="trailing" className="input" inputMode="decimal" autoComplete="off" disabled={!on} value={on ? text : ''}
          onChange={(e) => setText(e.target.value)} aria-invalid={problem ? true : undefined} aria-describedby={`${id}-msg`} />
        {/* switched off, the field is blank: the trailing stop is removed (the dialog always sends it) */}
        {!on ? <input type="hidden" name="trailing" value="" /> : null}
        <div id={`${id}-msg`} className={problem ? 'field-error' : 'field-hint'} role={problem ? 'alert' : undefined}>
          {problem ? t(problem.message, { min: f.rate(problem.values.min, row.digits) })
            : on ? t('{{pips}} pips · at least {{min}}', { pips: f.amount(pips ?? 0), min: f.rate(min, row.digits) })
              : t('The stop-loss follows the price as it improves, never back')}
        </div>
      </div>
    </div>
  );
}

/** Whether the trailing fields hold a problem (the dialog's submit waits for a fix). */
export function trailingBlocked(row: PositionRow, on: boolean, text: string, locale: string) {
  return on && trailingProblem(text, trailingMin(instrumentOf(row)), locale) !== null;
}
