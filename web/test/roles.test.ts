// Roles by name (issue 23): ROLE and the capabilities agree with the permission map's labels and
// the rules of docs/specs.md#navigation-and-roles and docs/specs.md#customer-records.
import { describe, expect, test } from 'vitest';
import {
  ALL_ROLES, AGENT_ROLES, BACK_OFFICE_ROLES, ROLE, ROLE_LABELS, STAFF_ROLES, isAdmin, isAffiliate, isAgent, isBackOffice,
  isCustomer, isManager, isRetentionAgent, isSalesAgent, isStaff, opensCustomerRecords,
} from '~/modules/auth/permissions.ts';
import { TRACK_ROLES } from '@broker/engine/contract/ticket';

describe('role names', () => {
  test('each name is the role its label says', () => {
    expect(Object.fromEntries(Object.entries(ROLE).map(([name, id]) => [name, ROLE_LABELS[id]]))).toEqual({
      admin: 'Admin', manager: 'Manager', customer: 'Customer', affiliate: 'Affiliator', sales: 'Agent', retention: 'Retention Agent',
    });
    expect([...ALL_ROLES].sort()).toEqual(Object.values(ROLE).sort());
  });

  test('the capabilities', () => {
    const which = (f: (r: number) => boolean) => ALL_ROLES.filter((r) => f(r));
    expect(which(isStaff)).toEqual([...STAFF_ROLES]);
    expect(which(isCustomer)).toEqual([ROLE.customer]);
    expect(which(isBackOffice)).toEqual([...BACK_OFFICE_ROLES]);
    expect(which(isAgent)).toEqual([...AGENT_ROLES]);
    expect(which(opensCustomerRecords)).toEqual([ROLE.admin, ROLE.manager, ROLE.sales, ROLE.retention]);
    expect([...TRACK_ROLES]).toEqual(which(opensCustomerRecords));
    for (const [f, role] of [[isAdmin, ROLE.admin], [isManager, ROLE.manager], [isAffiliate, ROLE.affiliate], [isSalesAgent, ROLE.sales], [isRetentionAgent, ROLE.retention]] as const) {
      expect(which(f)).toEqual([role]);
    }
    // database rows may carry the role as a string; nothing is a role
    expect(isCustomer('3' as unknown as number)).toBe(true);
    expect(isStaff(null)).toBe(false);
    expect(isStaff(undefined)).toBe(false);
  });
});
