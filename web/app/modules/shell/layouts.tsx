// The three layouts: visitor (auth) pages, the customer client area, and the dark
// admin / CRM / affiliate back-office.
import { Link, NavLink, useLocation } from '@remix-run/react';
import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { CLIENT_LINKS, ROLE_HOME, ROLE_LABELS, menuFor, type MenuItem, type RoleId } from '~/modules/auth/permissions.ts';
import { BackToAdminButton, Dropdown, LanguageSwitcher, Logo, LogoutButton, NavigationLoading, NotificationsDropdown, WalletSwitcher, WhatsAppWidget, type Branding } from './chrome.tsx';
import type { Shell } from './shell.server.ts';

interface RootBits { branding: Branding & { currencies: string[] }; languages: { code: string; name: string }[]; locale: string }

export function AuthLayout({ root, children }: { root: RootBits; children: ReactNode }) {
  const bg = root.branding.authBackground;
  return (
    <div className="auth-page" style={bg ? { backgroundImage: `url(${bg})` } : undefined}>
      <div className="auth-top">
        <LanguageSwitcher languages={root.languages} locale={root.locale} />
      </div>
      <main className="auth-card">
        <div className="auth-brand"><Logo branding={root.branding} /></div>
        {children}
      </main>
      <WhatsAppWidget number={root.branding.whatsapp} />
    </div>
  );
}

/**
 * The phone's menu button and the panel it opens (the client's top bar, the staff sidebar): opening
 * moves the focus into the panel, Escape closes it and gives the focus back to the button, and
 * following a link closes it. On a wide screen the button is hidden and the panel always shows.
 */
export function useMenuButton() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>('a[href], button:not([disabled]), select, summary')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return { open, button, panel, toggle: () => setOpen((o) => !o) };
}

const SHORTCUT_LABEL: Partial<Record<RoleId, string>> = { 1: 'Admin Panel', 2: 'Manager Panel', 4: 'Affiliate Panel', 5: 'Sales Panel', 6: 'Retention Panel' };

export function ClientLayout({ root, shell, children }: { root: RootBits; shell: Shell; children: ReactNode }) {
  const { t } = useTranslation();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const links = CLIENT_LINKS.filter((l) => !('plan' in l) || root.branding.pricingPlan !== 'off');
  const onProfilePage = links.some((l) => location.pathname === l.to || location.pathname.startsWith(l.to + '/'));
  const role = shell.user.roleId as RoleId;
  const shortcut = SHORTCUT_LABEL[role];
  const top = useMenuButton();
  return (
    <div className="client-shell">
      <header className="topbar client-topbar">
        <Logo branding={root.branding} to="/" />
        <div id="client-top-menu" ref={top.panel as RefObject<HTMLDivElement>} className={`topbar-menu ${top.open ? 'open' : ''}`}>
          <nav className="topnav" aria-label={t('Main')}>
            <NavLink to="/" end className={({ isActive }) => (isActive || location.pathname === '/dashboard' ? 'active' : undefined)}>{t('Home')}</NavLink>
            {links.map((l) => <NavLink key={l.to} to={l.to}>{t(l.title)}</NavLink>)}
          </nav>
          <div className="topbar-right">
            {shortcut && !shell.impersonating ? <Link to={ROLE_HOME[role]} className="btn btn-sm btn-primary">{t(shortcut)}</Link> : null}
            {shell.impersonating ? <BackToAdminButton /> : null}
            <WalletSwitcher balances={shell.balances} activeBalanceId={shell.activeBalanceId} />
            <LanguageSwitcher languages={root.languages} locale={root.locale} />
            <LogoutButton className="btn btn-ghost btn-sm" />
          </div>
        </div>
        {/* a phone shows the logo, the bell and the menu button; the rest opens under them */}
        <NotificationsDropdown items={shell.notifications} unread={shell.unread} allPath="/notifications" />
        <button ref={top.button} type="button" className="icon-btn menu-toggle" aria-label={t('Main menu')} aria-expanded={top.open}
          aria-controls="client-top-menu" onClick={top.toggle}>☰</button>
      </header>
      <div className={`client-body ${onProfilePage ? 'with-side' : ''}`}>
        {onProfilePage ? (
          <aside className={`side-menu ${menuOpen ? 'open' : ''}`}>
            <button type="button" className="btn btn-ghost side-toggle" aria-expanded={menuOpen} aria-controls="profile-menu" onClick={() => setMenuOpen((o) => !o)}>
              ☰ {t('Menu')}
            </button>
            <nav id="profile-menu" aria-label={t('Profile')}>
              <div className="side-user">
                <strong>{shell.user.fullName}</strong>
                <span className="muted">{shell.user.email}</span>
              </div>
              {links.map((l) => <NavLink key={l.to} to={l.to} onClick={() => setMenuOpen(false)}>{t(l.title)}</NavLink>)}
            </nav>
          </aside>
        ) : null}
        <main className="client-main">{children}</main>
      </div>
      <WhatsAppWidget number={root.branding.whatsapp} />
      <NavigationLoading branding={root.branding} />
    </div>
  );
}

