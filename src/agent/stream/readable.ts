/**
 * Bridges between async iterables and web `ReadableStream`s, for adapters whose host speaks
 * streams (the AI SDK's `wrapStream` returns a `ReadableStream`).
 */

/**
 * A `ReadableStream` reading from an async iterable; cancelling the stream returns the iterator,
 * and `onCancel` hears the reason (an iterator's `return()` carries none).
 *
 * @example
 * const call = streamThroughStack(stack, request, start)
 * const readable = toReadableStream(call.parts, (reason) => call.cancel(reason))
 */
export const toReadableStream = <T>(iterable: AsyncIterable<T>, onCancel?: (reason: unknown) => void): ReadableStream<T> => {
  let iterator: AsyncIterator<T> | undefined;
  return new ReadableStream<T>({
    async pull(controller) {
      iterator ??= iterable[Symbol.asyncIterator]();
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel(reason) {
      onCancel?.(reason);
      iterator ??= iterable[Symbol.asyncIterator]();
      await iterator.return?.();
    },
  });
};

/**
 * An async iterable reading a `ReadableStream`; leaving the loop early cancels the stream.
 *
 * @example
 * for await (const part of fromReadableStream(result.stream)) console.log(part)
 */
export const fromReadableStream = <T>(stream: ReadableStream<T>): AsyncIterable<T> => ({
  async *[Symbol.asyncIterator]() {
    const reader = stream.getReader();
    let finished = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          finished = true;
          return;
        }
        yield value;
      }
    } finally {
      if (!finished) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  },
});
