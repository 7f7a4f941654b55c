import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { notFound } from '~/modules/auth/guards.server.ts';
import { paymentMocks } from '~/modules/payments/mocks.server.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { publicOrigin } from '~/modules/payments/payments.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/payments/mock/:gateway/:ref');

// /payments/mock/:gateway/:ref — only with MOCKS=1: the mock provider's checkout page (Stripe's
// hosted Checkout, PayPal's approval, and the hosted pages of CoinPayments, Flutterwave, MoonPay,
// Wipays and Perfect Money: web/test/mocks/checkouts.ts). Pay: Stripe's session is paid, its signed
// checkout.session.completed is posted to the app's webhook and the customer sent to the
// success URL; PayPal's order is approved and the customer sent to the return URL with ?token=;
// the others send their signed notification and the customer back as each provider does.
// POST /payments/mock/perfectmoney/sci is the mock SCI entry (step1.asp): the browser's form.

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function mocks() {
  const m = await paymentMocks();
  if (!m) throw notFound();
  return m;
}

async function context(request: Request, gateway: string) {
  const sql = db();
  return { origin: await publicOrigin(sql), config: await gatewayConfig(sql, gateway), url: new URL(request.url) };
}

function page(title: string, amount: string, lines: string[] = [], error?: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>body{font-family:system-ui,sans-serif;background:#f6f8fa;color:#1a1f36;display:grid;place-items:center;min-height:100vh;margin:0}
main{box-sizing:border-box;background:#fff;border-radius:12px;padding:32px;box-shadow:0 2px 12px #0002;max-width:360px;width:90%}h1{font-size:20px;margin:0 0 8px}
.amount{font-size:32px;font-weight:600;margin:16px 0}.line{color:#4b5563;overflow-wrap:anywhere}.error{color:#b91c1c;font-weight:600}
button{font:inherit;padding:12px;border-radius:8px;border:0;width:100%;margin-top:8px;cursor:pointer}
.pay{background:#4338ca;color:#fff}.cancel{background:#e5e7eb;color:#1a1f36}</style></head>
<body><main><h1>${esc(title)}</h1><p>Test mode: no money moves.</p><p class="amount">${esc(amount)}</p>
${lines.map((l) => `<p class="line">${esc(l)}</p>`).join('')}
${error ? `<p class="error" role="alert">${esc(error)}</p>` : `<form method="post"><button class="pay" name="intent" value="pay" type="submit">Pay ${esc(amount)}</button>
<button class="cancel" name="intent" value="cancel" type="submit">Cancel</button></form>`}</main></body></html>`;
  return new Response(html, { status: error ? 400 : 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const m = await mocks();
  let title: string, amount: string;
  const other = Object.hasOwn(m.mockCheckouts, params.gateway ?? '') ? m.mockCheckouts[params.gateway!] : null;
  if (other) {
    const v = other.view(params.ref ?? '', await context(request, params.gateway!));
    if (!v) throw notFound();
    return page(v.title, v.amount, v.lines, v.error);
  }
  if (params.gateway === 'stripe') {
    const s = m.stripeSessions.get(params.ref ?? '');
    if (!s) throw notFound();
    title = 'Stripe Checkout (mock)';
    amount = `${(s.amount_total / 100).toFixed(2)} ${s.currency.toUpperCase()}`;
  } else if (params.gateway === 'paypal') {
    const o = m.paypalOrders.get(params.ref ?? '');
    if (!o) throw notFound();
    title = 'PayPal (mock)';
    amount = `${o.purchase_units[0].amount.value} ${o.purchase_units[0].amount.currency_code}`;
  } else throw notFound();
  return page(title, amount);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const m = await mocks();
  const sql = db();
  const form = await readFormData(request);
  const intent = form.get('intent');
  const other = Object.hasOwn(m.mockCheckouts, params.gateway ?? '') ? m.mockCheckouts[params.gateway!] : null;
  if (other) {
    const ref = params.ref ?? '';
    // Perfect Money's SCI entry: the browser posts the merchant's form, the payment page follows
    if (other.enter && ref === 'sci') {
      const fields: Record<string, string> = {};
      for (const [k, v] of form) if (typeof v === 'string') fields[k] = v;
      const id = other.enter(fields);
      if (!id) return new Response('Bad Request: a required SCI field is missing', { status: 400 });
      return redirect(`/payments/mock/${params.gateway}/${id}`, 303);
    }
    const ctx = await context(request, params.gateway!);
    if (!other.view(ref, ctx)) throw notFound();
    const to = intent === 'pay' ? await other.pay(ref, ctx) : other.cancel(ref, ctx);
    if (!to) throw notFound();
    return redirect(to);
  }
  if (params.gateway === 'stripe') {
    const s = m.stripeSessions.get(params.ref ?? '');
    if (!s) throw notFound();
    if (intent !== 'pay') return redirect(s.cancel_url ?? s.success_url);
    m.stripePay(s.id);
    const secret = (await gatewayConfig(sql, 'stripe'))?.key2 ?? '';
    const body = m.stripeEvent(s);
    // Stripe posts the event to the endpoint configured in its dashboard: here, the app's own
    await fetch(`${await publicOrigin(sql)}/payments/webhooks/stripe`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': m.stripeSignature(body, secret) }, body,
    }).catch((e) => console.warn('[payments] mock webhook not delivered', e));
    return redirect(s.success_url);
  }
  if (params.gateway === 'paypal') {
    const o = m.paypalOrders.get(params.ref ?? '');
    if (!o) throw notFound();
    const back = new URL(o.returnUrl);
    if (intent !== 'pay') return redirect(`${await publicOrigin(sql)}/deposits?status=cancelled`);
    m.paypalApprove(o.id);
    back.searchParams.set('token', o.id);
    back.searchParams.set('PayerID', 'MOCKPAYER01');
    return redirect(back.toString());
  }
  throw notFound();
}
