// /admin/spreads and /admin/lots through the route modules against PostgreSQL. These rows are
// site-wide (every order reads them), hence a serial file that puts them back afterwards.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as spreads from '~/routes/_staff.admin.spreads.tsx';
import * as lots from '~/routes/_staff.admin.lots.tsx';
import { loader as lotState } from '~/routes/dashboard.lot-state.$category.ts';
import { createUser, get, post, sessionFor, testSql } from '../helpers.ts';
import { answer, engineNotices, fieldErrors } from './helpers.ts';

const sql = testSql(5);
let admin: { id: number; cookie: string };
let saved: { spreads: Record<string, unknown>[]; states: Record<string, unknown>[]; selector: Record<string, unknown>[] };

beforeAll(async () => {
  const u = await createUser(sql, { roleId: 1 });
  admin = { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
  saved = {
    spreads: await sql`SELECT category, value FROM spreads`,
    states: await sql`SELECT category, state FROM lot_settings`,
    selector: await sql`SELECT label, value, position FROM lot_selector`,
  };
});
afterAll(async () => {
  await sql.begin(async (tx) => {
    await tx`DELETE FROM spreads`;
    await tx`DELETE FROM lot_settings`;
    await tx`DELETE FROM lot_selector`;
    if (saved.spreads.length) await tx`INSERT INTO spreads ${tx(saved.spreads)}`;
    if (saved.states.length) await tx`INSERT INTO lot_settings ${tx(saved.states)}`;
    if (saved.selector.length) await tx`INSERT INTO lot_selector ${tx(saved.selector)}`;
  });
  await sql.end();
});

const MARKETS = ['forex', 'commodity', 'index', 'crypto', 'stock'] as const;
const lastAudit = async (kind: string) => (await sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = ${kind} ORDER BY id DESC LIMIT 1`)[0];
const auditCount = async (kind: string) => (await sql`SELECT count(*)::int AS n FROM audit_events WHERE target_kind = ${kind}`)[0].n as number;

describe('spreads', () => {
  const body = (over: Record<string, string> = {}) => ({
    spread_forex: '1', spread_commodity: '1.5', spread_index: '0', spread_crypto: '2.12345678', spread_stock: '007.50', ...over,
  });
  const act = (b: Record<string, string>, cookie = admin.cookie) =>
    answer(spreads.action({ request: post('/admin/spreads', b, { cookie }), params: {}, context: {} }));
  const rows = async () => Object.fromEntries((await sql`SELECT category, value::text AS v FROM spreads`).map((r) => [r.category, r.v]));

  test('only the admin opens or saves them', async () => {
    await act(body({ spread_forex: '3' }));
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await answer(spreads.loader({ request: get('/admin/spreads', cookie), params: {}, context: {} }))).status).toBe(403);
      expect((await act(body({ spread_forex: '9' }), cookie)).status).toBe(403);
    }
    expect((await rows()).forex).toBe('3.00000000');
  });

  test('the five are saved in one statement, audited before and after, and the engine is told once', async () => {
    await act(body({ spread_forex: '1' }));
    let r!: Awaited<ReturnType<typeof act>>;
    const notes = await engineNotices(sql, async () => { r = await act(body({ spread_forex: '0.5' })); });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Spreads updated successfully' } });
    expect(await rows()).toEqual({ forex: '0.50000000', commodity: '1.50000000', index: '0.00000000', crypto: '2.12345678', stock: '7.50000000' });
    expect(notes.filter((n) => n.kind === 'settings')).toEqual([{ kind: 'settings', table: 'spreads' }]);
    expect(await lastAudit('spreads')).toMatchObject({
      action: 'spreads.update', actor_id: admin.id,
      before: { forex: '1', commodity: '1.5', index: '0', crypto: '2.12345678', stock: '7.5' },
      after: { forex: '0.5', commodity: '1.5', index: '0', crypto: '2.12345678', stock: '7.5' },
    });
    const page = await answer(spreads.loader({ request: get('/admin/spreads', admin.cookie), params: {}, context: {} }));
    expect(page.body).toEqual({ spreads: { forex: '0.5', commodity: '1.5', index: '0', crypto: '2.12345678', stock: '7.5' } });
  });

  const refusals: [string, Record<string, string>, string, string][] = [
    ['a missing forex spread', { spread_forex: '' }, 'spread_forex', 'Forex spread is required'],
    ['a missing stock spread', { spread_stock: ' ' }, 'spread_stock', 'Stock spread is required'],
    ['a negative spread', { spread_commodity: '-1' }, 'spread_commodity', 'Commodity spread must be a number from 0 to 999999999999 with at most 8 decimals'],
    ['a spread with 9 decimals', { spread_index: '0.123456789' }, 'spread_index', 'Index spread must be a number from 0 to 999999999999 with at most 8 decimals'],
    ['a huge spread', { spread_crypto: '1000000000000' }, 'spread_crypto', 'Crypto spread must be a number from 0 to 999999999999 with at most 8 decimals'],
    ['a word', { spread_forex: 'one' }, 'spread_forex', 'Forex spread must be a number from 0 to 999999999999 with at most 8 decimals'],
    ['an exponent', { spread_forex: '1e3' }, 'spread_forex', 'Forex spread must be a number from 0 to 999999999999 with at most 8 decimals'],
  ];
  test.each(refusals)('%s is refused with its message, nothing written', async (_, over, field, message) => {
    const before = await rows();
    const audits = await auditCount('spreads');
    const r = await act(body(over));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ok: false, toast: message });
    expect(fieldErrors(r)[field]).toEqual([message]);
    expect(await rows()).toEqual(before);
    expect(await auditCount('spreads')).toBe(audits);
  });

  test('a form without the fields at all is refused naming them', async () => {
    const r = await act({});
    expect(r.status).toBe(400);
    expect(Object.keys(fieldErrors(r)).sort()).toEqual(MARKETS.map((m) => `spread_${m}`).sort());
  });
});

describe('lots', () => {
  const body = (over: Record<string, string> = {}, selector: [string, string][] = [['Micro', '1000'], ['Mini', '10000']]) => {
    const b: Record<string, string> = { lot_forex: 'lot', lot_commodity: 'amount', lot_index: 'amount', lot_crypto: 'lot', lot_stock: 'amount', ...over };
    selector.forEach(([label, value], i) => { b[`selector[${i}].label`] = label; b[`selector[${i}].value`] = value; });
    return b;
  };
  const act = (b: Record<string, string>, cookie = admin.cookie) =>
    answer(lots.action({ request: post('/admin/lots', b, { cookie }), params: {}, context: {} }));
  const state = async () => ({
    states: Object.fromEntries((await sql`SELECT category, state FROM lot_settings`).map((r) => [r.category, r.state])),
    selector: (await sql`SELECT label, value::text AS value FROM lot_selector ORDER BY position`).map((r) => [r.label, r.value]),
  });

  test('only the admin opens or saves them', async () => {
    await act(body());
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await answer(lots.loader({ request: get('/admin/lots', cookie), params: {}, context: {} }))).status).toBe(403);
      expect((await act(body({ lot_forex: 'amount' }, []), cookie)).status).toBe(403);
    }
    expect((await state()).states.forex).toBe('lot');
  });

  test('states and the selector are saved together, in the order given, audited; the dialog reads them; the engine is told', async () => {
    const customer = await createUser(sql);
    const { cookie } = await sessionFor(sql, customer.id);
    let r!: Awaited<ReturnType<typeof act>>;
    const notes = await engineNotices(sql, async () => {
      r = await act(body({ lot_crypto: 'amount', lot_stock: 'lot' }, [['Standard (1)', '100000'], ['Micro (0.01)', '1000.0'], ['Half', '0.5']]));
    });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Lots updated successfully' } });
    expect(await state()).toEqual({
      states: { forex: 'lot', commodity: 'amount', index: 'amount', crypto: 'amount', stock: 'lot' },
      selector: [['Standard (1)', '100000.00000000'], ['Micro (0.01)', '1000.00000000'], ['Half', '0.50000000']],
    });
    expect(notes.filter((n) => n.kind === 'settings')).toEqual([{ kind: 'settings', table: 'lot_settings' }]);
    expect(await lastAudit('lots')).toMatchObject({
      action: 'lots.update', actor_id: admin.id,
      before: { states: { crypto: 'lot', stock: 'amount' }, selector: [{ label: 'Micro', value: '1000' }, { label: 'Mini', value: '10000' }] },
      after: { states: { crypto: 'amount', stock: 'lot' }, selector: [{ label: 'Standard (1)', value: '100000' }, { label: 'Micro (0.01)', value: '1000' }, { label: 'Half', value: '0.5' }] },
    });
    // GET /dashboard/lot-state/{category}: what the order dialog reads
    const stock = await (await lotState({ request: get('/dashboard/lot-state/stock', cookie), params: { category: 'stock' }, context: {} })).json();
    expect(stock).toEqual({ lotState: 'lot', lotSelector: [{ label: 'Standard (1)', value: '100000.00000000' }, { label: 'Micro (0.01)', value: '1000.00000000' }, { label: 'Half', value: '0.50000000' }] });

    // an empty selector is allowed
    expect((await act(body({}, []))).status).toBe(200);
    expect((await state()).selector).toEqual([]);
  });

  const refusals: [string, Record<string, string>, [string, string][], string, string][] = [
    ['a state that is neither', { lot_forex: 'units' }, [], 'lot_forex', 'Choose lot or amount'],
    ['a missing state', { lot_index: '' }, [], 'lot_index', 'Choose lot or amount'],
    ['a zero value', {}, [['Zero', '0']], 'selector[0].value', 'Value must be a number greater than 0 with at most 8 decimals'],
    ['a negative value', {}, [['A', '1'], ['Neg', '-5']], 'selector[1].value', 'Value must be a number greater than 0 with at most 8 decimals'],
    ['a huge value', {}, [['Huge', '1000000000000']], 'selector[0].value', 'Value must be a number greater than 0 with at most 8 decimals'],
    ['a word as value', {}, [['Word', 'ten']], 'selector[0].value', 'Value must be a number greater than 0 with at most 8 decimals'],
    ['a missing value', {}, [['Empty', '']], 'selector[0].value', 'Value is required'],
    ['a missing label', {}, [['', '100']], 'selector[0].label', 'Label is required'],
    ['a 61-character label', {}, [['l'.repeat(61), '100']], 'selector[0].label', 'Label allows at most 60 characters'],
    ['a value twice', {}, [['A', '1000'], ['B', '1000.000']], 'selector[1].value', 'Each value may appear only once'],
  ];
  test.each(refusals)('%s is refused with its message, nothing written', async (_, over, selector, field, message) => {
    await act(body());
    const before = await state();
    const audits = await auditCount('lots');
    const r = await act(body(over, selector));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ok: false, toast: message });
    expect(fieldErrors(r)[field]).toEqual([message]);
    expect(await state()).toEqual(before);
    expect(await auditCount('lots')).toBe(audits);
  });

  test('more than 20 sizes are refused', async () => {
    const many = Array.from({ length: 21 }, (_, i): [string, string] => [`S${i}`, String(i + 1)]);
    const r = await act(body({}, many));
    expect(r).toMatchObject({ status: 400, body: { toast: 'At most 20 lot sizes' } });
    expect(fieldErrors(r).selector).toEqual(['At most 20 lot sizes']);
  });
});
