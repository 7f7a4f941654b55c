export { DataTable, type Selection, type DataTableProps } from './data-table.tsx';
export { readListState, listQuery, PAGE_SIZES, DEFAULT_PAGE_SIZE, SEARCH_DEBOUNCE_MS } from './list-params.ts';
export { Modal, ConfirmDialog } from './modal.tsx';
export { DateRangeDialog, type DateRange } from './date-range-dialog.tsx';
export { Field, SelectField, CheckboxField, SubmitButton, ErrorList, useIsPending } from './fields.tsx';
export { ToastProvider, useToast, type ToastMessage } from './toast.tsx';
export { Spinner, LoadingScreen } from './spinner.tsx';
export {
  formatDateTime, formatClientDateTime, formatMoney, formatRate, formatPnl, formatPercent, formatAmount, plainDecimal, useFormat, formatterFor, type Formatter,
} from './format.ts';
