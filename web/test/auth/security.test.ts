// /security against PostgreSQL: change password (wrong current password refused and nothing
// changes, other sessions end, audit, rate limit) and two-factor sign-in (enrol, replay refused,
// recovery codes single use, disable, sign-in asks for the code before any session exists).
import { afterAll, describe, expect, test } from 'vitest';
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import * as securityRoute from '~/routes/_client.security.tsx';
import * as signInRoute from '~/routes/_auth._index.tsx';
import * as codeRoute from '~/routes/_auth.two-factor.tsx';
import { AuthError, completeTwoFactorSignIn, signIn } from '~/modules/auth/auth.server.ts';
import { MESSAGES } from '~/modules/auth/messages.ts';
import { changePassword } from '~/modules/auth/security.server.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { verifyPassword } from '~/modules/auth/password.server.ts';
import { LIMITS } from '~/modules/auth/rate-limit.server.ts';
import {
  beginEnrolment, CHALLENGE_COOKIE, CHALLENGE_MAX_ATTEMPTS, confirmEnrolment, disableTwoFactor, TOTP_PERIOD, totpCode, twoFactorState,
} from '~/modules/auth/two-factor.server.ts';
import { createUser, get, PASSWORD, post, postgresStore, sessionFor, setCookieToken, settle, testAuthConfig, testSql, uniqueIp, type TestUser } from '../helpers.ts';

const sql = testSql();
const store = postgresStore(sql);
const cfg = testAuthConfig();
afterAll(() => sql.end());

type Data = { ok: boolean; toast?: string | null; intent?: string; recoveryCodes?: string[] | null; result?: { error?: Record<string, string[]> } };
const act = async (request: Request, fn: (a: ActionFunctionArgs) => unknown = securityRoute.action, ip = uniqueIp()) =>
  settle(Promise.resolve().then(() => fn({ request, params: {}, context: { clientIp: ip } }))) as Promise<Response | { data: Data; init: ResponseInit | null }>;
const load = (fn: (a: LoaderFunctionArgs) => unknown, request: Request) =>
  settle(Promise.resolve().then(() => fn({ request, params: {}, context: {} })));
const statusOf = (r: unknown) => (r instanceof Response ? r.status : (r as { init?: ResponseInit | null }).init?.status ?? 200);
const dataOf = (r: unknown) => (r as { data: Data }).data;
type PageData = Awaited<ReturnType<typeof securityRoute.loader>>;

// time steps counted from the latest enrolment (tests of a file run one after the other)
let T0 = Date.now();
const step = (n: number) => T0 + n * TOTP_PERIOD * 1000;

/** A user with two-factor on (enrolled through the module at step 0), its secret and recovery codes. */
async function enrolled(opts: { roleId?: number } = {}) {
  T0 = Date.now();
  const user = await createUser(sql, opts);
  expect(await beginEnrolment(sql, user.id)).toEqual({ ok: true });
  const state = await twoFactorState(sql, user);
  const secret = state.pending!.secret.replace(/\s+/g, '');
  const r = await confirmEnrolment(sql, store, { userId: user.id, code: totpCode(secret, step(0)), ip: null, now: step(0) });
  if (!r.ok) throw new Error(r.message);
  return { user, secret, recoveryCodes: r.recoveryCodes };
}

const sessionCount = async (userId: number) =>
  (await sql`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${userId}`)[0].n as number;

