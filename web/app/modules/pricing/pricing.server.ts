// Pricing plans on the client side (docs/specs.md#pricing-plans): the plan cards of /pricing, the
// prompt a customer without a plan gets on every client page, and the subscription: the price
// charged through the ledger from a real wallet of the customer's choice, in the transaction
// that sets the plan and re-margins the open positions at its leverage (apply_plan_leverage).
import { randomUUID } from 'node:crypto';
import { CATEGORIES, Decimal, dec, type Category } from '@broker/engine/domain';
import type { Sql } from '~/shared/db.server.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { getSettings } from '~/shared/settings.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { engine } from '~/shared/engine.server.ts';
import { currencyDecimals } from '~/components/ui/format.ts';
import { isCustomer } from '~/shared/roles.ts';
import { abort, pgCode, refuse, refusalOf, Refused, type Outcome, type Refusal } from '~/shared/result.server.ts';

export interface Plan {
  id: number;
  name: string;
  description: string;
  /** numeric text in the plan's currency */
  price: string;
  currency: string;
  /** per category: the plan's leverage (null: 'normal', the instrument's own) and stop-out percent (null: the default 50) */
  terms: { category: Category; leverage: number | null; stopout: string | null }[];
}

export interface PayWallet { id: number; currency: string; balance: string; margin: string }

export interface PricingView {
  plans: Plan[];
  currentPlanId: number | null;
  /** the customer's real wallets, the ones a plan is paid from */
  wallets: PayWallet[];
  /** what each plan costs from each wallet currency, `${planId}:${currency}`: the amount, or null without a rate */
  charges: Record<string, string | null>;
  /** a customer with the pricing-plan switch on */
  canSubscribe: boolean;
}

/** Every plan, cheapest first (the cards, the prompt). Money and percents as the numeric columns' exact text. */
export async function listPlans(sql: Sql): Promise<Plan[]> {
  const rows = await sql`
    SELECT id, name, description, price::text AS price, price_currency,
           forex_leverage, commodity_leverage, index_leverage, stock_leverage, crypto_leverage,
           forex_stopout::text AS forex_stopout, commodity_stopout::text AS commodity_stopout, index_stopout::text AS index_stopout,
           stock_stopout::text AS stock_stopout, crypto_stopout::text AS crypto_stopout
      FROM pricing_plans p ORDER BY p.price, p.id`;
  return rows.map((p) => ({
    id: Number(p.id), name: String(p.name), description: String(p.description ?? ''), price: String(p.price),
    currency: String(p.price_currency).trim(),
    terms: CATEGORIES.map((category) => {
      const lev = p[`${category}_leverage`], so = p[`${category}_stopout`];
      return { category, leverage: lev === null ? null : Number(lev), stopout: so === null ? null : String(so) };
    }),
  }));
}

const isZero = (v: string) => dec(v).isZero();

/**
 * The price of a plan in a wallet's currency: the same currency as it is; another at the rate
 * (how many wallet units one plan-currency unit buys), rounded half up to the wallet currency's
 * decimals, never below one of its smallest units.
 */
export function convertPrice(price: string, rate: string | number, currency: string): string {
  const dp = currencyDecimals(currency);
  const v = dec(price).times(rate).toDecimalPlaces(dp, Decimal.ROUND_HALF_UP);
  const unit = dec(1).dividedBy(dec(10).pow(dp));
  return (v.lessThan(unit) ? unit : v).toFixed(dp);
}

type Rate = { ok: true; rate: string } | { ok: false; status: number; toast: string; values?: Record<string, string> };

/** The engine's conversion rate from -> to (GET /v1/rates through the typed client). */
async function rateOf(from: string, to: string): Promise<Rate> {
  if (from === to) return { ok: true, rate: '1' };
  const r = await engine().rate(from, to);
  if (r.ok) return { ok: true, rate: r.rate };
  if (r.status === 404) return { ok: false, status: 409, toast: 'No conversion rate from {{from}} to {{to}}', values: { from, to } };
  return { ok: false, status: 503, toast: 'Something went wrong' };
}

async function realWallets(sql: Sql, userId: number): Promise<PayWallet[]> {
  const rows = await sql`
    SELECT id, currency, balance::text AS balance, margin::text AS margin FROM balances
     WHERE user_id = ${userId} AND mode = 'real' ORDER BY currency, id`;
  return rows.map((b) => ({ id: Number(b.id), currency: String(b.currency).trim(), balance: b.balance, margin: b.margin }));
}

export async function pricingOn(sql: Sql): Promise<boolean> {
  return (await getSettings(sql, ['pricingPlan'] as const)).pricingPlan.enabled === 'on';
}

