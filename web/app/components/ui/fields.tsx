// Form fields for Conform + Zod forms. Errors are i18n keys, shown once the field was
// validated (on blur or submit); inputs point at their errors with aria-describedby.
import { useId, useMemo, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigation, useFetchers } from '@remix-run/react';
import { useForm, type DefaultValue, type SubmissionResult } from '@conform-to/react';
import { getZodConstraint } from '@conform-to/zod';
import type { z } from 'zod';
import { Spinner } from './spinner.tsx';
import { inputNumber, numberReader } from './number-input.ts';
import { mapNumberFields, numberFields, parseForm, type ParseOptions } from '~/shared/forms.ts';

/**
 * Every page's Conform form: the schema validates in the browser too, a field first on blur and
 * then on each input, so its error shows only once it was touched (docs/specs.md#forms); the action's
 * reply (lastResult) brings the server's errors under the fields.
 */
export function useSchemaForm<S extends z.ZodTypeAny>({ id, schema, lastResult, defaultValue, parse }: {
  id: string;
  schema: S;
  lastResult?: SubmissionResult<string[]> | null;
  defaultValue?: DefaultValue<z.input<S>>;
  parse?: ParseOptions;
}) {
  // number fields are filled and read as the page's language writes them, as the action reads
  // them (docs/specs.md#number-input): a German page shows and posts '1,5', not '1.5'
  const { i18n } = useTranslation();
  const locale = i18n.language || 'en';
  const numbers = numberReader(locale);
  const filled = useMemo(() => {
    const fields = numberFields(schema);
    return fields && defaultValue ? mapNumberFields(defaultValue, fields, (v) => inputNumber(v, locale)) : defaultValue;
  }, [defaultValue, schema, locale]);
  return useForm<z.input<S> & Record<string, unknown>>({
    id,
    lastResult,
    defaultValue: filled as DefaultValue<z.input<S> & Record<string, unknown>>,
    constraint: getZodConstraint(schema),
    onValidate: ({ formData }) => parseForm(formData, schema, { numbers, ...parse }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  });
}

export type ListOfErrors = Array<string | null | undefined> | null | undefined;

export function ErrorList({ id, errors }: { id?: string; errors?: ListOfErrors }) {
  const { t } = useTranslation();
  const shown = errors?.filter(Boolean);
  if (!shown?.length) return null;
  return (
    <ul id={id} className="field-errors">
      {shown.map((e) => <li key={e} className="field-error">{t(e!)}</li>)}
    </ul>
  );
}

/**
 * A field's error line, its space kept while empty: an error shown on blur must not move what
 * is below it (the click that caused the blur would land on nothing).
 */
function ErrorLine({ id, errors }: { id?: string; errors?: ListOfErrors }) {
  return <div className="field-msg"><ErrorList id={id} errors={errors} /></div>;
}

export function Field({ label, inputProps, errors, className, hint }: {
  label: ReactNode;
  inputProps: InputHTMLAttributes<HTMLInputElement> & { key?: string };
  errors?: ListOfErrors;
  className?: string;
  hint?: ReactNode;
}) {
  const fallbackId = useId();
  const id = inputProps.id ?? fallbackId;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const { key, ...rest } = inputProps;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <input key={key} id={id} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...rest} />
      {hint ? <div className="field-hint">{hint}</div> : null}
      <ErrorLine id={errorId} errors={errors} />
    </div>
  );
}

export function SelectField({ label, selectProps, options, errors, placeholder }: {
  label: ReactNode;
  selectProps: SelectHTMLAttributes<HTMLSelectElement> & { key?: string };
  options: { value: string; label: string }[];
  errors?: ListOfErrors;
  placeholder?: string;
}) {
  const fallbackId = useId();
  const id = selectProps.id ?? fallbackId;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const { key, ...rest } = selectProps;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select key={key} id={id} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...rest}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      <ErrorLine id={errorId} errors={errors} />
    </div>
  );
}

export function CheckboxField({ label, inputProps }: { label: ReactNode; inputProps: InputHTMLAttributes<HTMLInputElement> & { key?: string } }) {
  const fallbackId = useId();
  const id = inputProps.id ?? fallbackId;
  const { key, type: _type, ...rest } = inputProps;
  return (
    <div className="field field-check">
      <input key={key} id={id} type="checkbox" {...rest} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** True while the form (matched by its action/intent, or any form when omitted) is submitting. */
export function useIsPending({ formAction, intent }: { formAction?: string; intent?: string } = {}) {
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const matches = (state: string, action?: string | null, data?: FormData | null) =>
    state !== 'idle' && (!formAction || action === formAction) && (!intent || data?.get('intent') === intent);
  return (navigation.state === 'submitting' && matches(navigation.state, navigation.formAction, navigation.formData))
    || fetchers.some((f) => f.state === 'submitting' && matches(f.state, f.formAction, f.formData));
}

/** A submit button disabled with a spinner while its form is pending. */
export function SubmitButton({ pending, disabled, children, className, tone = 'btn-primary', ...rest }: InputHTMLAttributes<HTMLButtonElement> & {
  pending?: boolean;
  children: ReactNode;
  name?: string;
  value?: string;
  /** the button's colour class (btn-primary, btn-danger, btn-buy…) */
  tone?: string;
}) {
  return (
    <button type="submit" className={`btn ${tone} ${className ?? ''}`} disabled={disabled || pending} aria-busy={pending || undefined} {...(rest as object)}>
      {pending ? <Spinner size={14} /> : null}
      <span>{children}</span>
    </button>
  );
}
