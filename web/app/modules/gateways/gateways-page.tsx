// The gateway cards of /admin/gateways and /admin/gateways/manual (docs/specs.md#payment-gateways): two
// columns of cards (one on a phone), each opening its gateway's form with exactly §3's fields.
// Secrets arrive masked and are typed anew to change them; an empty secret field keeps the stored one.
import { useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import { getInputProps, getSelectProps } from '@conform-to/react';
import { useTranslation } from 'react-i18next';
import { FormDialog } from '~/components/ui/form-dialog.tsx';
import { CheckboxField, ErrorList, Field, SelectField } from '~/components/ui/fields.tsx';
import { plainDecimal, useFormat } from '~/components/ui/format.ts';
import { CATALOG_PARSE } from '~/modules/catalog/numbers.ts';
import { UPLOAD_KINDS } from '~/modules/uploads/kinds.ts';
import type { gatewaysLoader } from './gateways.server.ts';
import { GATEWAY_SPECS, gatewaySchema, type GatewayCard } from './kinds.ts';

const QR_ACCEPT = UPLOAD_KINDS.qr_code.types.map((t) => `image/${t}`).join(',');

function StateChip({ card }: { card: GatewayCard }) {
  const { t } = useTranslation();
  if (card.state === 'unavailable') return <span className="chip chip-declined">{t('Not available in this version')}</span>;
  if (!GATEWAY_SPECS[card.name].active) return null;
  return card.isActive ? <span className="chip chip-approved">{t('Active')}</span> : <span className="chip chip-closed">{t('Inactive')}</span>;
}

export function GatewaysPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const { manual, gateways } = useLoaderData<typeof gatewaysLoader>() as { manual: boolean; gateways: GatewayCard[] };
  const [editing, setEditing] = useState<GatewayCard | null>(null);
  const title = manual ? t('Manual Gateways') : t('Automatic Gateways');

  return (
    <section className="page gateways-admin">
      <h1 className="page-title">{title}</h1>
      <ul className="gateway-cards" aria-label={title}>
        {gateways.map((g) => {
          const spec = GATEWAY_SPECS[g.name];
          return (
            <li key={g.name} className="card gateway-card">
              <div className="gateway-card-head">
                <h2 className="card-title">{g.title}</h2>
                <StateChip card={g} />
              </div>
              <dl className="gateway-facts">
                {spec.fee ? <><dt>{t('Fee')}</dt><dd className="num">{f.amount(g.fee)} %</dd></> : null}
                {spec.fields.map((field) => (
                  <div key={field.key} className="gateway-fact">
                    <dt>{t(field.title)}</dt>
                    <dd>{field.secret
                      ? (g.masked[field.key] ? <span className="mono">{g.masked[field.key]}</span> : <span className="muted">{t('Not set')}</span>)
                      : (g.values[field.key] ? <span className="mono wrap">{field.options ? t(field.options.find((o) => o.value === g.values[field.key])?.title ?? String(g.values[field.key])) : g.values[field.key]}</span> : <span className="muted">{t('Not set')}</span>)}
                    </dd>
                  </div>
                ))}
              </dl>
              {g.qr ? <img className="gateway-qr" src={g.qr} alt={t('QR code of {{name}}', { name: g.title })} width={96} height={96} /> : null}
              <div className="gateway-card-actions">
                <button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing(g)}
                  aria-label={t('Edit {{name}}', { name: g.title })}>{t('Edit')}</button>
              </div>
            </li>
          );
        })}
      </ul>
      {gateways.length === 0 ? <p className="muted">{t('No data found')}</p> : null}
      {editing ? <GatewayForm card={editing} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

function GatewayForm({ card, onClose }: { card: GatewayCard; onClose: () => void }) {
  const { t } = useTranslation();
  const spec = GATEWAY_SPECS[card.name];
  const defaults: Record<string, string> = { name: card.name };
  for (const field of spec.fields) if (!field.secret) defaults[field.key] = card.values[field.key] ?? '';
  if (spec.fee) defaults.fee = plainDecimal(card.fee);
  if (spec.active) defaults.isActive = card.isActive ? 'on' : '';
  const unavailable = card.state === 'unavailable';

  return (
    <FormDialog open onClose={onClose} id={null} schema={gatewaySchema(card.name)} parse={CATALOG_PARSE} encType="multipart/form-data"
      title={card.title} defaultValue={defaults} size="lg">
      {(fields) => (
        <div className="form-grid">
          <input type="hidden" name="name" value={card.name} />
          {unavailable ? <p className="span-2 notice-warn" role="note">{t('Not available in this version')}</p> : null}
          {spec.fields.map((field) => {
            const meta = fields[field.key];
            if (field.options) {
              return <SelectField key={field.key} label={t(field.title)} errors={meta.errors} placeholder={t('Select')}
                selectProps={getSelectProps(meta)} options={field.options.map((o) => ({ value: o.value, label: t(o.title) }))} />;
            }
            if (field.secret) {
              const stored = card.masked[field.key];
              return <Field key={field.key} label={t(field.title)} errors={meta.errors}
                hint={stored ? t('Stored: {{masked}}. Leave empty to keep it.', { masked: stored }) : t('Not set')}
                inputProps={{ ...getInputProps(meta, { type: 'password' }), autoComplete: 'new-password', spellCheck: false }} />;
            }
            return <Field key={field.key} label={t(field.title)} errors={meta.errors}
              inputProps={{ ...getInputProps(meta, { type: 'text' }), autoComplete: 'off', spellCheck: false }} />;
          })}
          {spec.fee ? (
            <Field label={t('Fee (%)')} errors={fields.fee.errors} hint={t('A percent of the amount, from 0 to 100')}
              inputProps={{ ...getInputProps(fields.fee, { type: 'text' }), inputMode: 'decimal' }} />
          ) : null}
          {spec.qr ? (
            <div className="field">
              <label htmlFor={`qr-${card.name}`}>{t('QR code')}</label>
              <input id={`qr-${card.name}`} type="file" name="file" accept={QR_ACCEPT} aria-describedby={`qr-${card.name}-hint`} />
              <div className="field-hint" id={`qr-${card.name}-hint`}>{card.qr ? t('Leave empty to keep the current QR code.') : t('PNG, JPEG, WebP or GIF, at most 1 MB')}</div>
              <div className="field-msg"><ErrorList id={`qr-${card.name}-error`} errors={fields.file?.errors} /></div>
            </div>
          ) : null}
          {spec.active ? (
            <div className="span-2">
              <CheckboxField label={t('Active')} inputProps={{ ...getInputProps(fields.isActive, { type: 'checkbox' }), disabled: unavailable }} />
            </div>
          ) : null}
        </div>
      )}
    </FormDialog>
  );
}
