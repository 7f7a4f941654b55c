// @vitest-environment jsdom
// The kit's server-backed table rendered in a DOM with a real Remix router (createRemixStub): its
// columns' headers and cells, the empty state, the page count, sorting and paging through the
// URL, and row selection (a page, one row, every row of the list).
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createRemixStub } from '@remix-run/testing';
import { useLocation } from '@remix-run/react';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { renderToStaticMarkup } from 'react-dom/server';
import { DataTable, InstanceBody, PlainBody, plainColumns, type ColumnDef, type Selection } from '~/components/ui/data-table.tsx';

beforeAll(async () => {
  await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { translation: {} } }, interpolation: { escapeValue: false } });
});
afterEach(cleanup);

interface Row { id: number; name: string }
const columns: ColumnDef<Row>[] = [
  { id: 'id', header: 'Ticket', cell: ({ row }) => `#${row.original.id}` },
  { id: 'name', header: 'Name', enableSorting: false, cell: ({ row }) => <strong>{row.original.name}</strong> },
];
const rows: Row[] = [{ id: 7, name: 'Seven' }, { id: 3, name: 'Three' }];

function Search() {
  return <output data-testid="search">{useLocation().search}</output>;
}

function show(props: { data?: Row[]; total?: number; selectable?: boolean; url?: string; onSelection?: (s: Selection) => void; emptyText?: string }) {
  const Stub = createRemixStub([{
    path: '/',
    Component: () => (
      <>
        <DataTable columns={columns} data={props.data ?? rows} total={props.total ?? 2} searchable={false} selectable={props.selectable}
          getRowId={(r) => String(r.id)} caption="Things" onSelectionChange={props.onSelection} emptyText={props.emptyText} />
        <Search />
      </>
    ),
  }]);
  render(<Stub initialEntries={[props.url ?? '/']} />);
}

describe('DataTable', () => {
  test('renders each column header and each row through its cell', () => {
    show({});
    const table = screen.getByRole('table', { name: 'Things' });
    // the list is sorted by id, descending, unless the URL says otherwise: its header says so
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Ticket ▼', 'Name']);
    const cells = within(table).getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell').map((c) => c.innerHTML));
    expect(cells).toEqual([['#7', '<strong>Seven</strong>'], ['#3', '<strong>Three</strong>']]);
    expect(screen.getByText('Total: 2')).toBeTruthy();
    expect(screen.getByText('Page 1 of 1')).toBeTruthy();
  });

  test('no rows: one cell across the columns says so', () => {
    show({ data: [], total: 0 });
    const cell = screen.getByText('No data found');
    expect(cell.getAttribute('colspan')).toBe('2');
  });

  test("no rows: a list's own words when it gives them ('No open positions')", () => {
    show({ data: [], total: 0, emptyText: 'No open positions' });
    expect(screen.getByText('No open positions').getAttribute('colspan')).toBe('2');
    expect(screen.queryByText('No data found')).toBeNull();
  });

  test('the scroll box is a labelled, focusable region that shades the edges with more beyond them', () => {
    show({});
    const region = screen.getByRole('region', { name: 'Things' });
    expect(region.tabIndex).toBe(0);
    const frame = region.parentElement!;
    expect(frame.getAttribute('data-more')).toBeNull(); // jsdom lays nothing out: it all fits
    // a table twice as wide as its box, scrolled from the start to the middle to the end
    Object.defineProperty(region, 'clientWidth', { configurable: true, value: 300 });
    Object.defineProperty(region, 'scrollWidth', { configurable: true, value: 600 });
    fireEvent.scroll(region);
    expect(frame.getAttribute('data-more')).toBe('end');
    region.scrollLeft = 150;
    fireEvent.scroll(region);
    expect(frame.getAttribute('data-more')).toBe('start end');
    region.scrollLeft = 300;
    fireEvent.scroll(region);
    expect(frame.getAttribute('data-more')).toBe('start');
  });

  test('a column sorts on the server through the URL unless it says enableSorting: false (a plain header)', async () => {
    show({ url: '/?page=2' });
    const ticket = screen.getByRole('columnheader', { name: /Ticket/ });
    expect(within(screen.getByRole('columnheader', { name: 'Name' })).queryByRole('button')).toBeNull();
    fireEvent.click(within(ticket).getByRole('button'));
    // the id is sorted descending already (the default), so the first click turns it ascending, back to page 1
    await waitFor(() => expect(screen.getByTestId('search').textContent).toBe('?sort=id&dir=asc'));
    expect(screen.getByRole('columnheader', { name: /Ticket/ }).getAttribute('aria-sort')).toBe('ascending');
  });

  test('pages through the URL', async () => {
    show({ total: 40 });
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(screen.getByTestId('search').textContent).toBe('?page=2'));
    expect(screen.getByText('Page 2 of 3')).toBeTruthy();
  });

  test('selection: one row, the page, and every row of the list', async () => {
    const seen: Selection[] = [];
    show({ selectable: true, total: 40, onSelection: (s) => seen.push(s) });
    const boxes = () => screen.getAllByRole('checkbox') as HTMLInputElement[];
    expect(boxes()).toHaveLength(3);
    fireEvent.click(screen.getAllByRole('checkbox', { name: 'Select row' })[1]);
    await waitFor(() => expect(seen.at(-1)).toEqual({ all: false, ids: ['3'] }));
    const page = screen.getByRole('checkbox', { name: 'Select all rows on this page' }) as HTMLInputElement;
    expect(page.checked).toBe(false);
    expect(page.indeterminate).toBe(true);
    fireEvent.click(page);
    await waitFor(() => expect(seen.at(-1)).toEqual({ all: false, ids: expect.arrayContaining(['7', '3']) }));
    expect((seen.at(-1) as { ids: string[] }).ids).toHaveLength(2);
    expect(page.checked).toBe(true);
    expect(page.indeterminate).toBe(false);
    fireEvent.click(page);
    await waitFor(() => expect(seen.at(-1)).toEqual({ all: false, ids: [] }));
    fireEvent.click(screen.getByRole('button', { name: 'Select all 40' }));
    await waitFor(() => expect(seen.at(-1)).toEqual({ all: true }));
    expect(screen.getByText('All 40 selected')).toBeTruthy();
    expect(boxes().every((b) => b.checked)).toBe(true);
  });
});