describe('change password', () => {
  test('empty and short fields answer the spec messages', async () => {
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    const r = await act(post('/security', { intent: 'password' }, { cookie }));
    expect(statusOf(r)).toBe(400);
    expect(dataOf(r).result?.error).toMatchObject({ currentPassword: ['Current password is required'], newPassword: ['New password is required'] });
    const short = await act(post('/security', { intent: 'password', currentPassword: PASSWORD, newPassword: 'short' }, { cookie }));
    expect(dataOf(short).result?.error).toMatchObject({ newPassword: ['Password must be at least 8 characters'] });
  });

  test('a wrong current password is refused under its field and changes nothing', async () => {
    const u = await createUser(sql);
    const mine = await sessionFor(sql, u.id);
    const other = await sessionFor(sql, u.id);
    const [before] = await sql`SELECT password_hash FROM users WHERE id = ${u.id}`;
    const r = await act(post('/security', { intent: 'password', currentPassword: 'Not-my-password', newPassword: 'Brand-new-pass-1' }, { cookie: mine.cookie }));
    expect(statusOf(r)).toBe(400);
    expect(dataOf(r)).toMatchObject({ ok: false, intent: 'password', toast: 'Current password is incorrect' });
    expect(dataOf(r).result?.error).toMatchObject({ currentPassword: ['Current password is incorrect'] });
    const [after] = await sql`SELECT password_hash FROM users WHERE id = ${u.id}`;
    expect(after.password_hash).toBe(before.password_hash);
    expect(await findSession(sql, other.token)).not.toBeNull();
    expect((await sql`SELECT count(*)::int AS n FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(u.id)}`)[0].n).toBe(0);
  });

  test('a change ends every other session of the user, keeps this one, and is audited', async () => {
    const u = await createUser(sql);
    const mine = await sessionFor(sql, u.id);
    const others = [await sessionFor(sql, u.id), await sessionFor(sql, u.id)];
    const stranger = await createUser(sql);
    const theirs = await sessionFor(sql, stranger.id);
    const r = await act(post('/security', { intent: 'password', currentPassword: PASSWORD, newPassword: 'Brand-new-pass-1' }, { cookie: mine.cookie }), undefined, '192.0.2.44');
    expect(statusOf(r)).toBe(200);
    expect(dataOf(r)).toMatchObject({ ok: true, toast: 'Password updated successfully' });
    expect(await findSession(sql, mine.token)).not.toBeNull();
    for (const o of others) expect(await findSession(sql, o.token)).toBeNull();
    expect(await findSession(sql, theirs.token)).not.toBeNull();
    const [row] = await sql`SELECT password_hash FROM users WHERE id = ${u.id}`;
    expect(await verifyPassword(row.password_hash, 'Brand-new-pass-1')).toBe(true);
    expect(await verifyPassword(row.password_hash, PASSWORD)).toBe(false);
    const [a] = await sql`SELECT actor_id, action, after, host(ip) AS ip FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(u.id)}`;
    expect(Number(a.actor_id)).toBe(u.id);
    expect(a).toMatchObject({ action: 'security.password_change', after: { otherSessionsEnded: 2 }, ip: '192.0.2.44' });
    // the new password signs in, the old one does not
    await expect(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() })).rejects.toBeInstanceOf(AuthError);
    await expect(signIn(sql, store, cfg, { email: u.email, password: 'Brand-new-pass-1', remember: false, ip: uniqueIp() })).resolves.toMatchObject({ step: 'session' });
  });

  test('the new password must differ from the current one', async () => {
    const u = await createUser(sql);
    const s = await sessionFor(sql, u.id);
    const r = await changePassword(sql, store, { userId: u.id, sessionId: s.id, currentPassword: PASSWORD, newPassword: PASSWORD, ip: null });
    expect(r).toMatchObject({ ok: false, status: 400, field: 'newPassword' });
  });

  test('wrong current passwords are rate-limited per account: past the limit even the right one is refused', async () => {
    const u = await createUser(sql);
    const s = await sessionFor(sql, u.id);
    for (let i = 0; i < LIMITS.passwordChangeUser.max; i++) {
      expect(await changePassword(sql, store, { userId: u.id, sessionId: s.id, currentPassword: 'wrong-one-' + i, newPassword: 'Brand-new-pass-1', ip: null }))
        .toMatchObject({ ok: false, status: 400, field: 'currentPassword' });
    }
    const r = await act(post('/security', { intent: 'password', currentPassword: PASSWORD, newPassword: 'Brand-new-pass-1' }, { cookie: s.cookie }));
    expect(statusOf(r)).toBe(429);
    expect(dataOf(r).toast).toBe('Too many attempts. Please try again in {{minutes}} minutes.');
    expect((r as { init: ResponseInit }).init.headers).toMatchObject({ 'retry-after': expect.stringMatching(/^\d+$/) });
    const [row] = await sql`SELECT password_hash FROM users WHERE id = ${u.id}`;
    expect(await verifyPassword(row.password_hash, PASSWORD)).toBe(true);
  });

  test('a successful change takes its attempt back: right passwords never lock the form', async () => {
    const u = await createUser(sql);
    const s = await sessionFor(sql, u.id);
    let current = PASSWORD;
    for (let i = 0; i < LIMITS.passwordChangeUser.max + 2; i++) {
      const next = `Rotated-pass-${i}`;
      expect(await changePassword(sql, store, { userId: u.id, sessionId: s.id, currentPassword: current, newPassword: next, ip: null })).toMatchObject({ ok: true });
      current = next;
    }
  });
});