function SidebarItem({ item }: { item: MenuItem }) {
  const { t } = useTranslation();
  const location = useLocation();
  if (item.type === 'section') return <li className="menu-section">{t(item.title)}</li>;
  if (item.type === 'link') {
    return (
      <li>
        <NavLink to={item.link!} end>
          <span className="menu-icon" aria-hidden="true">{item.icon}</span>{t(item.title)}
        </NavLink>
      </li>
    );
  }
  const open = item.children?.some((c) => c.link && location.pathname.startsWith(c.link)) ?? false;
  return (
    <li>
      <details open={open}>
        <summary><span className="menu-icon" aria-hidden="true">{item.icon}</span>{t(item.title)}</summary>
        <ul>{item.children?.map((c) => <SidebarItem key={c.link ?? c.title} item={c} />)}</ul>
      </details>
    </li>
  );
}

export function StaffLayout({ root, shell, children }: { root: RootBits; shell: Shell; children: ReactNode }) {
  const { t } = useTranslation();
  const side = useMenuButton();
  const menu = menuFor(shell.user.roleId);
  return (
    <div className="staff-shell">
      <header className="topbar staff-topbar">
        <button ref={side.button} type="button" className="icon-btn sidebar-toggle" aria-label={t('Menu')} aria-expanded={side.open}
          aria-controls="staff-sidebar" onClick={side.toggle}>☰</button>
        <Logo branding={root.branding} to={ROLE_HOME[shell.user.roleId as RoleId] ?? '/'} />
        <div className="topbar-right">
          <Link to="/dashboard" className="btn btn-sm btn-ghost topbar-wide-only">{t('Client Area')}</Link>
          <LanguageSwitcher languages={root.languages} locale={root.locale} />
          <NotificationsDropdown items={shell.notifications} unread={shell.unread} allPath="/admin/notifications" />
          <Dropdown ariaLabel={t('Profile')} label={<span className="avatar" aria-hidden="true">{shell.user.fullName.slice(0, 1).toUpperCase()}</span>}>
            <div className="profile-head">
              <strong>{shell.user.fullName}</strong>
              <span className="muted">{shell.user.email}</span>
              <span className="chip">{t(ROLE_LABELS[shell.user.roleId as RoleId] ?? '')}</span>
            </div>
            {/* the staff member's own record (docs/specs.md#profile), not the client area's profile */}
            <Link to="/admin/profile" className="dropdown-item">{t('Profile')}</Link>
            <LogoutButton className="dropdown-item" />
          </Dropdown>
        </div>
      </header>
      <div className="staff-body">
        <nav id="staff-sidebar" ref={side.panel} className={`sidebar ${side.open ? 'open' : ''}`} aria-label={t('Sidebar')}>
          <ul>
            {/* on a phone the top bar has no room for it: it heads the menu */}
            <li className="sidebar-phone-only"><Link to="/dashboard">{t('Client Area')}</Link></li>
            {menu.map((m, i) => <SidebarItem key={`${m.type}-${m.link ?? m.title}-${i}`} item={m} />)}
          </ul>
        </nav>
        <main className="staff-main">{children}</main>
      </div>
      <NavigationLoading branding={root.branding} />
    </div>
  );
}
