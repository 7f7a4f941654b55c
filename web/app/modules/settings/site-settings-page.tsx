// The Site Settings page (/admin/settings): branding pictures, the site's texts and numbers, the
// integrations' keys (secrets shown masked, replaced only when a new value is typed) and switches.
import { useId } from 'react';
import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { getFormProps, getInputProps, type FieldMetadata } from '@conform-to/react';
import { ErrorList, Field, SubmitButton, useIsPending, useSchemaForm, type ListOfErrors } from '~/components/ui/fields.tsx';
import { useReplyToast } from '~/components/ui/toast.tsx';
import type { Reply } from '~/shared/forms.ts';
import { UPLOAD_KINDS } from '~/modules/uploads/kinds.ts';
import {
  SETTING_SWITCHES, SETTINGS_FILE_FIELDS, SWITCH_LABELS, SiteSettingsSchema,
  type SettingsFileField, type SiteSettingsView,
} from './site-settings.ts';

const FILE_LABELS: Record<SettingsFileField, string> = { favicon: 'Favicon', logo: 'App Logo', authBackground: 'Auth Background' };
const MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', ico: 'image/x-icon,.ico' };
const accept = (f: SettingsFileField) => UPLOAD_KINDS[SETTINGS_FILE_FIELDS[f]].types.map((t) => MIME[t]).join(',');

export function SiteSettingsPage({ settings, reply }: { settings: SiteSettingsView; reply: Reply | undefined }) {
  const { t } = useTranslation();
  useReplyToast(reply);
  const pending = useIsPending();
  const [form, fields] = useSchemaForm({
    id: 'site-settings', schema: SiteSettingsSchema, parse: { coerce: false },
    lastResult: reply?.ok ? null : reply?.result,
    defaultValue: {
      appName: settings.appName, appUrl: settings.appUrl, appCurrency: settings.appCurrency,
      demoInitialBalance: settings.demoInitialBalance, secondApprovalAbove: settings.secondApprovalAbove,
      recaptchaSiteKey: settings.recaptchaSiteKey, whatsapp: settings.whatsapp,
      ...Object.fromEntries(SETTING_SWITCHES.filter((k) => settings.switches[k]).map((k) => [k, 'on'])),
    },
  });
  const currency = settings.appCurrency.split(',')[0]?.trim() || 'USD';
  const text = (name: keyof typeof fields) => getInputProps(fields[name] as FieldMetadata<string>, { type: 'text' });
  return (
    <section className="page site-settings">
      <h1 className="page-title">{t('Site Settings')}</h1>
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)}>
        <div className="card settings-card">
          <h2 className="settings-heading">{t('Branding')}</h2>
          <div className="settings-files">
            {(Object.keys(SETTINGS_FILE_FIELDS) as SettingsFileField[]).map((f) => (
              <FileSetting key={f} name={f} label={t(FILE_LABELS[f])} current={settings.files[f]} accept={accept(f)}
                errors={fields[f].errors} values={reply?.values} />
            ))}
          </div>
          <div className="form-grid">
            <Field label={t('App Name')} errors={fields.appName.errors} inputProps={text('appName')} />
            <Field label={t('App URL')} errors={fields.appUrl.errors} hint={t('Empty: {{url}} is used', { url: settings.appUrlDefault })}
              inputProps={{ ...text('appUrl'), inputMode: 'url', placeholder: settings.appUrlDefault }} />
            <Field label={t('App Currency')} errors={fields.appCurrency.errors} hint={t('ISO codes; the first is the default of new accounts')}
              inputProps={{ ...text('appCurrency'), placeholder: 'USD, EUR' }} />
            <Field label={t('Demo Wallet Initial Balance ({{currency}})', { currency })} errors={fields.demoInitialBalance.errors}
              inputProps={{ ...text('demoInitialBalance'), inputMode: 'decimal' }} />
            <Field label={t('Second approval above ({{currency}})', { currency })} errors={fields.secondApprovalAbove.errors}
              hint={t('Deposits and withdrawals above this amount need a second staff approval; empty = off')}
              inputProps={{ ...text('secondApprovalAbove'), inputMode: 'decimal' }} />
            <Field label={t('WhatsApp Support Number')} errors={fields.whatsapp.errors} inputProps={{ ...text('whatsapp'), inputMode: 'tel', placeholder: '+44 20 7946 0000' }} />
          </div>
        </div>

        <div className="card settings-card">
          <h2 className="settings-heading">{t('Integrations')}</h2>
          <div className="form-grid">
            <Field label={t('ReCaptcha Client Key')} errors={fields.recaptchaSiteKey.errors} inputProps={{ ...text('recaptchaSiteKey'), autoComplete: 'off' }} />
            <SecretField label={t('ReCaptcha Secret Key')} name="recaptchaSecret" clearName="recaptchaSecretClear" secret={settings.recaptchaSecret}
              errors={fields.recaptchaSecret.errors} id={fields.recaptchaSecret.id} />
            <SecretField label={t('Webhook API Key (Leads, optional)')} name="webhookApiKey" clearName="webhookApiKeyClear" secret={settings.webhookApiKey}
              errors={fields.webhookApiKey.errors} id={fields.webhookApiKey.id} />
          </div>
        </div>

        <div className="card settings-card">
          <h2 className="settings-heading">{t('Switches')}</h2>
          <div className="settings-switches">
            {SETTING_SWITCHES.map((k) => (
              <label key={k} className="switch">
                <input {...getInputProps(fields[k], { type: 'checkbox', value: 'on' })} role="switch" />
                <span>{t(SWITCH_LABELS[k])}</span>
              </label>
            ))}
          </div>
          <ErrorList id={form.errorId} errors={form.errors} />
          <SubmitButton pending={pending}>{t('Submit')}</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

