// Pending orders over internal HTTP (docs/specs.md#pending-orders): web calls these with the
// signed-in customer's id (or the staff member's as actorId) and the shared secret.
import { Elysia, t } from 'elysia';
import type { Core } from '../core.ts';
import { adminCancelPending, cancelPending, modifyPending, placePending } from '../orders/pending.ts';
import { STATUS, Refused, type Result } from '../orders/results.ts';
import { requireSecret } from './internal.ts';
import { AdminCancelPendingBody, CancelPendingBody, ModifyPendingBody, PlacePendingBody } from '../contract/pending.ts';

function answer<T extends object>(r: Result<T>, set: { status?: number | string }, okStatus = 200): { ok: true } & T {
  if (!r.ok) throw new Refused(STATUS[r.code], r.code, r.message);
  set.status = okStatus;
  return r;
}

const id = t.Object({ id: t.Integer({ minimum: 1 }) });

export function pendingRoutes(core: Core, secret: string) {
  const deps = core.pendingDeps;
  return new Elysia()
    .onBeforeHandle(({ headers }) => requireSecret(headers, secret))
    .post('/pending-orders', async ({ body, set }) => {
      const r = await placePending(deps, body);
      return answer(r, set, r.ok && !r.replayed ? 201 : 200);
    }, { body: PlacePendingBody })
    .patch('/pending-orders/:id', async ({ params, body, set }) =>
      answer(await modifyPending(deps, { pendingId: params.id, ...body }), set), { params: id, body: ModifyPendingBody })
    .post('/pending-orders/:id/cancel', async ({ params, body, set }) =>
      answer(await cancelPending(deps, { pendingId: params.id, userId: body.userId }), set), { params: id, body: CancelPendingBody })
    .post('/admin/pending-orders/:id/cancel', async ({ params, body, set }) =>
      answer(await adminCancelPending(deps, { pendingId: params.id, actorId: body.actorId, ip: body.ip }), set),
    { params: id, body: AdminCancelPendingBody });
}
