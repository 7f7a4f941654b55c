// Debian's Chromium driven by playwright-core (never a downloaded browser), plus helpers for
// the auth flows: unique users, the stack's database, the outbox.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import postgres from 'postgres';
import { hash } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:3000';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export async function newPage(browser: Browser, opts: { timezoneId?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: opts.timezoneId });
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

/**
 * Signs in through the sign-in form, as a person does: for the tests of signing in itself (auth,
 * security and two-factor, roles). Leaves the page on its way to where the form sends the user.
 */
export async function signInThroughForm(page: Page, email: string, password: string) {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;
interface StoredSession { home: string; state: StorageState }

/**
 * Where the demo users' sessions of this run are kept between files (each file runs in a worker
 * of its own): E2E_SESSION_DIR (scripts/test.ts: its run's temporary folder), else a folder of
 * this stack's port under the system's temporary folder.
 */
const sessionDir = process.env.E2E_SESSION_DIR ?? path.join(os.tmpdir(), `broker-e2e-sessions-${new URL(BASE_URL).port || '80'}`);
const sessionFile = (email: string) => path.join(sessionDir, `${email.replace(/[^a-z0-9@._-]/gi, '_')}.json`);
/** The demo users are shared by every file: one session each per run, signed in once. */
const isShared = (email: string) => email.endsWith('@demo.broker');

/**
 * The sign-in action answered straight (the form's own POST, without rendering the form): the
 * session cookie lands in the page's context. Returns where the action sends the user.
 */
async function postSignIn(page: Page, email: string, password: string): Promise<string> {
  const res = await page.request.post('/?index', { form: { email, password }, headers: { origin: BASE_URL }, maxRedirects: 0 });
  const to = res.headers().location;
  if (res.status() !== 302 || !to) throw new Error(`sign-in of ${email} answered ${res.status()} (${(await res.text()).slice(0, 200)})`);
  return new URL(to, BASE_URL).pathname;
}

/**
 * Signs `page`'s context in as `email` and opens the user's home page (where the sign-in form
 * would have sent them). A demo user's session is signed in once per run and reused from its
 * stored state (Playwright's storageState); any other user gets a session of its own, through a
 * POST to the sign-in action. A stored session that has been ended meanwhile (a sign-out) is
 * replaced by a fresh one. Tests of signing in use signInThroughForm.
 */
export async function signIn(page: Page, email: string, password: string) {
  const context = page.context();
  if (isShared(email) && existsSync(sessionFile(email))) {
    const stored = JSON.parse(readFileSync(sessionFile(email), 'utf8')) as StoredSession;
    await context.addCookies(stored.state.cookies);
    await page.goto(stored.home);
    if (new URL(page.url()).pathname === stored.home) return;
    await context.clearCookies(); // the session was ended: a new one
  }
  const home = await postSignIn(page, email, password);
  if (isShared(email)) {
    const state = await context.storageState();
    mkdirSync(sessionDir, { recursive: true });
    const file = sessionFile(email);
    writeFileSync(`${file}.${process.pid}`, JSON.stringify({ home, state } satisfies StoredSession));
    renameSync(`${file}.${process.pid}`, file);
  }
  await page.goto(home);
}

/**
 * Every console error and uncaught page error of `page` from now on (a hydration mismatch, a
 * failed request, a translation key nobody has…): `take()` returns those since the last take.
 */
export function collectErrors(page: Page): { take: () => string[] } {
  let errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text().slice(0, 300)}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message.slice(0, 300)}`));
  return { take: () => { const out = errors; errors = []; return out; } };
}

/** Resolves once the page has hydrated (Remix's router exists) and the browser has gone idle after it. */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => '__remixRouter' in window);
  await page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 2000 })));
}
