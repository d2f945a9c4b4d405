/**
 * Hook-added context on its way to the model. Hooks call `ctx.addContext(text)` on any point;
 * the stack hands the text to `RunOptions.onContext` in hook order; the loop appends what has
 * gathered, in arrival order, to the conversation when it builds the next model request.
 */
import type { Message } from "./types.ts";

/**
 * Context texts waiting for the next model request.
 *
 * @example
 * const pending = new ContextQueue("system"); stack.run("userPrompt", p, op, { onContext: pending.push }); pending.drain()
 */
export class ContextQueue {
  private items: Message[] = [];
  /** How many items were ever pushed: the waiting ones are the last `items.length` of them. */
  private pushed = 0;

  constructor(private readonly role: "system" | "user" = "system") {}

  /** The `onContext` callback for run options. */
  readonly push = (text: string, _hook?: string): void => {
    this.items.push({ role: this.role, content: text });
    this.pushed++;
  };

  /** Take everything gathered so far, in order. */
  drain(): Message[] {
    const items = this.items;
    this.items = [];
    return items;
  }

  /** A point to drop back to: what is pushed from now on can be dropped with `dropSince`. */
  mark(): number {
    return this.pushed;
  }

  /**
   * Drop what was pushed since `mark` and is still waiting: the context of a turn that ended
   * without reaching the model, which must neither reach the next prompt nor take earlier context
   * (a `sessionStart` hook's) with it.
   */
  dropSince(mark: number): void {
    // Items leave only by `drain` (all) or here (the newest), so the waiting ones are numbered
    // from `pushed - items.length` up: keep those numbered below the mark.
    const keep = Math.max(0, mark - (this.pushed - this.items.length));
    if (keep < this.items.length) this.items.length = keep;
  }

  get size(): number {
    return this.items.length;
  }
}
