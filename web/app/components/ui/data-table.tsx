// The server-backed table (docs/specs.md#tables): the server pages, sorts and searches; the table's
// state lives in the URL (page, limit, sort, dir, search) so a page can be linked and reloaded.
// Page sizes 15/25/50 (default 15); changing size or search returns to page 1; search is
// debounced 1500 ms; default sort id descending; optional row selection including 'all'.
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from '@remix-run/react';
import { flexRender, getCoreRowModel, useReactTable, type CellContext, type ColumnDef, type HeaderContext, type RowSelectionState } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZES, DEFAULT_PAGE_SIZE, SEARCH_DEBOUNCE_MS, readListState } from './list-params.ts';
import { useFormat } from './format.ts';

export type { ColumnDef };
export type Selection = { all: true } | { all: false; ids: string[] };

export interface DataTableProps<T> {
  columns: ColumnDef<T, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- columns' cell value types differ per column (react-table's own idiom)
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
  /** bounded pagination: the pager reaches this many rows deep at most (the total still shows in full) */
  maxRows?: number;
  /** what an empty list says, translated ('No open positions'); 'No data found' when omitted */
  emptyText?: string;
}

export function DataTable<T>({ columns, data, total, getRowId, searchable = true, selectable, onSelectionChange, toolbar, paramPrefix = '', caption, maxRows, emptyText }: DataTableProps<T>) {
  const { t } = useTranslation();
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const state = readListState(params, paramPrefix);
  const p = (k: string) => paramPrefix + k;
  const [search, setSearch] = useState(state.search);
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
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

  const selectColumn: ColumnDef<T, unknown> = useMemo(() => ({
    id: '__select',
    enableSorting: false,
    header: ({ table }) => (
      <input type="checkbox" aria-label={t('Select all rows on this page')}
        checked={all || table.getIsAllPageRowsSelected()}
        ref={(el) => { if (el) el.indeterminate = !all && table.getIsSomePageRowsSelected(); }}
        onChange={(e) => { setAll(false); table.toggleAllPageRowsSelected(e.target.checked); }} />
    ),
    cell: ({ row }) => (
      <input type="checkbox" aria-label={t('Select row')} checked={all || row.getIsSelected()}
        onChange={(e) => { setAll(false); row.toggleSelected(e.target.checked); }} />
    ),
  }), [all, t]);

  useEffect(() => {
    if (!onSelectionChange) return;
    onSelectionChange(all ? { all: true } : { all: false, ids: Object.keys(rowSelection).filter((k) => rowSelection[k]) });
  }, [rowSelection, all]); // eslint-disable-line react-hooks/exhaustive-deps -- report selection changes, not a new callback identity

  const pages = Math.max(1, Math.ceil((maxRows === undefined ? total : Math.min(total, maxRows)) / state.limit));
  const toggleSort = (id: string) => {
    const dir = state.sort === id && state.dir === 'desc' ? 'asc' : 'desc';
    update({ sort: id, dir, page: null });
  };

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
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAll(true)}>{t('Select all {{count}}', { count: f.amount(total) as unknown as number })}</button>
          ) : null}
          {selectable && all ? <span className="muted">{t('All {{count}} selected', { count: f.amount(total) as unknown as number })}</span> : null}
        </div>
      </div>
      <ScrollRegion label={caption ?? t('Table')}>
        <table>
          {caption ? <caption className="sr-only">{caption}</caption> : null}
          {selectable || !plainColumns(columns) ? (
            <InstanceBody columns={selectable ? [selectColumn, ...columns] : columns} data={data} getRowId={getRowId} selectable={!!selectable}
              rowSelection={rowSelection} setRowSelection={setRowSelection} all={all} state={state} toggleSort={toggleSort} emptyText={emptyText} />
          ) : (
            <PlainBody columns={columns} data={data} getRowId={getRowId} state={state} toggleSort={toggleSort} emptyText={emptyText} />
          )}
        </table>
      </ScrollRegion>
      <div className="table-footer">
        <span>{t('Total: {{count}}', { count: f.amount(total) as unknown as number })}</span>
        <label className="page-size">
          {t('Rows per page')}{' '}
          <select value={state.limit} onChange={(e) => update({ limit: e.target.value === String(DEFAULT_PAGE_SIZE) ? null : e.target.value, page: null })}>
            {PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <nav className="pager" aria-label={t('Pagination')}>
          <button type="button" className="btn btn-ghost btn-sm" disabled={state.page <= 1} onClick={() => update({ page: String(state.page - 1) })} aria-label={t('Previous page')}>‹</button>
          <span>{t('Page {{page}} of {{pages}}', { page: f.amount(state.page), pages: f.amount(pages) })}</span>
          <button type="button" className="btn btn-ghost btn-sm" disabled={state.page >= pages} onClick={() => update({ page: String(state.page + 1) })} aria-label={t('Next page')}>›</button>
        </nav>
      </div>
    </div>
  );
}

