// The roles of `users.role_id` by name (docs/specs.md#navigation-and-roles), shared by the engine and
// the web (`web/app/shared/roles.ts` re-exports them): the one place the role numbers are written.
// Code asks about a role through a name or a capability below, never through a bare number
// (eslint.config.js refuses one). Plain values only: the browser bundles this file.

export const ROLE = { admin: 1, manager: 2, customer: 3, affiliate: 4, sales: 5, retention: 6 } as const;
export type RoleName = keyof typeof ROLE;
export type RoleId = (typeof ROLE)[RoleName];

export const ALL_ROLES: readonly RoleId[] = [ROLE.admin, ROLE.manager, ROLE.customer, ROLE.affiliate, ROLE.sales, ROLE.retention];
/** Everyone but customers: the back-office's users. */
export const STAFF_ROLES: readonly RoleId[] = [ROLE.admin, ROLE.manager, ROLE.affiliate, ROLE.sales, ROLE.retention];
/** Admins and managers: money, every customer, the CRM's assignments. */
export const BACK_OFFICE_ROLES = [ROLE.admin, ROLE.manager] as const;
/** Sales and retention agents: the CRM's agents, who see contacts masked unless the site allows them. */
export const AGENT_ROLES = [ROLE.sales, ROLE.retention] as const;
/** The staff who open customer records (which customers is the web's requireCustomerRecord). */
export const CUSTOMER_RECORD_ROLES = [ROLE.admin, ROLE.manager, ROLE.sales, ROLE.retention] as const;

const within = (roles: readonly number[]) => (roleId: number | null | undefined): boolean => roles.includes(Number(roleId));

export const isAdmin = (roleId: number | null | undefined): boolean => Number(roleId) === ROLE.admin;
export const isManager = (roleId: number | null | undefined): boolean => Number(roleId) === ROLE.manager;
export const isCustomer = (roleId: number | null | undefined): boolean => Number(roleId) === ROLE.customer;
export const isAffiliate = (roleId: number | null | undefined): boolean => Number(roleId) === ROLE.affiliate;
export const isSalesAgent = (roleId: number | null | undefined): boolean => Number(roleId) === ROLE.sales;
export const isRetentionAgent = (roleId: number | null | undefined): boolean => Number(roleId) === ROLE.retention;
/** Any role but customer. */
export const isStaff = within(STAFF_ROLES);
/** Admin or manager: the back-office proper (money, every customer, CRM assignments and imports). */
export const isBackOffice = within(BACK_OFFICE_ROLES);
/** A sales or retention agent. */
export const isAgent = within(AGENT_ROLES);
/** May open customer records (admins, managers, sales and retention agents). */
export const opensCustomerRecords = within(CUSTOMER_RECORD_ROLES);
