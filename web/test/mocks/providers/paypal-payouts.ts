// msw handlers of PayPal Payouts v1 (https://developer.paypal.com/api/payments.payouts-batch/v1), in
// its documented formats, for the tests and MOCKS=1:
// - POST /v1/payments/payouts (Bearer token of the mock OAuth of mocks/payments.ts): validates the
//   sender_batch_header and the items, answers 201 { batch_header: { payout_batch_id, batch_status:
//   'PENDING', sender_batch_header }, links }. The same PayPal-Request-Id answers the first
//   response again; a sender_batch_id used before (another request id) is refused with a 400 whose
//   links lead to the original payout, as the docs describe ("rejects the request with an error
//   message that shows the duplicate sender_batch_id and includes a HATEOAS link to the original
//   payout"; the error's name here is the mock's own).
// - GET /v1/payments/payouts/{payout_batch_id}: the batch with its one item and transaction_status.
//   An item PayPal has not finished (PENDING) completes as SUCCESS on the first status request,
//   unless the test set another outcome (payoutMock.outcome).
// - payoutItemEvent(): a PAYMENT.PAYOUTS-ITEM.* webhook body (resource: the payout item), to be
//   signed with paypalSignatureHeaders like every PayPal notification.
import { randomBytes } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { PAYPAL_LIVE, PAYPAL_SANDBOX } from '~/modules/payments/adapters/paypal.server.ts';

export interface MockPayoutItem {
  payout_item_id: string;
  transaction_id: string | null;
  transaction_status: string;
  payout_batch_id: string;
  sender_batch_id: string;
  payout_item: { recipient_type: string; amount: { value: string; currency: string }; note?: string; receiver: string; sender_item_id: string; recipient_wallet: 'PAYPAL' };
  errors?: { name: string; message: string };
}
export interface MockPayout { id: string; base: string; batch_status: string; sender_batch_header: Record<string, unknown>; item: MockPayoutItem; created: string }

type Ok = (request: Request) => boolean;

export const payoutMock = {
  payouts: new Map<string, MockPayout>(),
  bySenderBatch: new Map<string, string>(),
  byRequestId: new Map<string, string>(),
  calls: [] as { method: string; path: string; requestId: string | null; body: unknown }[],
  /** the status a PENDING item moves to on the next status request, by receiver (default SUCCESS) */
  outcome: new Map<string, { status: string; error?: { name: string; message: string } }>(),
  /** the next N create calls fail with a 500 after creating the payout (the answer is lost) */
  loseAnswers: 0,
  /** the next N create calls fail with a 500 before doing anything */
  failBefore: 0,
  /** answers the next create calls get before anything is done, in order (a refusal) */
  createAnswers: [] as { status: number; name: string; message: string }[],
  reset() {
    this.payouts.clear(); this.bySenderBatch.clear(); this.byRequestId.clear(); this.calls.length = 0; this.outcome.clear();
    this.loseAnswers = 0; this.failBefore = 0; this.createAnswers.length = 0;
  },
  /** Moves an item to a final status now (what PayPal does when it processed it). */
  settle(batchId: string, status: string, error?: { name: string; message: string }) {
    const p = this.payouts.get(batchId);
    if (!p) return null;
    p.item.transaction_status = status;
    p.batch_status = 'SUCCESS';
    if (status === 'SUCCESS') p.item.transaction_id = randomBytes(8).toString('hex').toUpperCase();
    if (error) p.item.errors = error;
    return p;
  },
};

const ppError = (status: number, name: string, message: string, extra: Record<string, unknown> = {}) =>
  HttpResponse.json({ name, message, debug_id: randomBytes(6).toString('hex'), ...extra }, { status });

function batchJson(p: MockPayout, withItems: boolean) {
  const links = [{ href: `${p.base}/v1/payments/payouts/${p.id}`, rel: 'self', method: 'GET', encType: 'application/json' }];
  const header = { payout_batch_id: p.id, batch_status: p.batch_status, time_created: p.created, sender_batch_header: p.sender_batch_header };
  if (!withItems) return { batch_header: header, links };
  return {
    batch_header: { ...header, amount: p.item.payout_item.amount },
    items: [{ ...p.item, links: [{ href: `${p.base}/v1/payments/payouts-item/${p.item.payout_item_id}`, rel: 'item', method: 'GET' }] }],
    links,
  };
}

/** A PAYMENT.PAYOUTS-ITEM.<suffix> notification body of a payout, as PayPal posts it. */
export function payoutItemEvent(batchId: string, suffix: string, eventId = `WH-${randomBytes(8).toString('hex').toUpperCase()}`): string {
  const p = payoutMock.payouts.get(batchId);
  if (!p) throw new Error(`no mock payout ${batchId}`);
  return JSON.stringify({
    id: eventId, event_version: '1.0', create_time: new Date().toISOString(), resource_type: 'payouts_item', event_type: `PAYMENT.PAYOUTS-ITEM.${suffix}`,
    summary: `A payout item has ${suffix.toLowerCase()}`, resource: { ...p.item, time_processed: new Date().toISOString() },
  });
}

