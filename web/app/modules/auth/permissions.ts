// The one permission map of the platform (docs/specs.md#permissions): the navigation table of
// docs/specs.md#navigation-and-roles, plus the client area (docs/specs.md#client-pages).
// It renders the sidebars and it is enforced by every loader and action through
// `requireAccess` (auth/guards.server.ts). Shared with the browser: no server imports here.

import { ALL_ROLES, STAFF_ROLES, type RoleId } from '../../shared/roles.ts';
// the role names and capabilities live beside the map (shared code needs them too)
export * from '../../shared/roles.ts';

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
  r('/admin/trades/pending', ADMIN_MANAGER, 'Pending Orders'),
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
  // the staff top bar's Profile: the staff member's own record (their name, language, password)
  r('/admin/profile', STAFF_ROLES, 'My Profile'),
  r('/admin/kyc', ADMIN, 'KYC Documents'),
  r('/admin/instruments/forex', ADMIN, 'Forex'),
  r('/admin/instruments/commodity', ADMIN, 'Commodities'),
  r('/admin/instruments/index', ADMIN, 'Indices'),
  r('/admin/instruments/crypto', ADMIN, 'Crypto'),
  r('/admin/instruments/stock', ADMIN, 'Stocks'),
  r('/admin/spreads', ADMIN, 'Spreads'),
  r('/admin/lots', ADMIN, 'Lots'),
  r('/admin/apis', ADMIN, 'API Settings'),
  // the spec shows the pricing list to admins and managers; only admins change it (EDIT_ROLES)
  r('/admin/pricing', ADMIN_MANAGER, 'Pricing Plans'),
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
 * Pages some of whose viewers may only read: who may change what the page shows (its actions).
 * A page not listed here lets every role it admits act (each action still checks its own rules).
 */
export const EDIT_ROLES: Readonly<Record<string, readonly RoleId[]>> = {
  '/admin/pricing': ADMIN,
};

/** Whether `roleId` may use the actions of the page `path` (its entry in EDIT_ROLES, else its viewers). */
export function mayEdit(path: string, roleId: number): boolean {
  const roles = EDIT_ROLES[path] ?? ROUTES.find((x) => x.path === path)?.roles ?? [];
  return roles.includes(roleId as RoleId);
}

/**
 * Every route that is not a page (resource routes, action-only routes, the visitor pages), with
 * who may call it: a list of roles (signed in, that role), or 'public' (anyone: the route checks
 * what it needs itself — a webhook its signature, the leads API its key, an upload its kind's
 * policy, a visitor page that the caller is signed out).
 */
export type Audience = readonly RoleId[] | 'public';
export interface CallRule { path: string; roles: Audience; area: Area | 'public' }

const call = (path: string, roles: Audience, area: Area | 'public' = roles === 'public' ? 'public' : 'client'): CallRule => ({ path, roles, area });

export const CALLS: readonly CallRule[] = [
  // visitor pages (a signed-in caller is sent home by the page itself) and signing out
  call('/', 'public'),
  call('/signup', 'public'),
  call('/forgot-password', 'public'),
  call('/reset-password/:token', 'public'),
  call('/two-factor', 'public'),
  call('/verify-email/:token', 'public'),
  call('/auth/logout', 'public'),
  // the usual spellings of sign-in, each sent to '/' (sign-in-alias.ts)
  call('/login', 'public'),
  call('/signin', 'public'),
  call('/sign-in', 'public'),
  call('/admin/login', 'public'),
  call('/admin/signin', 'public'),
  call('/admin/sign-in', 'public'),
  // the language switch and the translations every page loads
  call('/lang', 'public'),
  call('/i18n/:lng', 'public'),
  // GET is public (the texts every page shows); POST records a missing key for signed-in callers
  call('/translations/:lng', 'public'),
  // files: each file's readers are its kind's policy (modules/uploads/kinds.ts); branding is public
  call('/uploads/:id', 'public'),
  // the leads API (its own key), its documentation
  call('/api/v1/leads', 'public'),
  call('/api/v1/docs', 'public'),
  call('/api/v1/openapi.json', 'public'),
  // payment providers: signed notifications, return pages, the mock checkouts under MOCKS=1
  call('/payments/webhooks/:gateway', 'public'),
  call('/payments/mock/:gateway/:ref', 'public'),
  call('/payments/paypal/capture', 'public'),
  call('/payments/paypal/capture/:orderId', ALL_ROLES),
  call('/payments/return/:depositId', ALL_ROLES),
  // the signed-in user's own data, whatever their role (a login-as session is the customer's)
  call('/auth/user', ALL_ROLES),
  call('/authManager/back-to-admin', ALL_ROLES),
  call('/dashboard/candles/:symbol', ALL_ROLES),
  call('/dashboard/instruments', ALL_ROLES),
  call('/dashboard/lot-state/:category', ALL_ROLES),
  call('/dashboard/rates', ALL_ROLES),
  call('/dashboard/switch-wallet', ALL_ROLES),
  call('/dashboard/ticket', ALL_ROLES),
  call('/statements/export', ALL_ROLES),
  // back-office calls
  call('/admin/audit/export', ADMIN, 'staff'),
  // the admin dashboard's open exposure, read again when a position opens or closes
  call('/admin/exposure', ADMIN, 'staff'),
  call('/admin/customers/login-as/:id', [1, 2, 6], 'staff'),
  call('/admin/crm/lead-import', ADMIN_MANAGER, 'staff'),
  call('/admin/crm/lead-import/:id/report', ADMIN_MANAGER, 'staff'),
  call('/admin/crm/voiso/agents', [1, 2, 5, 6], 'staff'),
  call('/admin/crm/voiso/startCall', [1, 2, 5, 6], 'staff'),
  call('/admin/crm-config/sales-statuses/api', ADMIN_MANAGER, 'staff'),
  call('/admin/crm-config/teams/api', ADMIN, 'staff'),
  call('/affiliate/leads/:id', [1, 2, 4, 5, 6], 'staff'),
];

