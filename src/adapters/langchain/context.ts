/**
 * Hook-added context (`ctx.addContext(text)`) of one model or tool call, for the attempt that
 * runs: a hook that adds again on a retry has its earlier text withdrawn (`AttemptContext`).
 */
import type { RunOptions } from "../../core/context.ts";
import { AttemptContext } from "../../agent/context-queue.ts";

const none: readonly string[] = Object.freeze([]);

/**
 * The context texts of one call, and the caller's own `onContext`, which hears each text too.
 *
 * @example
 * const context = new CallContext(undefined)
 * await stack.run("toolCall", call, (c) => { const texts = context.forAttempt(); ... }, { onContext: context.push })
 */
export class CallContext {
  declare private readonly texts: (string | undefined)[];
  declare private readonly also: RunOptions["onContext"];
  declare private readonly attempts: AttemptContext;

  constructor(also: RunOptions["onContext"]) {
    this.texts = [];
    this.also = also;
    this.attempts = new AttemptContext(this.add.bind(this));
  }

  /** The `onContext` callback for the call's run options. */
  get push(): (text: string, hook: string) => void {
    return this.attempts.push;
  }

  private add(text: string, hook: string): () => void {
    const texts = this.texts;
    const i = texts.push(text) - 1;
    this.also?.(text, hook);
    return () => void (texts[i] = undefined);
  }

  /** Call as the operation starts: the texts for this attempt. */
  forAttempt(): readonly string[] {
    this.attempts.next();
    return this.current();
  }

  /** The texts as they stand (after the post-phase: what `after` hooks added too). */
  current(): readonly string[] {
    return this.texts.length === 0 ? none : this.texts.filter((t): t is string => t !== undefined);
  }
}
