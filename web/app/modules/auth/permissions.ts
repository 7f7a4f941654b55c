// The one permission map of the platform (docs/specs.md#permissions): the navigation table of
// docs/specs.md#navigation-and-roles, plus the client area (docs/specs.md#client-pages).
// It renders the sidebars and it is enforced by every loader and action through
// `requireAccess` (auth/guards.server.ts). Shared with the browser: no server imports here.

export type RoleId = 1 | 2 | 3 | 4 | 5 | 6;
export const ALL_ROLES: readonly RoleId[] = [1, 2, 3, 4, 5, 6];
export const STAFF_ROLES: readonly RoleId[] = [1, 2, 4, 5, 6];

export const ROLE_LABELS: Record<RoleId, string> = {
  1: 'Admin', 2: 'Manager', 3: 'Customer', 4: 'Affiliator', 5: 'Agent', 6: 'Retention Agent',
};

/** Where each role lands after signing in, and where its top-bar shortcut leads. */
export const ROLE_HOME: Record<RoleId, string> = {
  1: '/admin',
  2: '/admin/trades/all',
  3: '/dashboard',
  4: '/affiliate',
  5: '/admin/crm/sales/all',
  6: '/admin/crm/retention',
};

export type Area = 'client' | 'staff';

export interface RouteRule {
  /** path pattern: literal segments, `:param` for one segment */
  path: string;
  roles: readonly RoleId[];
  /** page title (an i18n key) */
  title: string;
  area: Area;
}

const r = (path: string, roles: readonly RoleId[], title: string, area: Area = 'staff'): RouteRule => ({ path, roles, title, area });

const ADMIN: readonly RoleId[] = [1];
const ADMIN_MANAGER: readonly RoleId[] = [1, 2];

