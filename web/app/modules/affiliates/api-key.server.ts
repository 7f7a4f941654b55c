// /affiliate/api (role 4; docs/specs.md#affiliates-and-the-leads-api): the affiliate's key and Generate. Only the
// key's hash and prefix are stored (keys.server.ts): the page shows the prefix, and the full key
// once, in the answer to Generate.
import { z } from 'zod';
import type { Sql } from '~/shared/sql.ts';
import type { CurrentSession } from '~/modules/auth/session.server.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyDone, replyRefused } from '~/shared/reply.server.ts';
import { auditIp } from '~/modules/crm/leads.server.ts';
import { API_LIMIT, MAX_BATCH } from './leads-api.server.ts';
import { currentKey, generateKey } from './keys.server.ts';
import { isAffiliate } from '~/shared/roles.ts';

const ACTIONS = { generate: z.object({ intent: z.literal('generate') }) };

export async function apiKeyLoader(sql: Sql, s: CurrentSession) {
  return { key: await currentKey(sql, s.user.id), limit: API_LIMIT, maxBatch: MAX_BATCH };
}

export async function apiKeyAction(sql: Sql, s: CurrentSession, form: FormData, ip: string | null) {
  const { intent, submission } = parseIntent(form, ACTIONS);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  // the key is the affiliate's own; a login-as session does not reach staff pages (requireAccess)
  if (!isAffiliate(s.user.roleId)) return replyRefused(submission, { intent, status: 403, toast: 'Forbidden' });
  const { key, prefix } = await generateKey(sql, s.user.id, auditIp(ip));
  return replyDone(submission, 'API key generated successfully', { intent, extra: { key, prefix } });
}