describe('DataTable without a react-table instance', () => {
  type Item = Row & { qty: number | null };
  const items: Item[] = [{ id: 7, name: 'Seven', qty: 3 }, { id: 3, name: 'Three', qty: null }];
  const cols: ColumnDef<Item>[] = [
    { id: 'id', header: 'Ticket', cell: ({ row }) => `#${row.original.id} (${row.id}, ${row.index})` },
    { accessorKey: 'name' }, // react-table's default header and cell
    { id: 'qty', header: ({ column }) => column.id.toUpperCase(), accessorFn: (r) => r.qty, enableSorting: false },
    { id: 'value', header: 'Value', accessorKey: 'qty', enableSorting: false, cell: ({ getValue, renderValue }) => `${String(getValue())}/${String(renderValue())}` },
  ];
  const html = (Body: typeof PlainBody | typeof InstanceBody, data: Item[]) => renderToStaticMarkup(
    <table>
      <Body columns={cols} data={data} getRowId={(r) => `r${r.id}`} state={{ sort: 'name', dir: 'asc' }} toggleSort={() => {}}
        selectable={false} rowSelection={{}} setRowSelection={() => {}} all={false} />
    </table>,
  );

  test('a table without selection renders from its ColumnDefs the markup the instance renders', () => {
    expect(plainColumns(cols)).toBe(true);
    const plain = html(PlainBody, items);
    expect(plain).toBe(html(InstanceBody, items));
    expect(plain).toContain('#7 (r7, 0)');
    expect(plain).toContain('<th aria-sort="ascending"><button type="button" class="th-sort">name');
    expect(plain).toContain('<th>QTY</th>');
    expect(html(PlainBody, [])).toBe(html(InstanceBody, []));
  });

  test('columns it cannot render alone go through the instance', () => {
    expect(plainColumns([{ header: 'Group', columns: [{ id: 'a', header: 'A' }] }] as ColumnDef<Item>[])).toBe(false);
    expect(plainColumns([{ header: 'No id', cell: () => 'x' }] as ColumnDef<Item>[])).toBe(false);
  });
});
