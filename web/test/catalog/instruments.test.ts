// /admin/instruments/{category}: the admin's list, add, edit and delete, through the route modules
// against PostgreSQL. Only the admin may read or change; every refusal is a message (never a 500)
// and changes nothing; every change leaves its audit row; the engine is notified of what it reads.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as forex from '~/routes/_staff.admin.instruments.forex.tsx';
import * as crypto from '~/routes/_staff.admin.instruments.crypto.tsx';
import { createUser, get, post, sessionFor, testSql, unique } from '../helpers.ts';
import { answer, engineNotices, fieldErrors, openPositions } from './helpers.ts';

const sql = testSql(5);
let admin: { id: number; cookie: string };
beforeAll(async () => {
  const u = await createUser(sql, { roleId: 1 });
  admin = { id: u.id, cookie: (await sessionFor(sql, u.id)).cookie };
});
afterAll(() => sql.end());

const symbol = () => unique('T').toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 14) + '_USD';
const valid = (over: Record<string, string> = {}) => ({
  intent: 'save', name: symbol(), base: 'TST', quote: 'USD', tradingview: 'OANDA', alias: '', leverage: '100', digits: '5',
  swap: '', bids: '', asks: '', tradable: 'on', ...over,
});
const act = (mod: typeof forex, body: Record<string, string>, cookie = admin.cookie) =>
  answer(mod.action({ request: post(`/admin/instruments/${mod === forex ? 'forex' : 'crypto'}`, body, { cookie }), params: {}, context: {} }));
const load = (mod: typeof forex, query = '', cookie = admin.cookie) =>
  answer(mod.loader({ request: get(`/admin/instruments/${mod === forex ? 'forex' : 'crypto'}${query}`, cookie), params: {}, context: {} }));
const byName = async (name: string) => (await sql`SELECT * FROM instruments WHERE name = ${name}`)[0];
const auditOf = (id: number) => sql`SELECT action, actor_id, before, after FROM audit_events WHERE target_kind = 'instrument' AND target_id = ${String(id)} ORDER BY id`;

