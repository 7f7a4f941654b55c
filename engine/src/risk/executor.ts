// Settles the closes the evaluator asks for, a few at a time. A close that another process
// already made is simply forgotten; one that failed is handed back to the evaluator, whose
// triggers will fire again on a later tick.
import type { CloseRequest } from './evaluator.ts';
import type { Result } from '../orders/results.ts';

export interface ExecutorDeps {
  close(req: CloseRequest): Promise<Result<{ balanceAfter: string | null }>>;
  forget(positionId: number): void;   // someone else closed or deleted it
  release(positionId: number): void;  // failed: may fire again
}

export class CloseExecutor {
  private queue: CloseRequest[] = [];
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  closesByReason: Record<string, number> = {};
  failures = 0;

  constructor(private deps: ExecutorDeps, private concurrency = 8) {}

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

  private pump() {
    while (this.inFlight < this.concurrency && this.queue.length) {
      const req = this.queue.shift()!;
      this.inFlight++;
      this.run(req).finally(() => {
        this.inFlight--;
        this.pump();
        if (!this.pending) for (const w of this.waiters.splice(0)) w();
      });
    }
  }

  private async run(req: CloseRequest) {
    try {
      const r = await this.deps.close(req);
      if (r.ok) this.closesByReason[req.reason] = (this.closesByReason[req.reason] ?? 0) + 1;
      else if (r.code === 'already_closed' || r.code === 'not_found') this.deps.forget(req.positionId);
      else { this.failures++; setTimeout(() => this.deps.release(req.positionId), 1000); }
    } catch (e) {
      this.failures++;
      console.error('[risk] close failed', req, (e as Error).message);
      setTimeout(() => this.deps.release(req.positionId), 1000);
    }
  }
}
