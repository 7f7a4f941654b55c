// A titled page that a later issue fills in.
import { useTranslation } from 'react-i18next';

export function PlaceholderPage({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <section className="page">
      <h1 className="page-title">{t(title)}</h1>
      <div className="card">
        <p className="muted">{t('This page is being built.')}</p>
      </div>
    </section>
  );
}
