// The pieces around every page: logo, language switcher, notifications, wallet switcher,
// log out, back to admin, WhatsApp widget, navigation loading screen.
import { Form, Link, NavLink, useFetcher, useLocation, useNavigation } from '@remix-run/react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LANG_STORAGE_KEY } from '~/modules/i18n/i18n.ts';
import { LoadingScreen } from '~/components/ui/spinner.tsx';
import { useFormat, type Formatter } from '~/components/ui/format.ts';
import { useFetcherToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import type { Shell } from './shell.server.ts';
import { notificationText } from '~/modules/notifications/notification-text.tsx';

export interface Branding {
  appName: string;
  logoPath: string | null;
  theme: 'dark' | 'light';
  whatsapp: string;
  pricingPlan: 'on' | 'off';
  authBackground: string | null;
}

export function Logo({ branding, to = '/' }: { branding: Pick<Branding, 'appName' | 'logoPath'>; to?: string }) {
  return (
    <Link to={to} className="brand" aria-label={branding.appName}>
      {branding.logoPath ? <img src={branding.logoPath} alt="" className="brand-logo" /> : <span className="brand-mark" aria-hidden="true">◆</span>}
      <span className="brand-text">{branding.appName}</span>
    </Link>
  );
}

export function LanguageSwitcher({ languages, locale }: { languages: { code: string; name: string }[]; locale: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  const form = useRef<HTMLFormElement>(null);
  if (languages.length < 2) return null;
  return (
    <Form method="post" action="/lang" reloadDocument ref={form} className="lang-switcher">
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <label className="sr-only" htmlFor="lang-select">{t('Language')}</label>
      <select id="lang-select" name="lang" defaultValue={locale} aria-label={t('Language')}
        onChange={(e) => {
          try {
            window.localStorage.setItem(LANG_STORAGE_KEY, e.target.value);
          } catch {
            /* storage disabled */
          }
          form.current?.requestSubmit();
        }}>
        {languages.map((l) => <option key={l.code} value={l.code}>{l.name}</option>)}
      </select>
      <noscript><button type="submit" className="btn btn-sm">{t('Submit')}</button></noscript>
    </Form>
  );
}

/** A dropdown on <details>: keyboard-accessible, closes on outside click and on navigation. */
export function Dropdown({ label, children, className, align = 'right', ariaLabel }: { label: ReactNode; children: ReactNode; className?: string; align?: 'left' | 'right'; ariaLabel?: string }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  // closed by a navigation, not by the first render: a dropdown opened before the page hydrated
  // (a click on a slow connection) stays open
  const shownAt = useRef(location.key);
  useEffect(() => {
    if (shownAt.current === location.key) return;
    shownAt.current = location.key;
    if (ref.current) ref.current.open = false;
  }, [location.key]);
  useEffect(() => {
    function onDoc(e: MouseEvent) {
      if (ref.current?.open && !ref.current.contains(e.target as Node)) ref.current.open = false;
    }
    function onKey(e: KeyboardEvent) {
      if (e.key === 'Escape' && ref.current?.open) {
        ref.current.open = false;
        ref.current.querySelector('summary')?.focus();
      }
    }
    document.addEventListener('mousedown', onDoc);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDoc);
      document.removeEventListener('keydown', onKey);
    };
  }, []);
  return (
    <details ref={ref} className={`dropdown ${className ?? ''}`}>
      <summary aria-label={ariaLabel}>{label}</summary>
      <div className={`dropdown-menu dropdown-${align}`}>{children}</div>
    </details>
  );
}



/**
 * The bell: the unread count as its badge, the latest notifications (unread ones marked), 'Mark
 * all read' and a link to the page of all of them (`allPath`: /notifications in the client area,
 * /admin/notifications in the back-office, whose action answers these posts too). Opening an unread
 * one marks it read and goes to its url (the action redirects to the stored url); one without a url
 * is marked read in place.
 */
