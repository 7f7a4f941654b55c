// 'Show Email & Phone in Agent Dashboard' (showUserInfoAgent): off, agents receive masked contacts;
// on, the full ones. Serial: it flips a site-wide setting other files read; put back after.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, unique, uniqueEmail } from '../helpers.ts';
import { db } from '~/shared/db.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import { maskEmail } from '~/shared/mask.ts';
import { crmSupport } from './support.ts';

const sql = testSql();
const { staff, lead, list, act } = crmSupport(sql);
afterAll(async () => { await sql.end(); });

describe('the agent masking switch', () => {
  test('off: masked for sales and retention agents; on: full values; admins always full', async () => {
    const agent = await staff(5);
    const ret = await staff(6);
    const admin = await staff(1);
    const tok = unique('ms');
    const email = uniqueEmail('fullvalue').toLowerCase();
    await lead(tok, { agent: agent.id, email, phone: '+49 151 2345 6789' });
    await lead(tok, { group: 'retentions', ret: ret.id, email, phone: '+49 151 2345 6789' });
    const before = await getSetting(sql, 'showUserInfoAgent');
    try {
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'off', revealSales: 'off', revealRetention: 'off' });
      for (const [path, who] of [['/admin/crm/sales/all', agent], ['/admin/crm/retention', ret]] as const) {
        const r = await list(`${path}?search=${tok}`, who.cookie);
        const json = JSON.stringify(r.data);
        expect(r.data.masked).toBe(true);
        expect(json).not.toContain(email);
        expect(json).not.toContain('2345 6789');
        expect(r.data.rows[0]).toMatchObject({ email: maskEmail(email), phone: '******89' });
      }
      expect(JSON.stringify((await list(`/admin/crm/sales/all?search=${tok}`, admin.cookie)).data)).toContain(email);
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'on', revealSales: 'off', revealRetention: 'off' });
      for (const [path, who] of [['/admin/crm/sales/all', agent], ['/admin/crm/retention', ret]] as const) {
        const r = await list(`${path}?search=${tok}`, who.cookie);
        expect(r.data.masked).toBe(false);
        expect(r.data.rows[0]).toMatchObject({ email, phone: '+49 151 2345 6789' });
      }
    } finally {
      await setSetting(db(), 'showUserInfoAgent', before);
    }
  });
});

describe('sorting by masked columns (issue 22)', () => {
  test('a masked agent\'s sort by email or phone is ignored (by id instead): the order would tell the hidden values', async () => {
    const agent = await staff(5);
    const admin = await staff(1);
    const tok = unique('ms');
    // ids in one order, emails and phones in the opposite one
    const ids: number[] = [];
    for (const [e, p] of [['zz', '+49 151 9999 0003'], ['mm', '+49 151 5555 0002'], ['aa', '+49 151 1111 0001']]) {
      ids.push(await lead(tok, { agent: agent.id, email: `${e}${uniqueEmail('srt').toLowerCase()}`, phone: p }));
    }
    const order = async (query: string, cookie: string) => ((await list(`/admin/crm/sales/all?search=${tok}&${query}`, cookie)).data.rows as { id: number }[]).map((r) => r.id);
    const before = await getSetting(sql, 'showUserInfoAgent');
    try {
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'off', revealSales: 'off', revealRetention: 'off' });
      for (const sort of ['email', 'phone']) {
        for (const dir of ['asc', 'desc']) {
          expect(await order(`sort=${sort}&dir=${dir}`, agent.cookie), `${sort} ${dir}`).toEqual(await order(`sort=id&dir=${dir}`, agent.cookie));
        }
      }
      // an admin (nothing masked) sorts by them
      expect(await order('sort=email&dir=asc', admin.cookie)).toEqual([...ids].reverse());
      // the switch on: the agent sees the values, and sorts by them
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'on', revealSales: 'off', revealRetention: 'off' });
      expect(await order('sort=phone&dir=asc', agent.cookie)).toEqual([...ids].reverse());
    } finally {
      await setSetting(db(), 'showUserInfoAgent', before);
    }
  });
});

describe('Reveal', () => {
  test('only a role the broker allows reveals a contact of a lead in scope; each reveal is audited, refusals write nothing', async () => {
    const [agent, other, ret, admin] = await Promise.all([staff(5), staff(5), staff(6), staff(1)]);
    const tok = unique('rv');
    const email = uniqueEmail('revealme').toLowerCase();
    const mine = await lead(tok, { agent: agent.id, email, phone: '+49 151 2345 6789' });
    const theirs = await lead(tok, { agent: other.id });
    const retained = await lead(tok, { group: 'retentions', ret: ret.id, email, phone: '+49 151 2345 6789' });
    const reveals = async () => Number((await sql`SELECT count(*)::int AS n FROM audit_events WHERE action = 'lead.reveal' AND target_id IN (${String(mine)}, ${String(theirs)}, ${String(retained)})`)[0].n);
    const reveal = (path: string, id: number, field: string, cookie: string) => act(path, { intent: 'reveal', id: String(id), field }, cookie);
    const before = await getSetting(sql, 'showUserInfoAgent');
    try {
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'off', revealSales: 'on', revealRetention: 'off' });
      expect((await list(`/admin/crm/sales/all?search=${tok}`, agent.cookie)).data.canReveal).toBe(true);
      expect((await list(`/admin/crm/retention?search=${tok}`, ret.cookie)).data.canReveal).toBe(false);

      const r = await reveal('/admin/crm/sales/all', mine, 'email', agent.cookie);
      expect(r.status).toBe(200);
      expect(r.data.revealed).toEqual({ id: mine, field: 'email', value: email });
      expect((await reveal('/admin/crm/sales/all', mine, 'phone', agent.cookie)).data.revealed.value).toBe('+49 151 2345 6789');
      const [row] = await sql`SELECT actor_id, after, ip FROM audit_events WHERE action = 'lead.reveal' AND target_id = ${String(mine)} ORDER BY id LIMIT 1`;
      expect(Number(row.actor_id)).toBe(agent.id);
      expect(row.after).toEqual({ field: 'email' });
      expect(JSON.stringify(row)).not.toContain(email);
      expect(await reveals()).toBe(2);

      // another agent's lead, a retention agent whose role may not, a bad field, an admin (nothing masked): nothing revealed, nothing audited
      const refused = [
        await reveal('/admin/crm/sales/all', theirs, 'email', agent.cookie),
        await reveal('/admin/crm/retention', retained, 'email', ret.cookie),
        await reveal('/admin/crm/sales/all', mine, 'password', agent.cookie),
        await reveal('/admin/crm/sales/all', mine, 'email', admin.cookie),
      ];
      expect(refused.map((x) => x.status)).toEqual([404, 403, 400, 403]);
      expect(JSON.stringify(refused)).not.toContain(email);
      expect(await reveals()).toBe(2);

      // the switch shown to agents (everything unmasked) leaves nothing to reveal
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'on', revealSales: 'on', revealRetention: 'on' });
      expect((await reveal('/admin/crm/sales/all', mine, 'email', agent.cookie)).status).toBe(403);
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'off', revealSales: 'off', revealRetention: 'on' });
      expect((await reveal('/admin/crm/sales/all', mine, 'email', agent.cookie)).status).toBe(403);
      expect((await reveal('/admin/crm/retention', retained, 'phone', ret.cookie)).data.revealed.value).toBe('+49 151 2345 6789');
      expect(await reveals()).toBe(3);
    } finally {
      await setSetting(db(), 'showUserInfoAgent', before);
    }
  });
});
