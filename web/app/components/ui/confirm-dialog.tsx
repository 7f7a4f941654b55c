// The specs' confirm-then-act dialogs ('Are you sure to delete this user?', approve, decline):
// the question, Cancel and Yes; Yes posts the intent (and the row's fields) with a fetcher, shows
// the server's toast, and closes once it worked. While it is pending, Yes spins and nothing closes.
import { useId, type ReactNode } from 'react';
import { useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Modal } from './modal.tsx';
import { SubmitButton } from './fields.tsx';
import { useFetcherToast } from './toast.tsx';
import type { Reply } from '~/shared/forms.ts';

export interface ConfirmDialogProps {
  open: boolean;
  onClose: () => void;
  /** the question, translated: the specs' 'Are you sure to delete this user?' and the like */
  message: ReactNode;
  title?: ReactNode;
  confirmLabel?: string;
  /** the action's intent (the page's action tells its actions apart by it) */
  intent?: string;
  /**
   * Yes calls this and closes, posting nothing: the confirmation of a form the page posts itself
   * (a withdrawal of most of the balance).
   */
  onConfirm?: () => void;
  /** what else is posted: the row's id… */
  fields?: Record<string, string | number>;
  /** the route whose action answers; the current one when omitted */
  action?: string;
  /** a red Yes (deletes) or the primary colour (approve) */
  danger?: boolean;
  /** after a success, before closing (the list refreshes by itself: the fetcher revalidates) */
  onDone?: (reply: Reply) => void;
  /** a refusal shows no toast and closes the dialog (docs/specs.md#toasts: a failed close of a position) */
  quietErrors?: boolean;
}

export function ConfirmDialog({ open, onClose, message, title, confirmLabel, intent, fields, action, danger = true, onDone, quietErrors = false, onConfirm }: ConfirmDialogProps) {
  const { t } = useTranslation();
  const fetcher = useFetcher<Reply>();
  const formId = useId();
  const pending = fetcher.state !== 'idle';
  useFetcherToast(fetcher, { quietErrors, onSuccess: (r) => { onDone?.(r); onClose(); }, onError: quietErrors ? onClose : undefined });
  return (
    <Modal open={open} onClose={onClose} title={title ?? t('Confirm')} size="sm" dismissible={!pending}
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>{t('Cancel')}</button>
        {onConfirm
          ? <button type="button" className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`} autoFocus onClick={() => { onClose(); onConfirm(); }}>{confirmLabel ?? t('Yes')}</button>
          : <SubmitButton form={formId} tone={danger ? 'btn-danger' : 'btn-primary'} pending={pending} autoFocus>{confirmLabel ?? t('Yes')}</SubmitButton>}
      </>}>
      <fetcher.Form id={formId} method="post" action={action}>
        {intent ? <input type="hidden" name="intent" value={intent} /> : null}
        {Object.entries(fields ?? {}).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />)}
        <p>{message}</p>
      </fetcher.Form>
    </Modal>
  );
}