export function NotificationsDropdown({ items, unread, allPath }: { items: Shell['notifications']; unread: number; allPath: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const readAll = useFetcher<Reply>();
  useFetcherToast(readAll);
  // until the layout's data comes back, what was just marked read no longer counts
  const shown = readAll.state !== 'idle' ? 0 : unread;
  return (
    // the name holds the badge's number: a control's visible text is part of its accessible name (WCAG 2.5.3)
    <Dropdown ariaLabel={shown ? t('Notifications, {{count}} unread', { count: shown }) : t('Notifications')} className="notifications" label={
      <span className="icon-btn" title={t('Notifications')}><BellIcon />{shown ? <span className="badge" data-testid="notification-badge">{shown > 99 ? '99+' : shown}</span> : null}</span>
    }>
      <div className="dropdown-title notification-head">
        <span>{t('Notifications')}</span>
        {shown ? (
          <readAll.Form method="post" action={allPath} className="inline-form">
            <input type="hidden" name="intent" value="readAll" />
            <button type="submit" className="link-btn notification-read-all" disabled={readAll.state !== 'idle'}>{t('Mark all read')}</button>
          </readAll.Form>
        ) : null}
      </div>
      {items.length === 0 ? <div className="dropdown-empty">{t('No notifications')}</div> : (
        <ul className="notification-list">
          {items.map((n) => <NotificationEntry key={n.id} n={n} allPath={allPath} allRead={readAll.state !== 'idle'} f={f} />)}
        </ul>
      )}
      <Link to={allPath} className="dropdown-item notification-all">{t('View all notifications')}</Link>
    </Dropdown>
  );
}

function NotificationEntry({ n, allPath, allRead, f }: { n: Shell['notifications'][number]; allPath: string; allRead: boolean; f: Formatter }) {
  const { t } = useTranslation();
  const mark = useFetcher<Reply>();
  const read = n.read || allRead || mark.state !== 'idle';
  const text = notificationText(n, t, f);
  const body = (
    <>
      <strong>{read ? null : <span className="unread-dot" aria-hidden="true" />}{text.title}{read ? null : <span className="sr-only"> ({t('Unread')})</span>}</strong>
      {text.description ? <span>{text.description}</span> : null}
      <time dateTime={n.createdAt}>{f.dateTime(n.createdAt)}</time>
    </>
  );
  const cls = `notification${read ? '' : ' unread'}`;
  if (read) return <li>{n.url ? <Link to={n.url} className={cls}>{body}</Link> : <div className={cls}>{body}</div>}</li>;
  // unread: a post that marks it read (and, with a url, goes there)
  const FormTag = n.url ? Form : mark.Form;
  return (
    <li>
      <FormTag method="post" action={allPath} className="notification-form">
        <input type="hidden" name="intent" value="read" />
        <input type="hidden" name="id" value={n.id} />
        {n.url ? <input type="hidden" name="open" value="1" /> : null}
        <button type="submit" className={`${cls} notification-button`}>{body}</button>
      </FormTag>
    </li>
  );
}

function BellIcon() {
  return (
    <svg className="bell" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" /><path d="M13.7 21a2 2 0 0 1-3.4 0" />
    </svg>
  );
}

export function LogoutButton({ className }: { className?: string }) {
  const { t } = useTranslation();
  return (
    <Form method="post" action="/auth/logout" className="inline-form">
      <button type="submit" className={className ?? 'btn btn-ghost'}>{t('Log Out')}</button>
    </Form>
  );
}

export function BackToAdminButton() {
  const { t } = useTranslation();
  return (
    <Form method="post" action="/authManager/back-to-admin" className="inline-form">
      <button type="submit" className="btn btn-warn">{t('Back to admin')}</button>
    </Form>
  );
}

export function WalletSwitcher({ balances, activeBalanceId }: { balances: Shell['balances']; activeBalanceId: number | null }) {
  const { t } = useTranslation();
  const f = useFormat();
  const location = useLocation();
  if (balances.length === 0) return null;
  return (
    <Form method="post" action="/dashboard/switch-wallet" reloadDocument className="wallet-switcher"
      onChange={(e) => e.currentTarget.requestSubmit()}>
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <label className="sr-only" htmlFor="wallet-select">{t('Wallet')}</label>
      <select id="wallet-select" name="balanceId" defaultValue={activeBalanceId ?? undefined} aria-label={t('Wallet')}>
        {balances.map((b) => (
          <option key={b.id} value={b.id}>
            {b.mode === 'demo' ? t('Demo') : t('Real')} · {f.money(b.balance, b.currency)}
          </option>
        ))}
      </select>
      <noscript><button type="submit" className="btn btn-sm">{t('Switch')}</button></noscript>
    </Form>
  );
}

export function WhatsAppWidget({ number }: { number: string }) {
  const { t } = useTranslation();
  if (!number) return null;
  return (
    <a className="whatsapp-widget" href={`https://wa.me/${number}`} target="_blank" rel="noopener noreferrer" aria-label={t('Chat with us on WhatsApp')}>
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true"><path fill="currentColor" d="M16 3C9 3 3.3 8.6 3.3 15.6c0 2.5.7 4.8 2 6.8L3 29l6.8-2.2c1.9 1 4 1.6 6.2 1.6 7 0 12.7-5.6 12.7-12.6S23 3 16 3zm0 23c-2 0-4-.6-5.6-1.6l-.4-.2-4 1.3 1.3-3.9-.3-.4c-1.1-1.7-1.7-3.6-1.7-5.6C5.3 10 10.1 5.3 16 5.3S26.7 10 26.7 15.8 21.9 26 16 26zm5.9-7.7c-.3-.2-1.9-.9-2.2-1s-.5-.2-.7.2-.8 1-1 1.2-.4.2-.7.1c-.3-.2-1.4-.5-2.6-1.6-1-.9-1.6-1.9-1.8-2.2s0-.5.1-.6l.5-.6c.2-.2.2-.3.3-.6.1-.2 0-.4 0-.6l-1-2.4c-.3-.6-.5-.5-.7-.5h-.6c-.2 0-.6.1-.9.4s-1.2 1.1-1.2 2.7 1.2 3.1 1.4 3.4c.2.2 2.4 3.6 5.7 5 .8.3 1.4.5 1.9.7.8.2 1.5.2 2.1.1.6-.1 1.9-.8 2.2-1.5.3-.8.3-1.4.2-1.5-.1-.2-.3-.3-.6-.4z" /></svg>
    </a>
  );
}

/** The full-screen loading screen while another area's data loads (slow navigations only). */
export function NavigationLoading({ branding }: { branding: Pick<Branding, 'appName' | 'logoPath'> }) {
  const navigation = useNavigation();
  const location = useLocation();
  const [show, setShow] = useState(false);
  const area = (p: string) => p.split('/')[1] ?? '';
  const crossing = navigation.state === 'loading' && !!navigation.location && area(navigation.location.pathname) !== area(location.pathname);
  useEffect(() => {
    if (!crossing) return setShow(false);
    const h = setTimeout(() => setShow(true), 400);
    return () => clearTimeout(h);
  }, [crossing]);
  return show ? <LoadingScreen logo={branding.logoPath} appName={branding.appName} /> : null;
}

export function SideLink({ to, children, end }: { to: string; children: ReactNode; end?: boolean }) {
  return <NavLink to={to} end={end} className={({ isActive }) => (isActive ? 'active' : undefined)}>{children}</NavLink>;
}
