// /admin/languages/:code (the title is the code): the keys the language lacks, each with a way to
// add it, and the server-paged table ID, KEY, VALUE, ACTIONS with search; add and edit in the modal
// 'Add or Edit Translation', delete after 'Are you sure to delete this pair?'.
import { useMemo, useState } from 'react';
import { Link, useLoaderData, useSearchParams } from '@remix-run/react';
import { getInputProps, getTextareaProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import type { ColumnDef } from '~/components/ui/data-table.tsx';
import { DataTable } from '~/components/ui/data-table.tsx';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx';
import { ErrorList, Field } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { translationsLoader, TranslationRow } from './languages.server.ts';
import { TranslationSchema } from './schemas.ts';

type Editing = { id?: number; key: string; value: string } | null;

export function TranslationsPage() {
  const { t } = useTranslation();
  const data = useLoaderData<typeof translationsLoader>();
  const { language } = data;
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<TranslationRow | null>(null);

  const columns = useMemo<ColumnDef<TranslationRow>[]>(() => [
    { id: 'id', header: t('ID'), cell: ({ row }) => row.original.id },
    { id: 'key', header: t('Key'), cell: ({ row }) => <span className="translation-text">{row.original.key}</span> },
    { id: 'value', header: t('Value'), enableSorting: false, cell: ({ row }) => (row.original.value
      ? <span className="translation-text" lang={language.code}>{row.original.value}</span>
      : <span className="chip chip-pending">{t('Empty')}</span>) },
    {
      id: 'actions', header: t('Actions'), enableSorting: false,
      cell: ({ row }) => (
        <div className="row-actions">
          <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit translation #{{id}}', { id: row.original.id })}
            onClick={() => setEditing({ id: row.original.id, key: row.original.key, value: row.original.value })}>{t('Edit')}</button>
          <button type="button" className="btn btn-sm btn-ghost btn-danger-text" aria-label={t('Delete translation #{{id}}', { id: row.original.id })}
            onClick={() => setDeleting(row.original)}>{t('Delete')}</button>
        </div>
      ),
    },
  ], [t, language.code]);

  const addMissing = (key: string) => setEditing({ key, value: language.code === data.fallback ? key : '' });

  return (
    <section className="page translations-page">
      <p className="breadcrumb"><Link to="/admin/languages">{t('Languages')}</Link> <span aria-hidden="true">›</span> {language.name}</p>
      <h1 className="page-title" lang="en">{language.code}</h1>
      <MissingKeys onAdd={addMissing} />
      <DataTable columns={columns} data={data.rows} total={data.total} getRowId={(r) => String(r.id)} caption={t('Translations of {{name}}', { name: language.name })}
        toolbar={<button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ key: '', value: '' })}>{t('Add New')}</button>} />

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={editing?.id} intent="save" schema={TranslationSchema}
        title={t('Add or Edit Translation')} size="lg"
        defaultValue={editing ? { code: language.code, key: editing.key, value: editing.value } : undefined}>
        {(fields) => {
          const value = getTextareaProps(fields.value);
          const valueError = fields.value.errors?.length ? `${value.id}-error` : undefined;
          return (
            <>
              <Field label={t('Code')} errors={fields.code.errors} inputProps={{ ...getInputProps(fields.code, { type: 'text' }), readOnly: true }} />
              <Field label={t('Key')} errors={fields.key.errors} hint={t('The English text, exactly as the application shows it')}
                inputProps={{ ...getInputProps(fields.key, { type: 'text' }), autoComplete: 'off', spellCheck: false }} />
              <div className="field">
                <label htmlFor={value.id}>{t('Value')}</label>
                <textarea {...value} rows={4} lang={language.code} aria-invalid={valueError ? true : undefined} aria-describedby={valueError} />
                <div className="field-msg"><ErrorList id={valueError} errors={fields.value.errors} /></div>
              </div>
            </>
          );
        }}
      </FormDialog>

      <ConfirmDialog open={!!deleting} onClose={() => setDeleting(null)} intent="delete" fields={deleting ? { id: deleting.id } : undefined}
        title={t('Delete translation #{{id}}', { id: deleting?.id ?? '' })} message={t('Are you sure to delete this pair?')} />
    </section>
  );
}

/** How many of the code's keys the language lacks, a page of them at a time, each with Add. */
function MissingKeys({ onAdd }: { onAdd: (key: string) => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { missing } = useLoaderData<typeof translationsLoader>();
  const [params] = useSearchParams();
  const pageUrl = (p: number) => {
    const next = new URLSearchParams(params);
    if (p <= 1) next.delete('mpage');
    else next.set('mpage', String(p));
    return `?${next.toString()}#missing`;
  };
  if (missing.count === 0) {
    return <p className="notice notice-ok" id="missing">{t('Every text of the application has a translation in this language.')}</p>;
  }
  return (
    <details className="card missing-keys" id="missing" open>
      <summary><strong>{t('{{n}} texts have no translation', { n: f.amount(missing.count) })}</strong></summary>
      <p className="muted">{t('These texts show in English until they are translated.')}</p>
      <ul className="missing-list">
        {missing.keys.map((k) => (
          <li key={k}>
            <span className="translation-text" lang="en">{k}</span>
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => onAdd(k)} aria-label={t('Add a translation of “{{key}}”', { key: k })}>{t('Add')}</button>
          </li>
        ))}
      </ul>
      {missing.pages > 1 ? (
        <nav className="pager missing-pager" aria-label={t('Missing texts pages')}>
          {missing.page > 1 ? <Link className="btn btn-ghost btn-sm" to={pageUrl(missing.page - 1)} preventScrollReset aria-label={t('Previous page')}>‹</Link> : null}
          <span>{t('Page {{page}} of {{pages}}', { page: missing.page, pages: missing.pages })}</span>
          {missing.page < missing.pages ? <Link className="btn btn-ghost btn-sm" to={pageUrl(missing.page + 1)} preventScrollReset aria-label={t('Next page')}>›</Link> : null}
        </nav>
      ) : null}
    </details>
  );
}