/** What /pricing and the prompt show the session's user. */
export async function pricingView(sql: Sql, s: CurrentSession): Promise<PricingView> {
  const [plans, wallets, [user], on] = await Promise.all([
    listPlans(sql),
    isCustomer(s.user.roleId) ? realWallets(sql, s.user.id) : Promise.resolve([]),
    sql`SELECT pricing_plan_id FROM users WHERE id = ${s.user.id}`,
    pricingOn(sql),
  ]);
  const pairs = new Map<string, Promise<Rate>>();
  for (const p of plans) {
    if (isZero(p.price)) continue;
    for (const w of wallets) {
      const k = `${p.currency}>${w.currency}`;
      if (!pairs.has(k)) pairs.set(k, rateOf(p.currency, w.currency));
    }
  }
  const charges: Record<string, string | null> = {};
  for (const p of plans) {
    if (isZero(p.price)) continue;
    for (const w of wallets) {
      const r = await pairs.get(`${p.currency}>${w.currency}`)!;
      charges[`${p.id}:${w.currency}`] = r.ok ? convertPrice(p.price, r.rate, w.currency) : null;
    }
  }
  return {
    plans, wallets, charges,
    currentPlanId: user?.pricing_plan_id == null ? null : Number(user.pricing_plan_id),
    canSubscribe: isCustomer(s.user.roleId) && on,
  };
}

/**
 * The server's condition for the prompt that cannot be dismissed (docs/specs.md#pricing-plans):
 * a customer (role 3) without a plan, in their own session (not a staff login-as), while the
 * pricing-plan switch is on and there is a plan to choose. Null when no prompt is due; else what
 * it shows. The pages it is not shown on (funding: deposits, KYC) are PROMPT_EXEMPT.
 */
export async function planPrompt(sql: Sql, s: CurrentSession): Promise<PricingView | null> {
  // the session, read for this request, says whether the user has a plan: most do, and that costs no query
  if (!isCustomer(s.user.roleId) || s.impersonatorId !== null || s.user.pricingPlanId !== null) return null;
  if (!(await pricingOn(sql))) return null;
  const [user] = await sql`SELECT pricing_plan_id FROM users WHERE id = ${s.user.id}`;
  if (!user || user.pricing_plan_id !== null) return null;
  const view = await pricingView(sql, s);
  return view.plans.length ? view : null;
}

export interface SubscribeInput {
  userId: number;
  /** who acts: the customer, or the staff member of a login-as session */
  actorId: number;
  planId: number;
  balanceId?: number;
  ip?: string | null;
}

/** A subscription made (what was charged, if anything), or refused having changed nothing: code 'short' when the wallet cannot pay. */
export type SubscribeResult = Outcome<{ values: Record<string, string>; charged: string | null; currency: string | null; entryId: number | null }>;
const notEnoughBalance = (): Refusal => ({ ...refuse(402, 'Not enough balance'), code: 'short' });

/**
 * Subscribes the customer to a plan. One transaction: the user row is locked (two submissions of
 * one choice are one subscription: the second finds the plan already theirs), the plan set, the
 * open positions re-margined at its leverage (apply_plan_leverage, which locks every balance of
 * the user), then the price, converted to the wallet's currency at the engine's rate, is charged
 * with post_ledger when the wallet's free margin (balance − used margin after the re-margin + the
 * floating P/L when it is a loss) covers it; else nothing changes and `short` is set. A free plan
 * charges nothing. The new stop-outs and margins reach the engine through the engine_cache
 * notification of the users row. Audited.
 */