/**
 * Who may use one route: what its module declares (`export const access = routeAccess(path)`),
 * checked by the route gate (auth/route-gate.server.ts) against the route the router matched
 * before its loader or action runs. `path` is the route's own pattern; null for a layout.
 */
export interface RouteAccess { path: string | null; roles: Audience; area: Area | 'public' }

const declared = new Map<string, RouteAccess>();
for (const rule of [...ROUTES, ...CALLS]) {
  if (declared.has(rule.path)) throw new Error(`${rule.path} is in the permission map twice`);
  declared.set(rule.path, Object.freeze({ path: rule.path, roles: rule.roles, area: rule.area }));
}

/** The declaration of the route whose pattern is `path` (its entry in ROUTES or CALLS). */
export function routeAccess(path: string): RouteAccess {
  const access = declared.get(path);
  if (!access) throw new Error(`route ${path} is not in the permission map (auth/permissions.ts)`);
  return access;
}

/**
 * The layouts' own declarations: their loaders serve the shell of every page under them (and
 * answer their own data requests), so each admits every role of any page it holds.
 */
export const LAYOUT_ACCESS = {
  client: Object.freeze({ path: null, roles: ALL_ROLES, area: 'client' }),
  staff: Object.freeze({ path: null, roles: STAFF_ROLES, area: 'staff' }),
  public: Object.freeze({ path: null, roles: 'public', area: 'public' }),
} as const satisfies Record<string, RouteAccess>;

/** One path segment as the router reads it: percent-decoded, compared without case. */
function segment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = pathname.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const value = segment(s[i]);
    if (value === null) return null;
    if (p[i].startsWith(':')) params[p[i].slice(1)] = value;
    else if (p[i].toLowerCase() !== value.toLowerCase()) return null;
  }
  return params;
}

export interface Access { allowed: boolean; rule?: RouteAccess; params?: Record<string, string>; area: Area | 'public' }

/**
 * Whether `roleId` may open `pathname`, read as the router reads it (any case, percent-decoded,
 * extra slashes ignored, `.data` for a data request). A path the map does not know is closed.
 * The server decides from the matched route's declaration (auth/route-gate.server.ts); this is
 * for links (the menus, who sees which button) and for code called outside the server.
 */
export function accessFor(pathname: string, roleId: number): Access {
  const path = pathname.replace(/\.data$/, '');
  // literal patterns first, so '/payments/paypal/capture' is never read as ':orderId'
  for (const literal of [true, false]) {
    for (const [pattern, rule] of declared) {
      if (pattern.includes(':') === literal) continue;
      const params = matchPattern(pattern, path);
      if (!params) continue;
      const allowed = rule.roles === 'public' || rule.roles.includes(roleId as RoleId);
      return { allowed, rule, params, area: rule.area };
    }
  }
  return { allowed: false, area: 'public' };
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
    link('Pending Orders', '/admin/trades/pending'),
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
  // managers see the heading over the one entry of it they may open (Pricing Plans)
  section('Trade Management', ADMIN_MANAGER),
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
