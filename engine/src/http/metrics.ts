import type { Core } from '../core.ts';
import type { Hub } from '../realtime/hub.ts';
import type { Gateway } from '../realtime/gateway.ts';
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
    // pending orders (docs/specs.md#pending-orders)
    metric('engine_pending_orders', 'gauge', 'Pending orders held by the pending index', [[null, core.pending.size]]),
    metric('engine_pending_ends_total', 'counter', 'Pending orders this process filled, cancelled at activation or expired',
      Object.entries(core.pendingCounts).map(([outcome, n]) => [{ outcome }, n])),
    metric('engine_pending_activation_batches_total', 'counter', 'Activation statements (engine_activate_pendings) run', [[null, core.activator.batches]]),
    metric('engine_pending_activation_failures_total', 'counter', 'Activation statements that failed (retried one by one)', [[null, core.activator.failures]]),
    metric('engine_replay_activations_total', 'counter', 'Pending activations a replayed tick asked for', [[null, core.failover.replayActivations]]),
    // failover (partitions.ts): the partitions this process owns, and its takeovers
    metric('engine_partition_owned', 'gauge', 'Balance partitions this process owns (1) or is replaying into (0.5)',
      [...core.owned].sort((a, b) => a - b).map((p) => [{ partition: String(p), owner: core.ownerName }, core.replaying().includes(p) ? 0.5 : 1])),
    metric('engine_partition_takeovers_total', 'counter', 'Partitions this process took over', [[null, core.failover.takeovers]]),
    metric('engine_partition_releases_total', 'counter', 'Partitions this process gave up', [[null, core.failover.releases]]),
    metric('engine_replayed_ticks_total', 'counter', 'Missed ticks replayed after a takeover', [[null, core.failover.replayedTicks]]),
    metric('engine_replay_closes_total', 'counter', 'Closes a replayed tick asked for', [[null, core.failover.replayCloses]]),
    metric('engine_trail_writes_total', 'counter', 'Trailing stops written by the throttled flush (rows)', [[null, core.trails.writes]]),
    metric('engine_trail_statements_total', 'counter', 'Trailing-stop flush statements run', [[null, core.trails.statements]]),
    metric('engine_last_takeover_milliseconds', 'gauge', 'Time of the last takeover (rebuild and replay)', [[null, core.failover.lastTakeoverMs]]),
    metric('engine_close_batches_total', 'counter', 'Batch close statements (engine_close_orders) run', [[null, core.executor.batches]]),
    metric('engine_close_batch_failures_total', 'counter', 'Batch close statements that failed and were closed one by one', [[null, core.executor.batchFailures]]),
    metric('engine_sse_clients', 'gauge', 'Connected SSE clients', [[null, hub?.clientCount ?? 0]]),
  ].join('\n') + '\n';
}

export function gatewayMetricsText(g: Gateway): string {
  return [
    metric('engine_ticks_total', 'counter', 'Ticks received from the bus', [[null, g.ticks]]),
    metric('engine_sse_clients', 'gauge', 'Connected SSE clients', [[null, g.hub.clientCount]]),
    metric('engine_sse_messages_total', 'counter', 'SSE messages sent', [[null, g.hub.messagesSent]]),
    metric('engine_sse_rounds_skipped_total', 'counter', 'Price rounds skipped for a client whose buffer was full', [[null, g.hub.roundsSkipped]]),
  ].join('\n') + '\n';
}
