// The lead-import job of a web process (called once from entry.server.tsx): resumes an import a
// dead process left running (stale heartbeat) and runs queued ones (import.server.ts).
import { db } from '~/utils/db.server.ts';
import { env } from '~/utils/env.server.ts';
import { startImportJob } from './import.server.ts';

let booted = false;

export function bootLeadImports(): void {
  if (booted || env().NODE_ENV === 'test') return;
  booted = true;
  startImportJob(db());
}
