// Toasts: bottom-right by default, bottom-center for the sign-in error (docs/specs.md#toasts).
// Flash-cookie toasts set by a redirecting action arrive through the root loader.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type ToastType = 'success' | 'error' | 'info';
export type ToastPosition = 'bottom-right' | 'bottom-center';
export interface ToastMessage {
  id?: string;
  type?: ToastType;
  title: string;
  description?: string;
  values?: Record<string, string | number>;
  position?: ToastPosition;
}
interface Shown extends ToastMessage { id: string }

const Ctx = createContext<{ push: (t: ToastMessage) => void }>({ push: () => {} });

export function useToast() {
  return useContext(Ctx);
}

export function ToastProvider({ children, flash }: { children: ReactNode; flash?: ToastMessage | null }) {
  const [items, setItems] = useState<Shown[]>([]);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const dismiss = useCallback((id: string) => {
    setItems((xs) => xs.filter((x) => x.id !== id));
    clearTimeout(timers.current.get(id));
    timers.current.delete(id);
  }, []);
  const push = useCallback((t: ToastMessage) => {
    const id = t.id ?? Math.random().toString(36).slice(2);
    setItems((xs) => (xs.some((x) => x.id === id) ? xs : [...xs, { ...t, id }]));
    timers.current.set(id, setTimeout(() => dismiss(id), 5000));
  }, [dismiss]);
  useEffect(() => {
    if (flash) push(flash);
  }, [flash, push]);
  const value = useMemo(() => ({ push }), [push]);
  return (
    <Ctx.Provider value={value}>
      {children}
      <Toaster items={items} dismiss={dismiss} />
    </Ctx.Provider>
  );
}

function Toaster({ items, dismiss }: { items: Shown[]; dismiss: (id: string) => void }) {
  const { t } = useTranslation();
  const positions: ToastPosition[] = ['bottom-right', 'bottom-center'];
  return (
    <>
      {positions.map((pos) => (
        <div key={pos} className={`toaster toaster-${pos}`} role="region" aria-label={t('Notifications')} aria-live="polite">
          {items.filter((x) => (x.position ?? 'bottom-right') === pos).map((x) => (
            <div key={x.id} className={`toast toast-${x.type ?? 'info'}`} role={x.type === 'error' ? 'alert' : 'status'}>
              <div className="toast-body">
                <strong>{t(x.title, x.values)}</strong>
                {x.description ? <div>{t(x.description, x.values)}</div> : null}
              </div>
              <button type="button" className="toast-close" aria-label={t('Close')} onClick={() => dismiss(x.id)}>×</button>
            </div>
          ))}
        </div>
      ))}
    </>
  );
}
