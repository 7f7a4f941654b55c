// Production server of the web app: what remix-serve does (static assets, compression, request
// log), plus the client's IP address handed to loaders and actions as `context.clientIp`
// (remix-serve has no load context), which the per-IP rate limits and the staff IP whitelist
// need. Behind a reverse proxy set TRUST_PROXY=true (or a hop count / subnet list) so the
// address comes from X-Forwarded-For.
import path from 'node:path';
import url from 'node:url';
import express from 'express';
import compression from 'compression';
import morgan from 'morgan';
import { createRequestHandler } from '@remix-run/express';

const here = path.dirname(url.fileURLToPath(import.meta.url));
const buildPath = path.resolve(here, process.argv[2] ?? 'build/server/index.js');
const build = await import(url.pathToFileURL(buildPath).href);
const clientDir = path.resolve(path.dirname(buildPath), '..', 'client');

const app = express();
app.disable('x-powered-by');
const trust = process.env.TRUST_PROXY;
if (trust) app.set('trust proxy', trust === 'true' ? true : /^\d+$/.test(trust) ? Number(trust) : trust);
app.use(compression());
// Vite fingerprints everything under /assets: cache it for good
app.use('/assets', express.static(path.join(clientDir, 'assets'), { immutable: true, maxAge: '1y' }));
app.use(express.static(clientDir, { maxAge: '1h' }));
app.use(morgan('tiny'));
// Every loader and action sees the client's address, not only those handed the load context
// (the staff IP whitelist is checked on every request): it travels as a header that only this
// server sets, after removing whatever the client sent under that name.
process.env.CLIENT_IP_HEADER = 'x-broker-client-ip';
app.use((req, _res, next) => {
  req.headers['x-broker-client-ip'] = (req.ip ?? req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  next();
});
app.all('*', createRequestHandler({
  build,
  mode: build.mode,
  getLoadContext: (req) => ({ clientIp: req.ip ?? req.socket.remoteAddress }),
}));

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST;
const server = host ? app.listen(port, host, listening) : app.listen(port, listening);
function listening() {
  console.log(`[web] http://${host ?? 'localhost'}:${port}`);
}
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
