// The add-user and edit-user forms (docs/specs.md#customers-and-staff-lists): one zod schema each,
// shared by the dialog (Conform's onValidate, in the browser) and the actions. Messages are i18n
// keys. The whitelist's addresses are checked on the server (node:net, users.server.ts), the
// browser only bounds its length.
import { z } from 'zod';
import { RECORD_ID, parseIntent } from '~/shared/forms.ts';
import { checkbox } from '~/modules/catalog/numbers.ts';
import { ROLE } from '~/shared/roles.ts';

export const ROLE_NAMES: Record<number, string> = {
  1: 'Admin', 2: 'Manager', 3: 'Customer', 4: 'Affiliator', 5: 'Agent', 6: 'Retention Agent',
};
/** Roles the add-user form offers (the spec: 1 to 6). */
export const ALL_ROLES = [ROLE.admin, ROLE.manager, ROLE.customer, ROLE.affiliate, ROLE.sales, ROLE.retention] as const;
/** Roles of Admin & Staffs and of its edit form (the spec: 1, 2, 4, 5, 6). */
export const STAFF_ROLES = [ROLE.admin, ROLE.manager, ROLE.affiliate, ROLE.sales, ROLE.retention] as const;

/** Where the add-user modal sits: the spec's second path segment ('users': admin users, else customers). */
export type UserListKind = 'customers' | 'users';

const fullName = z.string({ required_error: 'Full name is required' }).trim().min(1, 'Full name is required').max(200, 'Full name allows at most 200 characters');
const email = z.string({ required_error: 'Email is required' }).trim().max(254, 'Invalid email').email('Invalid email').transform((v) => v.toLowerCase());
const password = z.string({ required_error: 'Password is required' }).min(8, 'Password must be at least 8 characters').max(200, 'Password is too long');
const role = (roles: readonly number[]) => z.number({ required_error: 'Role is required', invalid_type_error: 'Role is required' })
  .int().refine((n) => roles.includes(n), { message: 'Choose one of the roles offered' });

export const AddUserSchema = z.object({
  fullName, email, password,
  roleId: role(ALL_ROLES),
  isEmailVerified: checkbox,
  isActive: checkbox,
});

/** At most this many whitelist entries (each an address or a CIDR range). */
export const MAX_WHITELIST = 50;

export const EditUserSchema = z.object({
  id: RECORD_ID,
  fullName, email,
  /** empty keeps the password */
  password: password.optional(),
  roleId: role(STAFF_ROLES),
  isEmailVerified: checkbox,
  isActive: checkbox,
  whitelist: z.string().max(2000, 'The whitelist is too long').optional().transform((v) => v ?? ''),
});

export const DeleteUserSchema = z.object({ id: RECORD_ID });

export const USER_ACTIONS = { add: AddUserSchema, edit: EditUserSchema, delete: DeleteUserSchema };
export const CUSTOMER_ACTIONS = { add: AddUserSchema, delete: DeleteUserSchema };

export const parseUserForm = (payload: FormData) => parseIntent(payload, USER_ACTIONS);
export const parseCustomerForm = (payload: FormData) => parseIntent(payload, CUSTOMER_ACTIONS);

export type AddUser = z.output<typeof AddUserSchema>;
export type EditUser = z.output<typeof EditUserSchema>;

/** The list's sortable columns (each backed by an index: migrations/1733000000000_user-lists.sql). */
export const USER_SORTABLE = ['id', 'full_name', 'email'] as const;

export const USER_TOASTS = {
  added: 'User added successfully',
  updated: 'User updated successfully',
  deleted: 'User deleted successfully',
  // the customers' lists word it as the spec does (docs/specs.md#customers-and-staff-lists)
  customersDeleted: 'Customers deleted successfully',
} as const;

export const USER_MESSAGES = {
  notFound: 'User not found',
  emailTaken: 'This email is already registered.',
  lastAdmin: 'At least one active admin must remain: make another user an active admin first.',
  selfDelete: 'You cannot delete your own account.',
  selfDemote: 'You cannot change your own role.',
  selfDeactivate: 'You cannot deactivate your own account.',
  openPositions: 'This customer has open positions: close them before deleting the customer.',
  money: 'This customer has money in a wallet: withdraw or adjust it to zero before deleting the customer.',
  pendingWithdrawals: 'This customer has pending withdrawals: decide them before deleting the customer.',
  roleNotAllowed: 'Only an admin can add staff users.',
  whitelistInvalid: 'Enter IP addresses or CIDR ranges separated by commas, like 203.0.113.5, 10.0.0.0/8',
  whitelistBadEntry: 'Not an IP address or CIDR range: {{entry}}',
  whitelistTooMany: 'The whitelist allows at most 50 entries',
  whitelistSelf: 'Your own whitelist must include the address you are using now.',
} as const;
