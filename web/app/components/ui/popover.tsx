// A small popover (the withdrawal history's bank Details and Show Reason): a button that
// toggles a labelled region, keyboard first. The button says whether it is open
// (aria-expanded) and which region it controls; Escape closes it and gives the focus back to
// the button; a click outside closes it. The region follows the button in the DOM (read right
// after it), and is drawn in a fixed layer next to it so a table's scroll box cannot clip it.
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';

export interface PopoverProps {
  /** the button's text */
  label: ReactNode;
  /** the region's heading and accessible name */
  title: string;
  children: ReactNode;
  /** the button's classes */
  buttonClassName?: string;
}

interface Place { top: number; left: number; width: number }
const GAP = 6;
const MARGIN = 8;
/** the region's width; its stylesheet gives it the same (min(300px, 100vw − 16px)) so it is measured at its final size */
const WIDTH = 300;

export function Popover({ label, title, children, buttonClassName = 'link-btn' }: PopoverProps) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<Place | null>(null);
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);

  const measure = useCallback(() => {
    const b = button.current?.getBoundingClientRect();
    if (!b) return;
    const width = Math.min(WIDTH, window.innerWidth - 2 * MARGIN);
    const left = Math.max(MARGIN, Math.min(b.left, window.innerWidth - width - MARGIN));
    const height = box.current?.offsetHeight ?? 0;
    // below the button, or above it when there is no room below
    const below = b.bottom + GAP;
    const top = below + height > window.innerHeight - MARGIN && b.top - GAP - height >= MARGIN ? b.top - GAP - height : below;
    setPlace({ top, left, width });
  }, []);

  useEffect(() => {
    if (!open) {
      setPlace(null);
      return;
    }
    measure();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!box.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onPointer);
    window.addEventListener('scroll', measure, true);
    window.addEventListener('resize', measure);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onPointer);
      window.removeEventListener('scroll', measure, true);
      window.removeEventListener('resize', measure);
    };
  }, [open, measure]);

  return (
    <span className="popover-anchor">
      <button ref={button} type="button" className={buttonClassName} aria-expanded={open} aria-controls={id}
        onClick={() => setOpen((o) => !o)}>
        {label}
      </button>
      <div ref={box} id={id} role="region" aria-label={title} className="popover" hidden={!open}
        style={place ? { top: place.top, left: place.left, width: place.width } : { visibility: 'hidden' }}>
        <strong className="popover-title">{title}</strong>
        {children}
      </div>
    </span>
  );
}
