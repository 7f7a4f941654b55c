// One error boundary for every route, with a handler per status (403, 404, 429, else).
import { isRouteErrorResponse, Link, useRouteError } from '@remix-run/react';
import { useTranslation } from 'react-i18next';

export function GeneralErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  if (typeof document !== 'undefined' && !isRouteErrorResponse(error)) console.error(error);
  let title = t('Something went wrong');
  let detail = '';
  let status = 500;
  if (isRouteErrorResponse(error)) {
    status = error.status;
    if (status === 403) {
      title = t('Access denied');
      detail = t('You do not have permission to open this page.');
    } else if (status === 404) {
      title = t('Page not found');
      detail = t('The page you are looking for does not exist.');
    } else if (status === 429) {
      title = t('Too many requests');
      detail = typeof error.data === 'string' ? t(error.data) : '';
    } else if (typeof error.data === 'string') detail = t(error.data);
  }
  return (
    <main className="status-page" data-status={status}>
      <div className="status-code">{status}</div>
      <h1>{title}</h1>
      {detail ? <p>{detail}</p> : null}
      <Link to="/" className="btn btn-primary">{t('Go home')}</Link>
    </main>
  );
}
