// The CRM lead lists in real Chromium against the running stack: a manager filters the sales leads
// of their team by status and 'Registered At', selects all rows of the filtered list, assigns an
// agent of their team; that agent signs in and sees exactly those leads, with masked contacts
// (the site's 'Show Email & Phone in Agent Dashboard' is off by default). axe-core on each view.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;

beforeAll(async () => { browser = await launch(); });
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('CRM sales leads', () => {
  test('manager filters, selects all, assigns an agent; the agent sees exactly those, masked', async () => {
    const tok = `e2e${Date.now().toString(36)}`;
    const status = `E2E ${tok}`;
    await sql`INSERT INTO sales_statuses (status, color) VALUES (${status}, '#1f883d')`;
    const manager = await insertUser(sql, { password: PASSWORD, roleId: 2, fullName: 'E2E Manager' });
    const agent = await insertUser(sql, { password: PASSWORD, roleId: 5, fullName: `E2E Agent ${tok}` });
    const [team] = await sql`INSERT INTO teams (name, code, manager_id) VALUES ('E2E Team', ${tok}, ${manager.id}) RETURNING id`;
    await sql`INSERT INTO team_members (team_id, user_id) VALUES (${team.id}, ${agent.id})`;
    const lead = async (s: string, at: string, n: number) => {
      const [l] = await sql`
        INSERT INTO leads (first_name, last_name, email, phone, country, city, lead_status, "group", manager_id, created_at)
        VALUES ('Lead', ${`${tok}${n}`}, ${`fullcontact${n}.${tok}@example.com`}, ${`+44 7700 90${n}456`}, 'Spain', 'Madrid', ${s}, 'sales', ${manager.id}, ${at})
        RETURNING id`;
      return Number(l.id);
    };
    const wanted = [await lead(status, '2024-05-10T10:00:00Z', 1), await lead(status, '2024-05-20T10:00:00Z', 2), await lead(status, '2024-05-30T10:00:00Z', 3)];
    const otherDate = await lead(status, '2024-07-01T10:00:00Z', 4);
    const otherStatus = await lead('New', '2024-05-15T10:00:00Z', 5);

    const page = await newPage(browser);
    await signIn(page, manager.email, PASSWORD);
    await page.waitForURL((u) => u.pathname.startsWith('/admin'));
    await page.goto('/admin/crm/sales/all');
    await page.getByRole('heading', { name: 'All Sales' }).waitFor();
    await page.getByLabel('Sale Status').selectOption(status);
    await page.waitForURL((u) => u.searchParams.get('status') === status);
    await page.locator('.crm-filters').getByRole('button', { name: /^Registered At/ }).click();
    await page.getByLabel('Start Date').fill('2024-05-01');
    await page.getByLabel('End Date').fill('2024-05-31');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL((u) => u.searchParams.get('dateEnd') === '2024-05-31');
    await page.getByText('Total: 3').waitFor();
    const shown = async () => (await page.locator('table tbody tr td:nth-child(2)').allTextContents()).map(Number).sort((a, b) => a - b);
    expect(await shown()).toEqual(wanted);
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Select all 3' }).click();
    await page.getByText('3 selected').first().waitFor();
    await page.getByRole('button', { name: 'Assign Agent' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Sale Agent').selectOption({ label: `E2E Agent ${tok} (${agent.email})` });
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Agents assigned successfully').waitFor();
    await page.getByText('0 selected').waitFor();
    const assigned = await sql`SELECT id FROM leads WHERE agent_id = ${agent.id} ORDER BY id`;
    expect(assigned.map((r) => Number(r.id))).toEqual(wanted);
    expect((await sql`SELECT agent_id FROM leads WHERE id IN (${otherDate}, ${otherStatus})`).every((r) => r.agent_id === null)).toBe(true);

    const agentPage = await newPage(browser);
    await signIn(agentPage, agent.email, PASSWORD);
    await agentPage.waitForURL((u) => u.pathname === '/admin/crm/sales/all');
    await agentPage.getByText('Total: 3').waitFor();
    const ids = (await agentPage.locator('table tbody tr td:nth-child(2)').allTextContents()).map(Number).sort((a, b) => a - b);
    expect(ids).toEqual(wanted);
    const html = await agentPage.content();
    for (const n of [1, 2, 3]) {
      expect(html).not.toContain(`fullcontact${n}.${tok}@example.com`);
      expect(html).not.toContain(`90${n}456`);
    }
    await agentPage.getByText(`fu****${tok.slice(-2)}@example.com`).first().waitFor();
    await agentPage.getByText('******56').first().waitFor();
    // agents have no agent filter nor assign control
    expect(await agentPage.getByRole('button', { name: /^Filter Agent/ }).count()).toBe(0);
    expect(await agentPage.getByRole('button', { name: 'Assign Agent' }).count()).toBe(0);
    expect(await agentPage.getByRole('button', { name: /^Reveal/ }).count()).toBe(0);
    await expectNoAxeViolations(agentPage);

    // the broker lets sales agents reveal: one click shows one lead's phone, and the reveal is audited
    const [saved] = await sql`SELECT value FROM site_settings WHERE key = 'showUserInfoAgent'`;
    await sql`INSERT INTO site_settings (key, value) VALUES ('showUserInfoAgent', ${sql.json({ enabled: 'off', revealSales: 'on', revealRetention: 'off' })})
              ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
    try {
      await agentPage.reload();
      await agentPage.getByRole('button', { name: `Reveal the phone of lead #${wanted[0]}` }).click();
      await agentPage.getByText('+44 7700 901456').waitFor();
      expect(await agentPage.getByText('+44 7700 902456').count()).toBe(0);
      const [row] = await sql`SELECT after FROM audit_events WHERE action = 'lead.reveal' AND actor_id = ${agent.id} AND target_id = ${String(wanted[0])}`;
      expect(row.after).toEqual({ field: 'phone' });
      await expectNoAxeViolations(agentPage);
    } finally {
      if (saved) await sql`UPDATE site_settings SET value = ${sql.json(saved.value)} WHERE key = 'showUserInfoAgent'`;
      else await sql`DELETE FROM site_settings WHERE key = 'showUserInfoAgent'`;
    }

    // a bulk move toasts once (issue 24): its answer, not again when the list reloads after it
    await page.reload();
    await page.getByRole('button', { name: 'Select all 3' }).click();
    await page.getByText('3 selected').first().waitFor();
    await page.getByRole('button', { name: 'Bulk archive' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
    const moved = page.locator('.toast').filter({ hasText: 'Lead moved successfully' });
    await moved.first().waitFor();
    await page.getByText('Total: 0').waitFor();
    await page.waitForTimeout(1500);
    expect(await moved.count()).toBe(1);
    expect(await page.locator('.toast').count()).toBe(1);
    const groups = await sql`SELECT DISTINCT "group" FROM leads WHERE id IN ${sql(wanted)}`;
    expect(groups.map((g) => g.group)).toEqual(['archived']);
  }, 120_000);
});
