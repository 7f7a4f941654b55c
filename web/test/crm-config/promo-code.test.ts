// /admin/promo-code through the route module against PostgreSQL: roles 1, 2, 4, 5 and 6 (not
// customers), a generated unique code that belongs to its generator, one live code per user
// (generating replaces it), idempotent repeated posts, the hourly limit, the audit row, and the
// sign-up action crediting the new lead to the code's owner — and no longer after a regenerate.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { action, loader } from '~/routes/_staff.admin.promo-code.tsx';
import * as signUpRoute from '~/routes/_auth.signup.tsx';
import { generatePromoCode, newPromoCode, PROMO_PER_HOUR } from '~/modules/crm-config/promo-code.server.ts';
import { createUser, get, post, sessionFor, testSql, uniqueEmail, uniqueIp } from '../helpers.ts';
import { answer } from '../catalog/helpers.ts';

const sql = testSql(5);
afterAll(() => sql.end());

const PATH = '/admin/promo-code';
async function staff(roleId: number) {
  const u = await createUser(sql, { roleId });
  return { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
}
const generate = (cookie: string, current = '') => answer(action({ request: post(PATH, { intent: 'generate', current }, { cookie }), params: {}, context: {} }));
const shown = async (cookie: string) => ((await answer(loader({ request: get(PATH, cookie), params: {}, context: {} }))).body as { code: string | null }).code;
const codesOf = (id: number) => sql`SELECT code, revoked_at FROM promo_codes WHERE owner_id = ${id} ORDER BY id`;

/** The sign-up form posted to /signup as the browser posts it. */
async function signUpWith(promoCode: string) {
  const email = uniqueEmail('promo-client');
  const r = await answer(signUpRoute.action({
    request: post('/signup', {
      fullName: 'Promo Client', email, password: 'Abcdefg-123', passwordConfirmation: 'Abcdefg-123', phone: '612 345 678', country: 'Spain',
      city: 'Madrid', address: 'Calle 1', postalCode: '28001', currency: 'USD', promoCode,
    }),
    params: {}, context: { clientIp: uniqueIp() },
  }));
  const [lead] = await sql`SELECT l.manager_id, l.agent_id, l.ret_id, l.affiliate_id, u.promo_code_id
                             FROM users u LEFT JOIN leads l ON l.user_id = u.id WHERE u.email = ${email}`;
  return { r, lead };
}

describe('roles', () => {
  test('roles 1, 2, 4, 5 and 6 open the page and generate; a customer is refused', async () => {
    for (const roleId of [1, 2, 4, 5, 6]) {
      const u = await staff(roleId);
      expect(await shown(u.cookie), `role ${roleId}`).toBeNull();
      const r = await generate(u.cookie);
      expect(r.status, `role ${roleId}`).toBe(200);
      expect(r.body).toMatchObject({ ok: true, toast: 'Promo code generated successfully' });
      expect(await shown(u.cookie)).toMatch(/^[A-Z2-9]{8}$/);
    }
    const c = await staff(3);
    expect((await answer(loader({ request: get(PATH, c.cookie), params: {}, context: {} }))).status).toBe(403);
    expect((await generate(c.cookie)).status).toBe(403);
    expect(await codesOf(c.id)).toHaveLength(0);
  });
});

describe('generate', () => {
  let me: { id: number; cookie: string };
  beforeAll(async () => { me = await staff(4); });

  test('the code is the generator\'s, audited; a new one replaces it (the old one kept, revoked)', async () => {
    await generate(me.cookie);
    const first = await shown(me.cookie);
    const r = await generate(me.cookie, first!);
    const second = (r.body as { code: string }).code;
    expect(second).not.toBe(first);
    expect(await shown(me.cookie)).toBe(second);
    const rows = await codesOf(me.id);
    expect(rows.map((x) => x.code)).toEqual([first, second]);
    expect(rows[0].revoked_at).not.toBeNull();
    expect(rows[1].revoked_at).toBeNull();
    const audits = await sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = 'promo_code' AND actor_id = ${me.id} ORDER BY id`;
    expect(audits.at(-1)).toMatchObject({ action: 'promo_code.generate', actor_id: me.id, before: { code: first }, after: { code: second, ownerId: me.id } });
  });

  test('a repeated post of the same page view makes no second code (double click, two tabs)', async () => {
    const u = await staff(5);
    const [a, b, c] = await Promise.all([generate(u.cookie), generate(u.cookie), generate(u.cookie)]);
    const codes = [a, b, c].map((x) => (x.body as { code: string }).code);
    expect(new Set(codes).size).toBe(1);
    expect(await codesOf(u.id)).toHaveLength(1);
  });

  test('codes are unique: one per user, never the same twice', async () => {
    const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => staff(5)));
    const codes = await Promise.all(users.map(async (u) => ((await generate(u.cookie)).body as { code: string }).code));
    expect(new Set(codes).size).toBe(codes.length);
    const sample = new Set(Array.from({ length: 5000 }, newPromoCode));
    expect(sample.size).toBeGreaterThan(4990);
    for (const s of [...sample].slice(0, 50)) expect(s).toMatch(/^[A-Z0-9]{4,32}$/); // promo_codes.code's CHECK
  });

  test(`at most ${PROMO_PER_HOUR} codes an hour per user`, async () => {
    const u = await staff(2);
    let current = '';
    for (let i = 0; i < PROMO_PER_HOUR; i++) {
      const r = await generatePromoCode(sql, u.id, current, { actorId: u.id, ip: null });
      expect(r.ok).toBe(true);
      current = (r as { code: string }).code;
    }
    const r = await generate(u.cookie, current);
    expect(r.status).toBe(429);
    expect(r.body?.toast).toBe('You have generated {{max}} promo codes in the last hour. Try again later.');
    expect(await shown(u.cookie)).toBe(current);
    expect(await codesOf(u.id)).toHaveLength(PROMO_PER_HOUR);
  });
});

describe('a sign-up with the code credits the lead to its owner', () => {
  test('affiliate → affiliator, sales agent → agent, retention agent → retention agent, manager → manager', async () => {
    const cases: [number, 'affiliate_id' | 'agent_id' | 'ret_id' | 'manager_id'][] = [[4, 'affiliate_id'], [5, 'agent_id'], [6, 'ret_id'], [2, 'manager_id']];
    for (const [roleId, column] of cases) {
      const u = await staff(roleId);
      const code = ((await generate(u.cookie)).body as { code: string }).code;
      const { r, lead } = await signUpWith(code.toLowerCase());
      expect(r.status, `role ${roleId}`).toBe(200);
      expect(Number(lead[column]), `role ${roleId}`).toBe(u.id);
      const [p] = await sql`SELECT id FROM promo_codes WHERE code = ${code}`;
      expect(Number(lead.promo_code_id)).toBe(Number(p.id));
    }
  });

  test('after a regenerate the old code no longer credits: the sign-up is refused with it, accepted with the new one', async () => {
    const u = await staff(4);
    const old = ((await generate(u.cookie)).body as { code: string }).code;
    const fresh = ((await generate(u.cookie, old)).body as { code: string }).code;
    const refused = await signUpWith(old);
    expect(refused.r.status).toBe(400);
    expect(refused.r.body?.toast).toBe('Invalid promo code');
    expect(refused.lead).toBeUndefined();
    const ok = await signUpWith(fresh);
    expect(ok.r.status).toBe(200);
    expect(Number(ok.lead.affiliate_id)).toBe(u.id);
  });
});
