// The create-or-edit modal (instruments, plans, external payments, translations…):
// a Conform form in a Modal, posted by a fetcher. Without `id` it creates; with `id` (posted as a
// hidden field) it updates. The schema validates in the browser on blur (errors under touched
// fields only, docs/specs.md#forms) and again in the action, whose Reply brings the server's field errors
// back under the fields; Submit spins while pending; the dialog closes on success.
//
//   <FormDialog open={!!editing} onClose={close} title={editing?.id ? editTitle : addTitle}
//     schema={PlanSchema} intent="save" id={editing?.id} defaultValue={editing ?? undefined}>
//     {(fields) => <Field label={nameLabel} errors={fields.name.errors} inputProps={getInputProps(fields.name, { type: 'text' })} />}
//   </FormDialog>
//
// and in the action: parseIntent(formData, { save: PlanSchema }); value.id ? update : create.
import type { ReactNode } from 'react';
import { useFetcher } from '@remix-run/react';
import { getFormProps, type DefaultValue } from '@conform-to/react';
import type { z } from 'zod';
import { useTranslation } from 'react-i18next';
import { Modal } from './modal.tsx';
import { ErrorList, SubmitButton, useSchemaForm } from './fields.tsx';
import { useFetcherToast } from './toast.tsx';
import type { ParseOptions, Reply } from '~/shared/forms.ts';

type Fields<S extends z.ZodTypeAny> = ReturnType<typeof useSchemaForm<S>>[1];

export interface FormDialogProps<S extends z.ZodTypeAny> {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  /** the form's schema; an edit schema takes `id: RECORD_ID.optional()` */
  schema: S;
  /** the record being edited; none when creating */
  id?: string | number | null;
  /** the action's intent on a page with several */
  intent?: string;
  /** the route whose action answers; the current one when omitted */
  action?: string;
  defaultValue?: DefaultValue<z.input<S>>;
  submitLabel?: string;
  parse?: ParseOptions;
  size?: 'sm' | 'md' | 'lg';
  children: (fields: Fields<S>) => ReactNode;
  /** after a success, before closing */
  onDone?: (reply: Reply) => void;
  /** a form with a file input posts multipart */
  encType?: 'multipart/form-data';
}

export function FormDialog<S extends z.ZodTypeAny>(props: FormDialogProps<S>) {
  // a closed dialog keeps nothing: the next one starts from its default values
  if (!props.open) return null;
  return <FormDialogBody key={props.id ?? 'new'} {...props} />;
}

function FormDialogBody<S extends z.ZodTypeAny>({ onClose, title, schema, id, intent, action, defaultValue, submitLabel, parse, size = 'md', children, onDone, encType }: FormDialogProps<S>) {
  const { t } = useTranslation();
  const fetcher = useFetcher<Reply>();
  const pending = fetcher.state !== 'idle';
  const [form, fields] = useSchemaForm({
    id: `form-dialog-${intent ?? 'save'}-${id ?? 'new'}`, schema, defaultValue, parse,
    lastResult: fetcher.state === 'idle' ? fetcher.data?.result : null,
  });
  useFetcherToast(fetcher, { onSuccess: (r) => { onDone?.(r); onClose(); } });
  return (
    <Modal open onClose={onClose} title={title} size={size} dismissible={!pending}
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>{t('Cancel')}</button>
        <SubmitButton form={form.id} pending={pending}>{submitLabel ?? t('Submit')}</SubmitButton>
      </>}>
      <fetcher.Form method="post" action={action} encType={encType} {...getFormProps(form)}>
        {intent ? <input type="hidden" name="intent" value={intent} /> : null}
        {id !== undefined && id !== null ? <input type="hidden" name="id" value={id} /> : null}
        {children(fields)}
        <ErrorList id={form.errorId} errors={form.errors} />
      </fetcher.Form>
    </Modal>
  );
}
