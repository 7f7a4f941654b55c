// The web tier: the root loader (every translation) is not reloaded by a fetcher call, and
// WEB_CONCURRENCY=2 runs two processes behind one port that both show a translation edited over
// SQL on their next request.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { database, insertUser, launch, newPage, signIn } from './support/browser.ts';

const sql = database();
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await sql.end();
});

describe('the root loader', () => {
  test('a fetcher call on the dashboard reloads the page\'s data, not the root\'s translations', async () => {
    const password = 'E2e-pass-1234';
    const u = await insertUser(sql, { password });
    const page = await newPage(browser);
    await signIn(page, u.email, password);
    await page.waitForURL('**/dashboard');
    const dataRequests: URL[] = [];
    page.on('request', (r) => { const url = new URL(r.url()); if (url.pathname.endsWith('.data') && r.method() === 'GET') dataRequests.push(url); });
    // a crypto instrument: its market never closes (a closed market's note covers its list), so the test runs any day
    await page.getByRole('tab', { name: 'CRYPTO' }).click();
    await page.locator('li[data-symbol="BTC_USD"]').getByRole('button', { name: /^Add .* to favorites$/ }).click();
    await page.getByText('Added to favorites').waitFor();
    await expect.poll(() => dataRequests.length).toBeGreaterThan(0);
    for (const url of dataRequests) {
      // single fetch names the loaders it runs; without _routes it would run them all
      const routes = url.searchParams.get('_routes');
      expect(routes, url.href).toBeTruthy();
      expect(routes!.split(','), url.href).not.toContain('root');
      expect(routes!.split(','), url.href).toContain('routes/_client.dashboard');
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** The secrets the stack under test was started with: the environment's, else those `npm start` generated. */
function stackSecrets(): { ENGINE_SECRET: string; SECRETS_KEY: string } {
  const file = path.resolve(import.meta.dirname, '../.data/secrets.json');
  const stored = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  return { ENGINE_SECRET: process.env.ENGINE_SECRET ?? stored.ENGINE_SECRET, SECRETS_KEY: process.env.SECRETS_KEY ?? stored.SECRETS_KEY };
}

const childPids = (pid: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString().split('\n').map((l) => Number(l.trim())).filter(Boolean);

describe('WEB_CONCURRENCY=2', () => {
  let server: ChildProcess;
  let base: string;
  let started = 0;
  beforeAll(async () => {
    started = Date.now();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['server.mjs', 'build/server/index.js'], {
      cwd: path.resolve(import.meta.dirname, '../web'),
      // production refuses to start without the stack's secrets (the ones `npm start` keeps in .data/secrets.json)
      env: { ...process.env, ...stackSecrets(), WEB_CONCURRENCY: '2', PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
      stdio: 'ignore',
    });
    for (let i = 0; i < 200; i++) {
      if (await fetch(`${base}/`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the clustered web server did not answer');
  });
  afterAll(async () => {
    await sql`UPDATE translations SET value = 'Anmelden' WHERE language_code = 'de' AND key = 'Sign In'`;
    server?.kill('SIGTERM');
  });

  // a new connection each time: the cluster hands connections to its workers in turn
  const title = () => new Promise<string | undefined>((resolve, reject) => {
    http.get(`${base}/`, { agent: false, headers: { cookie: 'lang=de' } }, (res) => {
      let html = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { html += c; });
      res.on('end', () => resolve(/<h1 class="auth-title">([^<]*)<\/h1>/.exec(html)?.[1]));
    }).on('error', reject);
  });

  test('two processes serve the port, and each shows a translation edit on its next request', async () => {
    expect(childPids(server.pid!)).toHaveLength(2);
    for (let i = 0; i < 6; i++) expect(await title()).toBe('Anmelden'); // both have it cached
    await sql`UPDATE translations SET value = 'Einloggen' WHERE language_code = 'de' AND key = 'Sign In'`;
    const t0 = Date.now();
    let seen: (string | undefined)[] = [];
    while (Date.now() - t0 < 3000) {
      seen = [];
      for (let i = 0; i < 6; i++) seen.push(await title());
      if (seen.every((s) => s === 'Einloggen')) break;
    }
    expect(seen).toEqual(Array(6).fill('Einloggen'));
  });

  test('the sign-in page kept for visitors is never what a signed-in user gets', async () => {
    const password = 'E2e-pass-1234';
    const u = await insertUser(sql, { password });
    for (let i = 0; i < 4; i++) expect(await title()).toBe('Einloggen');
    const signedIn = await fetch(`${base}/?index`, {
      method: 'POST', redirect: 'manual',
      headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: u.email, password }),
    });
    expect(signedIn.status).toBe(302);
    const cookie = signedIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${base}/`, { redirect: 'manual', headers: { cookie: `lang=de; ${cookie}` } });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/dashboard');
    }
  });

  test('a worker that dies is replaced', async () => {
    // a worker dying within 5 s of its start stops the cluster (it would die again): wait past that
    await new Promise((r) => setTimeout(r, Math.max(0, 5500 - (Date.now() - started))));
    const [victim] = childPids(server.pid!);
    process.kill(victim, 'SIGKILL');
    await expect.poll(() => childPids(server.pid!).filter((p) => p !== victim).length, { timeout: 10_000 }).toBe(2);
    expect(await title()).toBe('Einloggen');
  });
});
