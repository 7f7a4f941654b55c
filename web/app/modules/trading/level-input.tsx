// The rate input of a take-profit or stop-loss (order dialog and position modals): −/+ by 1,
// the value kept as typed, and what is wrong with it shown under the field until corrected
// (docs/specs.md#client-validation bounds; a level the live price has reached would close at once),
// then what the server refused in it.
import { useTranslation } from 'react-i18next';
import type { Range } from '@broker/engine/domain';
import { Stepper } from '~/components/ui/stepper.tsx';
import { ErrorList, type ListOfErrors } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import { PLUS_MINUS, STEP, allowedRange, boundText, initialLevel, levelProblem, stepLevel } from './dialog.ts';
import { inputNumber, numberValue, readNumber } from '~/components/ui/number-input.ts';

export function LevelInput({ id, name, label, inputLabel, text, setText, bound, live, digits, disabled = false, errors }: {
  id: string; name?: string; label: string; inputLabel: string; text: string; setText: (v: string) => void;
  bound: Range; live: Range | null; /** the instrument's: the prices in the hint read as the quotes do */ digits: number;
  disabled?: boolean; errors?: ListOfErrors;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  // the text as the page's language writes it ('1,08556' in German), checked as the number it is
  const problem = disabled ? null : levelProblem(readNumber(text, f.locale) ?? '', bound, live);
  const hint = problem ?? boundText(bound);
  const serverErrors = disabled ? null : errors;
  const next = (direction: -1 | 1) => {
    const range = allowedRange(bound, live);
    const v = numberValue(text, f.locale);
    return inputNumber(Number.isFinite(v) ? stepLevel(v, direction * PLUS_MINUS, range) : initialLevel(range), f.locale);
  };
  return (
    <>
      <Stepper id={id} name={name} step={STEP} aria-label={inputLabel} disabled={disabled} value={text} onValueChange={setText} next={next}
        decreaseLabel={t('Decrease {{what}}', { what: label })} increaseLabel={t('Increase {{what}}', { what: label })}
        aria-invalid={problem || serverErrors?.length ? true : undefined} aria-describedby={serverErrors?.length ? `${id}-msg ${id}-error` : `${id}-msg`} />
      <div id={`${id}-msg`} className={problem ? 'field-error' : 'field-hint'} role={problem ? 'alert' : undefined}>{t(hint.message, rates(hint.values, (v) => f.rate(v, digits)))}</div>
      <ErrorList id={`${id}-error`} errors={serverErrors} />
    </>
  );
}

/** Every value of a level's message is a price: each shown with the instrument's digits. */
function rates(values: Record<string, string>, rate: (v: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, rate(v)]));
}
