export { DataTable, type Selection, type DataTableProps, type ColumnDef } from './data-table.tsx';
export { readListState, listQuery, PAGE_SIZES, DEFAULT_PAGE_SIZE, SEARCH_DEBOUNCE_MS } from './list-params.ts';
export { Modal } from './modal.tsx';
export { ConfirmDialog, type ConfirmDialogProps } from './confirm-dialog.tsx';
export { FormDialog, type FormDialogProps } from './form-dialog.tsx';
export { Stepper, type StepperProps } from './stepper.tsx';
export { DateRangeDialog, type DateRange } from './date-range-dialog.tsx';
export { Field, SelectField, CheckboxField, SubmitButton, ErrorList, useIsPending } from './fields.tsx';
export { ToastProvider, useToast, useReplyToast, useFetcherToast, type ToastMessage, type ReplyToastOptions } from './toast.tsx';
export { Spinner, LoadingScreen } from './spinner.tsx';
export { Popover, type PopoverProps } from './popover.tsx';
export {
  formatDateTime, formatClientDateTime, formatMoney, formatRate, formatPnl, formatPercent, formatAmount, plainDecimal, useFormat, formatterFor, type Formatter,
} from './format.ts';
