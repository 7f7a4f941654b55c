// Click-to-call through Voiso (docs/specs.md#crm-lead-lists: POST /admin/crm/voiso/startCall, GET /admin/crm/voiso/agents;
// docs/specs.md#settings-and-providers: api_settings 'voiso', value1 cluster ID, value2 contact-center API key, encrypted).
//
// Voiso's documented API (never anything else):
// - Click2call / startcall: POST https://{cluster_id}.voiso.com/api/v1/{client_api_key}/click2call
//   with the query parameters agent (the agent's extension or sign-in email, required), number (E.164
//   without the '+', required), account_id (the contact's id in the CRM: Voiso then shows it instead of
//   the number in Agent Panel, RTD and CDR), crm (the sending application's name) and get_call_id=true
//   (the answer is {"call_id": "<uuid>"}). Errors come back as {"errors": "User not found"} or {"error": "…"}.
//   https://developers.voiso.com/rest/api-endpoints/voice/startcall
//   https://developers.voiso.com/rest/api-overview/voice/start-call
//   https://developers.voiso.com/rest/getting-started/apis-overview/click2call/click2call-1
// - Agent status: GET https://{cluster_id}.voiso.com/api/v1/{client_api_key}/agents_status, an array of
//   {email, ext, status} (status: available, idle, logout, outbound, inbound, dialer waiting, unavailable…);
//   a wrong key answers {"error": "Invalid key"}.
//   https://developers.voiso.com/rest/api-overview/agent-application/agent-status
//   https://developers.voiso.com/reference/get-agent-status-overview
//
// The number is read on the server from a lead the caller may see (the lead lists' own scope), so a
// masked number still calls and the browser never receives it. Agents (roles 5, 6) call as themselves:
// Voiso's `agent` takes the sign-in email, which is the user's email here. Admins and managers pick the
// agent from Voiso's own list.
import { leadPhoneE164 } from '~/shared/contact.server.ts';
import { decryptSecret, secretsKey } from '@broker/engine/contract/secrets';
import type { Sql } from '~/shared/db.server.ts';
import { env } from '~/shared/env.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { defaultStore, hitLimit, type Limit, type RateLimitStore } from '~/modules/auth/rate-limit.server.ts';
import { maskPhone } from '~/shared/mask.ts';
import { auditIp, resolveScope, scopeCondition, type Caller } from './leads.server.ts';
import { isAdmin, isAgent } from '~/shared/roles.ts';
import type { Result } from '~/shared/result.server.ts';

export const VOISO_TIMEOUT_MS = 10_000;
/** Calls one user may start: a person dials at most a few a minute. */
export const CALL_LIMIT: Limit = { name: 'voiso-call:user', max: 10, windowSeconds: 60 };
/** The `crm` tag Voiso puts on the call in its CDR. */
export const CRM_NAME = 'broker-crm';

export const CALL_TOASTS = {
  started: 'Call started successfully',
  /** to an admin, who can configure it: the page is API Settings (/admin/apis, admins only) */
  notConfigured: 'Voiso is not configured: set its cluster ID and API key in API Settings',
  /** to managers and agents, who cannot open API Settings */
  notConfiguredAskAdmin: 'Click-to-call is not set up: an admin sets up Voiso in API Settings',
  noPhone: 'This lead has no phone number',
  badPhone: 'The lead’s phone number cannot be dialled: give it in international format (+ and country code) or set the lead’s country',
  unreachable: 'Voiso could not be reached',
  timeout: 'Voiso did not answer in time',
  tooMany: 'Too many calls. Please try again in a minute.',
  noAgent: 'Choose the agent who makes the call',
} as const;

export interface VoisoConfig { cluster: string; apiKey: string }
export interface VoisoAgent { email: string; ext: string; status: string }

/** A Voiso answer that is not a success: the provider's own message when it gave one. */
export class VoisoError extends Error {
  constructor(message: string, readonly status: number | null) { super(message); }
}

/** The cluster is a host label (its first part of the account URL): nothing that could leave voiso.com. */
const CLUSTER = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Why this caller cannot call at all (Voiso not configured), worded for whether they can configure it; null: they can call. */
export async function callBlocked(sql: Sql, roleId: number): Promise<string | null> {
  if (await voisoConfig(sql)) return null;
  return isAdmin(roleId) ? CALL_TOASTS.notConfigured : CALL_TOASTS.notConfiguredAskAdmin;
}

export async function voisoConfig(sql: Sql): Promise<VoisoConfig | null> {
  const [row] = await sql`SELECT value1, value2 FROM api_settings WHERE key = 'voiso'`;
  const cluster = String(row?.value1 ?? '').trim();
  if (!cluster || !CLUSTER.test(cluster) || !row?.value2) return null;
  let apiKey: string;
  try { apiKey = decryptSecret(String(row.value2), secretsKey(env().SECRETS_KEY)); } catch { return null; }
  return apiKey ? { cluster, apiKey } : null;
}

const base = (c: VoisoConfig) => `https://${c.cluster}.voiso.com/api/v1/${encodeURIComponent(c.apiKey)}`;

/** The provider's words in an error body ({"errors": "…"} or {"error": "…"}, a string or a list), else null. */
function providerMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const o = body as Record<string, unknown>;
  for (const k of ['errors', 'error', 'message']) {
    const v = o[k];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 300);
    if (Array.isArray(v) && v.length && typeof v[0] === 'string') return v.map(String).join(', ').slice(0, 300);
  }
  return null;
}

