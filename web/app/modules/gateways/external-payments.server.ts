// The admin's external payments (/admin/externalPayments; docs/specs.md#payment-gateways):
// off-platform payment links the customer's Deposit tab shows (modules/money/deposits.server.ts
// externalPayments). Server-paged list, add and edit (multipart: the logo through the upload
// service), delete after confirmation; each change audited in its transaction.
import type { Sql } from '~/shared/db.server.ts';
import { prefixMatch } from '~/shared/prefix-search.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { refuse, replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { discardUploads, type StoredUpload } from '~/modules/uploads/uploads.server.ts';
import { uploadHref } from '~/modules/uploads/href.ts';
import { EXTERNAL_PAYMENT_ACTIONS, type ExternalPaymentInput } from './external-schemas.ts';

const SORTS = { id: 'id', name: 'name' } as const;
export const EXTERNAL_PAYMENT_SORTS = Object.keys(SORTS) as (keyof typeof SORTS)[];

export interface ExternalPaymentRow {
  id: number; name: string; link: string; logo: string | null; customLabel: string | null; customValue: string | null;
}

const rowOf = (r: Record<string, unknown>): ExternalPaymentRow => ({
  id: Number(r.id), name: String(r.name), link: String(r.link), logo: uploadHref(r.logo_path as string | null),
  customLabel: (r.custom_label as string | null) ?? null, customValue: (r.custom_value as string | null) ?? null,
});

/** One page of external payments; the search is a prefix of the name (index external_payments_name_idx). */
export async function listExternalPayments(sql: Sql, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>) {
  const term = q.search.trim().toLowerCase();
  const where = term ? sql`WHERE ${prefixMatch(sql, sql`lower(name)`, term)}` : sql``;
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const order = q.sort === 'name' ? sql`lower(name) ${dir}, id ${dir}` : sql`id ${dir}`;
  const [rows, [count]] = await Promise.all([
    sql`SELECT id, name, link, logo_path, custom_label, custom_value FROM external_payments ${where} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM external_payments ${where}`,
  ]);
  return { total: count.n as number, rows: rows.map(rowOf) };
}

const snapshot = (r: Record<string, unknown>) =>
  ({ name: r.name, link: r.link, logo_path: r.logo_path, custom_label: r.custom_label ?? null, custom_value: r.custom_value ?? null });

const notFound = () => refuse(404, 'External payment not found');

/** Creates (no id; a logo is required) or updates (a new logo only when one was uploaded) an external payment. */
export async function saveExternalPayment(sql: Sql, input: ExternalPaymentInput, logoUploadId: number | null, who: Actor): Promise<Outcome<{ id: number }>> {
  const columns: Record<string, unknown> = { name: input.name, link: input.link, custom_label: input.customLabel, custom_value: input.customValue };
  if (logoUploadId) columns.logo_path = `/uploads/${logoUploadId}`;
  return sql.begin(async (tx): Promise<Outcome<{ id: number }>> => {
    if (input.id === undefined) {
      if (!logoUploadId) return refuse(422, 'Logo is required', 'logo');
      const [row] = await tx`INSERT INTO external_payments ${tx(columns)} RETURNING *`;
      await audit(tx, { actorId: who.actorId, action: 'external_payment.create', targetKind: 'external_payment', targetId: row.id, after: snapshot(row), ip: who.ip });
      return { ok: true, toast: 'External payment added successfully', id: Number(row.id) };
    }
    const [before] = await tx`SELECT * FROM external_payments WHERE id = ${input.id} FOR UPDATE`;
    if (!before) return notFound();
    const [after] = await tx`UPDATE external_payments SET ${tx(columns)} WHERE id = ${input.id} RETURNING *`;
    await audit(tx, { actorId: who.actorId, action: 'external_payment.update', targetKind: 'external_payment', targetId: input.id, before: snapshot(before), after: snapshot(after), ip: who.ip });
    return { ok: true, toast: 'External payment updated successfully', id: input.id };
  });
}

export async function deleteExternalPayment(sql: Sql, id: number, who: Actor): Promise<Outcome> {
  return sql.begin(async (tx): Promise<Outcome> => {
    const [before] = await tx`DELETE FROM external_payments WHERE id = ${id} RETURNING *`;
    if (!before) return notFound();
    await audit(tx, { actorId: who.actorId, action: 'external_payment.delete', targetKind: 'external_payment', targetId: id, before: snapshot(before), ip: who.ip });
    return { ok: true, toast: 'Payment deleted successfully' };
  });
}

// ---------------------------------------------------------------- the route's loader and action
// (the route checks access and reads the URL and the form)

export function externalPaymentsLoader(sql: Sql, search: URLSearchParams) {
  return listExternalPayments(sql, listQuery(search, EXTERNAL_PAYMENT_SORTS));
}

/**
 * POST: save (id?, logo, name, link, customLabel, customValue) or delete (id), read by the route. `logo` is
 * the stored file of a multipart form, if one came: only such a file is a logo (a typed 'logo' field is
 * dropped); a refusal or a delete discards it.
 */
export async function externalPaymentsAction(sql: Sql, form: FormData, logo: StoredUpload | undefined, who: Actor) {
  if (logo) form.set('logo', String(logo.id));
  else form.delete('logo');
  const drop = () => discardUploads(sql, who.actorId, logo ? [logo.id] : []);
  const { intent, submission } = parseIntent(form, EXTERNAL_PAYMENT_ACTIONS, CATALOG_PARSE);
  if (submission.status !== 'success') {
    await drop();
    return replyRefused(submission, { intent });
  }
  const r = intent === 'delete'
    ? await deleteExternalPayment(sql, (submission.value as { id: number }).id, who)
    : await saveExternalPayment(sql, submission.value as ExternalPaymentInput, logo?.id ?? null, who);
  if (!r.ok || intent === 'delete') await drop();
  return replyOutcome(submission, r, intent);
}
