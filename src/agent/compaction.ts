/**
 * Compaction: when a request would exceed the context budget, the conversation goes through
 * the `compaction` point, whose operation is the agent's compactor. Hooks see the request
 * (seed 002's pre_compaction), may transform the result (post_compaction), and may add
 * context that survives the compaction.
 */
import { AgentRunError, decide } from "./decide.ts";
import type { Compactor } from "./agent-types.ts";
import type { LoopEnv } from "./env.ts";
import { keepSessionEnv } from "./session-env.ts";
import type { CompactionRequest, Message } from "./types.ts";

/**
 * A compactor that keeps the last `keep` messages and replaces the rest with a short summary
 * (a system message listing what was said). It never separates tool results from their call.
 *
 * @example
 * createAgent({ model, stack, contextBudget: 4000, compact: summarizeOldest({ keep: 6 }) })
 */
export const summarizeOldest =
  ({ keep = 4, maxLine = 120 }: { keep?: number; maxLine?: number } = {}): Compactor =>
  (request) => {
    const messages = request.messages;
    let cut = Math.max(0, messages.length - keep);
    // A tool result without its assistant call is meaningless to a provider: keep them together.
    while (cut > 0 && messages[cut]?.role === "tool") cut--;
    const dropped = messages.slice(0, cut);
    if (dropped.length === 0) return { messages, summary: "", removed: 0 };
    const lines = dropped.map((m) => `${m.role}${m.toolName ? ` (${m.toolName})` : ""}: ${oneLine(m.content, maxLine)}`);
    const summary = `Summary of ${dropped.length} earlier messages:\n${lines.join("\n")}`;
    return { messages: [{ role: "system", content: summary }, ...messages.slice(cut)], summary, removed: dropped.length };
  };

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * After a compaction the session starts again from its summary: `sessionStart` runs with source
 * `compact` (Claude Code's), so its hooks can give their context again (it reaches the next
 * request) and export variables again. The session is open: a refusal is told, not obeyed.
 * Sub-agents have no session of their own.
 */
const restarted = async (env: LoopEnv): Promise<void> => {
  if (env.stopPoint !== "stop") return;
  const sessionId = env.run.sessionId ?? "";
  const outcome = await env.stack.run("sessionStart", { sessionId, source: "compact" }, (s) => ({ sessionId: s.sessionId }), env.run);
  keepSessionEnv(env.session, outcome);
  if (outcome._tag === "Rejected")
    await env.notify({
      type: "warning",
      message: `sessionStart (compact) was refused by ${outcome.by}, but the session is open and goes on: ${outcome.reason}`,
    });
};

/**
 * Compact through the `compaction` point: automatically when over budget, or on demand.
 * Returns the messages to go on with.
 *
 * @example
 * messages = await compact(env, messages, system, "auto")
 */
export const compact = async (
  env: LoopEnv,
  messages: readonly Message[],
  system: string | undefined,
  trigger: CompactionRequest["trigger"],
): Promise<readonly Message[]> => {
  const budget = env.settings.contextBudget;
  // Without a budget there is nothing to count against: the conversation goes on untouched.
  if (trigger === "auto" && budget === undefined) return messages;
  const tokens = env.settings.countTokens(system === undefined ? messages : [{ role: "system", content: system }, ...messages]);
  if (trigger === "auto" && budget !== undefined && tokens <= budget) return messages;
  const request: CompactionRequest = { trigger, messages, tokens, budget: budget ?? tokens };
  for (let attempt = 1; ; attempt++) {
    const outcome = await env.stack.run(
      "compaction",
      request,
      (req, ctx) => env.settings.compact(req as CompactionRequest, ctx.signal),
      env.run,
    );
    if (outcome._tag === "Completed") {
      if (outcome.value.removed > 0) {
        env.transcript?.compacted(trigger, tokens, outcome.value.summary);
        await env.notify({
          type: "info",
          message: `Context compacted (${trigger}): ${outcome.value.removed} messages summarized, ${tokens} tokens over a budget of ${request.budget}`,
        });
        await restarted(env);
      }
      return outcome.value.messages;
    }
    const error = outcome._tag === "Failed" ? outcome.error : new Error(`compaction rejected by ${outcome.by}: ${outcome.reason}`);
    const decision = await decide(env, { where: "loop", error, attempt });
    if (decision.action === "retry") continue;
    // Recovering from a failed compaction means going on with the conversation as it was.
    if (decision.action === "recover") return messages;
    throw new AgentRunError("loop", error);
  }
};
