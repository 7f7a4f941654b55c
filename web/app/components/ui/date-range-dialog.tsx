// The date filter of the lists: Start Date, End Date, Clear, Submit.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from './modal.tsx';

export interface DateRange { start: string; end: string }

export function DateRangeDialog({ open, value, onClose, onSubmit }: {
  open: boolean;
  value: DateRange;
  onClose: () => void;
  onSubmit: (range: DateRange) => void;
}) {
  const { t } = useTranslation();
  const [start, setStart] = useState(value.start);
  const [end, setEnd] = useState(value.end);
  useEffect(() => {
    if (open) {
      setStart(value.start);
      setEnd(value.end);
    }
  }, [open, value.start, value.end]);
  const invalid = !!start && !!end && start > end;
  return (
    <Modal open={open} onClose={onClose} title={t('Filter')} size="sm"
      footer={<>
        <button type="button" className="btn btn-ghost" onClick={() => { setStart(''); setEnd(''); onSubmit({ start: '', end: '' }); }}>{t('Clear')}</button>
        <button type="button" className="btn btn-primary" disabled={invalid} onClick={() => onSubmit({ start, end })}>{t('Submit')}</button>
      </>}>
      <div className="field">
        <label htmlFor="range-start">{t('Start Date')}</label>
        <input id="range-start" type="date" value={start} max={end || undefined} onChange={(e) => setStart(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="range-end">{t('End Date')}</label>
        <input id="range-end" type="date" value={end} min={start || undefined} onChange={(e) => setEnd(e.target.value)} />
        {invalid ? <div className="field-error" role="alert">{t('End date must be after start date')}</div> : null}
      </div>
    </Modal>
  );
}
