// /admin/languages: the languages (name, code) with how many of the code's keys each one lacks,
// add and edit in a dialog ('Languages updated successfully'), and a link to each one's translations.
import { useState } from 'react';
import { Link, useLoaderData } from '@remix-run/react';
import { getInputProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { Field } from '~/components/ui/fields.tsx';
import { useFormat } from '~/components/ui/format.ts';
import type { languagesLoader, LanguageRow } from './languages.server.ts';
import { LanguageSchema } from './schemas.ts';

type Editing = { row: LanguageRow | null } | null;

export function LanguagesPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { languages, total } = useLoaderData<typeof languagesLoader>();
  const [editing, setEditing] = useState<Editing>(null);
  const row = editing?.row ?? null;
  return (
    <section className="page languages-page">
      <h1 className="page-title">{t('Languages')}</h1>
      <div className="data-table">
        <div className="table-toolbar">
          <span className="muted">{t('The application uses {{n}} texts.', { n: f.amount(total) })}</span>
          <div className="table-toolbar-right">
            <button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing({ row: null })}>{t('Add Language')}</button>
          </div>
        </div>
        <div className="table-scroll">
          <table>
            <caption className="sr-only">{t('Languages')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Name')}</th>
                <th scope="col">{t('Code')}</th>
                <th scope="col">{t('Translated')}</th>
                <th scope="col">{t('Missing')}</th>
                <th scope="col">{t('Actions')}</th>
              </tr>
            </thead>
            <tbody>
              {languages.length === 0 ? <tr><td colSpan={5} className="table-empty">{t('No data found')}</td></tr> : languages.map((l) => (
                <tr key={l.code}>
                  <td><strong>{l.name}</strong></td>
                  <td><code>{l.code}</code></td>
                  <td className="num">{f.amount(l.translated)} / {f.amount(l.total)}</td>
                  <td>
                    {l.missing === 0
                      ? <span className="chip chip-approved">{t('Complete')}</span>
                      : <Link to={`/admin/languages/${l.code}#missing`} className="chip chip-pending">{t('{{n}} missing', { n: f.amount(l.missing) })}</Link>}
                  </td>
                  <td>
                    <div className="row-actions">
                      <button type="button" className="btn btn-sm btn-ghost" aria-label={t('Edit {{name}}', { name: l.name })}
                        onClick={() => setEditing({ row: l })}>{t('Edit')}</button>
                      <Link to={`/admin/languages/${l.code}`} className="btn btn-sm btn-ghost" aria-label={t('Translations of {{name}}', { name: l.name })}>
                        {t('Translations')}
                      </Link>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>

      <FormDialog open={!!editing} onClose={() => setEditing(null)} id={row?.code} intent="save" schema={LanguageSchema}
        title={row ? t('Edit Language') : t('Add Language')} defaultValue={row ? { code: row.code, name: row.name } : undefined} size="sm">
        {(fields) => (
          <>
            <Field label={t('Name')} errors={fields.name.errors} inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }} />
            <Field label={t('Code')} errors={fields.code.errors} hint={t('A language code such as en, fr or pt-BR')}
              inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'off', spellCheck: false }} />
          </>
        )}
      </FormDialog>
    </section>
  );
}
