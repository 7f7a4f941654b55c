// The audit trail page (/admin/audit): the filters (a GET form: they live in the URL, so other
// pages link to one target's history), the rows newest first with each row's changed fields in a
// popover, Newer / Older pages (keyset) and the CSV export of everything the filters select.
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Popover } from '~/components/ui/popover.tsx';
import { PAGE_SIZES } from '~/components/ui/list-params.ts';
import { useFormat } from '~/components/ui/format.ts';
import type { AuditChange, AuditRow, AuditFilters } from './audit-list.server.ts';

export interface AuditLoaderData {
  rows: AuditRow[];
  newer: boolean; older: boolean;
  count: number; countCapped: boolean;
  filters: AuditFilters;
  limit: number;
  choices: { actions: string[]; kinds: string[] };
  filterError: { field: string; message: string } | null;
}

/** The URL of the page with these parameters changed (null or '' removes one). */
function withParams(params: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(params);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') next.delete(k);
    else next.set(k, v);
  }
  const qs = next.toString();
  return qs ? `?${qs}` : '?';
}

export function AuditPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const data = useLoaderData<AuditLoaderData>();
  const [params] = useSearchParams();
  const exportParams = new URLSearchParams();
  for (const k of ['actor', 'action', 'targetKind', 'targetId', 'dateStart', 'dateEnd']) {
    const v = params.get(k);
    if (v) exportParams.set(k, v);
  }
  const exportQs = exportParams.toString();
  const first = data.rows[0], last = data.rows[data.rows.length - 1];
  return (
    <section className="page audit-page">
      <h1 className="page-title">{t('Audit Trail')}</h1>
      <AuditFiltersForm />
      {data.filterError ? <p className="field-error" role="alert" id="audit-filter-error">{t(data.filterError.message)}</p> : null}
      <div className="data-table">
        <div className="table-toolbar">
          <span className="muted" aria-live="polite">
            {data.countCapped
              ? t('More than {{n}} events', { n: f.amount(data.count) })
              : t('{{n}} events', { n: f.amount(data.count) })}
          </span>
          <div className="table-toolbar-right">
            <a className="btn btn-sm btn-ghost" href={`/admin/audit/export${exportQs ? `?${exportQs}` : ''}`} download>{t('Export CSV')}</a>
          </div>
        </div>
        <div className="table-scroll">
          <table className="audit-table">
            <caption className="sr-only">{t('Audit Trail')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Time')}</th>
                <th scope="col">{t('Actor')}</th>
                <th scope="col">{t('Action')}</th>
                <th scope="col">{t('Target')}</th>
                <th scope="col">{t('Changes')}</th>
                <th scope="col">{t('IP')}</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.length === 0 ? (
                <tr><td colSpan={6} className="table-empty">{t('No data found')}</td></tr>
              ) : data.rows.map((r) => (
                <tr key={r.id}>
                  <td className="audit-time"><time dateTime={r.createdAt}>{f.dateTime(r.createdAt)}</time><span className="muted">#{r.id}</span></td>
                  <td>
                    {r.actorId === null ? <span className="muted">{t('System')}</span> : (
                      <Link to={withParams(params, { actor: String(r.actorId), after: null, before: null })} className="audit-actor"
                        title={t('Only this actor\'s events')}>
                        {r.actorEmail ?? `#${r.actorId}`}
                      </Link>
                    )}
                  </td>
                  <td><code className="audit-action">{r.action}</code></td>
                  <td>
                    <Link to={withParams(params, { targetKind: r.targetKind, targetId: r.targetId, after: null, before: null })}
                      title={t('Only this target\'s events')}>
                      {r.targetKind}{r.targetId ? ` #${r.targetId}` : ''}
                    </Link>
                  </td>
                  <td><Changes row={r} /></td>
                  <td className="muted">{r.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="table-footer">
          <span />
          <nav className="pager" aria-label={t('Pagination')}>
            {data.newer && first
              ? <Link className="btn btn-ghost btn-sm" to={withParams(params, { before: String(first.id), after: null })} preventScrollReset>‹ {t('Newer')}</Link>
              : <span className="btn btn-ghost btn-sm" aria-disabled="true">‹ {t('Newer')}</span>}
            {data.older && last
              ? <Link className="btn btn-ghost btn-sm" to={withParams(params, { after: String(last.id), before: null })} preventScrollReset>{t('Older')} ›</Link>
              : <span className="btn btn-ghost btn-sm" aria-disabled="true">{t('Older')} ›</span>}
          </nav>
        </div>
      </div>
    </section>
  );
}

function Changes({ row }: { row: AuditRow }) {
  const { t } = useTranslation();
  if (row.changes.length === 0) return <span className="muted">—</span>;
  return (
    <Popover label={t('{{count}} changed', { count: row.changes.length })} title={t('Changes of event #{{id}}', { id: row.id })}>
      <ChangeTable changes={row.changes} />
    </Popover>
  );
}

function ChangeTable({ changes }: { changes: AuditChange[] }) {
  const { t } = useTranslation();
  return (
    <dl className="audit-diff">
      {changes.map((c) => (
        <div key={c.field || '-'}>
          <dt>{c.field || t('Value')}</dt>
          <dd>
            <span className="sr-only">{t('Before')}: </span><del>{c.before ?? '∅'}</del>
            <span aria-hidden="true"> → </span>
            <span className="sr-only">{t('After')}: </span><ins>{c.after ?? '∅'}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The filters, a GET form: they go to the URL and the pages start again from the newest. */
function AuditFiltersForm() {
  const { t } = useTranslation();
  const data = useLoaderData<AuditLoaderData>();
  const fv = data.filters;
  const err = data.filterError;
  const invalid = (name: string) => (err?.field === name ? { 'aria-invalid': true, 'aria-describedby': 'audit-filter-error' } : {});
  const active = Object.values(fv).some(Boolean);
  const options = (list: string[], current: string) => (current && !list.includes(current) ? [...list, current] : list);
  return (
    <Form method="get" className="card audit-filters" aria-label={t('Filter')}>
      <div className="field">
        <label htmlFor="audit-actor">{t('Actor')}</label>
        <input id="audit-actor" name="actor" type="text" defaultValue={fv.actor} placeholder={t('User ID or email')} autoComplete="off" {...invalid('actor')} />
      </div>
      <div className="field">
        <label htmlFor="audit-action">{t('Action')}</label>
        <select id="audit-action" name="action" defaultValue={fv.action} {...invalid('action')}>
          <option value="">{t('All actions')}</option>
          {options(data.choices.actions, fv.action).map((a) => <option key={a} value={a}>{a}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-kind">{t('Target kind')}</label>
        <select id="audit-kind" name="targetKind" defaultValue={fv.targetKind} {...invalid('targetKind')}>
          <option value="">{t('All targets')}</option>
          {options(data.choices.kinds, fv.targetKind).map((k) => <option key={k} value={k}>{k}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-target">{t('Target ID')}</label>
        <input id="audit-target" name="targetId" type="text" defaultValue={fv.targetId} autoComplete="off" {...invalid('targetId')} />
      </div>
      <div className="field">
        <label htmlFor="audit-from">{t('From')}</label>
        <input id="audit-from" name="dateStart" type="date" defaultValue={fv.dateStart} {...invalid('dateStart')} />
      </div>
      <div className="field">
        <label htmlFor="audit-to">{t('To')}</label>
        <input id="audit-to" name="dateEnd" type="date" defaultValue={fv.dateEnd} {...invalid('dateEnd')} />
      </div>
      <div className="field">
        <label htmlFor="audit-limit">{t('Rows per page')}</label>
        <select id="audit-limit" name="limit" defaultValue={String(data.limit)}>
          {PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </div>
      <div className="audit-filter-buttons">
        <button type="submit" className="btn btn-primary">{t('Filter')}</button>
        {active || err ? <Link className="btn btn-ghost" to="?">{t('Clear')}</Link> : null}
      </div>
    </Form>
  );
}