function handlersFor(base: string, bearerOk: Ok) {
  return [
    http.post(`${base}/v1/payments/payouts`, async ({ request }) => {
      const requestId = request.headers.get('paypal-request-id');
      let body: { sender_batch_header?: { sender_batch_id?: unknown; recipient_type?: string }; items?: { recipient_type?: string; amount?: { value?: unknown; currency?: unknown }; receiver?: unknown; sender_item_id?: unknown; note?: string }[] };
      try { body = await request.json() as typeof body; } catch { return ppError(400, 'INVALID_REQUEST', 'MALFORMED_REQUEST_JSON'); }
      payoutMock.calls.push({ method: 'POST', path: '/v1/payments/payouts', requestId, body });
      if (!bearerOk(request)) return ppError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed due to invalid authentication credentials or a missing Authorization header.');
      if (payoutMock.failBefore > 0) { payoutMock.failBefore--; return ppError(500, 'INTERNAL_SERVICE_ERROR', 'An internal service error has occurred'); }
      const scripted = payoutMock.createAnswers.shift();
      if (scripted) return ppError(scripted.status, scripted.name, scripted.message);
      const known = requestId ? payoutMock.payouts.get(payoutMock.byRequestId.get(requestId) ?? '') : undefined;
      if (known) return HttpResponse.json(batchJson(known, false), { status: 201 });
      const senderBatchId = body.sender_batch_header?.sender_batch_id;
      const item = body.items?.[0];
      if (typeof senderBatchId !== 'string' || !senderBatchId) return ppError(400, 'VALIDATION_ERROR', 'Invalid request - see details', { details: [{ field: 'sender_batch_header.sender_batch_id', issue: 'Required field missing' }] });
      const previous = payoutMock.payouts.get(payoutMock.bySenderBatch.get(senderBatchId) ?? '');
      if (previous) {
        return ppError(400, 'USER_BUSINESS_ERROR', `Batch with given sender_batch_id already exists: ${senderBatchId}`,
          { links: [{ href: `${base}/v1/payments/payouts/${previous.id}`, rel: 'self', method: 'GET' }] });
      }
      const type = item?.recipient_type ?? body.sender_batch_header?.recipient_type;
      if (!item || body.items!.length > 15000) return ppError(400, 'VALIDATION_ERROR', 'Invalid request - see details');
      if (!type || !['EMAIL', 'PHONE', 'PAYPAL_ID'].includes(type) || typeof item.receiver !== 'string' || !item.receiver) {
        return ppError(400, 'VALIDATION_ERROR', 'Invalid request - see details', { details: [{ field: 'items[0].receiver', issue: 'Receiver is invalid or does not match with type' }] });
      }
      if (typeof item.amount?.value !== 'string' || !/^\d+(\.\d{2})?$/.test(item.amount.value) || typeof item.amount.currency !== 'string') {
        return ppError(422, 'UNPROCESSABLE_ENTITY', 'The requested action could not be performed, semantically incorrect, or failed business validation.', { details: [{ field: 'items[0].amount', issue: 'CURRENCY_AMOUNT_INVALID' }] });
      }
      if (type === 'PAYPAL_ID' && item.receiver === 'REFUSEDPAYER01') {
        return ppError(422, 'UNPROCESSABLE_ENTITY', 'RECEIVER_UNREGISTERED', { details: [{ field: 'items[0].receiver', issue: 'RECEIVER_UNREGISTERED' }] });
      }
      const id = randomBytes(7).toString('hex').toUpperCase().slice(0, 13);
      const p: MockPayout = {
        id, base, batch_status: 'PENDING', created: new Date().toISOString(), sender_batch_header: body.sender_batch_header as Record<string, unknown>,
        item: {
          payout_item_id: randomBytes(7).toString('hex').toUpperCase().slice(0, 13), transaction_id: null, transaction_status: 'PENDING', payout_batch_id: id,
          sender_batch_id: senderBatchId,
          payout_item: { recipient_type: type, amount: { value: item.amount.value, currency: item.amount.currency }, note: item.note, receiver: item.receiver, sender_item_id: String(item.sender_item_id ?? ''), recipient_wallet: 'PAYPAL' },
        },
      };
      payoutMock.payouts.set(id, p);
      payoutMock.bySenderBatch.set(senderBatchId, id);
      if (requestId) payoutMock.byRequestId.set(requestId, id);
      if (payoutMock.loseAnswers > 0) { payoutMock.loseAnswers--; return ppError(500, 'INTERNAL_SERVICE_ERROR', 'An internal service error has occurred'); }
      return HttpResponse.json(batchJson(p, false), { status: 201 });
    }),
    http.get(`${base}/v1/payments/payouts/:id`, ({ request, params }) => {
      payoutMock.calls.push({ method: 'GET', path: `/v1/payments/payouts/${params.id}`, requestId: null, body: null });
      if (!bearerOk(request)) return ppError(401, 'AUTHENTICATION_FAILURE', 'Authentication failed');
      const p = payoutMock.payouts.get(String(params.id));
      if (!p) return ppError(404, 'INVALID_RESOURCE_ID', 'Requested resource ID was not found.');
      if (p.item.transaction_status === 'PENDING') {
        const next = payoutMock.outcome.get(p.item.payout_item.receiver) ?? { status: 'SUCCESS' };
        payoutMock.settle(p.id, next.status, next.error);
      }
      return HttpResponse.json(batchJson(p, true));
    }),
  ];
}

export function payoutHandlers(bearerOk: Ok) {
  return [...handlersFor(PAYPAL_SANDBOX, bearerOk), ...handlersFor(PAYPAL_LIVE, bearerOk)];
}
