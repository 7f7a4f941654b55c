// Child processes that die with us: started in their own process group so a stop
// reaches their children too (vite, remix-serve, bun --watch).
import { spawn, type ChildProcess } from 'node:child_process';

export interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
  /** The last lines it printed, kept even when quiet, to explain a failure. */
  recent: string[];
}

export function startChild(name: string, command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; quiet?: boolean }): Child {
  const proc = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (line: string) => `[${name}] ${line}`;
  const recent: string[] = [];
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) {
        if (!l.trim()) continue;
        recent.push(l);
        if (recent.length > 60) recent.shift();
        if (!opts.quiet) console.log(prefix(l));
      }
    });
  }
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { name, proc, exited, recent };
}

export async function stopChild(child: Child, graceMs = 5000) {
  if (child.proc.exitCode !== null || child.proc.pid === undefined) return;
  const group = -child.proc.pid;
  try { process.kill(group, 'SIGTERM'); } catch { return; }
  const timer = setTimeout(() => { try { process.kill(group, 'SIGKILL'); } catch { /* already gone */ } }, graceMs);
  await child.exited;
  clearTimeout(timer);
  // anything left in the group (a grandchild that ignored SIGTERM) goes too
  try { process.kill(group, 'SIGKILL'); } catch { /* nothing left */ }
}

export async function waitForHttp(url: string, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`process exited before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status < 500) return;
      last = `status ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${last})`);
}
