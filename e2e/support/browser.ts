// Debian's Chromium driven by playwright-core (never a downloaded browser), plus helpers for
// the auth flows: unique users, the stack's database, the outbox.
import { chromium, type Browser, type Page } from 'playwright-core';
import postgres from 'postgres';
import { hash } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:3000';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

export function database() {
  return postgres(process.env.DATABASE_URL!, { max: 2, onnotice: () => {} });
}

export function uniqueEmail(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}@e2e.broker`;
}

/**
 * A free plan without leverage or stop-out values: a customer on it trades exactly as one without
 * a plan (the instrument's leverage, the default stop-out), without the plan prompt in the way.
 */
export async function neutralPlanId(sql: postgres.Sql): Promise<number> {
  await sql`INSERT INTO pricing_plans (name, description, price) VALUES ('E2E Neutral', 'No leverage or stop-out of its own.', 0)
            ON CONFLICT ((lower(name))) DO NOTHING`;
  const [p] = await sql`SELECT id FROM pricing_plans WHERE lower(name) = 'e2e neutral'`;
  return Number(p.id);
}

/**
 * Inserts a verified, active user directly (role 3 unless said otherwise). A customer is on the
 * neutral plan unless `plan: null` (a customer without a plan gets the prompt on every client page).
 */
export async function insertUser(sql: postgres.Sql, opts: { email?: string; password: string; roleId?: number; fullName?: string; plan?: null }) {
  const email = opts.email ?? uniqueEmail('user');
  const passwordHash = await hash(opts.password, { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 });
  const roleId = opts.roleId ?? 3;
  const planId = roleId === 3 && opts.plan !== null ? await neutralPlanId(sql) : null;
  const [u] = await sql`INSERT INTO users (email, password_hash, full_name, role_id, is_active, is_email_verified, pricing_plan_id)
                        VALUES (${email}, ${passwordHash}, ${opts.fullName ?? 'E2E User'}, ${roleId}, true, true, ${planId}) RETURNING id`;
  return { id: Number(u.id), email };
}

/** Waits for a mail to `to` and returns the path of its first link matching `pattern`. */
export async function linkFromOutbox(sql: postgres.Sql, to: string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await sql`SELECT text_body FROM email_outbox WHERE to_address = ${to} ORDER BY id DESC LIMIT 1`;
    const m = row ? pattern.exec(row.text_body as string) : null;
    if (m) return new URL(m[0]).pathname;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no mail to ${to} matching ${pattern}`);
}

export async function signIn(page: Page, email: string, password: string) {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}
