// The CRM's background jobs of a web process (called once from entry.server.tsx): the lead-import
// job resumes an import a dead process left running (stale heartbeat) and runs queued ones
// (import.server.ts); the phone backfill gives older leads their E.164 key (phone-backfill.server.ts).
import { db } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { startImportJob } from './import.server.ts';
import { startPhoneBackfillJob } from './phone-backfill.server.ts';

let booted = false;

export function bootLeadImports(): void {
  if (booted || env().NODE_ENV === 'test') return;
  booted = true;
  startImportJob(db());
  startPhoneBackfillJob(db());
}