/** Every page route of the three specs, with the roles allowed to open it. */
export const ROUTES: readonly RouteRule[] = [
  // client area (docs/specs.md#client-pages): every signed-in user has a client area; staff reach
  // their own areas from its shortcut buttons. Records are scoped to the signed-in user.
  r('/dashboard', ALL_ROLES, 'Dashboard', 'client'),
  r('/deposits', ALL_ROLES, 'Deposits', 'client'),
  r('/deposits/bank/:id', ALL_ROLES, 'Bank Deposit', 'client'),
  r('/deposits/crypto/:id', ALL_ROLES, 'Crypto Deposit', 'client'),
  r('/deposits/paypal/:txRef', ALL_ROLES, 'Wallet Payment', 'client'),
  r('/deposits/start/:depositId', ALL_ROLES, 'Continue to payment', 'client'),
  r('/withdraws', ALL_ROLES, 'Withdraws', 'client'),
  r('/profile', ALL_ROLES, 'Personal Information', 'client'),
  r('/pricing', ALL_ROLES, 'My Plan', 'client'),
  r('/kyc', ALL_ROLES, 'KYC', 'client'),
  // also the page where staff enrol in two-factor sign-in (TWO_FACTOR_ENROL_PATH)
  r('/security', ALL_ROLES, 'Security', 'client'),
  r('/statements', ALL_ROLES, 'Statements', 'client'),
  r('/mobile-chart/:symbol', ALL_ROLES, 'Chart', 'client'),
  // every notification of the signed-in user (the bell's 'View all'); staff have theirs in the back-office
  r('/notifications', ALL_ROLES, 'Notifications', 'client'),

  // admin (docs/specs.md#navigation-and-roles)
  r('/admin', ADMIN, 'Dashboard'),
  r('/admin/trades/all', ADMIN_MANAGER, 'All Trades'),
  r('/admin/trades/open', ADMIN_MANAGER, 'Open Trades'),
  r('/admin/trades/closed', ADMIN_MANAGER, 'Closed Trades'),
  r('/admin/deposits', ADMIN_MANAGER, 'Deposit History'),
  r('/admin/gateways', ADMIN, 'Automatic Gateways'),
  r('/admin/externalPayments', ADMIN, 'External payments'),
  r('/admin/gateways/manual', ADMIN, 'Manual Gateways'),
  r('/admin/withdraws/pending', ADMIN_MANAGER, 'Pending Withdraws'),
  r('/admin/withdraws/history', ADMIN_MANAGER, 'Withdraw History'),
  r('/admin/withdraws/settings', ADMIN, 'Withdraw Settings'),
  r('/admin/customers/all', ADMIN_MANAGER, 'All Customers'),
  r('/admin/customers/inactive', ADMIN_MANAGER, 'Inactive Customers'),
  // Customer pages are opened from the customer lists (1, 2) and the CRM lists (5, 6); which
  // customers each role may open is requireCustomerRecord's (guards.server.ts). Staff records
  // are edited under Admin & Staffs only.
  r('/admin/customers/edit/:id', [1, 2, 5, 6], 'Edit Customer'),
  r('/admin/users', ADMIN, 'Admin & Staffs'),
  r('/admin/kyc', ADMIN, 'KYC Documents'),
  r('/admin/instruments/forex', ADMIN, 'Forex'),
  r('/admin/instruments/commodity', ADMIN, 'Commodities'),
  r('/admin/instruments/index', ADMIN, 'Indices'),
  r('/admin/instruments/crypto', ADMIN, 'Crypto'),
  r('/admin/instruments/stock', ADMIN, 'Stocks'),
  r('/admin/spreads', ADMIN, 'Spreads'),
  r('/admin/lots', ADMIN, 'Lots'),
  r('/admin/apis', ADMIN, 'API Settings'),
  r('/admin/pricing', ADMIN, 'Pricing Plans'),
  r('/admin/settings', ADMIN, 'Site Settings'),
  r('/admin/languages', ADMIN, 'Languages'),
  r('/admin/languages/:code', ADMIN, 'Translations'),
  r('/admin/status/api', ADMIN, 'API Status'),
  r('/admin/status/server', ADMIN, 'Server Information'),
  // beyond the navigation table: the audit trail (every staff change, before and after)
  r('/admin/audit', ADMIN, 'Audit Trail'),
  r('/admin/notifications', STAFF_ROLES, 'Notifications'),

  // CRM (docs/specs.md#navigation-and-roles)
  r('/admin/crm/clients', ADMIN_MANAGER, 'Clients'),
  r('/admin/leads/live', ADMIN_MANAGER, 'Live Leads'),
  r('/admin/leads/manual', ADMIN_MANAGER, 'Manual Leads'),
  r('/admin/leads/all', ADMIN_MANAGER, 'Affiliate Leads'),
  r('/admin/crm/archived', ADMIN_MANAGER, 'Archived'),
  r('/admin/crm/retention', [1, 2, 6], 'Retention'),
  r('/admin/crm/sales/all', [1, 2, 5], 'All Sales'),
  r('/admin/crm/sales/manual', [1, 2, 5], 'Manual Sales'),
  r('/admin/crm/sales/live', [1, 2, 5], 'Live Sales'),
  r('/admin/crm-config/sales-statuses', ADMIN_MANAGER, 'Sales Statuses'),
  r('/admin/crm-config/teams', ADMIN, 'Teams'),
  r('/admin/promo-code', [1, 2, 4, 5, 6], 'Promo Code'),

  // affiliate (docs/specs.md#navigation-and-roles)
  r('/affiliate', [4], 'Leads'),
  r('/affiliate/api', [4], 'API Key'),
];

/**
 * While the site requires two-factor sign-in of staff (site setting twoFactor.staffRequired) and a
 * staff member has not enrolled, this page (and signing out, /auth/logout) is all they may open:
 * requireAccess sends every other page here and refuses every other call
 * (docs/specs.md#security-and-two-factor-sign-in).
 */
export const TWO_FACTOR_ENROL_PATH = '/security';

/**
 * Calls (resource routes and actions) outside the page list, by path prefix. A path under
 * `/admin` or `/affiliate` that matches neither a page nor a prefix here is admin-only; any
 * other path that matches none is public.
 */
