// The server-backed table (docs/specs.md#tables): the server pages, sorts and searches; the table's
// state lives in the URL (page, limit, sort, dir, search) so a page can be linked and reloaded.
// Page sizes 15/25/50 (default 15); changing size or search returns to page 1; search is
// debounced 1500 ms; default sort id descending; optional row selection including 'all'.
// The table renders its columns itself: the server pages, sorts and filters, so all a column is
// is a header and a cell (a general table library cost as much as the rest of the dashboard's
// positions: a table instance with every feature, for every render of fifteen rows).
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZES, DEFAULT_PAGE_SIZE, SEARCH_DEBOUNCE_MS, readListState } from './list-params.ts';

export type Selection = { all: true } | { all: false; ids: string[] };

/** One row as a cell sees it. */
export interface CellRow<T> { original: T; id: string; index: number }

/** A column: its id (the sort key sent to the server), header and cell. */
export interface ColumnDef<T> {
  id: string;
  header: ReactNode;
  cell: (ctx: { row: CellRow<T> }) => ReactNode;
  /** a header button sorts the list by this column's id on the server (default: not sortable) */
  enableSorting?: boolean;
}

export interface DataTableProps<T> {
  columns: ColumnDef<T>[];
  data: T[];
  total: number;
  /** the row's id (for selection and keys) */
  getRowId?: (row: T) => string;
  searchable?: boolean;
  selectable?: boolean;
  onSelectionChange?: (selection: Selection) => void;
  toolbar?: ReactNode;
  /** prefix of the URL parameters, for two tables on one page */
  paramPrefix?: string;
  caption?: string;
}

export function DataTable<T>({ columns, data, total, getRowId, searchable = true, selectable, onSelectionChange, toolbar, paramPrefix = '', caption }: DataTableProps<T>) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const state = readListState(params, paramPrefix);
  const p = (k: string) => paramPrefix + k;
  const [search, setSearch] = useState(state.search);
  const [rowSelection, setRowSelection] = useState<Record<string, boolean>>({});
  const [all, setAll] = useState(false);
  const first = useRef(true);

  const update = (changes: Record<string, string | null>) => {
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(changes)) {
        if (v === null || v === '') next.delete(p(k));
        else next.set(p(k), v);
      }
      return next;
    }, { preventScrollReset: true });
  };

  // debounced search, back to page 1
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (search === state.search) return;
    const h = setTimeout(() => update({ search, page: null }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(h);
  }, [search]); // eslint-disable-line react-hooks/exhaustive-deps -- debounce typing only; a URL change must not restart it

  // selection resets when the rows change
  useEffect(() => {
    setRowSelection({});
    setAll(false);
  }, [data]);

  const rows: CellRow<T>[] = data.map((original, index) => ({ original, index, id: getRowId ? getRowId(original) : String(index) }));
  const isSelected = (r: CellRow<T>) => !!selectable && rowSelection[r.id] === true;
  const allOnPage = rows.length > 0 && rows.every(isSelected);
  const someOnPage = !allOnPage && rows.some(isSelected);
  const selectPage = (on: boolean) => setRowSelection(on ? Object.fromEntries(rows.map((r) => [r.id, true])) : {});
  const selectRow = (r: CellRow<T>, on: boolean) => setRowSelection((cur) => {
    const next = { ...cur };
    if (on) next[r.id] = true;
    else delete next[r.id];
    return next;
  });

  useEffect(() => {
    if (!onSelectionChange) return;
    onSelectionChange(all ? { all: true } : { all: false, ids: Object.keys(rowSelection).filter((k) => rowSelection[k]) });
  }, [rowSelection, all]); // eslint-disable-line react-hooks/exhaustive-deps -- report selection changes, not a new callback identity

  const pages = Math.max(1, Math.ceil(total / state.limit));
  const toggleSort = (id: string) => {
    const dir = state.sort === id && state.dir === 'desc' ? 'asc' : 'desc';
    update({ sort: id, dir, page: null });
  };
  const width = columns.length + (selectable ? 1 : 0);

  return (
    <div className="data-table">
      <div className="table-toolbar">
        {searchable ? (
          <input type="search" className="table-search" placeholder={t('Search')} aria-label={t('Search')}
            value={search} onChange={(e) => setSearch(e.target.value)} />
        ) : <span />}
        <div className="table-toolbar-right">
          {toolbar}
          {selectable && !all && total > 0 ? (
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAll(true)}>{t('Select all {{count}}', { count: total })}</button>
          ) : null}
          {selectable && all ? <span className="muted">{t('All {{count}} selected', { count: total })}</span> : null}
        </div>
      </div>
      <div className="table-scroll">
        <table>
          {caption ? <caption className="sr-only">{caption}</caption> : null}
          <thead>
            <tr>
              {selectable ? (
                <th>
                  <input type="checkbox" aria-label={t('Select all rows on this page')} checked={all || allOnPage}
                    ref={(el) => { if (el) el.indeterminate = !all && someOnPage; }}
                    onChange={(e) => { setAll(false); selectPage(e.target.checked); }} />
                </th>
              ) : null}
              {columns.map((c) => {
                const sorted = state.sort === c.id ? state.dir : null;
                return (
                  <th key={c.id} aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                    {c.enableSorting ? (
                      <button type="button" className="th-sort" onClick={() => toggleSort(c.id)}>
                        {c.header}
                        <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
                      </button>
                    ) : c.header}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr><td colSpan={width} className="table-empty">{t('No data found')}</td></tr>
            ) : rows.map((row) => (
              <tr key={row.id} data-selected={all || isSelected(row) || undefined}>
                {selectable ? (
                  <td>
                    <input type="checkbox" aria-label={t('Select row')} checked={all || isSelected(row)}
                      onChange={(e) => { setAll(false); selectRow(row, e.target.checked); }} />
                  </td>
                ) : null}
                {columns.map((c) => <td key={c.id}>{c.cell({ row })}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="table-footer">
        <span>{t('Total: {{count}}', { count: total })}</span>
        <label className="page-size">
          {t('Rows per page')}{' '}
          <select value={state.limit} onChange={(e) => update({ limit: e.target.value === String(DEFAULT_PAGE_SIZE) ? null : e.target.value, page: null })}>
            {PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <nav className="pager" aria-label={t('Pagination')}>
          <button type="button" className="btn btn-ghost btn-sm" disabled={state.page <= 1} onClick={() => update({ page: String(state.page - 1) })} aria-label={t('Previous page')}>‹</button>
          <span>{t('Page {{page}} of {{pages}}', { page: state.page, pages })}</span>
          <button type="button" className="btn btn-ghost btn-sm" disabled={state.page >= pages} onClick={() => update({ page: String(state.page + 1) })} aria-label={t('Next page')}>›</button>
        </nav>
      </div>
    </div>
  );
}
