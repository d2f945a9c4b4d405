/**
 * A single-consumer async queue of stream parts. The producer never waits for the consumer
 * (model output is small next to memory); the consumer's `return()` (a `break` in `for
 * await`) cancels the producer, so an abandoned stream leaves no reader or upstream behind.
 */

/**
 * The consumer side of a part queue.
 *
 * @example
 * const queue = new PartQueue<string>(() => upstream.abort()); queue.push("a"); queue.close()
 * for await (const part of queue) console.log(part)
 */
export class PartQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  /** Pending `next()` calls, answered in the order they were made (as an async generator does). */
  private readonly waiters: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }[] = [];
  private ended = false;
  private failure: { readonly error: unknown } | undefined;
  private taken = false;
  /** True once the consumer stopped reading. */
  cancelled = false;

  constructor(private readonly onCancel: (reason: unknown) => void) {}

  /** Hand a part to the consumer (dropped after the end or a cancel). */
  push(item: T): void {
    if (this.ended || this.cancelled) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter.resolve({ value: item, done: false });
    else this.items.push(item);
  }

  /** No more parts. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
  }

  /** End with an error the consumer's `next()` rejects with, after the parts already queued. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = { error };
    this.ended = true;
    this.wake();
  }

  /** The end reached the waiting readers: the first sees a failure, every other one the end. */
  private wake(): void {
    if (this.items.length > 0) return;
    for (const waiter of this.waiters.splice(0)) {
      const failure = this.cancelled ? undefined : this.failure;
      this.failure = undefined;
      if (failure !== undefined) waiter.reject(failure.error);
      else waiter.resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.taken) throw new TypeError("this stream has already been read: a stream has one consumer");
    this.taken = true;
    return {
      next: () => {
        if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false });
        if (this.ended || this.cancelled) {
          if (this.failure !== undefined && !this.cancelled) {
            const { error } = this.failure;
            this.failure = undefined;
            return Promise.reject(error);
          }
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => void this.waiters.push({ resolve, reject }));
      },
      return: () => {
        if (!this.ended && !this.cancelled) {
          this.cancelled = true;
          this.items.length = 0;
          this.wake(); // a next() still waiting ends too
          this.onCancel(new Error("stream consumer stopped reading"));
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