describe('two-factor enrolment', () => {
  test('start shows a QR and the key; the secret is stored encrypted; a code turns it on with 10 recovery codes shown once', async () => {
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    const off = (await load(securityRoute.loader, get('/security', cookie))) as PageData;
    expect(off.twoFactor).toMatchObject({ enabled: false, pending: null });

    const started = await act(post('/security', { intent: 'start' }, { cookie }));
    expect(dataOf(started)).toMatchObject({ ok: true, toast: 'Scan the QR code with your authenticator app' });
    const page = (await load(securityRoute.loader, get('/security', cookie))) as PageData;
    const pending = page.twoFactor.pending!;
    expect(pending.qr).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(pending.qr.split(',')[1], 'base64').toString()).toContain('<svg');
    expect(pending.uri).toMatch(/^otpauth:\/\/totp\/.+\?.*secret=/);
    expect(pending.uri).toContain(encodeURIComponent(u.email));
    const secret = pending.secret.replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const [stored] = await sql`SELECT secret, enabled_at FROM user_two_factor WHERE user_id = ${u.id}`;
    expect(stored.secret).toMatch(/^enc:v1:/);
    expect(stored.secret).not.toContain(secret);
    expect(stored.enabled_at).toBeNull();

    // a pending enrolment does not change sign-in
    await expect(signIn(sql, store, cfg, { email: u.email, password: PASSWORD, remember: false, ip: uniqueIp() })).resolves.toMatchObject({ step: 'session' });

    const wrong = await act(post('/security', { intent: 'confirm', code: totpCode(secret, Date.now() + 10 * 60_000) }, { cookie }));
    expect(statusOf(wrong)).toBe(400);
    expect(dataOf(wrong).result?.error).toMatchObject({ code: ['The code is not valid or was already used.'] });
    const notDigits = await act(post('/security', { intent: 'confirm', code: 'abc' }, { cookie }));
    expect(dataOf(notDigits).result?.error).toMatchObject({ code: ['Enter the 6-digit code from your app'] });

    const ok = await act(post('/security', { intent: 'confirm', code: totpCode(secret) }, { cookie }));
    expect(dataOf(ok)).toMatchObject({ ok: true, toast: 'Two-factor sign-in is on' });
    const codes = dataOf(ok).recoveryCodes!;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    const hashes = await sql`SELECT code_hash FROM user_recovery_codes WHERE user_id = ${u.id}`;
    expect(hashes).toHaveLength(10);
    for (const h of hashes) for (const c of codes) expect(h.code_hash).not.toContain(c.replace(/-/g, ''));

    const on = (await load(securityRoute.loader, get('/security', cookie))) as PageData;
    expect(on.twoFactor).toMatchObject({ enabled: true, recoveryLeft: 10, pending: null });
    // the codes are never shown again, and starting again is refused while it is on
    expect(JSON.stringify(on)).not.toContain(codes[0]);
    const again = await act(post('/security', { intent: 'start' }, { cookie }));
    expect(statusOf(again)).toBe(409);
    expect(dataOf(again).toast).toBe('Two-factor sign-in is already on.');
    const [audit] = await sql`SELECT action FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(u.id)} AND action = 'security.two_factor_on'`;
    expect(audit).toBeTruthy();
  });

  test('cancel drops a pending enrolment; confirming then asks to start again', async () => {
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    await act(post('/security', { intent: 'start' }, { cookie }));
    const page = (await load(securityRoute.loader, get('/security', cookie))) as PageData;
    const secret = page.twoFactor.pending!.secret.replace(/\s+/g, '');
    expect(dataOf(await act(post('/security', { intent: 'cancel' }, { cookie })))).toMatchObject({ ok: true });
    const r = await act(post('/security', { intent: 'confirm', code: totpCode(secret) }, { cookie }));
    expect(statusOf(r)).toBe(409);
    expect(dataOf(r).toast).toBe('Start the set-up again.');
  });

  test('a login-as session cannot change two-factor and is not shown the secret', async () => {
    const admin = await createUser(sql, { roleId: 1 });
    const customer = await createUser(sql);
    await beginEnrolment(sql, customer.id);
    const { cookie } = await sessionFor(sql, customer.id, { impersonatorId: admin.id });
    const page = (await load(securityRoute.loader, get('/security', cookie))) as PageData;
    expect(page.impersonating).toBe(true);
    expect(page.twoFactor.pending).toBeNull();
    for (const intent of ['start', 'cancel', 'confirm', 'disable']) {
      const r = await act(post('/security', { intent, code: '123456' }, { cookie }));
      expect(statusOf(r)).toBe(403);
      expect(dataOf(r).toast).toBe('Only the account holder can change two-factor sign-in.');
    }
  });

  test('an unknown intent is refused with a message, never a 500', async () => {
    const u = await createUser(sql);
    const { cookie } = await sessionFor(sql, u.id);
    const r = await act(post('/security', { intent: 'launch' }, { cookie }));
    expect(statusOf(r)).toBe(400);
    expect(dataOf(r).ok).toBe(false);
  });
});

