/**
 * A bounded queue for fire-and-forget hooks (E8): a slow endpoint or script can never pile up
 * unbounded work or memory. When the queue is full new jobs are dropped and counted; the
 * chain never waits for them (only `stack.flush()` does, through `ctx.waitUntil`).
 */
import { noop } from "../core/signal.ts";

/** Options of a `BackgroundQueue`: how many jobs it holds and runs at once. */
export interface BackgroundQueueOptions {
  /** Jobs waiting or running at most; more are dropped. Default 100. */
  readonly limit?: number;
  /** Jobs running at once. Default 4. */
  readonly concurrency?: number;
  /** Told about every dropped job. */
  readonly onDrop?: (label: string) => void;
}

/**
 * A bounded, concurrency-limited queue of background jobs with a drop count. `cancel()` is the
 * shutdown: running jobs see their signal abort, waiting ones never start (C4).
 *
 * @example
 * const queue = new BackgroundQueue({ limit: 10 })
 * const done = queue.push("audit", (signal) => send(event, { signal })) // undefined when dropped
 * queue.dropped // how many jobs were refused so far
 * await queue.cancel() // at shutdown: abort what runs, skip what waits
 */
export class BackgroundQueue {
  /** Jobs refused because the queue was full. */
  dropped = 0;
  /** Jobs that ran to completion (whatever their result). */
  completed = 0;
  /** Jobs cancelled by `cancel()`: waiting ones that never started, and running ones told to stop. */
  cancelled = 0;
  readonly limit: number;
  readonly concurrency: number;
  private readonly onDrop: ((label: string) => void) | undefined;
  private readonly waiting: { start: () => void; skip: () => void }[] = [];
  /** Each running job's controller, and a promise of its end. */
  private readonly running = new Map<AbortController, Promise<void>>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(options: BackgroundQueueOptions = {}) {
    this.limit = options.limit ?? 100;
    this.concurrency = options.concurrency ?? 4;
    this.onDrop = options.onDrop;
    if (!(Number.isInteger(this.limit) && this.limit > 0)) throw new RangeError("BackgroundQueue: limit must be a positive integer");
    if (!(Number.isInteger(this.concurrency) && this.concurrency > 0))
      throw new RangeError("BackgroundQueue: concurrency must be a positive integer");
  }

  /** Jobs waiting or running. */
  get size(): number {
    return this.active + this.waiting.length;
  }

  /**
   * Queue a job; returns a promise that settles when it finished or was cancelled (never
   * rejects), or `undefined` if dropped. The job gets a signal that `cancel()` aborts. A job that
   * is not a function is the caller's mistake: it throws here rather than "completing" later.
   */
  push(label: string, job: (signal: AbortSignal) => Promise<unknown>): Promise<void> | undefined {
    if (typeof job !== "function")
      throw new TypeError(
        `BackgroundQueue.push(${JSON.stringify(String(label))}): the job must be a function, got ${job === null ? "null" : typeof job}`,
      );
    if (this.size >= this.limit) {
      this.dropped++;
      try {
        this.onDrop?.(label);
      } catch {
        // a throwing drop listener must not break the caller
      }
      return undefined;
    }
    return new Promise<void>((resolve) => {
      const start = (): void => {
        this.active++;
        const controller = new AbortController();
        const ended: Promise<void> = Promise.resolve()
          .then(() => job(controller.signal))
          .then(noop, noop) // jobs report their own failures; the queue only keeps order
          .finally(() => {
            this.running.delete(controller);
            this.active--;
            if (controller.signal.aborted) this.cancelled++;
            else this.completed++;
            resolve();
            this.waiting.shift()?.start();
            this.settleIdle();
          });
        this.running.set(controller, ended);
      };
      const skip = (): void => {
        this.cancelled++;
        resolve();
      };
      if (this.active < this.concurrency) start();
      else this.waiting.push({ start, skip });
    });
  }

  /**
   * Cancel everything: drop each waiting job, abort the signal of each running one, and resolve
   * once those have stopped. Jobs pushed afterwards (even from an abort listener) run as usual.
   */
  cancel(reason: unknown = new Error("background queue cancelled")): Promise<void> {
    const stopping = [...this.running];
    for (const waiting of this.waiting.splice(0)) waiting.skip();
    for (const [controller] of stopping) controller.abort(reason);
    this.settleIdle();
    return Promise.all(stopping.map(([, ended]) => ended)).then(() => undefined);
  }

  private settleIdle(): void {
    if (this.size === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves when no job is waiting or running. */
  idle(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