async function created(over: Record<string, string> = {}, mod = forex) {
  const body = valid(over);
  const r = await act(mod, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return byName(body.name);
}

describe('roles', () => {
  test('only the admin opens the page or posts to it', async () => {
    const name = symbol();
    for (const roleId of [2, 3, 4, 5, 6]) {
      const u = await createUser(sql, { roleId });
      const { cookie } = await sessionFor(sql, u.id);
      expect((await load(forex, '', cookie)).status, `role ${roleId} loads`).toBe(403);
      expect((await act(forex, valid({ name }), cookie)).status, `role ${roleId} posts`).toBe(403);
    }
    expect(await byName(name)).toBeUndefined();
    expect((await load(forex)).status).toBe(200);
  });
});

describe('the list', () => {
  test('server-paged, searched by name, base, quote or alias, sorted, one category', async () => {
    const tag = unique('Q').toUpperCase().replace(/[^A-Z0-9]/g, '').slice(-8);
    const a = await created({ name: `${tag}A_USD`, base: `${tag}A`, alias: 'Alpha', leverage: '5', bids: '1.5', asks: '1.6', digits: '2' });
    await created({ name: `${tag}B_USD`, base: `${tag}B`, leverage: '7' });
    await created({ name: `${tag}C_USD`, base: `${tag}C` }, crypto); // another category
    const r = await load(forex, `?search=${tag}&sort=leverage&dir=asc`);
    const body = r.body as unknown as { total: number; category: string; rows: { name: string; bids: string; openPositions: number }[] };
    expect(body.category).toBe('forex');
    expect(body.total).toBe(2);
    expect(body.rows.map((x) => x.name)).toEqual([`${tag}A_USD`, `${tag}B_USD`]);
    expect(body.rows[0]).toMatchObject({ bids: '1.5000000000', openPositions: 0 });
    const byAlias = (await load(forex, `?search=alph&limit=15`)).body as unknown as { rows: { id: number }[] };
    expect(byAlias.rows.map((x) => x.id)).toContain(Number(a.id));
    // a wildcard in the search is a character, not a pattern
    expect(((await load(forex, `?search=${tag}%25`)).body as unknown as { total: number }).total).toBe(0);
    // the dashboard's search: a symbol typed with '/' finds it, the exact one first, no fuzzy noise
    const slashed = (await load(forex, `?search=${tag}B/USD`)).body as unknown as { total: number; rows: { name: string }[] };
    expect(slashed.rows.map((x) => x.name)).toEqual([`${tag}B_USD`]);
    const ranked = (await load(forex, `?search=${tag.toLowerCase()}b`)).body as unknown as { rows: { name: string }[] };
    expect(ranked.rows[0].name).toBe(`${tag}B_USD`);
    // a sort column that is not one is the default, never SQL
    expect((await load(forex, `?sort=name;drop&page=99999999999`)).status).toBe(200);
  });
});

describe('add', () => {
  test('creates it in the page\'s category (a posted category is ignored), audited, and the engine is told', async () => {
    const body = valid({ category: 'crypto', alias: ' Test pair ', base: 'tst', quote: 'usd', swap: '-0.25', bids: '1.1', asks: '1.1002' });
    let r!: Awaited<ReturnType<typeof act>>;
    const notes = await engineNotices(sql, async () => { r = await act(forex, body); });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Instrument added successfully' } });
    const row = await byName(body.name);
    expect(row).toMatchObject({ category: 'forex', base: 'TST', quote: 'USD', alias: 'Test pair', leverage: 100, digits: 5, swap: '-0.2500', tradable: true, bids: '1.1000000000', asks: '1.1002000000' });
    expect(notes).toContainEqual({ kind: 'instrument', id: Number(row.id), op: 'insert' });
    const [a] = await auditOf(Number(row.id));
    expect(a).toMatchObject({ action: 'instrument.create', actor_id: admin.id, before: null, after: { name: body.name, category: 'forex', leverage: 100, tradable: true } });
  });

  test('an unticked Tradable is false; swap, bids, asks and alias may be empty', async () => {
    const row = await created({ tradable: '' });
    expect(row).toMatchObject({ tradable: false, swap: '0.0000', bids: null, asks: null, alias: null });
    const body = valid();
    delete (body as Partial<typeof body>).tradable; // an unticked box is not posted at all
    expect((await act(forex, body)).status).toBe(200);
    expect((await byName(body.name)).tradable).toBe(false);
  });

  const refusals: [string, Record<string, string>, string, string][] = [
    ['no name', { name: '' }, 'name', 'Name is required'],
    ['a name with a space', { name: 'EUR USD' }, 'name', 'Name must be up to 40 letters, digits, underscores, dots or dashes, like EUR_USD'],
    ['a 41-character name', { name: 'A'.repeat(41) }, 'name', 'Name must be up to 40 letters, digits, underscores, dots or dashes, like EUR_USD'],
    ['no base', { base: '  ' }, 'base', 'Base is required'],
    ['a quote that is no currency', { quote: 'US' }, 'quote', 'Quote must be a 3-letter currency code, like USD'],
    ['no chart provider', { tradingview: '' }, 'tradingview', 'Chart provider is required'],
    ['no leverage', { leverage: '' }, 'leverage', 'Leverage is required'],
    ['a word as leverage', { leverage: 'abc' }, 'leverage', 'Leverage must be a whole number from 0 to 10000'],
    ['a negative leverage', { leverage: '-1' }, 'leverage', 'Leverage must be a whole number from 0 to 10000'],
    ['a fractional leverage', { leverage: '1.5' }, 'leverage', 'Leverage must be a whole number from 0 to 10000'],
    ['a huge leverage', { leverage: '99999999999999999999' }, 'leverage', 'Leverage must be a whole number from 0 to 10000'],
    ['digits beyond 10', { digits: '11' }, 'digits', 'Digits must be a whole number from 0 to 10'],
    ['a swap beyond 100 %', { swap: '100.5' }, 'swap', 'Swap must be a number from -100 to 100 with at most 4 decimals'],
    ['a swap in exponent form', { swap: '1e2' }, 'swap', 'Swap must be a number from -100 to 100 with at most 4 decimals'],
    ['bids without asks', { bids: '1.1' }, 'asks', 'Enter both bids and asks, or neither'],
    ['asks below bids', { bids: '1.2', asks: '1.1' }, 'asks', 'Asks must be at least the bids'],
    ['a zero bid', { bids: '0', asks: '1' }, 'bids', 'Bids must be a number greater than 0 with at most 10 decimals'],
    ['a negative ask', { bids: '1', asks: '-2' }, 'asks', 'Asks must be a number greater than 0 with at most 10 decimals'],
    ['a huge bid', { bids: '123456789012345678', asks: '123456789012345679' }, 'bids', 'Bids must be a number greater than 0 with at most 10 decimals'],
    ['11 decimals', { bids: '1.00000000001', asks: '2' }, 'bids', 'Bids must be a number greater than 0 with at most 10 decimals'],
    ['an alias of 81 characters', { alias: 'x'.repeat(81) }, 'alias', 'Alias allows at most 80 characters'],
    ['a zero minimum trailing distance', { trailingMin: '0' }, 'trailingMin', 'Minimum trailing distance must be a number greater than 0 with at most 10 decimals'],
    ['a word as minimum trailing distance', { trailingMin: 'far' }, 'trailingMin', 'Minimum trailing distance must be a number greater than 0 with at most 10 decimals'],
  ];

  test('the minimum trailing distance is saved, and empty means the default (10 pips)', async () => {
    expect((await created({ trailingMin: '0.0005' })).trailing_min_distance).toBe('0.0005000000');
    expect((await created()).trailing_min_distance).toBeNull();
  });
  test.each(refusals)('%s is refused with its message, nothing written', async (_, over, field, message) => {
    const body = valid(over);
    const r = await act(forex, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ok: false, toast: message });
    expect(fieldErrors(r)[field]).toEqual([message]);
    expect(await sql`SELECT 1 FROM instruments WHERE name = ${body.name}`).toHaveLength(0);
  });

  test('a duplicate name, whatever its case, is refused', async () => {
    const row = await created();
    const r = await act(crypto, valid({ name: String(row.name).toLowerCase() }));
    expect(r).toMatchObject({ status: 409, body: { ok: false, toast: 'An instrument with this name already exists' } });
    expect(fieldErrors(r).name).toEqual(['An instrument with this name already exists']);
    expect(await sql`SELECT 1 FROM instruments WHERE lower(name) = lower(${row.name})`).toHaveLength(1);
  });

  test('an unknown intent or a post without one is refused', async () => {
    expect((await act(forex, { ...valid(), intent: 'drop' })).status).toBe(400);
    const { intent: _, ...rest } = valid();
    expect((await act(forex, rest)).status).toBe(400);
  });
});

