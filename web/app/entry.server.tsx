// Server render: the root loader's locale and that language's translations (read from the
// database, kept in the process) pick an i18next instance, so the HTML is already in the user's language.
import { Transform, type TransformCallback } from 'node:stream';
import type { AppLoadContext, EntryContext, HandleErrorFunction } from '@remix-run/node';
import { createReadableStreamFromReadable } from '@remix-run/node';
import { RemixServer, isRouteErrorResponse } from '@remix-run/react';
import { isbot } from 'isbot';
import { renderToPipeableStream } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { FALLBACK_LANGUAGE } from '~/modules/i18n/i18n.ts';
import { loadResources, serverI18n } from '~/modules/i18n/i18n.server.ts';
import { db } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { bootPayments } from '~/modules/payments/boot.server.ts';
import { bootLeadImports } from '~/modules/crm/import-boot.server.ts';

// web/server.mjs serves the build through the route gate: every loader and action behind its route's declaration
export { guardBuild } from '~/modules/auth/route-gate.server.ts';

const ABORT_DELAY = 5_000;

// the configuration, read as the build loads: a production start without its secrets (or with
// TRUST_PROXY=true) stops here, naming the variable (shared/env.server.ts parseEnv)
env();
// payments (issue 13): the reconciliation job of pending card deposits, and the mock providers under MOCKS=1
bootPayments();
bootLeadImports();

/**
 * React writes a page in 2 kB pieces, and each piece would travel alone: Remix's writer flushes
 * the response after every chunk, so the compression in web/server.mjs ends a gzip block and
 * the socket gets a write for each (about twenty for the dashboard, a quarter more bytes than one
 * block). This gathers them: a page whose render is done within GATHER_MS (every page that
 * awaits nothing after its loaders: the shell and the loader data that follows it) leaves as one
 * chunk; after that, what is written leaves once per turn of the event loop, so a page that
 * streams something slow still sends each part as soon as it is rendered.
 */
const GATHER_MS = 20;

class Gather extends Transform {
  private parts: Buffer[] = [];
  private queued = false;
  private gathering = true;
  private readonly timer = setTimeout(() => {
    this.gathering = false;
    this.release();
  }, GATHER_MS);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.parts.push(chunk);
    if (!this.gathering && !this.queued) {
      this.queued = true;
      setImmediate(() => this.release());
    }
    done();
  }

  override _flush(done: TransformCallback) {
    clearTimeout(this.timer);
    this.release();
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void) {
    clearTimeout(this.timer);
    done(error);
  }

  private release() {
    this.queued = false;
    if (this.parts.length === 0) return;
    const out = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    this.parts = [];
    this.push(out);
  }
}

/**
 * Server errors to the log. An answer the app chose (a 404 for an unknown URL such as
 * /favicon.ico, a 405) is one line, not a stack trace; a request the client dropped is not an
 * error; anything else is logged in full.
 */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error)) {
    console.warn(`[web] ${error.status} ${request.method} ${new URL(request.url).pathname}`);
    return;
  }
  console.error(error);
};

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  _loadContext: AppLoadContext,
) {
  const root = remixContext.staticHandlerContext.loaderData?.root as { locale?: string } | undefined;
  const locale = root?.locale ?? FALLBACK_LANGUAGE;
  const instance = await serverI18n(locale, await loadResources(db(), locale));

  const bot = isbot(request.headers.get('user-agent') ?? '');
  responseHeaders.set('X-Frame-Options', 'SAMEORIGIN');
  responseHeaders.set('X-Content-Type-Options', 'nosniff');
  responseHeaders.set('Referrer-Policy', 'same-origin');

  return new Promise((resolve, reject) => {
    let shellRendered = false;
    // a render still running after ABORT_DELAY is cut short; one that finished clears its timer
    // (else every page's render state stays reachable for ABORT_DELAY, and the abort then
    // raises an error on a stream long closed)
    const timer = setTimeout(() => abort(), ABORT_DELAY);
    const send = () => {
      shellRendered = true;
      const body = new Gather();
      responseHeaders.set('Content-Type', 'text/html');
      resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
      pipe(body);
    };
    const { pipe, abort } = renderToPipeableStream(
      <I18nextProvider i18n={instance}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />
      </I18nextProvider>,
      {
        // crawlers get the whole page at once, browsers the shell as soon as it is ready
        onShellReady() {
          if (!bot) send();
        },
        onAllReady() {
          clearTimeout(timer);
          if (bot) send();
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
  });
}