export const PREFIX_RULES: readonly { prefix: string; roles: readonly RoleId[] }[] = [
  { prefix: '/admin/customers/login-as/', roles: [1, 2, 6] },
  { prefix: '/admin/trades/', roles: ADMIN_MANAGER },
  { prefix: '/admin/deposits/', roles: ADMIN_MANAGER },
  { prefix: '/admin/withdraws/api/', roles: ADMIN_MANAGER },
  { prefix: '/admin/withdraws/', roles: ADMIN_MANAGER },
  { prefix: '/admin/customers/', roles: ADMIN_MANAGER },
  { prefix: '/admin/share/users/', roles: [1, 2, 5, 6] },
  { prefix: '/admin/crm/sales/', roles: [1, 2, 5] },
  { prefix: '/admin/crm/retention', roles: [1, 2, 6] },
  { prefix: '/admin/crm/voiso/', roles: [1, 2, 5, 6] },
  { prefix: '/admin/crm/note', roles: [1, 2, 5, 6] },
  { prefix: '/admin/crm/', roles: ADMIN_MANAGER },
  { prefix: '/admin/leads', roles: [1, 2, 5, 6] },
  { prefix: '/admin/crm-config/sales-statuses', roles: ADMIN_MANAGER },
  { prefix: '/admin/promo-code', roles: [1, 2, 4, 5, 6] },
  { prefix: '/affiliate/', roles: [1, 2, 4, 5, 6] },
  // uploaded files: any signed-in role passes the map; each file's readers are its kind's policy
  // (modules/uploads/kinds.ts), and public kinds (branding) are served to visitors too
  { prefix: '/uploads/', roles: ALL_ROLES },
];

function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = pathname.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

export function normalizePath(pathname: string): string {
  const clean = pathname.replace(/\.data$/, '').replace(/\/+$/, '');
  return clean === '' ? '/' : clean;
}

export interface Access { allowed: boolean; rule?: RouteRule; params?: Record<string, string>; area: Area | 'public' }

/** Whether `roleId` may open `pathname`. Unknown staff paths are admin-only. */
export function accessFor(pathname: string, roleId: number): Access {
  const path = normalizePath(pathname);
  for (const rule of ROUTES) {
    const params = matchPattern(rule.path, path);
    if (!params) continue;
    return { allowed: rule.roles.includes(roleId as RoleId), rule, params, area: rule.area };
  }
  const staff = path === '/admin' || path.startsWith('/admin/') || path === '/affiliate' || path.startsWith('/affiliate/');
  const prefix = PREFIX_RULES.find((p) => path.startsWith(p.prefix));
  if (!staff) return prefix ? { allowed: prefix.roles.includes(roleId as RoleId), area: 'client' } : { allowed: true, area: 'public' };
  return { allowed: (prefix?.roles ?? ADMIN).includes(roleId as RoleId), area: 'staff' };
}

// ------------------------------------------------------------------ sidebar (docs/specs.md#navigation-and-roles)

export interface MenuItem {
  type: 'link' | 'section' | 'expandable';
  title: string;
  icon?: string;
  link?: string;
  roles: readonly RoleId[];
  children?: MenuItem[];
}

const link = (title: string, href: string, icon?: string): MenuItem => {
  const rule = ROUTES.find((x) => x.path === href);
  if (!rule) throw new Error(`menu link ${href} is not in the permission map`);
  return { type: 'link', title, link: href, icon, roles: rule.roles };
};
const group = (title: string, icon: string, roles: readonly RoleId[], children: MenuItem[]): MenuItem =>
  ({ type: 'expandable', title, icon, roles, children });
const section = (title: string, roles: readonly RoleId[]): MenuItem => ({ type: 'section', title, roles });