async function voisoFetch(url: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { Accept: 'application/json', ...(init.headers ?? {}) }, signal: AbortSignal.timeout(VOISO_TIMEOUT_MS) });
  } catch (e) {
    const name = (e as { name?: string })?.name;
    throw new VoisoError(name === 'TimeoutError' || name === 'AbortError' ? CALL_TOASTS.timeout : CALL_TOASTS.unreachable, null);
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try { body = text ? JSON.parse(text) : null; } catch { body = null; }
  const said = providerMessage(body);
  if (!res.ok) throw new VoisoError(said ?? `Voiso answered ${res.status}`, res.status);
  // Voiso answers some refusals with 200 and an error body
  if (said && !(body as Record<string, unknown>).call_id) throw new VoisoError(said, res.status);
  return body;
}

/** POST …/click2call: the documented query parameters. Returns Voiso's call id when it sent one. */
export async function voisoClickToCall(c: VoisoConfig, p: { agent: string; number: string; accountId?: string }): Promise<{ callId: string | null }> {
  const q = new URLSearchParams({ agent: p.agent, number: p.number });
  if (p.accountId) q.set('account_id', p.accountId);
  q.set('crm', CRM_NAME);
  q.set('get_call_id', 'true');
  const body = await voisoFetch(`${base(c)}/click2call?${q}`, { method: 'POST' });
  const id = body && typeof body === 'object' ? (body as Record<string, unknown>).call_id : null;
  return { callId: typeof id === 'string' ? id : null };
}

/** GET …/agents_status: every agent with their extension and status. */
export async function voisoAgents(c: VoisoConfig): Promise<VoisoAgent[]> {
  const body = await voisoFetch(`${base(c)}/agents_status`, { method: 'GET' });
  const list = Array.isArray(body) ? body : [];
  return list
    .filter((a): a is Record<string, unknown> => !!a && typeof a === 'object')
    .map((a) => ({ email: String(a.email ?? ''), ext: String(a.ext ?? ''), status: String(a.status ?? '').toLowerCase() }))
    .filter((a) => a.email || a.ext);
}

/** A stored phone as Voiso's E.164 digits (no '+'), read by the leads' one phone rule (contact.server.ts). */
export function e164Digits(phone: string, country?: string | null): string | null {
  const e164 = leadPhoneE164(phone, country);
  return e164 ? e164.slice(1) : null;
}

/** An agent as Voiso's `agent` takes it: an extension or a sign-in email. */
const AGENT = /^(?:[0-9]{1,12}|[^\s@]{1,64}@[^\s@]{1,190})$/;

export type CallResult = Result<{ callId: string | null }>;

export interface CallOptions { ip?: string | null; store?: RateLimitStore }

/**
 * Starts a call from the lead `leadId` for the caller: the lead must be one the caller's lists show
 * (else 404); agents call as themselves, admins and managers as the agent they chose. Every
 * attempt that reaches Voiso is audited (who, lead, agent, the number's last 2 digits, result).
 */
export async function startCall(sql: Sql, caller: Caller, leadId: number, agent: string | null, o: CallOptions = {}): Promise<CallResult> {
  const scope = await resolveScope(sql, caller);
  if (!scope) return { ok: false, status: 404, message: '' };
  const [lead] = await sql`SELECT l.id, l.phone, l.country FROM leads l WHERE l.id = ${leadId} AND l.deleted_at IS NULL AND ${scopeCondition(sql, scope)}`;
  if (!lead) return { ok: false, status: 404, message: '' };

  let who: string;
  if (isAgent(caller.roleId)) {
    const [u] = await sql`SELECT email FROM users WHERE id = ${caller.id}`;
    who = String(u?.email ?? '');
  } else {
    who = (agent ?? '').trim();
    if (!who || !AGENT.test(who)) return { ok: false, status: 400, message: CALL_TOASTS.noAgent };
  }

  const phone = String(lead.phone ?? '');
  if (!phone.trim()) return { ok: false, status: 400, message: CALL_TOASTS.noPhone };
  const number = e164Digits(phone, lead.country as string | null);
  if (!number) return { ok: false, status: 400, message: CALL_TOASTS.badPhone };

  const config = await voisoConfig(sql);
  if (!config) return { ok: false, status: 400, message: isAdmin(caller.roleId) ? CALL_TOASTS.notConfigured : CALL_TOASTS.notConfiguredAskAdmin };

  const store = o.store ?? await defaultStore(sql);
  const hit = await hitLimit(store, CALL_LIMIT, String(caller.id));
  if (!hit.allowed) return { ok: false, status: 429, message: CALL_TOASTS.tooMany };

  let result: CallResult;
  try {
    const { callId } = await voisoClickToCall(config, { agent: who, number, accountId: String(leadId) });
    result = { ok: true, callId };
  } catch (e) {
    result = { ok: false, status: 502, message: e instanceof VoisoError ? e.message : CALL_TOASTS.unreachable };
  }
  await audit(sql, {
    actorId: caller.id, action: 'crm.voiso.call', targetKind: 'lead', targetId: leadId, ip: auditIp(o.ip),
    after: { agent: who, phone: maskPhone(phone), ok: result.ok, callId: result.ok ? result.callId : null, error: result.ok ? null : result.message },
  });
  return result;
}

export type AgentsResult = { ok: true; agents: VoisoAgent[] } | { ok: false; message: string };

/** Voiso's agents for the call dialog (admins and managers). */
export async function listVoisoAgents(sql: Sql): Promise<AgentsResult> {
  const config = await voisoConfig(sql);
  if (!config) return { ok: false, message: CALL_TOASTS.notConfigured };
  try {
    return { ok: true, agents: await voisoAgents(config) };
  } catch (e) {
    return { ok: false, message: e instanceof VoisoError ? e.message : CALL_TOASTS.unreachable };
  }
}
