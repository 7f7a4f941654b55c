import { randomBytes } from 'node:crypto';
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { db, type Sql } from '~/shared/db.server.ts';
import { notFound, requireAccess } from '~/modules/auth/guards.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { pageMeta } from '~/modules/i18n/meta.ts';
import { parseForm } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { replyRefusal, refusedWithout } from '~/shared/result.server.ts';
import { discardUploads, receiveUploads } from '~/modules/uploads/uploads.server.ts';
import { activeGateway, createDeposit, parseMoneyAmount, realWallet } from '~/modules/money/money.server.ts';
import { isKycApproved } from '~/modules/kyc/kyc-gate.server.ts';
import { depositFee } from '~/modules/money/fees.ts';
import { BankDepositSchema } from '~/modules/money/deposit-schemas.ts';
import { BankDepositPage } from '~/modules/money/deposit-client.tsx';
import { GeneralErrorBoundary } from '~/components/error-boundary.tsx';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/deposits/bank/:id');

// /deposits/bank/:id?amount=… — a bank transfer into the user's real wallet :id: the broker's bank
// details (the bank gateway's key1..key5), the amount with its fee, and the 'Sent From' form with
// the proof of the transfer. Another user's wallet, a demo wallet or an unknown id: 404.

/** The wallet, the bank gateway and the amount of the URL, or the Response that refuses them. */
async function transfer(sql: Sql, request: Request, userId: number, idParam: string | undefined) {
  const id = /^[1-9][0-9]{0,15}$/.test(idParam ?? '') ? Number(idParam) : NaN;
  const wallet = await realWallet(sql, userId, id);
  if (!wallet) throw notFound();
  const gateway = await activeGateway(sql, 'bank');
  if (!gateway) throw new Response('Bank transfer is not available', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const amount = parseMoneyAmount(new URL(request.url).searchParams.get('amount'));
  if (!amount.ok) throw new Response(amount.message, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  return { wallet, gateway, amount: amount.value };
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { wallet, gateway, amount } = await transfer(sql, request, s.user.id, params.id);
  const [[user], kycApproved] = await Promise.all([sql`SELECT full_name FROM users WHERE id = ${s.user.id}`, isKycApproved(sql, s.user.id)]);
  return {
    wallet: { id: wallet.id, currency: wallet.currency },
    fees: depositFee(amount, gateway.fee),
    feePercent: gateway.fee,
    bank: gateway.keys,
    fullName: String(user.full_name),
    // one random id per page: a double submit of this form is one deposit
    clientRef: randomBytes(16).toString('hex'),
    kycNotice: !kycApproved,
  };
}

// POST (multipart: bank_name, account_name, account_number, proof, clientRef): a pending deposit.
export async function action({ request, params, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { wallet, amount } = await transfer(sql, request, s.user.id, params.id);

  const received = await receiveUploads(sql, request, { id: s.user.id, roleId: s.user.roleId }, { proof: 'deposit_proof' });
  if (!received.ok) return refusedWithout(received.error.status, received.error.message, 'proof', received.error.params);
  const proof = received.files.proof;
  const submission = parseForm(received.form, BankDepositSchema);
  if (submission.status !== 'success' || !proof) {
    if (proof) await discardUploads(sql, s.user.id, [proof.id]);
    return replyRefused(submission, {
      toast: submission.status === 'success' ? 'Proof is required' : undefined,
      fieldErrors: { ...(submission.status === 'error' ? submission.error as Record<string, string[]> : {}), ...(proof ? {} : { proof: ['Proof is required'] }) },
    });
  }
  const [user] = await sql`SELECT full_name FROM users WHERE id = ${s.user.id}`;
  const v = submission.value;
  const r = await createDeposit(sql, {
    userId: s.user.id, balanceId: wallet.id, gateway: 'bank', amount, clientRef: v.clientRef,
    description: v.bank_name,
    // the account holder is the user: the posted account_name is not read
    details: { bankName: v.bank_name, accountName: String(user.full_name), accountNumber: v.account_number, proofUploadId: proof.id },
    source: { session: s, ip: clientIp(request, context) },
  });
  if (!r.ok) {
    await discardUploads(sql, s.user.id, [proof.id]);
    return replyRefusal(submission, r);
  }
  // a double submit answers the first deposit; the second copy of the proof is not kept
  if (r.replayed) await discardUploads(sql, s.user.id, [proof.id]);
  return redirect(`/deposits?${new URLSearchParams({ status: 'pending', amount: r.amount, currency: r.currency })}`);
}

export default function Page() {
  const loaded = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  return <BankDepositPage data={loaded} reply={reply} />;
}

export const meta = pageMeta('Bank Deposit');

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
