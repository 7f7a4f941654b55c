// A number input between − and + buttons (amounts, lots, take-profit and stop-loss rates). A
// step is typed into the input as a real input event, so the page's onChange and a Conform form
// (which revalidates on input) see it exactly like typing. A text input: a number input would
// take and post the browser's own way of writing numbers, not the page's language's
// (docs/specs.md#number-input); the page reads the text with components/ui/number-input.ts. It
// stays a spinbutton to assistive technology (ARIA allows the role on a text input).
import { useRef, type InputHTMLAttributes } from 'react';

export interface StepperProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type'> {
  value: string;
  onValueChange: (value: string) => void;
  /** the value one step down (-1) or up (+1) from the current one */
  next: (direction: -1 | 1) => string;
  decreaseLabel: string;
  increaseLabel: string;
}

const nativeValue = () => Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;

export function Stepper({ value, onValueChange, next, decreaseLabel, increaseLabel, disabled, ...input }: StepperProps) {
  const ref = useRef<HTMLInputElement>(null);
  const step = (direction: -1 | 1) => {
    const el = ref.current;
    if (!el) return;
    nativeValue().call(el, next(direction));
    el.dispatchEvent(new Event('input', { bubbles: true }));
  };
  return (
    <div className="stepper">
      <button type="button" className="btn btn-ghost btn-sm" disabled={disabled} aria-label={decreaseLabel} onClick={() => step(-1)}>−</button>
      <input ref={ref} type="text" role="spinbutton" inputMode="decimal" autoComplete="off" {...input} disabled={disabled} value={value} onChange={(e) => onValueChange(e.target.value)} />
      <button type="button" className="btn btn-ghost btn-sm" disabled={disabled} aria-label={increaseLabel} onClick={() => step(1)}>+</button>
    </div>
  );
}
