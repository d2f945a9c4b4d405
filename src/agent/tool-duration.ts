/**
 * How long a tool call's execution took, kept for the hooks of the same `toolCall` run: Claude
 * Code's `duration_ms` on PostToolUse and PostToolUseFailure, which counts the tool alone (not the
 * hooks before it, nor a wait for a person's approval).
 */
import { contextKey } from "../core/context.ts";

/**
 * The slot of a `toolCall` run holding the tool's execution time in ms, set once the tool returned
 * or threw (by `executeTool`, so by the reference agent and `wrapTool`); `after` and `recover` hooks read it.
 *
 * @example
 * stack.use("toolCall", { name: "timing", after: (result, _call, ctx) => (console.log(ctx.local(toolDurationMs)), Continue) })
 */
export const toolDurationMs = contextKey<number>("agent.toolDurationMs");
