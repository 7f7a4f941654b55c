// A searchable multi-select of people (the team editor's members): a filter box over a list of
// checkboxes, each posted as `name` with the person's id. People filtered out of view stay in the
// form (hidden, still checked), so filtering never drops a choice. The chosen ones show above the
// list as removable chips.
import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorList, type ListOfErrors } from '~/components/ui/fields.tsx';

export interface PickerOption { id: number; label: string; detail: string }

export function MemberPicker({ name, label, options, defaultValue, errors }: {
  name: string; label: string; options: PickerOption[]; defaultValue: number[]; errors?: ListOfErrors;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [chosen, setChosen] = useState<Set<number>>(() => new Set(defaultValue));
  const [filter, setFilter] = useState('');
  const term = filter.trim().toLowerCase();
  const visible = useMemo(
    () => new Set(options.filter((o) => !term || o.label.toLowerCase().includes(term) || o.detail.toLowerCase().includes(term)).map((o) => o.id)),
    [options, term],
  );
  const toggle = (v: number, on: boolean) => setChosen((prev) => {
    const next = new Set(prev);
    if (on) next.add(v); else next.delete(v);
    return next;
  });
  const errorId = errors?.length ? `${id}-error` : undefined;
  const picked = options.filter((o) => chosen.has(o.id));
  return (
    <fieldset className="member-picker" aria-describedby={errorId}>
      <legend>{label}</legend>
      <div className="member-chips" aria-live="polite">
        <span className="muted">{t('{{count}} selected', { count: picked.length })}</span>
        {picked.map((o) => (
          <button key={o.id} type="button" className="chip member-chip" onClick={() => toggle(o.id, false)}
            aria-label={t('Remove {{name}}', { name: o.label })}>{o.label} <span aria-hidden="true">×</span></button>
        ))}
      </div>
      <input type="search" className="table-search member-search" value={filter} onChange={(e) => setFilter(e.target.value)}
        placeholder={t('Search by name or email')} aria-label={t('Search by name or email')} aria-controls={`${id}-list`} />
      <ul id={`${id}-list`} className="member-list">
        {options.map((o) => (
          <li key={o.id} hidden={!visible.has(o.id)}>
            <label>
              <input type="checkbox" name={name} value={o.id} checked={chosen.has(o.id)} onChange={(e) => toggle(o.id, e.target.checked)} />
              <span className="member-name">{o.label}</span> <span className="muted member-detail">{o.detail}</span>
            </label>
          </li>
        ))}
        {visible.size === 0 ? <li className="muted">{t('No data found')}</li> : null}
      </ul>
      <div className="field-msg"><ErrorList id={errorId} errors={errors} /></div>
    </fieldset>
  );
}
