// `npm test`: every suite against a fresh database built from the migrations, then one
// closing line `N passed, N failed` that sums them all. Exits non-zero on any failure.
//
//   npm test                 all suites
//   npm test -- engine web   only those suites (types, engine, web, e2e)
//   E2E_VERBOSE=1 npm test   also print the e2e stack's output
//   TEST_FILTER=trading npm test -- web e2e   only the test files whose path contains 'trading'
//
// With DATABASE_URL set, its server hosts the throw-away test databases; without it an
// embedded PostgreSQL is started in a temporary folder and removed afterwards.
import { spawn } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, stopChild, waitForHttp } from './lib/processes.ts';
import {
  repoRoot, startEmbeddedPostgres, createDatabase, dropDatabase, withDatabase, migrate, freePort, type PostgresServer,
} from './lib/postgres.ts';

interface Counts { passed: number; failed: number; skipped: number }
interface Suite { name: string; run: (env: NodeJS.ProcessEnv, out: string, ctx: { adminUrl: string; dbName: string }) => Promise<Counts> }

const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);
/** File filters handed to every runner (bun test and vitest take path substrings). */
const fileFilter = process.env.TEST_FILTER ? process.env.TEST_FILTER.split(',') : [];

/** Where a suite run beside others writes its runners' output: printed whole when it ends. */
const outputOf = new AsyncLocalStorage<string[]>();

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): Promise<number> {
  const sink = outputOf.getStore();
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env, stdio: sink ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (sink) for (const s of [p.stdout!, p.stderr!]) s.on('data', (d: Buffer) => sink.push(d.toString()));
    p.on('close', (code) => resolve(code ?? 1));
  });
}

/** Counts from a JUnit XML report (bun test). */
function junitCounts(file: string): Counts | undefined {
  if (!existsSync(file)) return undefined;
  const xml = readFileSync(file, 'utf8');
  const tag = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? '';
  const attr = (n: string) => Number(new RegExp(`\\b${n}="(\\d+)"`).exec(tag)?.[1] ?? 0);
  const tests = attr('tests'), failures = attr('failures') + attr('errors'), skipped = attr('skipped');
  return { passed: tests - failures - skipped, failed: failures, skipped };
}

/** Counts from a vitest JSON report. */
function vitestCounts(file: string): Counts | undefined {
  if (!existsSync(file)) return undefined;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return { passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0), skipped: r.numPendingTests + (r.numTodoTests ?? 0) };
}

/** The slowest files of a vitest JSON report, one line: where a suite's time goes. */
function slowestFiles(file: string, n = 8): string | undefined {
  if (!existsSync(file)) return undefined;
  const r = JSON.parse(readFileSync(file, 'utf8')) as { testResults?: { name: string; startTime: number; endTime: number }[] };
  const files = (r.testResults ?? []).map((t) => ({ name: path.relative(repoRoot, t.name), s: (t.endTime - t.startTime) / 1000 }));
  if (!files.length) return undefined;
  return files.sort((a, b) => b.s - a.s).slice(0, n).map((f) => `${f.name} ${f.s.toFixed(0)} s`).join(', ');
}

const crashed: Counts = { passed: 0, failed: 1, skipped: 0 };

