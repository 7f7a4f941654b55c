import { randomBytes } from 'node:crypto';
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { db, type Sql } from '~/shared/db.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal } from '~/shared/result.server.ts';
import { activeGateway, createDeposit, parseMoneyAmount, realWallet } from '~/modules/money/money.server.ts';
import { isKycApproved } from '~/modules/kyc/kyc-gate.server.ts';
import { depositFee } from '~/modules/money/fees.ts';
import { cryptoQuote, qrDataUrl } from '~/modules/money/deposits.server.ts';
import { uploadHref } from '~/modules/uploads/href.ts';
import { cryptoConfirmSchema, cryptoNetwork } from '~/modules/money/deposit-schemas.ts';
import { CryptoDepositPage } from '~/modules/money/deposit-client.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { readFormData } from '~/shared/body-limit.server.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/deposits/crypto/:id');

// /deposits/crypto/:id?balance=…&amount=… (:id btc or usdt) — the gateway's wallet address as a
// QR code and as text to copy, the total converted at the live rate, and Confirm: a pending
// deposit, credited once staff have checked the transfer.

const text = (body: string, status: number) => new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

async function transfer(sql: Sql, request: Request, userId: number, gatewayParam: string | undefined) {
  if (gatewayParam !== 'btc' && gatewayParam !== 'usdt') throw notFound();
  const gateway = await activeGateway(sql, gatewayParam);
  if (!gateway) throw notFound();
  const address = gateway.keys[0]?.trim() ?? '';
  if (!address) throw text('This gateway is not available yet', 404);
  const url = new URL(request.url);
  const balance = url.searchParams.get('balance') ?? '';
  const wallet = await realWallet(sql, userId, /^[1-9][0-9]{0,15}$/.test(balance) ? Number(balance) : NaN);
  if (!wallet) throw notFound();
  const amount = parseMoneyAmount(url.searchParams.get('amount'));
  if (!amount.ok) throw text(amount.message, 400);
  return { gateway, address, wallet, amount: amount.value, fees: depositFee(amount.value, gateway.fee) };
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { gateway, address, wallet, fees } = await transfer(sql, request, s.user.id, params.id);
  const [quote, qr, kycApproved] = await Promise.all([
    cryptoQuote(gateway.name, wallet.currency, fees.total),
    // the admin's uploaded QR file when there is one, else drawn from the address
    uploadHref(gateway.filePath) ?? qrDataUrl(address),
    isKycApproved(sql, s.user.id),
  ]);
  return {
    gateway: { name: gateway.name, title: gateway.title, feePercent: gateway.fee },
    wallet: { id: wallet.id, currency: wallet.currency },
    fees, address, qr, quote,
    clientRef: randomBytes(16).toString('hex'),
    kycNotice: !kycApproved,
    network: cryptoNetwork(gateway.name, address),
  };
}

// POST (clientRef, tx_hash): the pending deposit, with the address and the quote it was made at and
// the transfer's hash as its reference (what staff check on the chain, and search by).
export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { gateway, address, wallet, amount, fees } = await transfer(sql, request, s.user.id, params.id);
  const submission = parseForm(await readFormData(request), cryptoConfirmSchema(cryptoNetwork(gateway.name, address)));
  if (submission.status !== 'success') return replyRefused(submission);
  const quote = await cryptoQuote(gateway.name, wallet.currency, fees.total);
  const r = await createDeposit(sql, {
    userId: s.user.id, balanceId: wallet.id, gateway: gateway.name, amount, clientRef: submission.value.clientRef, reference: submission.value.tx_hash,
    details: {
      walletAddress: address, quotedCurrency: quote.currency,
      ...(quote.amount !== null && quote.rate !== null ? { quotedAmount: quote.amount, quotedRate: quote.rate } : {}),
    },
    source: { session: s, ip: clientIp(request, context) },
  });
  if (!r.ok) return replyRefusal(submission, r);
  return redirect(`/deposits?${new URLSearchParams({ status: 'pending', amount: r.amount, currency: r.currency })}`);
}

export default function Page() {
  const loaded = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  return <CryptoDepositPage data={loaded} reply={reply} />;
}

export const meta = pageMeta('Crypto Deposit');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
