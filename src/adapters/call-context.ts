/**
 * The context hooks add to one model or tool call of an adapter (AI SDK, LangChain, OpenAI
 * Agents) with `ctx.addContext(text)`, on its way into that very call, and still handed to the
 * caller's own `onContext`.
 */
import type { RunOptions } from "../core/context.ts";
import { AttemptContext } from "../agent/context-queue.ts";

const noTexts: readonly string[] = Object.freeze([]);

/**
 * Texts hooks added to one call. `forAttempt` is called as the provider is called: the texts
 * for that attempt, without what an earlier attempt's hooks added and added again (a `retry`
 * hook ran the call once more). Most calls get no context: what tracks attempts is made on the
 * first text. A class, not an object of arrows: one is made per call, and tsx's keepNames names
 * each arrow made.
 *
 * @example
 * const context = new CallContext(undefined)
 * await stack.run("modelCall", request, (req) => model.doGenerate(withContext(req, context.forAttempt())), { onContext: context.push })
 */
export class CallContext {
  declare private texts: (string | undefined)[] | undefined;
  declare private readonly also: RunOptions["onContext"];
  /** Made on the first text: what a hook adds is told apart by attempt relative to the attempts that follow it. */
  declare private attempts: AttemptContext | undefined;
  /** The `onContext` callback for the call's run options. */
  declare readonly push: (text: string, hook: string) => void;

  constructor(also: RunOptions["onContext"]) {
    this.texts = undefined;
    this.also = also;
    this.attempts = undefined;
    this.push = this.record.bind(this);
  }

  private record(text: string, hook: string): void {
    (this.attempts ??= new AttemptContext(this.add.bind(this))).push(text, hook);
  }

  private add(text: string, hook: string): () => void {
    const texts = (this.texts ??= []);
    const i = texts.push(text) - 1;
    this.also?.(text, hook);
    return () => void (texts[i] = undefined);
  }

  /** The texts for the attempt starting now (see `AttemptContext.next`). */
  forAttempt(): readonly string[] {
    const attempts = this.attempts;
    if (attempts === undefined) return noTexts;
    attempts.next();
    const texts = this.texts;
    return texts === undefined ? noTexts : texts.filter((t): t is string => t !== undefined);
  }

  /** The texts as they stand, without starting an attempt (after the post-phase: what `after` hooks added too). */
  current(): readonly string[] {
    const texts = this.texts;
    return texts === undefined || texts.length === 0 ? noTexts : texts.filter((t): t is string => t !== undefined);
  }
}
