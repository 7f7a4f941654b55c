// Identity verification (docs/specs.md#kyc): a customer's documents and the staff's decisions.
// The one home of these rules; /kyc and /admin/kyc call it.
//
// - A document's files went through the upload service (kinds kyc_front / kyc_back / kyc_address)
//   and must be the customer's own uploads of the matching kind.
// - A customer submits only when they have no document, or their latest one was declined: one
//   under review or approved refuses a new one. A resubmission is a new row; the declined one
//   stays for the audit.
// - Staff decide only a customer's latest document, relative to the status they saw: of two
//   decisions made on the same sight (an approve and a decline in parallel) one acts, the other
//   is told what happened. Approve unless approved; decline always, with a reason. Every
//   decision is audited and the customer is notified, live once it is committed.
// - Whether a customer is verified is money.server.ts's isKycApproved (an approved document);
//   since only the latest document can be approved, that is the latest one's status.
import type { Db, Sql } from '~/shared/db.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { refuse, type Refusal } from '~/shared/result.server.ts';
import { auditLoginAs, type ChangeSource } from '~/modules/auth/impersonation.server.ts';
import { addNotification, notifyStaff, publishNotices, type Notice } from '~/shared/notify.server.ts';
import { boundedCount, SEARCH_COUNT_LIMIT } from '~/shared/bounded-count.server.ts';
import { EXACT_COUNT_LIMIT } from '~/shared/count-limits.ts';
import { prefixMatch } from '~/shared/prefix-search.server.ts';
import { KYC_FILE_FIELDS, KYC_REASON_MAX, KYC_TYPES, type KycDocument, type KycFile, type KycFileField, type KycFiles, type KycStatus } from './kyc.ts';
import { ROLE } from '~/shared/roles.ts';

export type { KycDocument, KycFile, KycFiles };

/** A request refused: nothing changed. `field` names the form field the message belongs under. */


/** The columns of a document with its three files (uploads joined as f, b, a). */
const FILE_COLUMNS = (sql: Sql) => sql`
  f.id AS front_id, f.original_name AS front_name, f.mime AS front_mime,
  b.id AS back_id, b.original_name AS back_name, b.mime AS back_mime,
  a.id AS address_id, a.original_name AS address_name, a.mime AS address_mime`;
const FILE_JOINS = (sql: Sql) => sql`
  LEFT JOIN uploads f ON f.id = k.front_upload_id
  LEFT JOIN uploads b ON b.id = k.back_upload_id
  LEFT JOIN uploads a ON a.id = k.address_upload_id`;

function filesOf(r: Record<string, unknown>): KycFiles {
  const one = (p: KycFileField): KycFile | null => r[`${p}_id`] == null ? null : {
    id: Number(r[`${p}_id`]), name: String(r[`${p}_name`]), image: String(r[`${p}_mime`]).startsWith('image/'),
  };
  return { front: one('front'), back: one('back'), address: one('address') };
}

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : null);

/** The customer's latest document (what /kyc shows), or null when they never submitted one. */
export async function latestKyc(sql: Sql, userId: number): Promise<KycDocument | null> {
  const [r] = await sql`
    SELECT k.id, k.type, k.status, k.decline_reason, k.created_at, k.decided_at, ${FILE_COLUMNS(sql)}
      FROM kyc_documents k ${FILE_JOINS(sql)}
     WHERE k.user_id = ${userId}
     ORDER BY k.id DESC LIMIT 1`;
  if (!r) return null;
  return {
    id: Number(r.id), type: r.type, status: r.status, declineReason: r.decline_reason ?? null,
    createdAt: iso(r.created_at)!, decidedAt: iso(r.decided_at), files: filesOf(r),
  };
}

/** Why the customer may not submit now (a document under review, or approved), else null. */
export function submitRefusal(latest: { status: KycStatus } | null | undefined): Refusal | null {
  if (latest?.status === 'pending') return refuse(409, 'Your documents are under review');
  if (latest?.status === 'approved') return refuse(409, 'Your KYC is already approved');
  return null;
}

export interface KycSubmission {
  userId: number;
  type: string;
  /** upload ids from the upload service; front is required, back and address are optional */
  front?: number | null;
  back?: number | null;
  address?: number | null;
  /** the request's session: inside login-as the submission is audited with the staff member as actor */
  source?: ChangeSource;
}

