// Realtime tickets: web signs one for the signed-in user and hands it to the browser; the
// engine verifies it before opening a stream. node:crypto only, no Bun APIs, so web imports
// this module as it is.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CUSTOMER_RECORD_ROLES, ROLE, isBackOffice } from './roles.ts';

export interface TicketClaims {
  uid: number;   // user id
  role: number;  // role id 1..6
  sid: number;   // session id (sessions.id), checked live by the engine
  exp: number;   // expiry, seconds since the epoch
  /** a staff ticket for one customer's tracking topic (track:{trk}): signed by the web only for a staff member who may open that customer */
  trk?: number;
}

/** The staff roles that open customer records (docs/specs.md#customer-records; which customers is the web's requireCustomerRecord). */
export const TRACK_ROLES: readonly number[] = CUSTOMER_RECORD_ROLES;

/**
 * The staff roles that follow the `exposure` topic (positions opened and closed): those who may
 * open the admin dashboard (its entry '/admin' in web's permission map; web's test holds the two
 * equal).
 */
export const EXPOSURE_ROLES: readonly number[] = [ROLE.admin];
/** The staff topic of positions opened and closed (contract/events.ts ExposureEvents). */
export const EXPOSURE_TOPIC = 'exposure';

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const mac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest();

/** A ticket valid for `ttlSeconds` (default 60: it is only used to open the stream). */
export function signTicket(secret: string, c: Omit<TicketClaims, 'exp'> & { exp?: number }, ttlSeconds = 60): string {
  const claims: TicketClaims = { uid: c.uid, role: c.role, sid: c.sid, exp: c.exp ?? Math.floor(Date.now() / 1000) + ttlSeconds };
  if (c.trk !== undefined) claims.trk = c.trk;
  const body = b64(JSON.stringify(claims));
  return `${body}.${b64(mac(secret, body))}`;
}

/** The claims, or null when the signature is wrong, the shape is bad or it has expired. */
export function verifyTicket(secret: string, ticket: string, nowSeconds = Math.floor(Date.now() / 1000)): TicketClaims | null {
  const [body, sig, extra] = ticket.split('.');
  if (!body || !sig || extra !== undefined) return null;
  const want = mac(secret, body);
  const got = Buffer.from(sig, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
  let c: TicketClaims;
  try { c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')); } catch { return null; }
  if (![c.uid, c.role, c.sid, c.exp].every((n) => Number.isInteger(n))) return null;
  if (c.trk !== undefined && !Number.isInteger(c.trk)) return null;
  if (c.exp <= nowSeconds) return null;
  return c;
}

/**
 * Everyone follows prices and their own user topic (user:{uid}) only: nobody, staff included,
 * follows another user's stream (a manager could read other staff members' notifications and any
 * customer's, outside their scope; issue 22). Admins and managers follow heartbeats. A customer's
 * tracking (track:{id}) is staff-only and needs a ticket signed for that customer (trk): the web
 * signs one only after checking the staff member may open the customer, and the engine checks
 * at the stream's start that it is a customer. The `exposure` topic (every customer's positions
 * opening and closing, without names or money) is for the roles of the admin dashboard only.
 */
export function maySubscribe(c: Pick<TicketClaims, 'uid' | 'role' | 'trk'>, topic: string): boolean {
  const staff = isBackOffice(c.role);
  if (topic === 'prices') return true;
  if (topic === 'heartbeat') return staff;
  if (topic === EXPOSURE_TOPIC) return EXPOSURE_ROLES.includes(c.role);
  const m = /^(user|track):(\d+)$/.exec(topic);
  if (!m) return false;
  if (m[1] === 'track') return TRACK_ROLES.includes(c.role) && c.trk === Number(m[2]);
  return Number(m[2]) === c.uid;
}