/** A secret: never shown, only whether one is stored (masked); typing replaces it, the box removes it. */
function SecretField({ label, name, clearName, secret, errors, id }: {
  label: string; name: string; clearName: string; secret: { set: boolean; masked: string }; errors?: ListOfErrors; id: string;
}) {
  const { t } = useTranslation();
  const hintId = `${id}-hint`;
  const errorId = errors?.length ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} type="password" autoComplete="new-password" aria-describedby={[hintId, errorId].filter(Boolean).join(' ')}
        aria-invalid={errorId ? true : undefined} placeholder={secret.set ? secret.masked : ''} />
      <div className="field-hint" id={hintId}>
        {secret.set ? t('Stored ({{masked}}). Leave empty to keep it.', { masked: secret.masked }) : t('Not set')}
      </div>
      {secret.set ? (
        <label className="field-check settings-clear"><input type="checkbox" name={clearName} value="on" /> {t('Remove the stored key')}</label>
      ) : null}
      <div className="field-msg"><ErrorList id={errorId} errors={errors} /></div>
    </div>
  );
}

/** A branding picture: the current one, a file input to replace it, a box to remove it. */
function FileSetting({ name, label, current, accept, errors, values }: {
  name: SettingsFileField; label: string; current: string | null; accept: string; errors?: ListOfErrors; values?: Record<string, string | number>;
}) {
  const { t } = useTranslation();
  const id = useId();
  const errorId = errors?.length ? `${id}-error` : undefined;
  return (
    <div className="field settings-file">
      <label htmlFor={id}>{label}</label>
      <div className="settings-file-preview">
        {current ? <img src={current} alt={t('Current {{name}}', { name: label })} /> : <span className="muted">{t('None')}</span>}
      </div>
      <input id={id} name={name} type="file" accept={accept} aria-invalid={errorId ? true : undefined} aria-describedby={errorId} />
      {current ? (
        <label className="field-check settings-clear"><input type="checkbox" name={`${name}Clear`} value="on" /> {t('Remove')}</label>
      ) : null}
      <div className="field-msg">
        {errors?.length ? <ul id={errorId} className="field-errors">{errors.filter(Boolean).map((e) => <li key={e} className="field-error">{t(e!, values)}</li>)}</ul> : null}
      </div>
    </div>
  );
}
