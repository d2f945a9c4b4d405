/**
 * An input built only when something reads it. An adapter that maps a framework's call into a
 * point's input (the AI SDK's call options into a `ModelRequest`) pays for the mapping, and for
 * freezing it (R9), on every call; a chain of `around` hooks that only call `next()` never reads
 * it. Given one, `stack.run` builds it at once unless the chain it runs is such a chain (see
 * `Chain.defers`); there, a hook reading `ctx.input` builds it, and the operation gets this object
 * as its input when no hook passed `next()` one of its own. Internal: only adapters make them.
 */
export abstract class DeferredInput<T = unknown> {
  declare private built: boolean;
  declare private made: T | undefined;
  /** What the point's subject function gives for the input, without building it. */
  declare readonly subject: string | undefined;

  constructor(subject: string | undefined) {
    this.built = false;
    this.made = undefined;
    this.subject = subject;
  }

  /** Build the input, frozen all the way down when the stack freezes what hooks see: called once. */
  protected abstract make(): T;

  /** The input, built on the first read. */
  get value(): T {
    if (!this.built) {
      this.made = this.make();
      this.built = true;
    }
    return this.made as T;
  }

  /** Whether anyone has read the input yet. */
  get read(): boolean {
    return this.built;
  }
}

/** `input` itself, or the value of a deferred one. */
export const resolved = (input: unknown): unknown => (input instanceof DeferredInput ? input.value : input);