type SortState = { sort: string | null | undefined; dir: string | null | undefined };

function HeaderCell({ id, sortable, state, toggleSort, children }: { id: string; sortable: boolean; state: SortState; toggleSort: (id: string) => void; children: ReactNode }) {
  const sorted = state.sort === id ? state.dir : null;
  return (
    <th aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
      {sortable ? (
        <button type="button" className="th-sort" onClick={() => toggleSort(id)}>
          {children}
          <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
        </button>
      ) : children}
    </th>
  );
}

function EmptyRow({ span, text }: { span: number; text?: string }) {
  const { t } = useTranslation();
  return <tr><td colSpan={span} className="table-empty">{text ?? t('No data found')}</td></tr>;
}

/**
 * The table's horizontal scroll box. A table wider than the screen (a phone, a long language) shows
 * that it scrolls: a shade on each edge that has more beyond it (data-more="start end"). The box is
 * a labelled, focusable region so a keyboard can scroll it (axe: scrollable-region-focusable).
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState('');
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const start = el.scrollLeft > 1;
      const end = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      setMore([start ? 'start' : '', end ? 'end' : ''].filter(Boolean).join(' '));
    };
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    ro?.observe(el);
    if (el.firstElementChild) ro?.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', measure);
      ro?.disconnect();
    };
  }, []);
  return (
    <div className="table-scroll-frame" data-more={more || undefined}>
      <div ref={ref} className="table-scroll" role="region" aria-label={label} tabIndex={0}>{children}</div>
    </div>
  );
}

/** The table through a react-table instance: selection, and any column that needs more than its row's data. */
export function InstanceBody<T>({ columns, data, getRowId, selectable, rowSelection, setRowSelection, all, state, toggleSort, emptyText }: {
  columns: ColumnDef<T, any>[]; data: T[]; getRowId?: (row: T) => string; selectable: boolean; // eslint-disable-line @typescript-eslint/no-explicit-any -- as DataTableProps
  rowSelection: RowSelectionState; setRowSelection: (s: RowSelectionState | ((old: RowSelectionState) => RowSelectionState)) => void;
  all: boolean; state: SortState; toggleSort: (id: string) => void; emptyText?: string;
}) {
  const table = useReactTable({
    data,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualPagination: true,
    manualSorting: true,
    manualFiltering: true,
    enableRowSelection: selectable,
    state: { rowSelection },
    onRowSelectionChange: setRowSelection,
    getRowId: getRowId ? (row) => getRowId(row) : undefined,
  });
  return (
    <>
      <thead>
        {table.getHeaderGroups().map((hg) => (
          <tr key={hg.id}>
            {hg.headers.map((h) => (
              // the server sorts (manualSorting): a column sorts unless it says enableSorting: false
              <HeaderCell key={h.id} id={h.column.id} sortable={h.column.id !== '__select' && h.column.columnDef.enableSorting !== false} state={state} toggleSort={toggleSort}>
                {flexRender(h.column.columnDef.header, h.getContext())}
              </HeaderCell>
            ))}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.length === 0 ? <EmptyRow span={table.getAllLeafColumns().length} text={emptyText} /> : table.getRowModel().rows.map((row) => (
          <tr key={row.id} data-selected={all || row.getIsSelected() || undefined}>
            {row.getVisibleCells().map((cell) => <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>)}
          </tr>
        ))}
      </tbody>
    </>
  );
}

type AnyColumn<T> = ColumnDef<T, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- as DataTableProps

/**
 * Whether a table's columns can be rendered without a react-table instance: each has an id (or an
 * accessorKey naming it) and no sub-columns. Then PlainBody renders the same markup from the same
 * ColumnDefs, at a fraction of the cost (an instance per render built the columns, the row model
 * and every cell's context: as much as the rest of the dashboard's positions).
 */
export function plainColumns<T>(columns: AnyColumn<T>[]): boolean {
  return columns.every((c) => !('columns' in c && c.columns) && (c.id !== undefined || typeof (c as { accessorKey?: unknown }).accessorKey === 'string'));
}

const columnId = <T,>(c: AnyColumn<T>) => c.id ?? String((c as { accessorKey?: unknown }).accessorKey);

// react-table's defaults for a column without a header or a cell
const defaultHeader = <T,>(c: AnyColumn<T>) => {
  const def = c as { accessorKey?: string; accessorFn?: unknown };
  return def.accessorKey ?? (def.accessorFn ? c.id ?? null : null);
};
const defaultCell = (v: unknown) => (v as { toString?: () => string } | null | undefined)?.toString?.() ?? null;

function cellValue<T>(c: AnyColumn<T>, row: T, index: number): unknown {
  const def = c as { accessorKey?: string; accessorFn?: (row: T, index: number) => unknown };
  if (def.accessorFn) return def.accessorFn(row, index);
  if (def.accessorKey !== undefined) return (row as Record<string, unknown>)[def.accessorKey];
  return undefined;
}

/**
 * The table straight from its ColumnDefs, for tables without selection: a cell gets what
 * react-table would give it of its row (`row.original`, `row.id`, `row.index`, `getValue()`,
 * `renderValue()`) and its `column` (`id`, `columnDef`); a header its `column`. A column whose
 * cell needs the instance itself (`table`, `cell`, row models) belongs in a selectable table or
 * needs plainColumns to send it to InstanceBody.
 */
export function PlainBody<T>({ columns, data, getRowId, state, toggleSort, emptyText }: {
  columns: AnyColumn<T>[]; data: T[]; getRowId?: (row: T) => string; state: SortState; toggleSort: (id: string) => void; emptyText?: string;
}) {
  const cols = columns.map((c) => ({ def: c, id: columnId(c), column: { id: columnId(c), columnDef: c } }));
  return (
    <>
      <thead>
        <tr>
          {cols.map(({ def, id, column }) => (
            <HeaderCell key={id} id={id} sortable={def.enableSorting !== false} state={state} toggleSort={toggleSort}>
              {def.header === undefined ? defaultHeader(def) : flexRender(def.header, { column } as unknown as HeaderContext<T, unknown>)}
            </HeaderCell>
          ))}
        </tr>
      </thead>
      <tbody>
        {data.length === 0 ? <EmptyRow span={cols.length} text={emptyText} /> : data.map((original, index) => {
          const id = getRowId ? getRowId(original) : String(index);
          const row = { id, index, original };
          return (
            <tr key={id}>
              {cols.map(({ def, id: colId, column }) => {
                const getValue = () => cellValue(def, original, index);
                const context = { row, column, getValue, renderValue: getValue } as unknown as CellContext<T, unknown>;
                return <td key={colId}>{def.cell === undefined ? defaultCell(getValue()) : flexRender(def.cell, context)}</td>;
              })}
            </tr>
          );
        })}
      </tbody>
    </>
  );
}
