import type { Core } from '../core.ts';
import type { Hub } from '../realtime/hub.ts';
import { metric } from '../metrics.ts';

let last = { at: performance.now(), ticks: 0 };

export function metricsText(core: Core, hub?: Hub): string {
  const now = performance.now();
  const ticks = core.book.ticks;
  const rate = now - last.at > 0 ? ((ticks - last.ticks) * 1000) / (now - last.at) : 0;
  last = { at: now, ticks };
  return [
    metric('engine_ticks_total', 'counter', 'Ticks ingested', [[null, ticks]]),
    metric('engine_ticks_per_second', 'gauge', 'Ticks per second since the previous scrape', [[null, +rate.toFixed(2)]]),
    core.evalLatency.render('engine_risk_evaluation_microseconds', 'Risk evaluation time per tick'),
    metric('engine_open_positions', 'gauge', 'Open positions held by the risk evaluator', [[null, core.risk.openPositions]]),
    metric('engine_closes_total', 'counter', 'Closes settled by this process, by reason',
      Object.entries(core.closesByReason).map(([reason, n]) => [{ reason }, n])),
    metric('engine_close_failures_total', 'counter', 'Close attempts that failed and were retried', [[null, core.executor.failures]]),
    metric('engine_close_batches_total', 'counter', 'Batch close statements (engine_close_orders) run', [[null, core.executor.batches]]),
    metric('engine_close_batch_failures_total', 'counter', 'Batch close statements that failed and were closed one by one', [[null, core.executor.batchFailures]]),
    metric('engine_sse_clients', 'gauge', 'Connected SSE clients', [[null, hub?.clientCount ?? 0]]),
  ].join('\n') + '\n';
}
