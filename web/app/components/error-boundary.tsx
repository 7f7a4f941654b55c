// One error boundary for every route, with a handler per status (403, 404, 429, else).
import { useEffect } from 'react';
import { isRouteErrorResponse, Link, useRevalidator, useRouteError } from '@remix-run/react';
import { useTranslation } from 'react-i18next';

/** How often a page lost to the network tries its data again (also at once on 'online'). */
const RETRY_MS = 5000;

/**
 * A page whose data could not be fetched because the network failed (a revalidation while
 * offline): not the server's error. It says so and loads the page again once it can; Remix
 * drops the error when a revalidation succeeds.
 */
function ConnectionLost() {
  const { t } = useTranslation();
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    const retry = () => { if (navigator.onLine && state === 'idle') revalidate(); };
    const timer = setInterval(retry, RETRY_MS);
    window.addEventListener('online', retry);
    return () => { clearInterval(timer); window.removeEventListener('online', retry); };
  }, [revalidate, state]);
  return (
    <main className="status-page" data-status="offline">
      <h1>{t('Connection lost')}</h1>
      <p>{t('The page will load again as soon as the network is back.')}</p>
      <button type="button" className="btn btn-primary" onClick={() => revalidate()}>{t('Try again')}</button>
    </main>
  );
}

export function GeneralErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  // fetch() rejects with a TypeError when the request never reached the server
  if (typeof document !== 'undefined' && error instanceof TypeError && /fetch|network/i.test(error.message)) return <ConnectionLost />;
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