/** Serialises a customer's submissions and the decisions on their documents. */
const lockCustomer = (sql: Db, userId: number) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${'broker.kyc:' + userId}, 0))`;

/** The staff's review page (the notifications' link): the documents waiting for a decision. */
export const STAFF_KYC_REVIEW = '/admin/kyc?status=pending';

/**
 * A new pending document: its files must be the customer's own uploads of the field's kind. The
 * admins (who review documents) are notified in its transaction.
 */
export async function submitKyc(sql: Sql, s: KycSubmission): Promise<{ ok: true; id: number } | Refusal> {
  if (!(KYC_TYPES as readonly string[]).includes(s.type)) return refuse(400, 'Document type is required', 'type');
  if (s.front == null) return refuse(400, 'Front side is required', 'front');
  const wanted = (Object.keys(KYC_FILE_FIELDS) as KycFileField[]).filter((f) => s[f] != null);
  for (const field of wanted) {
    const id = s[field];
    if (!Number.isSafeInteger(id) || id! < 1) return refuse(400, 'File not found', field);
  }
  const notices: Notice[] = [];
  const result = await sql.begin(async (tx) => {
    await lockCustomer(tx, s.userId);
    const [latest] = await tx`SELECT status FROM kyc_documents WHERE user_id = ${s.userId} ORDER BY id DESC LIMIT 1`;
    const refused = submitRefusal(latest as { status: KycStatus } | undefined);
    if (refused) return refused;
    const ids = wanted.map((f) => s[f]!);
    const owned = await tx`SELECT id, kind FROM uploads WHERE id = ANY(${ids}::bigint[]) AND owner_id = ${s.userId}`;
    for (const field of wanted) {
      // someone else's upload, or one of another kind, is answered as if it did not exist
      if (!owned.some((u) => Number(u.id) === s[field] && u.kind === KYC_FILE_FIELDS[field])) return refuse(400, 'File not found', field);
    }
    const [row] = await tx`
      INSERT INTO kyc_documents (user_id, type, front_upload_id, back_upload_id, address_upload_id)
      VALUES (${s.userId}, ${s.type}, ${s.front ?? null}, ${s.back ?? null}, ${s.address ?? null})
      RETURNING id, (SELECT full_name FROM users WHERE id = ${s.userId}) AS customer`;
    const id = Number(row.id);
    // docs/specs.md#login-as: a submission inside login-as is audited, in its transaction
    if (s.source) {
      await auditLoginAs(tx, s.source.session, 'kyc.submit', {
        after: { kycId: id, type: s.type, front: s.front ?? null, back: s.back ?? null, address: s.address ?? null }, ip: s.source.ip,
      });
    }
    notices.push(...await notifyStaff(tx, { roles: [ROLE.admin] }, {
      title: `KYC document #${id} to review`,
      description: `${row.customer} uploaded a document (${s.type}).`,
      url: STAFF_KYC_REVIEW,
      data: { kind: 'kyc.submitted', id, type: s.type, customer: String(row.customer) },
    }));
    return { ok: true as const, id };
  }).catch((e: { code?: string; constraint_name?: string }) => {
    // the lock above makes this unreachable; the index stays the last word if it ever is not
    if (e.code === '23505' && e.constraint_name === 'kyc_documents_open_key') return refuse(409, 'Your documents are under review');
    throw e;
  });
  if (result.ok) await publishNotices(notices);
  return result;
}

// ---------------------------------------------------------------- staff list

export interface KycListQuery {
  offset: number;
  limit: number;
  sort: string;
  dir: 'asc' | 'desc';
  search: string;
  status: 'all' | KycStatus;
  dateStart: string;
  dateEnd: string;
}

/** Columns the staff list sorts by (each has an index): the id (default) and the upload date. */
export const KYC_SORTABLE = ['id', 'created_at'] as const;

export interface KycListRow extends KycDocument {
  userId: number;
  fullName: string;
  email: string;
  /** the customer's latest document: the only one staff may decide */
  latest: boolean;
}

function listWhere(sql: Sql, q: KycListQuery) {
  const term = q.search.trim().toLowerCase();
  return sql`TRUE
    ${q.status !== 'all' ? sql`AND k.status = ${q.status}` : sql``}
    ${q.dateStart ? sql`AND k.created_at >= ${q.dateStart}::date` : sql``}
    ${q.dateEnd ? sql`AND k.created_at < ${q.dateEnd}::date + 1` : sql``}
    ${term ? sql`AND k.user_id IN (SELECT id FROM users WHERE ${prefixMatch(sql, sql`lower(full_name)`, term)} OR ${prefixMatch(sql, sql`email`, term)})` : sql``}`;
}

/**
 * The staff's list: every document (declined ones stay), newest first by default, filtered by
 * status, upload date and the customer's name or e-mail (prefix, indexed). The page's ids are
 * found first, then only those rows are joined to their customer and files.
 */
