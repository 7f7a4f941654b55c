// 'Show Email & Phone in Agent Dashboard' (showUserInfoAgent): off, agents receive masked contacts;
// on, the full ones. Serial: it flips a site-wide setting other files read; put back after.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, unique, uniqueEmail } from '../helpers.ts';
import { db } from '~/utils/db.server.ts';
import { getSetting, setSetting } from '~/modules/settings/settings.server.ts';
import { maskEmail } from '~/utils/mask.ts';
import { crmSupport } from './support.ts';

const sql = testSql();
const { staff, lead, list } = crmSupport(sql);
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
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'off' });
      for (const [path, who] of [['/admin/crm/sales/all', agent], ['/admin/crm/retention', ret]] as const) {
        const r = await list(`${path}?search=${tok}`, who.cookie);
        const json = JSON.stringify(r.data);
        expect(r.data.masked).toBe(true);
        expect(json).not.toContain(email);
        expect(json).not.toContain('2345 6789');
        expect(r.data.rows[0]).toMatchObject({ email: maskEmail(email), phone: '******89' });
      }
      expect(JSON.stringify((await list(`/admin/crm/sales/all?search=${tok}`, admin.cookie)).data)).toContain(email);
      await setSetting(db(), 'showUserInfoAgent', { enabled: 'on' });
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
