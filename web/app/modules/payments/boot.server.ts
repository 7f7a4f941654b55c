// What the payments module runs in a web process (called once from entry.server.tsx): the mock
// providers under MOCKS=1, and the reconciliation job of pending card deposits (every minute; one
// process at a time does the work, by an advisory lock), and the payout job (payouts.server.ts).
import { db } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { startMockProviders } from './mocks.server.ts';
import { startReconcileJob } from './payments.server.ts';
import { startPayoutJob } from './payouts.server.ts';

let booted = false;

export function bootPayments(): void {
  if (booted || env().NODE_ENV === 'test') return;
  booted = true;
  const sql = db();
  startMockProviders().catch((e) => console.error('[payments] mock providers failed to start', e));
  startReconcileJob(sql);
  startPayoutJob(sql);
}