describe('edit', () => {
  test('updates the fields, keeps the saved quote when bids and asks are empty, audits before and after', async () => {
    const row = await created({ bids: '1.1', asks: '1.2', leverage: '50' });
    const id = Number(row.id);
    const r = await act(forex, valid({ id: String(id), name: row.name, alias: 'Renamed', leverage: '20', digits: '4', bids: '', asks: '' }));
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Instrument updated successfully' } });
    expect(await byName(row.name)).toMatchObject({ alias: 'Renamed', leverage: 20, digits: 4, bids: '1.1000000000', asks: '1.2000000000' });
    await act(forex, valid({ id: String(id), name: row.name, leverage: '20', digits: '4', bids: '2', asks: '2.5' }));
    expect(await byName(row.name)).toMatchObject({ bids: '2.0000000000', asks: '2.5000000000' });
    const trail = await auditOf(id);
    expect(trail.map((a) => a.action)).toEqual(['instrument.create', 'instrument.update', 'instrument.update']);
    expect(trail[1]).toMatchObject({ before: { leverage: 50, alias: null, digits: 5 }, after: { leverage: 20, alias: 'Renamed', digits: 4 } });
  });

  test('the engine is told of a leverage change, not of an alias change', async () => {
    const row = await created();
    const id = Number(row.id);
    const aliasOnly = await engineNotices(sql, () => act(forex, valid({ id: String(id), name: row.name, alias: 'Only alias' })));
    expect(aliasOnly.filter((n) => n.id === id)).toEqual([]);
    const leverage = await engineNotices(sql, () => act(forex, valid({ id: String(id), name: row.name, leverage: '30' })));
    expect(leverage.filter((n) => n.id === id)).toEqual([{ kind: 'instrument', id, op: 'update' }]);
  });

  test('an id of another category, an unknown id or a bad id is not found, and nothing changes', async () => {
    const other = await created({}, crypto);
    const r = await act(forex, valid({ id: String(other.id), name: other.name, leverage: '1' }));
    expect(r).toMatchObject({ status: 404, body: { ok: false, toast: 'Instrument not found' } });
    expect((await byName(other.name)).leverage).toBe(100);
    expect(await act(forex, valid({ id: '999999999999' }))).toMatchObject({ status: 404, body: { toast: 'Instrument not found' } });
    for (const id of ['abc', '-1', '0', '1.5', '99999999999999999999']) {
      const bad = await act(forex, valid({ id }));
      expect(bad.status, id).toBe(400);
      expect(bad.body?.ok).toBe(false);
    }
  });

  test('renaming onto another instrument\'s name is refused', async () => {
    const a = await created();
    const b = await created();
    const r = await act(forex, valid({ id: String(a.id), name: b.name }));
    expect(r).toMatchObject({ status: 409, body: { toast: 'An instrument with this name already exists' } });
    expect((await sql`SELECT name FROM instruments WHERE id = ${a.id}`)[0].name).toBe(a.name);
  });

  test('with open positions its name, base and quote stay; its leverage and alias may change', async () => {
    const row = await created();
    const id = Number(row.id);
    await openPositions(sql, id, 1);
    for (const over of [{ name: symbol() }, { base: 'OTHER' }, { quote: 'EUR' }] as Record<string, string>[]) {
      const r = await act(forex, valid({ id: String(id), name: String(row.name), ...over }));
      expect(r.status, JSON.stringify(over)).toBe(409);
      expect(r.body).toMatchObject({ toast: 'Open positions on this instrument: {{count}}. Its name, base and quote cannot change until they are closed.', values: { count: 1 } });
      expect(fieldErrors(r).name).toEqual(['Close its open positions first']);
    }
    expect(await byName(row.name)).toMatchObject({ base: 'TST', quote: 'USD' });
    expect(await act(forex, valid({ id: String(id), name: row.name, leverage: '3', alias: 'Still here' }))).toMatchObject({ status: 200 });
    expect(await byName(row.name)).toMatchObject({ leverage: 3, alias: 'Still here' });
  });

  test('making it untradable with open positions asks first: they stay open; once confirmed it is done and audited', async () => {
    const row = await created();
    const id = Number(row.id);
    await openPositions(sql, id, 2);
    const list = (await load(forex, `?search=${row.name}`)).body as unknown as { rows: { openPositions: number }[] };
    expect(list.rows[0].openPositions).toBe(2);

    const r = await act(forex, valid({ id: String(id), name: row.name, tradable: '' }));
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ ok: false, values: { count: 2 } });
    expect(r.body?.toast).toContain('They stay open and can still be closed');
    expect(fieldErrors(r).confirmOpen).toEqual(['Confirm that the open positions stay open']);
    expect((await byName(row.name)).tradable).toBe(true);

    const ok = await act(forex, valid({ id: String(id), name: row.name, tradable: '', confirmOpen: 'on' }));
    expect(ok).toMatchObject({ status: 200, body: { toast: 'Instrument updated successfully' } });
    expect((await byName(row.name)).tradable).toBe(false);
    expect(await sql`SELECT 1 FROM orders WHERE instrument_id = ${id} AND close_time IS NULL`).toHaveLength(2);
    const trail = await auditOf(id);
    expect(trail.at(-1)).toMatchObject({ action: 'instrument.update', before: { tradable: true }, after: { tradable: false, openPositions: 2 } });
  });
});

