import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/utils/db.server.ts';
import { notFound } from '~/modules/auth/guards.server.ts';
import { paymentMocks } from '~/modules/payments/mocks.server.ts';
import { gatewayConfig } from '~/modules/gateways/gateways.server.ts';
import { publicOrigin } from '~/modules/payments/payments.server.ts';

// /payments/mock/:gateway/:ref — only with MOCKS=1: the mock provider's checkout page (Stripe's
// hosted Checkout, PayPal's approval). Pay: Stripe's session is paid, its signed
// checkout.session.completed is posted to the app's webhook and the customer sent to the
// success URL; PayPal's order is approved and the customer sent to the return URL with ?token=.

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function mocks() {
  const m = await paymentMocks();
  if (!m) throw notFound();
  return m;
}

export async function loader({ params }: LoaderFunctionArgs) {
  const m = await mocks();
  let title: string, amount: string;
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
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>body{font-family:system-ui,sans-serif;background:#f6f8fa;color:#1a1f36;display:grid;place-items:center;min-height:100vh;margin:0}
main{box-sizing:border-box;background:#fff;border-radius:12px;padding:32px;box-shadow:0 2px 12px #0002;max-width:360px;width:90%}h1{font-size:20px;margin:0 0 8px}
.amount{font-size:32px;font-weight:600;margin:16px 0}button{font:inherit;padding:12px;border-radius:8px;border:0;width:100%;margin-top:8px;cursor:pointer}
.pay{background:#4338ca;color:#fff}.cancel{background:#e5e7eb;color:#1a1f36}</style></head>
<body><main><h1>${esc(title)}</h1><p>Test mode: no money moves.</p><p class="amount">${esc(amount)}</p>
<form method="post"><button class="pay" name="intent" value="pay" type="submit">Pay ${esc(amount)}</button>
<button class="cancel" name="intent" value="cancel" type="submit">Cancel</button></form></main></body></html>`;
  return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

export async function action({ request, params }: ActionFunctionArgs) {
  const m = await mocks();
  const sql = db();
  const intent = (await request.formData()).get('intent');
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
