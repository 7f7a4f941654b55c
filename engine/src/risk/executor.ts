// Settles the closes the evaluator asks for. A close that another process already made is
// simply forgotten; one that failed is handed back to the evaluator, whose triggers will fire
// again on a later tick.
//
// Mass closes (a flash crash crosses thousands of levels on one tick): when the deps can close
// many orders in one statement (closeMany, engine_close_orders), whatever is queued goes in
// batches of at most `batchSize`, grouped by balance (a balance's closes stay in the order they
// were asked for and, as far as the size allows, in one batch, so concurrent batches seldom
// wait on each other's balance locks — and never deadlock: each locks its balances in id
// order). A batch whose statement fails changed nothing; it is then closed one by one, so one
// bad order cannot hold up the others.
import type { CloseRequest } from './evaluator.ts';
import type { Result } from '../orders/results.ts';

type CloseResult = Result<{ balanceAfter: string | null }>;

export interface ExecutorDeps {
  close(req: CloseRequest): Promise<CloseResult>;
  /** many closes at once, one answer per request in order; throws when nothing was closed */
  closeMany?(reqs: CloseRequest[]): Promise<CloseResult[]>;
  forget(positionId: number): void;   // someone else closed or deleted it
  release(positionId: number): void;  // failed: may fire again
}

export interface ExecutorOptions {
  /** single closes running at once (also the one-by-one fallback of a failed batch) */
  concurrency?: number;
  /** at most this many closes per batch statement; 1: every close its own statement */
  batchSize?: number;
  /** batch statements running at once */
  batchConcurrency?: number;
}

export class CloseExecutor {
  private queue: CloseRequest[] = [];
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  closesByReason: Record<string, number> = {};
  failures = 0;
  /** batch statements run, and those that failed and were retried one by one */
  batches = 0;
  batchFailures = 0;
  readonly concurrency: number;
  readonly batchSize: number;
  readonly batchConcurrency: number;

  constructor(private deps: ExecutorDeps, opts: ExecutorOptions | number = {}) {
    const o = typeof opts === 'number' ? { concurrency: opts } : opts;
    this.concurrency = o.concurrency ?? 8;
    this.batchSize = Math.max(1, o.batchSize ?? 1000);
    this.batchConcurrency = Math.max(1, o.batchConcurrency ?? 2);
  }

  submit(reqs: CloseRequest[]) {
    if (!reqs.length) return;
    this.queue.push(...reqs);
    this.pump();
  }

  get pending() { return this.queue.length + this.inFlight; }

  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  private get batching() { return this.deps.closeMany !== undefined && this.batchSize > 1; }

  private pump() {
    if (this.batching && this.queue.length > 1) {
      // a balance's requests side by side, in the order they came (a stable sort)
      this.queue.sort((a, b) => a.accountId - b.accountId);
    }
    while (this.queue.length) {
      if (this.batching && this.queue.length > 1) {
        if (this.inFlight >= this.batchConcurrency) return;
        this.start(this.runBatch(this.takeBatch()));
      } else {
        if (this.inFlight >= this.concurrency) return;
        this.start(this.run(this.queue.shift()!));
      }
    }
  }

  /** Up to batchSize from the head of the queue, not splitting a balance unless it alone is larger. */
  private takeBatch(): CloseRequest[] {
    let n = Math.min(this.batchSize, this.queue.length);
    if (n < this.queue.length) {
      const cut = this.queue[n].accountId;
      let m = n;
      while (m > 0 && this.queue[m - 1].accountId === cut) m--;
      if (m > 0) n = m;
    }
    return this.queue.splice(0, n);
  }

  private start(p: Promise<void>) {
    this.inFlight++;
    p.finally(() => {
      this.inFlight--;
      this.pump();
      if (!this.pending) for (const w of this.waiters.splice(0)) w();
    });
  }

  private settle(req: CloseRequest, r: CloseResult) {
    if (r.ok) this.closesByReason[req.reason] = (this.closesByReason[req.reason] ?? 0) + 1;
    else if (r.code === 'already_closed' || r.code === 'not_found') this.deps.forget(req.positionId);
    else { this.failures++; setTimeout(() => this.deps.release(req.positionId), 1000); }
  }

  private fail(req: CloseRequest, e: unknown) {
    this.failures++;
    console.error('[risk] close failed', req, (e as Error).message);
    setTimeout(() => this.deps.release(req.positionId), 1000);
  }

  private async run(req: CloseRequest) {
    try {
      this.settle(req, await this.deps.close(req));
    } catch (e) {
      this.fail(req, e);
    }
  }

  private async runBatch(reqs: CloseRequest[]) {
    this.batches++;
    let results: CloseResult[];
    try {
      results = await this.deps.closeMany!(reqs);
    } catch (e) {
      // nothing of the batch was written: close its orders one by one, so a bad one fails alone
      this.batchFailures++;
      console.error(`[risk] batch of ${reqs.length} closes failed, closing one by one:`, (e as Error).message);
      let next = 0;
      const worker = async () => { while (next < reqs.length) await this.run(reqs[next++]); };
      await Promise.all(Array.from({ length: Math.min(this.concurrency, reqs.length) }, worker));
      return;
    }
    reqs.forEach((req, i) => this.settle(req, results[i]));
  }
}
