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
  [Symbol.asyncIterator](): AsyncIterator<T> {
    let reader: ReadableStreamDefaultReader<T> | undefined;
    let ended = false;
    // Read to its end, the stream is released; failed or left early, it is cancelled first.
    const end = async (cancel: boolean): Promise<void> => {
      if (ended) return;
      ended = true;
      if (cancel) await (reader ?? stream).cancel().catch(() => undefined);
      reader?.releaseLock();
    };
    return {
      async next() {
        if (ended) return { done: true, value: undefined };
        reader ??= stream.getReader();
        try {
          const r = await reader.read();
          if (!r.done) return r;
          await end(false);
          return { done: true, value: undefined };
        } catch (error) {
          await end(true);
          throw error;
        }
      },
      // Not a generator: leaving before the first read (a stream that arrived after the caller gave
      // up) cancels it too, and leaving while a read is pending does not wait for that read.
      async return() {
        await end(true);
        return { done: true, value: undefined };
      },
    };
  },
});
