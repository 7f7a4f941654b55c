import { useTranslation } from 'react-i18next';

export function Spinner({ size = 16, label }: { size?: number; label?: string }) {
  const { t } = useTranslation();
  return <span className="spinner" style={{ width: size, height: size }} role="status" aria-label={label ?? t('Loading')} />;
}

/** The full-screen loading screen: brand logo and a spinner. */
export function LoadingScreen({ logo, appName }: { logo?: string | null; appName: string }) {
  return (
    <div className="loading-screen" aria-busy="true">
      {logo ? <img src={logo} alt={appName} className="loading-logo" /> : <div className="brand-text">{appName}</div>}
      <Spinner size={36} />
    </div>
  );
}
