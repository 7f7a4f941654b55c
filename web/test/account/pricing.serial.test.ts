// The pricing-plan site switch, off: nobody subscribes, no prompt is due, the page says so. Serial
// (it changes a site-wide setting other files read); the setting is put back after.
import { afterAll, describe, expect, test } from 'vitest';
import { testSql, get } from '../helpers.ts';
import { db } from '~/shared/db.server.ts';
import { getSetting, setSetting } from '~/shared/settings.server.ts';
import { planPrompt } from '~/modules/pricing/pricing.server.ts';
import { findSession } from '~/modules/auth/session.server.ts';
import { loader } from '~/routes/_client.pricing.tsx';
import { loader as clientLoader } from '~/routes/_client.tsx';
import { pricingSupport } from './pricing-support.ts';

const sql = testSql();
const { plan, customer, subscribe, planOf } = pricingSupport(sql);
afterAll(async () => { await sql.end(); });

describe('the pricing-plan switch off', () => {
  test('refuses every subscription, prompts nobody, and the page says plans are not available', async () => {
    const p = await plan({ price: '0' });
    const c = await customer('100');
    const before = await getSetting(sql, 'pricingPlan');
    // through the app's own pool, so its cached copy of the settings is dropped at once
    await setSetting(db(), 'pricingPlan', { enabled: 'off' });
    try {
      expect(await subscribe(c.cookie, { planId: String(p.id) })).toMatchObject({ status: 409, body: { toast: 'Pricing plans are not available' } });
      expect(await planOf(c.id)).toBeNull();
      const layout = (await clientLoader({ request: get('/dashboard', c.cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof clientLoader>>;
      expect(layout.planPrompt).toBeNull();
      expect(await planPrompt(sql, (await findSession(sql, c.token))!)).toBeNull();
      const page = (await loader({ request: get('/pricing', c.cookie), params: {}, context: {} })) as Awaited<ReturnType<typeof loader>>;
      expect(page.view.canSubscribe).toBe(false);
    } finally {
      await setSetting(db(), 'pricingPlan', before);
    }
    // on again: the same customer is prompted and may subscribe
    expect((await clientLoader({ request: get('/dashboard', c.cookie), params: {}, context: {} }) as { planPrompt: unknown }).planPrompt).not.toBeNull();
    expect((await subscribe(c.cookie, { planId: String(p.id) })).status).toBe(302);
  });
});
