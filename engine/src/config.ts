// The engine's configuration: the only place that reads process.env.
import { z } from 'zod';

const schema = z.object({
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url().optional(),
  /** Prefixes the bus's Redis keys, so that several engines can share one Redis (benches, tests). */
  REDIS_PREFIX: z.string().max(100).default(''),
  DATABASE_POOL: z.coerce.number().int().min(1).max(200).default(20),
  ENGINE_HOST: z.string().default('127.0.0.1'),
  ENGINE_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** all: one process does everything; feed; core; gateway: only /v1/stream (+ health, metrics), fed from the bus */
  ENGINE_ROLE: z.enum(['all', 'feed', 'core', 'gateway']).default('all'),
  /** Scale-out: core processes split the balances by id % ENGINE_PARTITIONS; this one keeps ENGINE_PARTITION. */
  ENGINE_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(1),
  ENGINE_PARTITION: z.coerce.number().int().min(0).default(0),
  /** Failover (ENGINE_ROLE=core with REDIS_URL): partitions are leases any live core takes over;
   *  ENGINE_PARTITION is then only the one taken first. 0: fixed partitions, as before. */
  ENGINE_FAILOVER: z.enum(['0', '1']).default('1'),
  /** Engine processes that work together: their lease keys, engine_partitions rows and bus
   *  stream names ('default': unprefixed streams) */
  /** Redis bus: ticks are kept this long (XADD MINID ~), the longest a partition can stay
   *  without an owner and still have every missed tick replayed. Default 10 minutes. */
  TICK_RETENTION_MS: z.coerce.number().int().min(10_000).default(600_000),
  ENGINE_CLUSTER: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/).default('default'),
  /** Shared with web: signs realtime tickets and internal calls. */
  ENGINE_SECRET: z.string().min(16).default('dev-only-engine-secret-change-me'),
  /** Decrypts provider keys stored by web (see contract/secrets.ts). */
  SECRETS_KEY: z.string().min(32).default('dev-only-secrets-key-change-me-0000000000'),
  ENGINE_TEST_CONTROLS: z.enum(['0', '1']).default('0'),
  /** simulator (default) or the real providers configured in api_settings */
  /** providers: each category from the provider configured in the API settings, the rest
   *  simulated (with no keys configured, everything is); simulator: everything simulated */
  FEED: z.enum(['simulator', 'providers']).default('providers'),
  FEED_SEED: z.coerce.number().int().default(1),
  FEED_TICKS_PER_SECOND: z.coerce.number().positive().max(100).default(2),
  /** A feed price older than this many ms is not traded on (0: no age limit). A quote saved
   *  by an earlier process is never traded on, whatever its age. */
  PRICE_MAX_AGE_MS: z.coerce.number().int().min(0).default(0),
  // automatic closes (tp, sl, stop-out) settled per statement in a flash crash; 1: one by one
  CLOSE_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(1000),
  CLOSE_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(4),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid engine configuration:\n${lines.join('\n')}`);
  }
  if (parsed.data.ENGINE_PARTITION >= parsed.data.ENGINE_PARTITIONS) {
    throw new Error(`invalid engine configuration:\n  ENGINE_PARTITION: must be below ENGINE_PARTITIONS (${parsed.data.ENGINE_PARTITIONS})`);
  }
  // production (NODE_ENV=production) never runs on the development defaults: `npm start`
  // (scripts/start.ts) generates both for a local run, a deployment sets them
  if (parsed.data.NODE_ENV === 'production') {
    const missing = (['ENGINE_SECRET', 'SECRETS_KEY'] as const).filter((k) => !env[k] || parsed.data[k].startsWith('dev-only'));
    if (missing.length > 0) {
      throw new Error(`invalid engine configuration:\n${missing.map((k) => `  ${k}: must be set in production (not missing, not the development default): e.g. ${k}=$(openssl rand -hex 32)`).join('\n')}`);
    }
  }
  return parsed.data;
}
