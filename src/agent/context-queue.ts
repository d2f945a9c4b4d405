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

  constructor(private readonly role: "system" | "user" = "system") {}

  /** The `onContext` callback for run options. */
  readonly push = (text: string, _hook?: string): void => {
    this.items.push({ role: this.role, content: text });
  };

  /** Take everything gathered so far, in order. */
  drain(): Message[] {
    const items = this.items;
    this.items = [];
    return items;
  }

  get size(): number {
    return this.items.length;
  }
}
