// Toasts: bottom-right by default, bottom-center for the sign-in error (docs/specs.md#toasts).
// Flash-cookie toasts set by a redirecting action arrive through the root loader; the answer
// of a form or a fetcher (a `Reply`) is shown by useReplyToast / useFetcherToast.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { GENERIC_ERROR, type Reply } from '~/shared/forms.ts';

export type ToastType = 'success' | 'error' | 'info';
export type ToastPosition = 'bottom-right' | 'bottom-center';
export interface ToastMessage {
  id?: string;
  type?: ToastType;
  title: string;
  description?: string;
  values?: Record<string, string | number>;
  position?: ToastPosition;
  /**
   * title and description are already in the reader's language (a notification worded by
   * notificationText): shown as they are. Otherwise they are i18n keys, translated here: a
   * translated sentence asked again as a key is a key nobody has (the browser reports it).
   */
  translated?: boolean;
}
interface Shown extends ToastMessage { id: string }

const Ctx = createContext<{ push: (t: ToastMessage) => void }>({ push: () => {} });

export function useToast() {
  return useContext(Ctx);
}

export interface ReplyToastOptions<R extends Reply> {
  /** only answers of this action (a fetcher that also does other things) */
  intent?: string;
  position?: ToastPosition;
  /** a failure shows no toast (docs/specs.md#toasts: a failed close is silently ignored) */
  quietErrors?: boolean;
  /** the toast of every failure, whatever the server said */
  errorToast?: string;
  onSuccess?: (reply: R) => void;
  onError?: (reply: R) => void;
}

/**
 * The toast of each new answer, once: success with the server's toast, failure with the
 * server's toast or the generic one (toast null: none), then the callbacks (close a dialog…).
 */
/**
 * Answers already shown, by identity. Kept outside the component: a keyed fetcher keeps its
 * answer when the component that asked is remounted (a card keyed by the data its save reloaded),
 * and the new instance must not toast it again.
 */
const answered = new WeakSet<object>();

export function useReplyToast<R extends Reply>(reply: R | null | undefined, opts: ReplyToastOptions<R> = {}) {
  const { push } = useToast();
  const { t } = useTranslation();
  // the latest callbacks, without answering the same reply again when they change
  const latest = useRef(opts);
  useEffect(() => { latest.current = opts; });
  useEffect(() => {
    if (!reply || answered.has(reply)) return;
    const o = latest.current;
    if (o.intent && reply.intent !== o.intent) return;
    answered.add(reply);
    const title = reply.ok ? reply.toast : o.quietErrors ? null : o.errorToast ?? (reply.toast === null ? null : reply.toast || GENERIC_ERROR);
    const toast = { type: reply.ok ? 'success' as const : 'error' as const, title: title!, values: reply.values, position: o.position };
    if (title && reply.ok) push(toast);
    else if (title && typeof document !== 'undefined') {
      // one message per problem: an error the form shows (under a field or above the form) is not
      // toasted again. The form renders this answer's errors a turn later (Conform's lastResult).
      setTimeout(() => {
        const onForm = [...document.querySelectorAll('.field-error')].some((el) => el.textContent === t(title, reply.values));
        if (!onForm) push(toast);
      }, 0);
    } else if (title) push(toast);
    if (reply.ok) o.onSuccess?.(reply); else o.onError?.(reply);
  }, [reply, push, t]);
}

const NOT_SUBMITTED = Symbol('not submitted');

/**
 * useReplyToast for a fetcher: its answer once it is idle again (the page's data reloaded). An
 * action that answered with a redirect (its toast comes as a flash) leaves the fetcher without a
 * new answer: that is done too, and onSuccess runs, so the dialog that posted it closes.
 */
export function useFetcherToast<R extends Reply>(fetcher: { state: string; data?: R | undefined }, opts: ReplyToastOptions<R> = {}) {
  useReplyToast(fetcher.state === 'idle' ? fetcher.data : undefined, opts);
  const latest = useRef(opts);
  useEffect(() => { latest.current = opts; });
  // the answer the fetcher held when this submission started
  const before = useRef<unknown>(NOT_SUBMITTED);
  useEffect(() => {
    if (fetcher.state === 'submitting') {
      if (before.current === NOT_SUBMITTED) before.current = fetcher.data ?? null;
      return;
    }
    if (fetcher.state !== 'idle' || before.current === NOT_SUBMITTED) return;
    const redirected = (fetcher.data ?? null) === before.current;
    before.current = NOT_SUBMITTED;
    if (redirected) latest.current.onSuccess?.({ ok: true } as R);
  }, [fetcher.state, fetcher.data]);
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
    setItems((xs) => {
      if (xs.some((x) => x.id === id)) return xs;
      // a success replaces the errors before it (the problem is solved); the same message again
      // replaces the one shown (one toast per problem, its time restarted)
      const same = (x: Shown) => x.type === t.type && x.title === t.title && JSON.stringify(x.values ?? null) === JSON.stringify(t.values ?? null);
      const gone = xs.filter((x) => (t.type === 'success' && x.type === 'error') || same(x));
      for (const x of gone) {
        clearTimeout(timers.current.get(x.id));
        timers.current.delete(x.id);
      }
      return [...xs.filter((x) => !gone.includes(x)), { ...t, id }];
    });
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
                <strong>{x.translated ? x.title : t(x.title, x.values)}</strong>
                {x.description ? <div>{x.translated ? x.description : t(x.description, x.values)}</div> : null}
              </div>
              <button type="button" className="toast-close" aria-label={t('Close')} onClick={() => dismiss(x.id)}>×</button>
            </div>
          ))}
        </div>
      ))}
    </>
  );
}
