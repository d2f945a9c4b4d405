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
  /** The number each waiting item was pushed as (see mark). */
  private numbers: number[] = [];
  private pushed = 0;

  constructor(private readonly role: "system" | "user" = "system") {}

  /** The `onContext` callback for run options. */
  readonly push = (text: string, _hook?: string): void => {
    this.items.push({ role: this.role, content: text });
    this.numbers.push(this.pushed++);
  };

  /** Take everything gathered so far, in order. */
  drain(): Message[] {
    const items = this.items;
    this.items = [];
    this.numbers = [];
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
    const keep = this.numbers.findIndex((n) => n >= mark);
    if (keep < 0) return;
    this.items.length = keep;
    this.numbers.length = keep;
  }

  get size(): number {
    return this.items.length;
  }
}
