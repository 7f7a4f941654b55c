// Server Information (admin status page): CPU model, CPU usage out of 100 %, logical cores,
// memory usage out of 100 %, total memory in MB, for the machine the web process runs on.
import os from 'node:os';

export interface ServerInfo {
  cpuModel: string;
  /** busy share of all cores since the previous reading (or over a short sample), 0–100 */
  cpuUsage: number;
  cores: number;
  /** used share of physical memory (total − available), 0–100 */
  memoryUsage: number;
  totalMemoryMb: number;
  /** this process's resident memory (MB) and uptime (s) */
  processMemoryMb: number;
  uptimeSeconds: number;
}

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
/** readings older than this are not a fair "now": sample afresh */
const STALE_MS = 30_000;
let last: { at: number; times: CpuTimes } | null = null;

/** CPU usage between two readings; the first (or a stale) reading waits a short sample. */
export async function cpuUsage(now = Date.now()): Promise<number> {
  if (!last || now - last.at > STALE_MS) {
    last = { at: now, times: cpuTimes() };
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  const times = cpuTimes();
  const busy = times.busy - last.times.busy, total = times.total - last.times.total;
  last = { at: Date.now(), times };
  return total > 0 ? clampPercent((busy / total) * 100) : 0;
}

const clampPercent = (v: number) => Math.min(100, Math.max(0, v));

export async function serverInfo(): Promise<ServerInfo> {
  const cpus = os.cpus();
  const total = os.totalmem(), free = os.freemem();
  return {
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    cpuUsage: await cpuUsage(),
    cores: os.availableParallelism?.() ?? cpus.length,
    memoryUsage: clampPercent(((total - free) / total) * 100),
    totalMemoryMb: Math.round(total / (1024 * 1024)),
    processMemoryMb: Math.round(process.memoryUsage().rss / (1024 * 1024)),
    uptimeSeconds: Math.round(process.uptime()),
  };
}
