// The nine lead screens (docs/specs.md#crm-lead-lists): one table, each screen a group and source filter over the leads,
// its title, the bulk moves it offers and the agent field its assign control and agent filter use.
// Shared by the loader, the action (which enforces the moves) and the page.
import { isAgent } from '~/shared/roles.ts';

export type LeadGroup = 'sales' | 'retentions' | 'archived';
export type ScreenKey =
  | 'clients' | 'sales-all' | 'sales-live' | 'sales-manual' | 'leads-live' | 'leads-manual' | 'leads-affiliate' | 'archived' | 'retention'
  | 'affiliate';

export interface Screen {
  key: ScreenKey;
  path: string;
  title: string;
  /** which leads: a group (or the linked clients outside the archive) */
  set: 'clients' | LeadGroup | 'any';
  /** the new-leads screens: not yet a client */
  newOnly?: boolean;
  /** how the lead came in */
  source?: 'live' | 'manual' | 'affiliate';
  /** the bulk moves offered here (docs/specs.md#crm-lead-lists), in the order shown */
  moves: LeadGroup[];
  /** the agent the assign control sets and the agent filter reads: sales agents (agentId) or retention agents (retId) */
  agentField: 'agentId' | 'retId';
  /** the columns shown, when not all (the affiliate's own list) */
  columns?: readonly SortKey[];
  /** the affiliate portal: the caller's own leads, deleted by their owner (DELETE /affiliate/leads/{id}) */
  own?: boolean;
}

const SALES_MOVES: LeadGroup[] = ['retentions', 'archived'];

export const SCREENS: Record<ScreenKey, Screen> = {
  clients: { key: 'clients', path: '/admin/crm/clients', title: 'Clients', set: 'clients', moves: ['sales', 'retentions', 'archived'], agentField: 'agentId' },
  'sales-all': { key: 'sales-all', path: '/admin/crm/sales/all', title: 'All Sales', set: 'sales', moves: SALES_MOVES, agentField: 'agentId' },
  'sales-live': { key: 'sales-live', path: '/admin/crm/sales/live', title: 'Live Sales', set: 'sales', source: 'live', moves: SALES_MOVES, agentField: 'agentId' },
  'sales-manual': { key: 'sales-manual', path: '/admin/crm/sales/manual', title: 'Manual Sales', set: 'sales', source: 'manual', moves: SALES_MOVES, agentField: 'agentId' },
  'leads-live': { key: 'leads-live', path: '/admin/leads/live', title: 'Live Leads', set: 'sales', newOnly: true, source: 'live', moves: SALES_MOVES, agentField: 'agentId' },
  'leads-manual': { key: 'leads-manual', path: '/admin/leads/manual', title: 'Manual Leads', set: 'sales', newOnly: true, source: 'manual', moves: SALES_MOVES, agentField: 'agentId' },
  'leads-affiliate': { key: 'leads-affiliate', path: '/admin/leads/all', title: 'Affiliate Leads', set: 'sales', newOnly: true, source: 'affiliate', moves: SALES_MOVES, agentField: 'agentId' },
  archived: { key: 'archived', path: '/admin/crm/archived', title: 'Archived', set: 'archived', moves: ['sales'], agentField: 'agentId' },
  retention: { key: 'retention', path: '/admin/crm/retention', title: 'Retention', set: 'retentions', moves: ['sales', 'archived'], agentField: 'retId' },
  // the affiliate portal (/affiliate, role 4): their own leads in any group, the columns about the lead
  // and its progress (no staff names, no notes)
  affiliate: {
    key: 'affiliate', path: '/affiliate', title: 'Leads', set: 'any', moves: [], agentField: 'agentId', own: true,
    columns: ['id', 'firstName', 'lastName', 'email', 'phone', 'country', 'status', 'registeredAt', 'city', 'depositedAt', 'funnelLink', 'reference', 'leadSourceId', 'ftdAt'],
  },
};

/**
 * The allowed group moves (docs/specs.md#crm-lead-lists): clients to sales, retentions or archived; sales to
 * retentions or archived; retentions to sales or archived; archived back to sales. A lead already
 * in the target group is left as it is.
 */
export const MOVES_FROM: Record<LeadGroup, LeadGroup[]> = {
  sales: ['retentions', 'archived'],
  retentions: ['sales', 'archived'],
  archived: ['sales'],
};

/** Whether a screen may send its leads to `target` for this role: the screen offers it, and agents never send to sales. */
export function moveAllowed(screen: Screen, target: LeadGroup, roleId: number): boolean {
  if (!screen.moves.includes(target)) return false;
  if (isAgent(roleId) && target === 'sales') return false;
  return true;
}

/** The groups a lead may come from when moved to `target` from this screen. */
export function sourceGroups(screen: Screen, target: LeadGroup): LeadGroup[] {
  if (screen.set === 'clients') return (['sales', 'retentions', 'archived'] as LeadGroup[]).filter((g) => g !== target);
  if (screen.set === 'any') return [];
  return MOVES_FROM[screen.set].includes(target) ? [screen.set] : [];
}

export const MOVE_LABELS: Record<ScreenKey | 'default', Partial<Record<LeadGroup, string>>> = {
  default: { sales: 'Send to Sales', retentions: 'Send to Retentions', archived: 'Bulk archive' },
  clients: { sales: 'Send to Sales', retentions: 'Send to Retentions', archived: 'Archive' },
  retention: { sales: 'Send to Sales', archived: 'Archive' },
  archived: { sales: 'Bulk Remove Archive' },
  affiliate: {}, 'sales-all': {}, 'sales-live': {}, 'sales-manual': {}, 'leads-live': {}, 'leads-manual': {}, 'leads-affiliate': {},
};

export function moveLabel(screen: ScreenKey, target: LeadGroup): string {
  return MOVE_LABELS[screen][target] ?? MOVE_LABELS.default[target]!;
}

/** The sortable columns (every column of docs/specs.md#crm-lead-lists but actions) and their SQL column. */
export const SORT_COLUMNS = {
  id: 'id', firstName: 'first_name', lastName: 'last_name', email: 'email', phone: 'phone', notes: 'first_note',
  country: 'country', status: 'lead_status', group: 'group', manager: 'manager_id', agent: 'agent_id',
  registeredAt: 'created_at', city: 'city', retAgent: 'ret_id', depositedAt: 'deposited_at', lastAccess: 'last_access',
  funnelLink: 'funnel_link', reference: 'reference', leadSourceId: 'lead_source_id', ftdAt: 'ftd_at', affiliator: 'affiliate_id',
} as const;
export type SortKey = keyof typeof SORT_COLUMNS;
export const SORTABLE = Object.keys(SORT_COLUMNS) as SortKey[];
/**
 * The columns a masked agent sees masked (email, phone): they do not sort for that agent, since the
 * order alone would tell the hidden values (issue 22). The server ignores such a sort (listLeads)
 * and the table does not offer it.
 */
export const MASKED_SORTS: readonly SortKey[] = ['email', 'phone'];

/** Above this many matching leads the total is PostgreSQL's estimate (the page says so). */
export const EXACT_COUNT_LIMIT = 5_000;
/** Pages reach this many rows deep (bounded pagination); the reverse sort or a filter reaches the rest. */
export const MAX_DEPTH = 10_000;
