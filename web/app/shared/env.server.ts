// The web app's environment, parsed once at boot. Only `publicEnv` may reach the browser.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The development defaults of the shared secrets: refused in production (parseEnv). */
export const DEV_ENGINE_SECRET = 'dev-only-engine-secret-change-me';
export const DEV_SECRETS_KEY = 'dev-only-secrets-key-change-me-0000000000';

/**
 * What is wrong with a TRUST_PROXY value, or null when it is a hop count (1 behind one proxy) or
 * a comma-separated list of addresses, subnets (CIDR) or Express's names loopback, linklocal,
 * uniquelocal. The same rule is in web/server.mjs (trustProxySetting), which starts before this.
 */
export function trustProxyProblem(raw: string): string | null {
  const v = raw.trim();
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 10) return null;
  const entries = v.split(',').map((e) => e.trim());
  const ok = entries.length > 0 && entries.every((e) =>
    /^(loopback|linklocal|uniquelocal)$/.test(e) ||
    /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/.test(e) ||
    /^[0-9a-f:]*:[0-9a-f:.]*(\/\d{1,3})?$/i.test(e));
  if (ok) return null;
  return `TRUST_PROXY=${JSON.stringify(raw)} is refused: set the number of proxies in front of the app (TRUST_PROXY=1 behind one reverse proxy) or their addresses / subnets (e.g. 10.0.0.0/8,loopback); \`true\` would believe the client-written left-most X-Forwarded-For`;
}

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url().optional(),
  /** Where the browser reaches the engine (SSE) and where web calls it. */
  ENGINE_URL: z.string().url().default('http://127.0.0.1:4000'),
  ENGINE_PUBLIC_URL: z.string().url().optional(),
  ENGINE_SECRET: z.string().min(16).default(DEV_ENGINE_SECRET),
  /** 32-byte key (hex or base64) encrypting gateway and provider secrets at rest. */
  SECRETS_KEY: z.string().min(32).default(DEV_SECRETS_KEY),
  /** Public address of the app for links in e-mails, when the site settings name none. */
  APP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Broker <no-reply@broker.local>'),
  /** uploaded files (modules/uploads); a relative path is taken from the repository root, like .data/pg */
  UPLOAD_DIR: z.string().min(1).default('.data/uploads').transform((dir) => path.resolve(repositoryRoot(), dir)),
  /**
   * Behind a reverse proxy: a hop count (1 behind one proxy) or a list of the proxies' addresses /
   * subnets (web/server.mjs hands it to Express). `true` is refused: it would take the left-most
   * X-Forwarded-For, which the client writes.
   */
  TRUST_PROXY: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.string().optional())
    .superRefine((v, ctx) => {
      const problem = v === undefined ? null : trustProxyProblem(v);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    }),
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
  cached = parseEnv(process.env);
  return cached;
}

/**
 * The configuration in `source`, or an error naming every variable that is wrong. In production
 * (NODE_ENV=production) ENGINE_SECRET and SECRETS_KEY must be set, and not to the development
 * defaults: `npm start` (scripts/start.ts) generates them for a local run, a deployment sets them.
 */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = schema.safeParse(source);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  if ((source.NODE_ENV ?? '') === 'production') {
    for (const [k, dev] of [['ENGINE_SECRET', DEV_ENGINE_SECRET], ['SECRETS_KEY', DEV_SECRETS_KEY]] as const) {
      const v = source[k];
      if (!v || v === dev || v.startsWith('dev-only')) lines.push(`  ${k}: must be set in production (not missing, not the development default): e.g. ${k}=$(openssl rand -hex 32)`);
    }
  }
  if (lines.length > 0 || !parsed.success) throw new Error(`invalid web configuration:\n${lines.join('\n')}`);
  return parsed.data;
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