export async function subscribePlan(sql: Sql, input: SubscribeInput): Promise<SubscribeResult> {
  try {
    const [[user], [plan], on] = await Promise.all([
      sql`SELECT role_id FROM users WHERE id = ${input.userId} AND deleted_at IS NULL`,
      sql`SELECT id, name, price::text AS price, price_currency FROM pricing_plans WHERE id = ${input.planId}`,
      pricingOn(sql),
    ]);
    if (!user || !isCustomer(user.role_id)) abort(403, 'Only customers can choose a plan');
    if (!on) abort(409, 'Pricing plans are not available');
    if (!plan) abort(404, 'Plan not found', 'planId');
    const price = String(plan.price);
    const planCurrency = String(plan.price_currency).trim();
    const free = isZero(price);

    let wallet: { id: number; currency: string } | null = null;
    let charge: string | null = null;
    let rate: string | null = null;
    let prices: { names: string[]; bids: string[]; asks: string[] } = { names: [], bids: [], asks: [] };
    if (!free) {
      if (input.balanceId === undefined) abort(400, 'Wallet is required', 'balanceId');
      const [w] = await sql`SELECT id, currency FROM balances WHERE id = ${input.balanceId!} AND user_id = ${input.userId} AND mode = 'real'`;
      if (!w) abort(400, 'Choose one of your real wallets', 'balanceId');
      wallet = { id: Number(w.id), currency: String(w.currency).trim() };
      const r = await rateOf(planCurrency, wallet.currency);
      if (!r.ok) abort(r.status, r.toast, undefined, r.values);
      rate = r.rate;
      charge = convertPrice(price, rate, wallet.currency);
      // live prices for the floating P/L of the wallet's open positions (none: nothing to ask)
      const [open] = await sql`SELECT EXISTS (SELECT 1 FROM orders WHERE balance_id = ${wallet.id} AND close_time IS NULL AND deleted_at IS NULL) AS any`;
      if (open.any) {
        const q = await engine().quotes();
        if (!q.ok) abort(503, 'Something went wrong');
        const quotes = q.quotes.filter((x) => x.bids && x.asks);
        prices = { names: quotes.map((x) => x.name), bids: quotes.map((x) => String(x.bids)), asks: quotes.map((x) => String(x.asks)) };
      }
    }

    return await sql.begin(async (tx): Promise<SubscribeResult> => {
      const [u] = await tx`SELECT pricing_plan_id FROM users WHERE id = ${input.userId} FOR NO KEY UPDATE`;
      const before = u.pricing_plan_id === null ? null : Number(u.pricing_plan_id);
      if (before === input.planId) abort(409, 'This is already your plan', 'planId');
      await tx`UPDATE users SET pricing_plan_id = ${input.planId}, updated_at = now() WHERE id = ${input.userId}`;
      const remargined = await tx`SELECT balance_id, positions, margin_delta::text AS delta FROM apply_plan_leverage(${input.userId})`;

      let entryId: number | null = null;
      const ref = `${input.userId}:${randomUUID()}`;
      if (wallet && charge) {
        // the wallet is locked (apply_plan_leverage locked every balance of the user)
        const [b] = await tx`
          SELECT x.missing, free_margin(b.balance, b.margin, least(x.floating, 0)) >= ${charge}::numeric AS covered
            FROM balances b,
                 LATERAL (SELECT count(*) FILTER (WHERE px.name IS NULL)::int AS missing,
                                 coalesce(sum(position_pnl(o.type, o.trade_amount, o.open_rate, o.spread, o.exchange_rate, px.bid, px.ask))
                                          FILTER (WHERE px.name IS NOT NULL), 0) AS floating
                            FROM orders o JOIN instruments i ON i.id = o.instrument_id
                            LEFT JOIN unnest(${prices.names}::text[], ${prices.bids}::numeric[], ${prices.asks}::numeric[]) AS px (name, bid, ask)
                              ON px.name = i.name
                           WHERE o.balance_id = b.id AND o.close_time IS NULL AND o.deleted_at IS NULL) x
           WHERE b.id = ${wallet.id}`;
        if (b.missing > 0) abort(503, 'No live prices for your open positions yet');
        if (!b.covered) throw new Refused(notEnoughBalance());
        const [posted] = await tx`
          SELECT entry_id FROM post_ledger(${wallet.id}, ${dec(charge).negated().toFixed()}::numeric, 'plan_subscription',
                                           'plan_subscription', ${ref}, ${input.actorId}, ${`plan ${plan.name}`})`;
        entryId = Number(posted.entry_id);
      }
      await audit(tx, {
        actorId: input.actorId, action: 'plan.subscribe', targetKind: 'user', targetId: input.userId,
        before: { planId: before },
        after: {
          planId: input.planId, price, priceCurrency: planCurrency, balanceId: wallet?.id ?? null, charged: charge, currency: wallet?.currency ?? null,
          rate, ledgerRef: entryId === null ? null : ref, ledgerEntryId: entryId,
          remargined: remargined.map((m) => ({ balanceId: Number(m.balance_id), positions: m.positions, marginDelta: m.delta })),
        },
        ip: input.ip ?? null,
      });
      return { ok: true, toast: 'You are now on the {{plan}} plan', values: { plan: String(plan.name) }, charged: charge, currency: wallet?.currency ?? null, entryId };
    });
  } catch (e) {
    const refused = refusalOf(e);
    if (refused) return refused;
    const code = pgCode(e);
    if (code === 'BAL01') return notEnoughBalance();
    if (code === '23503') return refuse(404, 'Plan not found', 'planId'); // deleted meanwhile
    if (code === '40P01' || code === '40001') return refuse(409, 'Something went wrong');
    throw e;
  }
}
