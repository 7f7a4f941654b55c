// The web app's environment, parsed once at boot. Only `publicEnv` may reach the browser.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url().optional(),
  /** Where the browser reaches the engine (SSE) and where web calls it. */
  ENGINE_URL: z.string().url().default('http://127.0.0.1:4000'),
  ENGINE_PUBLIC_URL: z.string().url().optional(),
  ENGINE_SECRET: z.string().min(16).default('dev-only-engine-secret-change-me'),
  SESSION_SECRET: z.string().min(16).default('dev-only-session-secret-change-me'),
  /** 32-byte key (hex or base64) encrypting gateway and provider secrets at rest. */
  SECRETS_KEY: z.string().min(32).default('dev-only-secrets-key-change-me-0000000000'),
  /** Public address of the app for links in e-mails, when the site settings name none. */
  APP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Broker <no-reply@broker.local>'),
  /** uploaded files (modules/uploads); a relative path is taken from the repository root, like .data/pg */
  UPLOAD_DIR: z.string().min(1).default('.data/uploads').transform((dir) => path.resolve(repositoryRoot(), dir)),
  /** Behind a reverse proxy: `true`, a hop count or a subnet list (web/server.mjs hands it to Express). */
  TRUST_PROXY: z.string().optional(),
  /**
   * How old the engine's quotes a page's first render shows may be, in ms (modules/trading/quotes.server.ts):
   * each web process asks the engine at most this often; 0 asks on every request.
   */
  QUOTES_MAX_AGE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /**
   * MOCKS=1: every payment provider (Stripe, PayPal) is answered by the msw handlers of
   * web/test/mocks/payments.ts and their mock checkout pages, so a card deposit can be tried end to
   * end without a provider account (modules/payments). Never in production.
   */
  MOCKS: z.preprocess((v) => v === '1' || v === 'true', z.boolean()).default(false),
  /** Minutes a card / wallet deposit may stay pending before its provider is asked and it is settled or expired. */
  PAYMENT_PENDING_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  /** What web/server.mjs listens on: the fallback of the public address. */
  PORT: z.string().optional(),
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid web configuration:\n${lines.join('\n')}`);
  }
  if (parsed.data.NODE_ENV === 'production') {
    for (const k of ['ENGINE_SECRET', 'SESSION_SECRET', 'SECRETS_KEY'] as const) {
      if (parsed.data[k].startsWith('dev-only')) console.warn(`[web] ${k} is the development default: set it in production`);
    }
  }
  cached = parsed.data;
  return cached;
}

/**
 * The folder of the npm workspaces' package.json above the working directory (web/ under
 * `npm start`, /app/web in the image), else the working directory itself.
 */
function repositoryRoot(): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && 'workspaces' in JSON.parse(readFileSync(pkg, 'utf8'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/**
 * The header web/server.mjs sets to the client's address, after removing any the client sent.
 * The server sets it when it starts, so it is read when asked, not with the rest; without that
 * server (the Vite dev server, tests) it is unset and the header is nobody's word.
 */
export function clientIpHeader(): string | undefined {
  return process.env.CLIENT_IP_HEADER || undefined;
}

/** The short allow-list of settings the browser may see. */
export function publicEnv() {
  const e = env();
  return { ENGINE_PUBLIC_URL: e.ENGINE_PUBLIC_URL ?? e.ENGINE_URL };
}
