// The rate input of a take-profit or stop-loss (order dialog and position modals): −/+ by 1,
// the value kept as typed, and what is wrong with it shown under the field until corrected
// (docs/specs.md#client-validation bounds; a level the live price has reached would close at once).
import { useTranslation } from 'react-i18next';
import type { Range } from '@broker/engine/domain';
import { PLUS_MINUS, STEP, allowedRange, boundText, initialLevel, levelProblem, stepLevel } from './dialog.ts';

export function LevelInput({ id, label, inputLabel, text, setText, bound, live, disabled = false }: {
  id: string; label: string; inputLabel: string; text: string; setText: (v: string) => void;
  bound: Range; live: Range | null; disabled?: boolean;
}) {
  const { t } = useTranslation();
  const problem = disabled ? null : levelProblem(text, bound, live);
  const hint = problem ?? boundText(bound);
  const step = (delta: number) => {
    const range = allowedRange(bound, live);
    const v = Number(text);
    setText(String(text.trim() !== '' && Number.isFinite(v) ? stepLevel(v, delta, range) : initialLevel(range)));
  };
  return (
    <>
      <div className="stepper">
        <button type="button" className="btn btn-ghost btn-sm" disabled={disabled} aria-label={t('Decrease {{what}}', { what: label })} onClick={() => step(-PLUS_MINUS)}>−</button>
        <input id={id} type="number" inputMode="decimal" step={STEP} aria-label={inputLabel} disabled={disabled} value={text}
          aria-invalid={problem ? true : undefined} aria-describedby={`${id}-msg`} onChange={(e) => setText(e.target.value)} />
        <button type="button" className="btn btn-ghost btn-sm" disabled={disabled} aria-label={t('Increase {{what}}', { what: label })} onClick={() => step(PLUS_MINUS)}>+</button>
      </div>
      <div id={`${id}-msg`} className={problem ? 'field-error' : 'field-hint'} role={problem ? 'alert' : undefined}>{t(hint.message, hint.values)}</div>
    </>
  );
}
