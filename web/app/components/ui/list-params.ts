// The URL state of a server-backed list, parsed the same way by the table and by loaders.
export const PAGE_SIZES = [15, 25, 50] as const;
export const DEFAULT_PAGE_SIZE = 15;
export const SEARCH_DEBOUNCE_MS = 1500;

export interface ListState { page: number; limit: number; sort: string; dir: 'asc' | 'desc'; search: string }

export function readListState(params: URLSearchParams, prefix = ''): ListState {
  const get = (k: string) => params.get(prefix + k);
  const limit = Number(get('limit'));
  const page = Math.floor(Number(get('page')));
  return {
    page: Number.isFinite(page) && page >= 1 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_PAGE_SIZE,
    sort: get('sort') || 'id',
    dir: get('dir') === 'asc' ? 'asc' : 'desc',
    search: (get('search') ?? '').slice(0, 200),
  };
}

/**
 * For loaders: the list state of a request with the sort column checked against the columns
 * the query can sort by (default id). `offset` is ready for SQL.
 */
export function listQuery(request: Request, sortable: readonly string[], prefix = ''): ListState & { offset: number } {
  const s = readListState(new URL(request.url).searchParams, prefix);
  const sort = sortable.includes(s.sort) ? s.sort : 'id';
  return { ...s, sort, offset: (s.page - 1) * s.limit };
}
