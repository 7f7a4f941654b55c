// The admin's Server Information page (docs/specs.md: CPU model, CPU usage out of 100 %, logical
// cores, memory usage out of 100 %, total memory in MB) for the process that calls it: the web
// process reads its own, the engine answers GET /v1/server (x-engine-secret) with its own. CPU
// usage is measured between two readings (the first, or one after a long pause, waits a short sample).
import os from 'node:os';

interface CpuTimes { busy: number; total: number }
function cpuTimes(): CpuTimes {
  let busy = 0, total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}

const SAMPLE_MS = 200;
const STALE_MS = 30_000;
const clamp = (v: number) => Math.min(100, Math.max(0, v));
let last: { at: number; times: CpuTimes; proc: NodeJS.CpuUsage } | null = null;

export interface ServerInfo {
  cpuModel: string; cpuUsage: number; cores: number; memoryUsage: number; totalMemoryMb: number;
  /** this process: its CPU share of the machine (0–100) and resident memory */
  processCpu: number; processMemoryMb: number; uptimeSeconds: number;
}

export async function serverInfo(): Promise<ServerInfo> {
  const now = Date.now();
  if (!last || now - last.at > STALE_MS) {
    last = { at: now, times: cpuTimes(), proc: process.cpuUsage() };
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  const times = cpuTimes();
  const proc = process.cpuUsage();
  const busy = times.busy - last.times.busy, total = times.total - last.times.total;
  const wall = Math.max(1, Date.now() - last.at) * 1000; // µs
  const cpus = os.cpus();
  const cores = os.availableParallelism?.() ?? cpus.length;
  const procUs = (proc.user - last.proc.user) + (proc.system - last.proc.system);
  last = { at: Date.now(), times, proc };
  const mem = os.totalmem(), free = os.freemem();
  return {
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    cpuUsage: total > 0 ? clamp((busy / total) * 100) : 0,
    cores,
    memoryUsage: clamp(((mem - free) / mem) * 100),
    totalMemoryMb: Math.round(mem / (1024 * 1024)),
    processCpu: clamp((procUs / wall / Math.max(1, cores)) * 100),
    processMemoryMb: Math.round(process.memoryUsage().rss / (1024 * 1024)),
    uptimeSeconds: Math.round(process.uptime()),
  };
}

/** The machine's CPU usage now (0–100), as serverInfo measures it. */
export async function cpuUsage(): Promise<number> {
  return (await serverInfo()).cpuUsage;
}
