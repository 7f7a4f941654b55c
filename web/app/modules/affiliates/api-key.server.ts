// /affiliate/api (role 4; docs/specs.md#affiliates-and-the-leads-api): the affiliate's key and Generate. Only the
// key's hash and prefix are stored (keys.server.ts): the page shows the prefix, and the full key
// once, in the answer to Generate.
import { z } from 'zod';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { clientIp } from '~/shared/request.server.ts';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { auditIp } from '~/modules/crm/leads.server.ts';
import { API_LIMIT, MAX_BATCH } from './leads-api.server.ts';
import { currentKey, generateKey } from './keys.server.ts';
import { readFormData } from '~/shared/body-limit.server.ts';
import { isAffiliate } from '~/shared/roles.ts';

const ACTIONS = { generate: z.object({ intent: z.literal('generate') }) };

export async function apiKeyLoader({ request, context }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  return { key: await currentKey(sql, s.user.id), limit: API_LIMIT, maxBatch: MAX_BATCH };
}

export async function apiKeyAction({ request, context }: ActionFunctionArgs) {
  const sql = db();
  const s = await requireAccess(request, sql, context);
  const { intent, submission } = parseIntent(await readFormData(request), ACTIONS);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  // the key is the affiliate's own; a login-as session does not reach staff pages (requireAccess)
  if (!isAffiliate(s.user.roleId)) return replyRefused(submission, { intent, status: 403, toast: 'Forbidden' });
  const { key, prefix } = await generateKey(sql, s.user.id, auditIp(clientIp(request, context)));
  return replyDone(submission, 'API key generated successfully', { intent, extra: { key, prefix } });
}