const suites: Suite[] = [
  {
    // the TypeScript of both workspaces: one check, passed or failed
    name: 'types',
    async run(env) {
      const engine = await run(bin('tsc'), ['-p', 'engine', '--noEmit'], env);
      const web = await run(bin('tsc'), ['-p', 'web', '--noEmit'], env);
      return { passed: Number(engine === 0) + Number(web === 0), failed: Number(engine !== 0) + Number(web !== 0), skipped: 0 };
    },
  },
  {
    // ESLint over the whole tree (eslint.config.js), and the web app's direction of dependency
    // (web/.dependency-cruiser.mjs, from docs/architecture.md#layers-of-the-web-app): two checks
    name: 'lint',
    async run(env) {
      const [eslint, layers] = await Promise.all([
        run(bin('eslint'), ['.'], env),
        run(bin('depcruise'), ['app', '--config', '.dependency-cruiser.mjs', '--output-type', 'err'], env, path.join(repoRoot, 'web')),
      ]);
      return { passed: Number(eslint === 0) + Number(layers === 0), failed: Number(eslint !== 0) + Number(layers !== 0), skipped: 0 };
    },
  },
  {
    name: 'engine',
    async run(env, out) {
      const report = path.join(out, 'engine.xml');
      // --timeout: bunfig.toml's 20 s, which bun test does not take from there (a loaded machine
      // took the risk evaluator's random-ticks scan past bun's default 5 s)
      const code = await run(bin('bun'), ['test', '--timeout=20000', '--reporter=junit', `--reporter-outfile=${report}`, ...fileFilter], env);
      const counts = junitCounts(report) ?? crashed;
      if (code !== 0 && counts.failed === 0) counts.failed = 1; // a crash outside any test
      return counts;
    },
  },
  {
    name: 'web',
    // Files named *.serial.test.ts change site-wide settings (a KYC switch, the four-eyes
    // threshold) that other files read: they run after the others, one at a time (vite.config.ts).
    async run(env, out) {
      const total: Counts = { passed: 0, failed: 0, skipped: 0 };
      for (const serial of [false, true]) {
        const report = path.join(out, serial ? 'web-serial.json' : 'web.json');
        const code = await run(bin('vitest'), ['run', '--passWithNoTests', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...fileFilter],
          { ...env, VITEST_SERIAL: serial ? '1' : '' }, path.join(repoRoot, 'web'));
        const counts = vitestCounts(report) ?? crashed;
        if (code !== 0 && counts.failed === 0) counts.failed = 1;
        const slow = slowestFiles(report);
        if (slow) console.log(`[test] slowest web${serial ? ' (serial)' : ''} files: ${slow}`);
        total.passed += counts.passed; total.failed += counts.failed; total.skipped += counts.skipped;
      }
      return total;
    },
  },
  {
    // The stack started exactly as `npm start` starts it (production build, demo data on
    // its first start) on a database of its own, then vitest + playwright-core against it.
    name: 'e2e',
    async run(env, out, { adminUrl, dbName }) {
      const name = `${dbName}_e2e`;
      await createDatabase(adminUrl, name, { dropFirst: true });
      const [webPort, enginePort] = [await freePort(), await freePort()];
      const stackEnv = {
        ...env,
        DATABASE_URL: withDatabase(adminUrl, name),
        WEB_PORT: String(webPort),
        ENGINE_PORT: String(enginePort),
        ENGINE_URL: `http://127.0.0.1:${enginePort}`,
        ENGINE_TEST_CONTROLS: '1',
        // payment providers answered by the mocks of web/test/mocks/payments.ts (e2e/card-deposits.test.ts)
        MOCKS: '1',
      };
      const stack = startChild('stack', process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: repoRoot, env: stackEnv, quiet: !process.env.E2E_VERBOSE });
      try {
        const alive = () => stack.proc.exitCode === null;
        await waitForHttp(`http://127.0.0.1:${enginePort}/v1/health`, 240_000, alive);
        await waitForHttp(`http://127.0.0.1:${webPort}/`, 240_000, alive);
        const report = path.join(out, 'e2e.json');
        const code = await run(bin('vitest'), ['run', '--config', 'e2e/vitest.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...fileFilter], {
          ...stackEnv,
          E2E_BASE_URL: `http://127.0.0.1:${webPort}`,
          E2E_ENGINE_URL: `http://127.0.0.1:${enginePort}`,
          // the demo users' sessions, signed in once per run (e2e/support/browser.ts)
          E2E_SESSION_DIR: path.join(out, 'e2e-sessions'),
        });
        const counts = vitestCounts(report) ?? crashed;
        if (code !== 0 && counts.failed === 0) counts.failed = 1;
        const slow = slowestFiles(report);
        if (slow) console.log(`[test] slowest e2e files: ${slow}`);
        return counts;
      } catch (e) {
        console.error(`[test] e2e stack did not come up: ${(e as Error).message}; its last output:`);
        for (const line of stack.recent) console.error(`  [stack] ${line}`);
        return crashed;
      } finally {
        await stopChild(stack, 15_000);
        await dropDatabase(adminUrl, name).catch(() => {});
      }
    },
  },
];

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const chosen = wanted.length ? suites.filter((s) => wanted.includes(s.name)) : suites;
  const out = mkdtempSync(path.join(os.tmpdir(), 'broker-test-'));

  let server: PostgresServer | undefined;
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = withDatabase(process.env.DATABASE_URL, 'postgres');
    console.log(`[test] using the PostgreSQL server of DATABASE_URL`);
  } else {
    const port = await freePort();
    console.log(`[test] starting an embedded PostgreSQL on 127.0.0.1:${port}`);
    server = await startEmbeddedPostgres({ dataDir: path.join(out, 'pg'), port, persistent: false, fast: true });
    adminUrl = server.adminUrl;
  }

  const dbName = `broker_test_${process.pid}_${Date.now().toString(36)}`;
  await createDatabase(adminUrl, dbName, { dropFirst: true });
  const testUrl = withDatabase(adminUrl, dbName);
  await migrate(testUrl);
  console.log(`[test] fresh database ${dbName} migrated`);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: testUrl,
    TEST_DATABASE_URL: testUrl,
    TEST_ADMIN_DATABASE_URL: adminUrl,
  };

  const total: Counts = { passed: 0, failed: 0, skipped: 0 };
  const lines: string[] = [];
  const counted = (name: string, c: Counts, ms: number) => {
    total.passed += c.passed; total.failed += c.failed; total.skipped += c.skipped;
    lines.push(`  ${name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''} (${Math.round(ms / 1000)} s)`);
  };
  try {
    // types and lint (one process each, CPU) run beside the engine's tests (mostly waiting on
    // processes, PostgreSQL and Redis); their output is printed whole as each ends. The web
    // tests (a fork per core) and e2e (the stack and Chromium) each have the machine to themselves.
    const beside = chosen.filter((s) => s.name === 'types' || s.name === 'lint');
    const first = beside.length && chosen.some((s) => s.name === 'engine') ? [...beside, chosen.find((s) => s.name === 'engine')!] : [];
    if (first.length) {
      console.log(`\n[test] ── ${first.map((s) => s.name).join(' + ')} (side by side) ──`);
      const results = await Promise.all(first.map(async (suite) => {
        const t0 = Date.now();
        const buf: string[] = [];
        const c = await outputOf.run(buf, () => suite.run(env, out, { adminUrl, dbName }));
        console.log(`\n[test] ── ${suite.name} (done in ${Math.round((Date.now() - t0) / 1000)} s) ──\n${buf.join('').trimEnd()}`);
        return { suite, c, ms: Date.now() - t0 };
      }));
      for (const r of results) counted(r.suite.name, r.c, r.ms);
    }
    for (const suite of chosen.filter((s) => !first.includes(s))) {
      console.log(`\n[test] ── ${suite.name} ──`);
      const t0 = Date.now();
      const c = await suite.run(env, out, { adminUrl, dbName });
      counted(suite.name, c, Date.now() - t0);
    }
  } finally {
    await dropDatabase(adminUrl, dbName).catch((e) => console.error(`[test] could not drop ${dbName}: ${e.message}`));
    await server?.stop().catch(() => {});
    rmSync(out, { recursive: true, force: true });
  }

  console.log(`\n[test] summary\n${lines.join('\n')}`);
  console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
  process.exit(total.failed > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
