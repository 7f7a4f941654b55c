// The demo sign-ins, one per role. `npm start` prints them; seeds/demo.ts creates them.
import { ROLE } from '../engine/src/contract/roles.ts';

export const DEMO_PASSWORD = 'Demo-1234';

export const demoUsers = [
  { key: 'admin', email: 'admin@demo.broker', fullName: 'Ada Admin', roleId: ROLE.admin },
  { key: 'manager', email: 'manager@demo.broker', fullName: 'Max Manager', roleId: ROLE.manager },
  { key: 'affiliate', email: 'affiliate@demo.broker', fullName: 'Fay Affiliate', roleId: ROLE.affiliate },
  { key: 'sales', email: 'sales@demo.broker', fullName: 'Sam Sales', roleId: ROLE.sales },
  { key: 'retention', email: 'retention@demo.broker', fullName: 'Rita Retention', roleId: ROLE.retention },
  { key: 'alice', email: 'alice@demo.broker', fullName: 'Alice Customer', roleId: ROLE.customer },
  { key: 'bob', email: 'bob@demo.broker', fullName: 'Bob Customer', roleId: ROLE.customer },
] as const;

export const roleNames: Record<number, string> = {
  1: 'admin', 2: 'manager', 3: 'customer', 4: 'affiliate', 5: 'sales agent', 6: 'retention agent',
};

/** Language codes the demo data ships; seeds/translations/{code}.json holds each one's strings. */
export const demoLanguages = [
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
  { code: 'fr', name: 'Français' },
  { code: 'de', name: 'Deutsch' },
] as const;
