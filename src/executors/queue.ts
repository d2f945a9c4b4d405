/**
 * A bounded queue for fire-and-forget hooks (E8): a slow endpoint or script can never pile up
 * unbounded work or memory. When the queue is full new jobs are dropped and counted; the
 * chain never waits for them (only `stack.flush()` does, through `ctx.waitUntil`).
 */

export interface BackgroundQueueOptions {
  /** Jobs waiting or running at most; more are dropped. Default 100. */
  readonly limit?: number;
  /** Jobs running at once. Default 4. */
  readonly concurrency?: number;
  /** Told about every dropped job. */
  readonly onDrop?: (label: string) => void;
}

/**
 * A bounded, concurrency-limited queue of background jobs with a drop count.
 *
 * @example
 * const queue = new BackgroundQueue({ limit: 10 })
 * const done = queue.push("audit", () => send(event)) // undefined when dropped
 * queue.dropped // how many jobs were refused so far
 */
export class BackgroundQueue {
  /** Jobs refused because the queue was full. */
  dropped = 0;
  /** Jobs that ran to completion (whatever their result). */
  completed = 0;
  readonly limit: number;
  readonly concurrency: number;
  private readonly onDrop: ((label: string) => void) | undefined;
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(options: BackgroundQueueOptions = {}) {
    this.limit = options.limit ?? 100;
    this.concurrency = options.concurrency ?? 4;
    this.onDrop = options.onDrop;
    if (!(Number.isInteger(this.limit) && this.limit > 0)) throw new RangeError("BackgroundQueue: limit must be a positive integer");
    if (!(Number.isInteger(this.concurrency) && this.concurrency > 0)) throw new RangeError("BackgroundQueue: concurrency must be a positive integer");
  }

  /** Jobs waiting or running. */
  get size(): number {
    return this.active + this.waiting.length;
  }

  /** Queue a job; returns a promise that settles when it finished (never rejects), or `undefined` if dropped. */
  push(label: string, job: () => Promise<unknown>): Promise<void> | undefined {
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
        Promise.resolve()
          .then(job)
          .catch(() => undefined) // jobs report their own failures; the queue only keeps order
          .finally(() => {
            this.active--;
            this.completed++;
            resolve();
            this.waiting.shift()?.();
            if (this.size === 0) for (const w of this.idleWaiters.splice(0)) w();
          });
      };
      if (this.active < this.concurrency) start();
      else this.waiting.push(start);
    });
  }

  /** Resolves when no job is waiting or running. */
  idle(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
