// Shared by the pricing test files: plans, customers with a real and a demo wallet, and the
// subscription posted to /pricing's action, its answer read whether a reply or a redirect.
import { createUser, sessionFor, post, settle, unique } from '../helpers.ts';
import type { Sql } from '~/shared/db.server.ts';
import { TOAST_COOKIE } from '~/shared/toast.server.ts';
import { action } from '~/routes/_client.pricing.tsx';

type Body = { ok: boolean; toast: string | null; values?: Record<string, string>; result?: { error?: Record<string, string[] | null> } };
export interface Answer { status: number; body: Body | null; location: string | null; toast: { type: string; title: string; values?: Record<string, string> } | null }

export function pricingSupport(sql: Sql) {
  async function plan(values: { price?: string; price_currency?: string; forex_leverage?: number | null; forex_stopout?: number | null; description?: string } = {}) {
    const [p] = await sql`INSERT INTO pricing_plans ${sql({ name: unique('Plan '), price: '0', ...values })} RETURNING id, name`;
    return { id: Number(p.id), name: String(p.name) };
  }

  async function customer(funds = '1000', currency = 'USD') {
    const u = await createUser(sql);
    const [real] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'real', ${currency}) RETURNING id`;
    const [demo] = await sql`INSERT INTO balances (user_id, mode, currency) VALUES (${u.id}, 'demo', ${currency}) RETURNING id`;
    if (funds !== '0') await sql`SELECT * FROM post_ledger(${real.id}, ${funds}, 'deposit', 'test', ${unique('dep')})`;
    await sql`SELECT * FROM post_ledger(${demo.id}, 10000, 'demo_credit', 'signup', ${unique('demo')})`;
    await sql`UPDATE users SET active_balance_id = ${demo.id} WHERE id = ${u.id}`;
    const s = await sessionFor(sql, u.id);
    return { ...u, cookie: s.cookie, token: s.token, real: Number(real.id), demo: Number(demo.id) };
  }

  async function subscribe(cookie: string, form: Record<string, string>): Promise<Answer> {
    const r = (await settle(action({ request: post('/pricing', { intent: 'subscribe', ...form }, { cookie }), params: {}, context: {} }))) as
      { data: Body; init: { status?: number } | null } | Response;
    if (!(r instanceof Response)) return { status: r.init?.status ?? 200, body: r.data, location: null, toast: null };
    const m = new RegExp(`${TOAST_COOKIE}=([^;]+)`).exec(r.headers.get('set-cookie') ?? '');
    return {
      status: r.status, body: null, location: r.headers.get('location'),
      toast: m ? JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8')) : null,
    };
  }
  const wallet = async (id: number) => (await sql`SELECT balance::text AS balance, margin::text AS margin FROM balances WHERE id = ${id}`)[0];
  const planOf = async (userId: number) => {
    const [u] = await sql`SELECT pricing_plan_id FROM users WHERE id = ${userId}`;
    return u.pricing_plan_id === null ? null : Number(u.pricing_plan_id);
  };
  const entries = (balanceId: number) => sql`SELECT kind, amount::text AS amount, balance_after::text AS balance_after, ref_kind, actor_id
                                              FROM ledger_entries WHERE balance_id = ${balanceId} AND kind = 'plan_subscription'`;
  const audits = (userId: number) => sql`SELECT actor_id, before, after FROM audit_events WHERE action = 'plan.subscribe' AND target_id = ${String(userId)}`;

  return { plan, customer, subscribe, wallet, planOf, entries, audits };
}
