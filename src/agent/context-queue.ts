/**
 * Hook-added context on its way to the model. Hooks call `ctx.addContext(text)` on any point;
 * the stack hands the text to `RunOptions.onContext` in hook order; the loop appends what has
 * gathered, in arrival order, to the conversation when it builds the next model request.
 */
import type { Message } from "./types.ts";

/**
 * The context hooks add during one call (a model or tool call, every attempt of it). When the
 * operation runs again (a `retry` hook called `next()` once more, or the `error` point asked for a
 * retry), a hook that added context for the earlier attempt and adds again for this one has its
 * earlier text withdrawn: the model reads each hook's text once, as the hook gave it for the
 * attempt that answered (which may differ from the last, e.g. "attempt 2 of 3"). Text a hook added
 * only once (from outside the retry, or on the first attempt only) stays.
 *
 * @example
 * const context = new AttemptContext((text) => { const box = { text }; boxes.push(box); return () => boxes.splice(boxes.indexOf(box), 1) })
 * await stack.run("modelCall", request, (req) => { context.next(); return model.generate(req, {}) }, { onContext: context.push })
 */
export class AttemptContext {
  private entries: { readonly hook: string; readonly attempt: number; readonly withdraw: () => void }[] = [];
  /** How many times the operation started (or the call began again): what was added since is this attempt's. */
  private attempt = 0;

  /** `add` delivers a text and returns how to take it back. */
  constructor(private readonly add: (text: string, hook: string) => () => void) {}

  /** The `onContext` callback for the call's run options. */
  readonly push = (text: string, hook: string): void => {
    this.entries.push({ hook, attempt: this.attempt, withdraw: this.add(text, hook) });
  };

  /** Call as the operation starts, and before the whole call runs again. */
  next(): void {
    const current = this.attempt++;
    if (this.entries.length === 0) return; // the usual case: no hook added context
    // Hooks that added since the last start ran again: what they added before that is stale.
    const again = new Set(this.entries.filter((e) => e.attempt === current).map((e) => e.hook));
    if (again.size === 0) return;
    this.entries = this.entries.filter((e) => {
      const stale = e.attempt < current && again.has(e.hook);
      if (stale) e.withdraw();
      return !stale;
    });
  }
}

/**
 * Context texts waiting for the next model request.
 *
 * @example
 * const pending = new ContextQueue("system"); stack.run("userPrompt", p, op, { onContext: pending.push }); pending.drain()
 */
export class ContextQueue {
  /** The waiting items, numbered from `base`; one a retried call withdrew is `undefined`. */
  private items: (Message | undefined)[] = [];
  private base = 0;

  constructor(private readonly role: "system" | "user" = "system") {}

  /** The `onContext` callback for run options. */
  readonly push = (text: string, _hook?: string): void => {
    this.add(text);
  };

  /** Add a text; returns how to withdraw it while it still waits (see `AttemptContext`). */
  private add(text: string): () => void {
    const item: Message = { role: this.role, content: text };
    const number = this.base + this.items.length;
    this.items.push(item);
    return () => {
      const i = number - this.base;
      if (i >= 0 && this.items[i] === item) this.items[i] = undefined;
    };
  }

  /**
   * Run options' `onContext` for one model or tool call, every attempt of it: call `next()` of the
   * result as the operation starts, so that a retried attempt does not repeat an earlier one's text.
   */
  attempts(): AttemptContext {
    return new AttemptContext((text) => this.add(text));
  }

  /** Take everything gathered so far, in order. */
  drain(): Message[] {
    const items = this.items.filter((m): m is Message => m !== undefined);
    this.base += this.items.length;
    this.items = [];
    return items;
  }

  /** A point to drop back to: what is pushed from now on can be dropped with `dropSince`. */
  mark(): number {
    return this.base + this.items.length;
  }

  /**
   * Drop what was pushed since `mark` and is still waiting: the context of a turn that ended
   * without reaching the model, which must neither reach the next prompt nor take earlier context
   * (a `sessionStart` hook's) with it.
   */
  dropSince(mark: number): void {
    const keep = Math.max(0, mark - this.base);
    if (keep < this.items.length) this.items.length = keep;
  }

  get size(): number {
    return this.items.filter((m) => m !== undefined).length;
  }
}
