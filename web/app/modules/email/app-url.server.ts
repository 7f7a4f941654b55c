// The public address of the web app, for links in e-mails (verify, reset): the site settings'
// App URL when an admin set one, else APP_URL, else the address `npm start` serves on
// (it sets APP_URL itself; PORT is what web/server.mjs listens on). Never a hard-coded host.
import { env } from '~/shared/env.server.ts';

export function resolveAppUrl(setting: string, e: { APP_URL?: string; PORT?: string } = { APP_URL: env().APP_URL, PORT: env().PORT }): string {
  const url = setting.trim() || e.APP_URL?.trim() || `http://127.0.0.1:${e.PORT || 3000}`;
  return url.replace(/\/+$/, '');
}
