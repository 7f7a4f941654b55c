// Click-to-call in real Chromium against the running stack. Not configured (the demo data): the phone
// button is disabled and the list says why. Configured with a cluster that cannot be reached (no Voiso
// account here, so every path ends in the server's own message, never a fake success): an admin's
// phone button opens the agent dialog (axe-core on it), an agent's posts at once and shows the toast.
// The requests Voiso receives are tested against msw in web/test/crm/voiso.serial.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { encryptSecret, secretsKey } from '../engine/src/contract/secrets.ts';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';
import { expectNoAxeViolations } from './support/axe.ts';

const PASSWORD = 'E2e-pass-1234';
const sql = database();
let browser: Browser;

let savedVoiso: Record<string, unknown> | undefined;
beforeAll(async () => {
  browser = await launch();
  [savedVoiso] = await sql`SELECT value1, value2 FROM api_settings WHERE key = 'voiso'`;
});
afterAll(async () => {
  await setVoiso((savedVoiso?.value1 as string | null) ?? null, (savedVoiso?.value2 as string | null) ?? null);
  await browser?.close();
  await sql.end();
});

/** The key the stack encrypts provider secrets with: the environment's, else the one `npm start` generated. */
function stackSecretsKey(): string {
  const file = path.resolve(import.meta.dirname, '../.data/secrets.json');
  return process.env.SECRETS_KEY ?? (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).SECRETS_KEY : '');
}
async function setVoiso(cluster: string | null, storedKey: string | null) {
  await sql`INSERT INTO api_settings (key, value1, value2) VALUES ('voiso', ${cluster}, ${storedKey})
            ON CONFLICT (key) DO UPDATE SET value1 = EXCLUDED.value1, value2 = EXCLUDED.value2`;
}

describe('click-to-call', () => {
  test("an admin's phone button opens the agent dialog; an agent's answers with a toast, the number never on the page", async () => {
    const tok = `vo${Date.now().toString(36)}`;
    const admin = await insertUser(sql, { password: PASSWORD, roleId: 1, fullName: 'E2E Admin' });
    const agent = await insertUser(sql, { password: PASSWORD, roleId: 5, fullName: `E2E Agent ${tok}` });
    await sql`INSERT INTO leads (first_name, last_name, email, phone, country, city, lead_status, "group", agent_id)
              VALUES ('Lead', ${tok}, ${`${tok}@example.com`}, '+44 7700 900987', 'Spain', 'Madrid', 'New', 'sales', ${agent.id})`;

    const page = await newPage(browser);
    await signIn(page, admin.email, PASSWORD);
    await page.waitForURL((u) => u.pathname.startsWith('/admin'));
    // not configured: disabled, with the reason and the way to the page that configures it
    await setVoiso(null, null);
    await page.goto(`/admin/crm/sales/all?search=${tok}`);
    const off = page.getByRole('button', { name: `Call Lead ${tok}` });
    expect(await off.isDisabled()).toBe(true);
    await page.getByText('Voiso is not configured: set its cluster ID and API key in API Settings').waitFor();
    expect(await page.getByRole('link', { name: 'Open API Settings' }).getAttribute('href')).toBe('/admin/apis');
    await expectNoAxeViolations(page);

    // configured (a cluster this machine cannot reach)
    await setVoiso('e2e-unreachable', encryptSecret('e2e-key', secretsKey(stackSecretsKey())));
    await page.goto(`/admin/crm/sales/all?search=${tok}`);
    await page.getByRole('button', { name: `Call Lead ${tok}` }).click();
    const dialog = page.getByRole('dialog', { name: `Call Lead ${tok}` });
    await dialog.waitFor();
    // Voiso's agents, or why there are none (not configured / not reachable)
    await dialog.locator('.voiso-agents, .field-error').first().waitFor({ timeout: 15_000 });
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    const agentPage = await newPage(browser);
    await signIn(agentPage, agent.email, PASSWORD);
    await agentPage.waitForURL((u) => u.pathname.startsWith('/admin'));
    await agentPage.goto(`/admin/crm/sales/all?search=${tok}`);
    await agentPage.getByText('******87').waitFor();
    const answer = agentPage.waitForResponse((r) => r.url().includes('/admin/crm/voiso/startCall'), { timeout: 15_000 });
    await agentPage.getByRole('button', { name: `Call Lead ${tok}` }).click();
    const res = await answer;
    expect(await res.text()).not.toMatch(/7700|900987/);
    await agentPage.locator('.toast').first().waitFor({ timeout: 15_000 });
    expect(await agentPage.content()).not.toContain('900987');
    await expectNoAxeViolations(agentPage);
  });
});