describe('sign-in with two-factor on', () => {
  test('the password alone makes no session: /two-factor asks for the code, then the session is made', async () => {
    const { user, secret } = await enrolled();
    const sessionsBefore = await sessionCount(user.id);
    const r = (await act(post('/', { email: user.email, password: PASSWORD, remember: 'on' }), signInRoute.action)) as Response;
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/two-factor');
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^${CHALLENGE_COOKIE}=[A-Za-z0-9_-]+; Path=/; HttpOnly; SameSite=Lax; Max-Age=300`));
    expect(cookie).not.toContain('__session=');
    expect(await sessionCount(user.id)).toBe(sessionsBefore);
    const challenge = `${CHALLENGE_COOKIE}=${/=([^;]+)/.exec(cookie)![1]}`;

    // the code step: no cookie → back to sign in; with it the page opens
    const none = (await load(codeRoute.loader, get('/two-factor'))) as Response;
    expect(none.headers.get('location')).toBe('/');
    expect(await load(codeRoute.loader, get('/two-factor', challenge))).toBeNull();

    const wrong = await act(post('/two-factor', { code: totpCode(secret, step(40)) }, { cookie: challenge }), codeRoute.action);
    expect(statusOf(wrong)).toBe(401);
    expect(dataOf(wrong).result?.error).toMatchObject({ code: [MESSAGES.invalidCode] });
    expect(await sessionCount(user.id)).toBe(sessionsBefore);

    const ok = (await act(post('/two-factor', { code: totpCode(secret, step(1)) }, { cookie: challenge }), codeRoute.action)) as Response;
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe('/dashboard');
    const token = setCookieToken(ok)!;
    expect(ok.headers.get('set-cookie')).toMatch(/Max-Age=2592000/); // remember was asked for at the password step
    expect((await findSession(sql, token))?.user).toMatchObject({ id: user.id, twoFactor: true });

    // the pending sign-in was used up
    const reused = (await act(post('/two-factor', { code: totpCode(secret, step(2)) }, { cookie: challenge }), codeRoute.action)) as Response;
    expect(reused.status).toBe(302);
    expect(reused.headers.get('location')).toBe('/');
    expect(await sessionCount(user.id)).toBe(sessionsBefore + 1);
  });

  test('a code is accepted one step early or late, and never twice (replay refused within its window)', async () => {
    const { user, secret } = await enrolled();
    const attempt = async (code: string, now: number) => {
      const s = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
      if (s.step !== 'two-factor') throw new Error('two-factor expected');
      return completeTwoFactorSignIn(sql, store, { challenge: s.challenge, code, ip: uniqueIp(), now }).then(() => 'ok', (e: AuthError) => e.message);
    };
    // the enrolment used step 0: its code is spent
    expect(await attempt(totpCode(secret, step(0)), step(0))).toBe(MESSAGES.invalidCode);
    // the next step's code, one step early (clock drift)
    expect(await attempt(totpCode(secret, step(2)), step(1))).toBe('ok');
    // the same code again, still inside its window: refused
    expect(await attempt(totpCode(secret, step(2)), step(2))).toBe(MESSAGES.invalidCode);
    // an older step than the last accepted one: refused
    expect(await attempt(totpCode(secret, step(1)), step(2))).toBe(MESSAGES.invalidCode);
    // one step late: accepted
    expect(await attempt(totpCode(secret, step(3)), step(4))).toBe('ok');
    // two steps away: refused
    expect(await attempt(totpCode(secret, step(8)), step(6))).toBe(MESSAGES.invalidCode);
  });

  test('two requests racing with the same code make one session', async () => {
    const { user, secret } = await enrolled();
    const challenges = await Promise.all([0, 1].map(async () => {
      const s = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
      return s.step === 'two-factor' ? s.challenge : '';
    }));
    const before = await sessionCount(user.id);
    const code = totpCode(secret, step(1));
    const results = await Promise.all(challenges.map((c) =>
      completeTwoFactorSignIn(sql, store, { challenge: c, code, ip: uniqueIp(), now: step(1) }).then(() => 'ok', (e: AuthError) => e.message)));
    expect(results.sort()).toEqual([MESSAGES.invalidCode, 'ok'].sort());
    expect(await sessionCount(user.id)).toBe(before + 1);
  });

  test('a recovery code signs in once, is audited, and counts down', async () => {
    const { user, recoveryCodes } = await enrolled();
    const code = recoveryCodes[3].toUpperCase().replace(/-/g, ' ');
    const s1 = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    if (s1.step !== 'two-factor') throw new Error('two-factor expected');
    await expect(completeTwoFactorSignIn(sql, store, { challenge: s1.challenge, code, ip: '192.0.2.9' })).resolves.toMatchObject({ userId: user.id });
    const s2 = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    if (s2.step !== 'two-factor') throw new Error('two-factor expected');
    await expect(completeTwoFactorSignIn(sql, store, { challenge: s2.challenge, code: recoveryCodes[3], ip: uniqueIp() })).rejects.toMatchObject({ message: MESSAGES.invalidCode });
    await expect(completeTwoFactorSignIn(sql, store, { challenge: s2.challenge, code: recoveryCodes[4], ip: uniqueIp() })).resolves.toMatchObject({ userId: user.id });
    expect((await twoFactorState(sql, user)).recoveryLeft).toBe(8);
    const audits = await sql`SELECT action, host(ip) AS ip FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(user.id)} AND action = 'auth.recovery_code_used' ORDER BY id`;
    expect(audits).toHaveLength(2);
    expect(audits[0].ip).toBe('192.0.2.9');
  });

  test(`a pending sign-in dies after ${CHALLENGE_MAX_ATTEMPTS} wrong codes: even the right one then sends back to the password`, async () => {
    const { user, secret } = await enrolled();
    const s = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    if (s.step !== 'two-factor') throw new Error('two-factor expected');
    const messages: string[] = [];
    for (let i = 0; i < CHALLENGE_MAX_ATTEMPTS; i++) {
      messages.push(await completeTwoFactorSignIn(sql, store, { challenge: s.challenge, code: '000000', ip: uniqueIp() }).then(() => 'ok', (e: AuthError) => e.message));
    }
    expect(messages.slice(0, -1).every((m) => m === MESSAGES.invalidCode)).toBe(true);
    expect(messages.at(-1)).toBe(MESSAGES.challengeExpired);
    await expect(completeTwoFactorSignIn(sql, store, { challenge: s.challenge, code: totpCode(secret, step(1)), ip: uniqueIp(), now: step(1) }))
      .rejects.toMatchObject({ message: MESSAGES.challengeExpired });
    // through the route: back to '/' with the toast, the challenge cookie cleared
    const r = (await act(post('/two-factor', { code: totpCode(secret, step(1)) }, { cookie: `${CHALLENGE_COOKIE}=${s.challenge}` }), codeRoute.action)) as Response;
    expect(r.headers.get('location')).toBe('/');
    expect(r.headers.get('set-cookie')).toMatch(new RegExp(`${CHALLENGE_COOKIE}=; Path=/;.*Max-Age=0`));
    expect(r.headers.get('set-cookie')).toMatch(/toast=/);
  });

  test('wrong codes count against the account across pending sign-ins (429)', async () => {
    const { user, secret } = await enrolled();
    let last = '';
    for (let i = 0; i <= LIMITS.twoFactorUser.max; i++) {
      const s = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
      if (s.step !== 'two-factor') throw new Error('two-factor expected');
      last = await completeTwoFactorSignIn(sql, store, { challenge: s.challenge, code: '000000', ip: uniqueIp() }).then(() => 'ok', (e: AuthError) => `${e.status}`);
    }
    expect(last).toBe('429');
    const s = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    if (s.step !== 'two-factor') throw new Error('two-factor expected');
    await expect(completeTwoFactorSignIn(sql, store, { challenge: s.challenge, code: totpCode(secret, step(1)), ip: uniqueIp(), now: step(1) }))
      .rejects.toMatchObject({ status: 429 });
  });

  test('a changed password kills pending sign-ins', async () => {
    const { user, secret } = await enrolled();
    const s = await signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() });
    if (s.step !== 'two-factor') throw new Error('two-factor expected');
    const mine = await sessionFor(sql, user.id);
    expect(await changePassword(sql, store, { userId: user.id, sessionId: mine.id, currentPassword: PASSWORD, newPassword: 'Brand-new-pass-1', ip: null })).toMatchObject({ ok: true });
    await expect(completeTwoFactorSignIn(sql, store, { challenge: s.challenge, code: totpCode(secret, step(1)), ip: uniqueIp(), now: step(1) }))
      .rejects.toMatchObject({ message: MESSAGES.challengeExpired });
  });
});

describe('turning two-factor off', () => {
  test('needs a valid code; after it, sign-in makes a session with the password alone', async () => {
    const { user, secret } = await enrolled();
    const { cookie } = await sessionFor(sql, user.id);
    const wrong = await act(post('/security', { intent: 'disable', code: '123456' }, { cookie }));
    expect(statusOf(wrong)).toBe(400);
    expect(dataOf(wrong).result?.error).toMatchObject({ code: ['The code is not valid or was already used.'] });
    const empty = await act(post('/security', { intent: 'disable', code: '' }, { cookie }));
    expect(dataOf(empty).result?.error).toMatchObject({ code: ['Code is required'] });
    expect((await twoFactorState(sql, user)).enabled).toBe(true);

    // the enrolment's step is spent: the next one's code, one step early
    const r = await act(post('/security', { intent: 'disable', code: totpCode(secret, step(1)) }, { cookie }));
    expect(dataOf(r)).toMatchObject({ ok: true, toast: 'Two-factor sign-in is off' });
    expect(await twoFactorState(sql, user)).toMatchObject({ enabled: false, pending: null, recoveryLeft: 0 });
    expect((await sql`SELECT count(*)::int AS n FROM user_recovery_codes WHERE user_id = ${user.id}`)[0].n).toBe(0);
    await expect(signIn(sql, store, cfg, { email: user.email, password: PASSWORD, remember: false, ip: uniqueIp() })).resolves.toMatchObject({ step: 'session' });
    const again = await act(post('/security', { intent: 'disable', code: totpCode(secret) }, { cookie }));
    expect(statusOf(again)).toBe(409);
  });

  test('a recovery code turns it off too', async () => {
    const { user, recoveryCodes } = await enrolled();
    expect(await disableTwoFactor(sql, store, { userId: user.id, code: recoveryCodes[0], ip: null })).toEqual({ ok: true });
    const [a] = await sql`SELECT after FROM audit_events WHERE target_kind = 'user' AND target_id = ${String(user.id)} AND action = 'security.two_factor_off'`;
    expect(a.after).toEqual({ with: 'recovery' });
  });
});

describe('pages', () => {
  test('/security opens for every role; signed out it goes to sign-in', async () => {
    for (const roleId of [1, 2, 3, 4, 5, 6]) {
      const u: TestUser = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      const page = (await load(securityRoute.loader, get('/security', cookie))) as PageData;
      expect(page).toMatchObject({ mustEnrol: false, impersonating: false });
    }
    const out = (await load(securityRoute.loader, get('/security'))) as Response;
    expect(out.headers.get('location')).toBe('/');
  });
});
