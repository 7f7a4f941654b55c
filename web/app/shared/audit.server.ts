// The append-only audit trail (docs/specs.md#audit): one row per staff action that changes data.
import type { Db } from '~/shared/db.server.ts';

export interface AuditEvent {
  actorId: number | null;
  action: string;
  targetKind: string;
  targetId?: string | number | null;
  before?: unknown;
  after?: unknown;
  ip?: string | null;
}

export async function audit(sql: Db, e: AuditEvent): Promise<void> {
  await sql`INSERT INTO audit_events (actor_id, action, target_kind, target_id, before, after, ip)
            VALUES (${e.actorId}, ${e.action}, ${e.targetKind}, ${e.targetId == null ? null : String(e.targetId)},
                    ${e.before === undefined ? null : sql.json(e.before as never)},
                    ${e.after === undefined ? null : sql.json(e.after as never)}, ${e.ip ?? null})`;
}
