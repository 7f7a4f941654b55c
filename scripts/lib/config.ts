// What `npm start` reads from the environment, checked before anything starts, and how a
// failure is told: every message names what failed and what to do about it.
import { inspect } from 'node:util';

export interface StartConfig { webPort: number; enginePort: number; embeddedPgPort: number }

export class StartConfigError extends Error {
  constructor(public problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const PORTS = [
  ['WEB_PORT', 3000],
  ['ENGINE_PORT', 4000],
  ['EMBEDDED_PG_PORT', 54329],
] as const;
const URLS = ['DATABASE_URL', 'REDIS_URL', 'ENGINE_URL', 'ENGINE_PUBLIC_URL', 'APP_URL'] as const;

/** The ports and URLs of the environment, or a StartConfigError listing every bad one. */
export function startConfig(env: Record<string, string | undefined>): StartConfig {
  const problems: string[] = [];
  const ports: Record<string, number> = {};
  for (const [name, fallback] of PORTS) {
    const raw = env[name]?.trim();
    if (!raw) { ports[name] = fallback; continue; }
    const n = Number(raw);
    if (/^\d+$/.test(raw) && n >= 1 && n <= 65535) ports[name] = n;
    else problems.push(`${name}=${JSON.stringify(env[name])} is not a port: set it to a whole number from 1 to 65535 (e.g. ${name}=${fallback}) or unset it for ${fallback}`);
  }
  const taken = new Map<number, string>();
  for (const [name] of PORTS) {
    const p = ports[name];
    if (p === undefined) continue;
    if (name === 'EMBEDDED_PG_PORT' && env.DATABASE_URL) continue; // not started then
    const other = taken.get(p);
    if (other) problems.push(`${name} and ${other} are both ${p}: give each its own port`);
    else taken.set(p, name);
  }
  for (const name of URLS) {
    const raw = env[name];
    if (!raw) continue;
    try { new URL(raw); } catch { problems.push(`${name}=${JSON.stringify(raw)} is not a URL: set it to a full address (e.g. ${example(name)}) or unset it`); }
  }
  if (problems.length) throw new StartConfigError(problems);
  return { webPort: ports.WEB_PORT, enginePort: ports.ENGINE_PORT, embeddedPgPort: ports.EMBEDDED_PG_PORT };
}

function example(name: string): string {
  return name === 'DATABASE_URL' ? 'postgres://user:pass@127.0.0.1:5432/broker'
    : name === 'REDIS_URL' ? 'redis://127.0.0.1:6379'
      : name.startsWith('ENGINE') ? 'http://127.0.0.1:4000' : 'https://broker.example';
}

/**
 * A failure as lines a person can act on: the message (never 'undefined'), the cause chain,
 * the stack for an unexpected error, and a hint for the usual causes.
 */
export function describeFailure(e: unknown): string {
  if (e instanceof StartConfigError) return `${e.message}\nNothing was started. Fix the variables above and run npm start again.`;
  const lines: string[] = [];
  let hint = 'Nothing is left running. Read the lines above for the failing step, fix it and run npm start again.';
  let cur: unknown = e;
  for (let depth = 0; (depth === 0 || cur !== undefined) && depth < 5; depth++) {
    const prefix = depth === 0 ? 'failed: ' : 'caused by: ';
    if (cur instanceof Error) {
      const code = (cur as NodeJS.ErrnoException).code;
      lines.push(prefix + (cur.message || cur.name || 'an error without a message') + (code ? ` (${code})` : ''));
      if (cur.stack) lines.push(...cur.stack.split('\n').slice(1, 6));
      if (code === 'EADDRINUSE') hint = 'A port is already in use: stop the program using it, or choose other ports with WEB_PORT, ENGINE_PORT or EMBEDDED_PG_PORT.';
      if (code === 'ECONNREFUSED') hint = 'A server did not accept the connection: check that DATABASE_URL / REDIS_URL point at running servers, or unset them to use the embedded ones.';
      cur = cur.cause;
    } else {
      lines.push(prefix + (cur === null || cur === undefined || cur === '' ? `an unexplained failure (${inspect(cur)} was thrown)` : typeof cur === 'string' ? cur : inspect(cur, { depth: 3 })));
      cur = undefined;
    }
  }
  return `${lines.join('\n')}\n${hint}`;
}
