// Fixed-window rate limits in a store every web process shares: PostgreSQL's rate_limits
// table (one upsert per hit), or Redis when REDIS_URL is set.
import type { Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';

export interface Limit { name: string; max: number; windowSeconds: number }

/** The limits of the visitor flows (per IP and per email). Sign-in counts failed attempts only. */
export const LIMITS = {
  loginIp: { name: 'login:ip', max: 30, windowSeconds: 15 * 60 },
  loginEmail: { name: 'login:email', max: 10, windowSeconds: 15 * 60 },
  forgotIp: { name: 'forgot:ip', max: 10, windowSeconds: 60 * 60 },
  forgotEmail: { name: 'forgot:email', max: 3, windowSeconds: 60 * 60 },
  resetIp: { name: 'reset:ip', max: 10, windowSeconds: 15 * 60 },
  /** 'Resend verification' on the sign-in page: every request counts, known address or not */
  resendIp: { name: 'resend-verify:ip', max: 10, windowSeconds: 60 * 60 },
  resendEmail: { name: 'resend-verify:email', max: 3, windowSeconds: 60 * 60 },
  signupIp: { name: 'signup:ip', max: 10, windowSeconds: 60 * 60 },
  translationsIp: { name: 'translations:ip', max: 300, windowSeconds: 60 * 60 },
  /** wrong current passwords on /security (failures only) */
  passwordChangeUser: { name: 'password-change:user', max: 5, windowSeconds: 15 * 60 },
  /** wrong two-factor codes of one account, at sign-in and on /security together (failures only) */
  twoFactorUser: { name: 'two-factor:user', max: 10, windowSeconds: 15 * 60 },
} satisfies Record<string, Limit>;

export interface Hit { allowed: boolean; hits: number; retryAfterSeconds: number }

export interface RateLimitStore {
  hit(key: string, windowSeconds: number): Promise<{ hits: number; resetAt: Date }>;
  /** takes one hit back (an attempt that turned out not to count) */
  undo(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export function postgresStore(sql: Sql): RateLimitStore {
  return {
    async hit(key, windowSeconds) {
      const [row] = await sql`
        INSERT INTO rate_limits AS r (key, hits, reset_at)
        VALUES (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
        ON CONFLICT (key) DO UPDATE SET
          hits = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.hits + 1 END,
          reset_at = CASE WHEN r.reset_at <= now() THEN now() + make_interval(secs => ${windowSeconds}) ELSE r.reset_at END
        RETURNING hits, reset_at`;
      return { hits: row.hits, resetAt: row.reset_at };
    },
    async undo(key) {
      await sql`UPDATE rate_limits SET hits = hits - 1 WHERE key = ${key} AND hits > 0 AND reset_at > now()`;
    },
    async reset(key) {
      await sql`DELETE FROM rate_limits WHERE key = ${key}`;
    },
  };
}

interface RedisMulti { incr(k: string): RedisMulti; pexpire(k: string, ms: number, mode: 'NX'): RedisMulti; pttl(k: string): RedisMulti; exec(): Promise<[Error | null, unknown][] | null> }
interface RedisLike { multi(): RedisMulti; eval(script: string, keys: number, ...args: string[]): Promise<unknown>; del(k: string): Promise<number> }
// DECR only a live, positive counter: an expired key must not come back without its expiry
const UNDO_SCRIPT = "local v = redis.call('GET', KEYS[1]) if v and tonumber(v) > 0 then return redis.call('DECR', KEYS[1]) end return 0";

export function redisStore(redis: RedisLike): RateLimitStore {
  return {
    async hit(key, windowSeconds) {
      const res: [Error | null, unknown][] | null = await redis.multi().incr(`rl:${key}`).pexpire(`rl:${key}`, windowSeconds * 1000, 'NX').pttl(`rl:${key}`).exec();
      const hits = Number(res?.[0]?.[1] ?? 1);
      const ttl = Number(res?.[2]?.[1] ?? windowSeconds * 1000);
      return { hits, resetAt: new Date(Date.now() + Math.max(ttl, 0)) };
    },
    async undo(key) {
      await redis.eval(UNDO_SCRIPT, 1, `rl:${key}`);
    },
    async reset(key) {
      await redis.del(`rl:${key}`);
    },
  };
}

let shared: RateLimitStore | undefined;
/** The store of this process: Redis when REDIS_URL is configured, else PostgreSQL. */
export async function defaultStore(sql: Sql): Promise<RateLimitStore> {
  if (shared) return shared;
  const url = env().REDIS_URL;
  if (url) {
    const { Redis } = await import('ioredis');
    shared = redisStore(new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 }) as unknown as RedisLike);
    return shared;
  }
  return postgresStore(sql);
}

const keyOf = (limit: Limit, subject: string) => `${limit.name}:${subject.toLowerCase()}`;

export async function hitLimit(store: RateLimitStore, limit: Limit, subject: string): Promise<Hit> {
  const { hits, resetAt } = await store.hit(keyOf(limit, subject), limit.windowSeconds);
  return { allowed: hits <= limit.max, hits, retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000)) };
}

export const RATE_LIMIT_MESSAGE = 'Too many attempts. Please try again in {{minutes}} minutes.';

export class RateLimitedError extends Error {
  readonly minutes: number;
  constructor(public retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super(RATE_LIMIT_MESSAGE.replace('{{minutes}}', String(minutes)));
    this.minutes = minutes;
  }
}

/** Counts one attempt against every (limit, subject) pair; throws RateLimitedError if any is exceeded. */
export async function enforceLimits(store: RateLimitStore, checks: [Limit, string | null | undefined][]) {
  let worst = 0;
  for (const [limit, subject] of checks) {
    if (!subject) continue;
    const h = await hitLimit(store, limit, subject);
    if (!h.allowed) worst = Math.max(worst, h.retryAfterSeconds);
  }
  if (worst > 0) throw new RateLimitedError(worst);
}

/**
 * Sign-in counts failures only. Every attempt is counted up front by `enforceLimits` (so parallel
 * guesses cannot slip past the limit); a successful one is then taken back from the per-IP count
 * and clears the account's count.
 */
export async function forgiveSuccess(store: RateLimitStore, undo: [Limit, string | null | undefined][], clear: [Limit, string | null | undefined][]) {
  for (const [limit, subject] of undo) if (subject) await store.undo(keyOf(limit, subject));
  for (const [limit, subject] of clear) if (subject) await store.reset(keyOf(limit, subject));
}