describe('delete', () => {
  test('deletes an instrument without trades, audited, and the engine is told', async () => {
    const row = await created();
    const id = Number(row.id);
    let r!: Awaited<ReturnType<typeof act>>;
    const notes = await engineNotices(sql, async () => { r = await act(forex, { intent: 'delete', id: String(id) }); });
    expect(r).toMatchObject({ status: 200, body: { ok: true, toast: 'Instrument deleted successfully' } });
    expect(await byName(row.name)).toBeUndefined();
    expect(notes).toContainEqual({ kind: 'instrument', id, op: 'delete' });
    expect((await auditOf(id)).at(-1)).toMatchObject({ action: 'instrument.delete', actor_id: admin.id, before: { name: row.name }, after: null });
  });

  test('one with open positions is refused, saying how many; one with closed trades only is refused too', async () => {
    const row = await created();
    const id = Number(row.id);
    const p = await openPositions(sql, id, 3);
    const r = await act(forex, { intent: 'delete', id: String(id) });
    expect(r).toMatchObject({ status: 409, body: { ok: false, toast: 'Open positions on this instrument: {{count}}. Close them before deleting it.', values: { count: 3 } } });
    await sql`UPDATE orders SET close_time = now(), close_reason = 'manual', close_rate = 1.2, pro_loss = 100 WHERE id IN ${sql(p.orderIds)}`;
    const closed = await act(forex, { intent: 'delete', id: String(id) });
    expect(closed).toMatchObject({ status: 409, body: { toast: 'This instrument has trades in its history, so it cannot be deleted. Make it untradable instead.' } });
    expect(await byName(row.name)).toBeDefined();
    expect((await auditOf(id)).map((a) => a.action)).toEqual(['instrument.create']);
  });

  test('an id of another category or an unknown one is not found', async () => {
    const other = await created({}, crypto);
    expect(await act(forex, { intent: 'delete', id: String(other.id) })).toMatchObject({ status: 404, body: { toast: 'Instrument not found' } });
    expect(await byName(other.name)).toBeDefined();
    expect((await act(forex, { intent: 'delete', id: 'x' })).status).toBe(400);
    expect((await act(forex, { intent: 'delete' })).status).toBe(400);
  });
});