export const MENU: readonly MenuItem[] = [
  link('Dashboard', '/admin', '▦'),
  section('Transactions', ADMIN_MANAGER),
  group('Trades', '⇅', ADMIN_MANAGER, [
    link('All Trades', '/admin/trades/all'),
    link('Open Trades', '/admin/trades/open'),
    link('Closed Trades', '/admin/trades/closed'),
  ]),
  group('Deposits', '⤓', ADMIN_MANAGER, [
    link('Deposit History', '/admin/deposits'),
    link('Automatic Gateways', '/admin/gateways'),
    link('External payments', '/admin/externalPayments'),
    link('Manual Gateways', '/admin/gateways/manual'),
  ]),
  group('Withdraws', '⤒', ADMIN_MANAGER, [
    link('Pending Withdraws', '/admin/withdraws/pending'),
    link('Withdraw History', '/admin/withdraws/history'),
    link('Withdraw Settings', '/admin/withdraws/settings'),
  ]),
  section('User Management', ADMIN_MANAGER),
  group('Customers', '☺', ADMIN_MANAGER, [
    link('All Customers', '/admin/customers/all'),
    link('Inactive Customers', '/admin/customers/inactive'),
  ]),
  link('Admin & Staffs', '/admin/users', '♔'),
  link('KYC', '/admin/kyc', '✓'),
  section('Leads Management', [1, 4]),
  link('Leads', '/affiliate', '☰'),
  link('API Key', '/affiliate/api', '⚿'),
  group('CRM', '◎', [1, 2, 6], [
    link('Clients', '/admin/crm/clients'),
    link('Sales', '/admin/crm/sales/all'),
    link('Live Leads', '/admin/leads/live'),
    link('Manual Leads', '/admin/leads/manual'),
    link('Affiliate Leads', '/admin/leads/all'),
    link('Retention', '/admin/crm/retention'),
    link('Archived', '/admin/crm/archived'),
  ]),
  group('Sales', '☏', [1, 2, 5], [
    link('All Sales', '/admin/crm/sales/all'),
    link('Manual Sales', '/admin/crm/sales/manual'),
    link('Live Sales', '/admin/crm/sales/live'),
  ]),
  link('Sales Statuses', '/admin/crm-config/sales-statuses', '◐'),
  link('Teams', '/admin/crm-config/teams', '⚑'),
  link('Promo Code', '/admin/promo-code', '%'),
  section('Trade Management', ADMIN),
  group('Instruments', '◈', ADMIN, [
    link('Forex', '/admin/instruments/forex'),
    link('Commodities', '/admin/instruments/commodity'),
    link('Indices', '/admin/instruments/index'),
    link('Crypto', '/admin/instruments/crypto'),
    link('Stocks', '/admin/instruments/stock'),
  ]),
  link('Spreads', '/admin/spreads', '↔'),
  link('Lots', '/admin/lots', '▤'),
  link('API Settings', '/admin/apis', '⚙'),
  link('Pricing Plans', '/admin/pricing', '$'),
  section('Site Management', ADMIN),
  link('Site Settings', '/admin/settings', '⚙'),
  link('Languages', '/admin/languages', '⚐'),
  section('Server Management', ADMIN),
  link('API Status', '/admin/status/api', '♥'),
  link('Server Information', '/admin/status/server', '▣'),
  link('Audit Trail', '/admin/audit', '✎'),
];

/** The menu as one role sees it: items and children filtered, empty groups and orphan headings dropped. */
export function menuFor(roleId: number): MenuItem[] {
  const allowed = (m: MenuItem) => m.roles.includes(roleId as RoleId);
  const items: MenuItem[] = [];
  for (const m of MENU) {
    if (!allowed(m)) continue;
    if (m.type === 'expandable') {
      const children = (m.children ?? []).filter(allowed);
      if (children.length) items.push({ ...m, children });
    } else items.push(m);
  }
  // a heading followed by no visible entry before the next heading is dropped
  return items.filter((m, i) => m.type !== 'section' || (items[i + 1] && items[i + 1].type !== 'section'));
}

/** Client top bar and profile side menu (docs/specs.md#client-pages). */
export const CLIENT_LINKS = [
  { to: '/deposits', title: 'Deposits' },
  { to: '/withdraws', title: 'Withdraws' },
  { to: '/pricing', title: 'My Plan', plan: true },
  { to: '/profile', title: 'Personal Information' },
  { to: '/kyc', title: 'KYC' },
  { to: '/security', title: 'Security' },
  { to: '/statements', title: 'Statements' },
] as const;
