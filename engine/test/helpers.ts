// Test fixtures: each test creates its own users, balances and instruments with unique names.
import { connect, type Sql } from '../src/db.ts';
import { MemoryBus } from '../src/bus/index.ts';
import { Core } from '../src/core.ts';
import { createApp } from '../src/http/app.ts';
import { Hub } from '../src/realtime/hub.ts';

export const SECRET = 'test-secret-0123456789abcdef';
export const uniq = (p = 'T') => `${p}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`.toUpperCase();

export function db(max = 10): Sql {
  return connect(process.env.DATABASE_URL!, { max });
}

export async function createUser(sql: Sql, opts: { role?: number; planId?: number | null; deposit?: string; currency?: string } = {}) {
  const email = `${uniq('u').toLowerCase()}@test.local`;
  const [u] = await sql<{ id: bigint }[]>`
    INSERT INTO users (email, password_hash, full_name, role_id, pricing_plan_id, is_email_verified)
    VALUES (${email}, 'x', 'Test User', ${opts.role ?? 3}, ${opts.planId ?? null}, true) RETURNING id`;
  const [b] = await sql<{ id: bigint }[]>`
    INSERT INTO balances (user_id, mode, currency) VALUES (${String(u.id)}, 'real', ${opts.currency ?? 'USD'}) RETURNING id`;
  await sql`UPDATE users SET active_balance_id = ${String(b.id)} WHERE id = ${String(u.id)}`;
  if (opts.deposit && opts.deposit !== '0') {
    await sql`SELECT * FROM post_ledger(${String(b.id)}, ${opts.deposit}, 'deposit', 'test', ${uniq('dep')})`;
  }
  return { userId: Number(u.id), balanceId: Number(b.id), email };
}

export async function createInstrument(sql: Sql, opts: { category?: string; quote?: string; base?: string; leverage?: number; tradable?: boolean; name?: string } = {}) {
  const name = opts.name ?? uniq('X') + '_USD';
  const [i] = await sql<{ id: bigint }[]>`
    INSERT INTO instruments (name, base, quote, category, leverage, tradable)
    VALUES (${name}, ${opts.base ?? name.split('_')[0]}, ${opts.quote ?? 'USD'}, ${opts.category ?? 'crypto'}, ${opts.leverage ?? 10}, ${opts.tradable ?? true})
    RETURNING id`;
  return { id: Number(i.id), name };
}

export async function createSession(sql: Sql, userId: number, opts: { revoked?: boolean; expired?: boolean } = {}) {
  const [s] = await sql<{ id: bigint }[]>`
    INSERT INTO sessions (token_hash, user_id, expires_at, revoked_at)
    VALUES (${uniq('tok')}, ${userId}, now() + ${opts.expired ? '-1 hour' : '1 hour'}::interval, ${opts.revoked ? new Date() : null})
    RETURNING id`;
  return Number(s.id);
}

/** A core + app on the test database, with an in-process bus and no timers writing. */
export async function engine(sql: Sql, opts: { now?: () => Date; hub?: boolean } = {}) {
  const bus = new MemoryBus();
  const core = new Core({ sql, bus, now: opts.now, flushMs: 0 });
  await core.start();
  const hub = opts.hub ? new Hub(bus) : undefined;
  if (hub) core.onQuote((q) => hub.onQuote(q));
  const app = createApp({ sql, core, bus, hub, secret: SECRET, testControls: true });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.handle(new Request(`http://engine/v1${path}`, {
      method, headers: { 'content-type': 'application/json', 'x-engine-secret': SECRET, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
    const text = await res.text();
    let json: any;
    try { json = JSON.parse(text); } catch { json = text; }
    return { status: res.status, body: json };
  };
  const quote = async (symbol: string, bid: number, ask: number) => {
    core.ingest({ symbol, bid, ask, ts: Date.now() });
    await core.executor.idle();
    await core.pendingIdle();
    await core.executor.idle();
  };
  const stop = async () => { hub?.close(); await core.stop(); await bus.close(); };
  return { core, app, bus, hub, call, quote, stop };
}

export type TestEngine = Awaited<ReturnType<typeof engine>>;
export interface TestInstrument { id: number; name: string }

/** The order tests' usual fixture: a crypto instrument (leverage 10) quoted 100 / 101, and an engine on it. */
export async function cryptoEngine(sql: Sql): Promise<{ E: TestEngine; BTC: TestInstrument }> {
  const BTC = await createInstrument(sql, { category: 'crypto', leverage: 10 });
  const E = await engine(sql);
  await E.quote(BTC.name, 100, 101);
  return { E, BTC };
}

/** Polls until check() holds (every `everyMs`); fails after `ms`. */
export async function within(ms: number, check: () => boolean | Promise<boolean>, everyMs = 10) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(everyMs);
  }
}

/**
 * A fence for LISTEN: notifications reach a listening connection in commit order, so once
 * `fence()` has heard its own NOTIFY on `sql`'s listening connection, every notification
 * committed before it has been delivered there (a wait on the state, not a sleep).
 */
export async function notifyFence(sql: Sql) {
  const channel = `fence_${process.pid}_${Date.now().toString(36)}`;
  const waiters = new Map<string, () => void>();
  let n = 0;
  const listener = await sql.listen(channel, (token) => waiters.get(token)?.());
  return {
    async fence() {
      const token = String(++n);
      const heard = new Promise<void>((r) => waiters.set(token, r));
      await sql.notify(channel, token);
      await heard;
      waiters.delete(token);
    },
    close: () => listener.unlisten(),
  };
}
