// The CSV lead import in real Chromium against the running stack: an admin opens Manual Leads,
// imports a CSV through 'Import CSV', watches the progress bar reach 100 % with its counts, and
// the report link appears; the list then holds the new leads. axe-core on the dialog and the result.
import { randomInt } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

describe('CSV lead import', () => {
  test('an admin imports a CSV and watches the progress reach 100 %', async () => {
    const tok = `imp${Date.now().toString(36)}`;
    const admin = await insertUser(sql, { password: PASSWORD, roleId: 1, fullName: 'E2E Importer' });
    const rows = Array.from({ length: 2500 }, (_, i) => `Ann${i},${tok},ann${i}.${tok}@example.com,07${randomInt(100_000_000, 999_999_999)},GB,London`);
    rows.push(`Bad,${tok},not-an-email,07700 900555,GB,`);
    rows.push(`Dup,${tok},ANN1.${tok.toUpperCase()}@example.com,07${randomInt(100_000_000, 999_999_999)},GB,`);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'e2e-import-')), 'leads.csv');
    writeFileSync(file, `firstName,lastName,email,phone,country,city\n${rows.join('\n')}\n`);

    const page = await newPage(browser);
    await signIn(page, admin.email, PASSWORD);
    await page.waitForURL((u) => u.pathname.startsWith('/admin'));
    await page.goto('/admin/leads/manual');
    await page.getByRole('heading', { name: 'Manual Leads' }).waitFor();
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('CSV file').setInputFiles(file);
    await expectNoAxeViolations(page);
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    const bar = page.getByRole('progressbar');
    await bar.waitFor();
    await page.getByRole('link', { name: 'Download the report' }).waitFor({ timeout: 60_000 });
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    await page.getByText('2,502 of 2,502 rows: 2,500 created, 1 duplicates, 1 errors').waitFor();
    await expectNoAxeViolations(page);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM leads WHERE last_name = ${tok}`;
    expect(n).toBe(2500);
    // a reload finds the finished import again
    await page.reload();
    await page.getByText('2,502 of 2,502 rows: 2,500 created, 1 duplicates, 1 errors').waitFor();
  });
});
