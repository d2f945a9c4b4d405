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
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private ended = false;
  private failure: { readonly error: unknown } | undefined;
  private taken = false;
  /** True once the consumer stopped reading. */
  cancelled = false;

  constructor(private readonly onCancel: (reason: unknown) => void) {}

  /** Hand a part to the consumer (dropped after the end or a cancel). */
  push(item: T): void {
    if (this.ended || this.cancelled) return;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter.resolve({ value: item, done: false });
    } else this.items.push(item);
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

  private wake(): void {
    const waiter = this.waiter;
    if (waiter === undefined || this.items.length > 0) return;
    this.waiter = undefined;
    if (this.failure !== undefined) waiter.reject(this.failure.error);
    else waiter.resolve({ value: undefined, done: true });
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
        return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
      },
      return: () => {
        if (!this.ended && !this.cancelled) {
          this.cancelled = true;
          this.items.length = 0;
          this.onCancel(new Error("stream consumer stopped reading"));
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