export async function listKyc(sql: Sql, q: KycListQuery): Promise<{ total: number; estimated: boolean; countLimit: number; rows: KycListRow[] }> {
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const order = q.sort === 'created_at' ? sql`k.created_at ${dir}, k.id ${dir}` : sql`k.id ${dir}`;
  const countLimit = q.search.trim() ? SEARCH_COUNT_LIMIT : EXACT_COUNT_LIMIT;
  const [rows, count] = await Promise.all([
    sql`
      WITH page AS (
        SELECT k.id FROM kyc_documents k WHERE ${listWhere(sql, q)}
         ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset})
      SELECT k.id, k.user_id, k.type, k.status, k.decline_reason, k.created_at, k.decided_at, u.full_name, u.email,
             NOT EXISTS (SELECT 1 FROM kyc_documents n WHERE n.user_id = k.user_id AND n.id > k.id) AS latest,
             ${FILE_COLUMNS(sql)}
        FROM page JOIN kyc_documents k ON k.id = page.id JOIN users u ON u.id = k.user_id ${FILE_JOINS(sql)}
       ORDER BY ${order}`,
    // the total: exact up to EXACT_COUNT_LIMIT documents (SEARCH_COUNT_LIMIT while searched), then
    // estimated, and the page says so (shared/bounded-count.server.ts)
    boundedCount(sql, sql`kyc_documents k`, listWhere(sql, q), countLimit),
  ]);
  const seen = q.offset + rows.length + (count.estimated && rows.length === q.limit ? 1 : 0);
  return {
    total: count.estimated ? Math.max(count.total, seen) : count.total, estimated: count.estimated, countLimit,
    rows: rows.map((r): KycListRow => ({
      id: Number(r.id), userId: Number(r.user_id), type: r.type, status: r.status, declineReason: r.decline_reason ?? null,
      createdAt: iso(r.created_at)!, decidedAt: iso(r.decided_at), files: filesOf(r),
      fullName: r.full_name, email: r.email, latest: r.latest === true,
    })),
  };
}

// ---------------------------------------------------------------- staff decisions

export interface KycDecision {
  id: number;
  actorId: number;
  ip?: string | null;
  decision: 'approve' | 'decline';
  /** the status the staff member saw: a decision made meanwhile by someone else is not overridden */
  from: KycStatus;
  /** required to decline */
  reason?: string | null;
}

const alreadyDecided = (status: KycStatus) => status === 'approved'
  ? refuse(409, 'This document was already approved')
  : status === 'declined' ? refuse(409, 'This document was already declined') : refuse(409, 'This document changed meanwhile');

/**
 * A staff member approves or declines a customer's latest document. The customer and the row are
 * locked first, so parallel decisions and a resubmission never interleave.
 */
export async function decideKyc(sql: Sql, d: KycDecision): Promise<{ ok: true; status: 'approved' | 'declined'; id: number } | Refusal> {
  if (!Number.isSafeInteger(d.id) || d.id < 1) return refuse(404, 'Document not found');
  const reason = d.decision === 'decline' ? d.reason?.trim() || null : null;
  if (d.decision === 'decline' && !reason) return refuse(400, 'Decline reason is required', 'declineReason');
  if (reason && reason.length > KYC_REASON_MAX) return refuse(400, 'Decline reason allows at most 500 characters', 'declineReason');

  const [owner] = await sql`SELECT user_id FROM kyc_documents WHERE id = ${d.id}`;
  if (!owner) return refuse(404, 'Document not found');
  const userId = Number(owner.user_id);

  const notices: Notice[] = [];
  const result = await sql.begin(async (tx) => {
    await lockCustomer(tx, userId);
    const [row] = await tx`SELECT id, user_id, type, status, decline_reason FROM kyc_documents WHERE id = ${d.id} FOR UPDATE`;
    if (!row) return refuse(404, 'Document not found');
    const [latest] = await tx`SELECT max(id) AS id FROM kyc_documents WHERE user_id = ${userId}`;
    if (Number(latest.id) !== d.id) return refuse(409, 'The customer has submitted a newer document');
    if (row.status !== d.from) return alreadyDecided(row.status);
    if (d.decision === 'approve' && row.status === 'approved') return alreadyDecided('approved');

    const status = d.decision === 'approve' ? 'approved' : 'declined';
    await tx`UPDATE kyc_documents SET status = ${status}, decline_reason = ${reason}, decided_by = ${d.actorId}, decided_at = now()
              WHERE id = ${d.id}`;
    await audit(tx, {
      actorId: d.actorId, action: `kyc.${d.decision}`, targetKind: 'kyc_document', targetId: d.id, ip: d.ip,
      before: { status: row.status, declineReason: row.decline_reason ?? null },
      after: { status, declineReason: reason, userId, type: row.type },
    });
    notices.push(await addNotification(tx, userId, {
      title: status === 'approved' ? 'KYC approved' : 'KYC declined',
      description: status === 'approved' ? 'Your identity is verified.' : `Reason: ${reason}`,
      url: '/kyc',
      data: { kind: 'kyc.decided', id: d.id, decision: status, reason },
    }));
    return { ok: true as const, status: status as 'approved' | 'declined', id: d.id };
  });
  if (result.ok) await publishNotices(notices);
  return result;
}
