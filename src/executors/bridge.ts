/**
 * Running our stack as a Claude Code command hook: a translated event goes through the point
 * it maps to, and the outcome comes back in the protocol (exit code and JSON). This is what
 * `agent-onion claude-hook` and `agent-onion try` print.
 *
 * The tool itself runs in Claude Code, not here, so each event runs only the hooks of its own
 * phase (plus `around` hooks, which span both): PreToolUse runs `before` hooks, PostToolUse
 * `after` hooks, PostToolUseFailure `recover` hooks, so a guard is not run twice per call. A
 * hook with several phases is kept whole; split phases into separate hooks for exact bridging.
 * The operation is a stand-in: on PreToolUse it records the input that reached it and ends the
 * run there by aborting the run's own signal, so nothing more starts (R7): a `retry` or a
 * `recover` never takes the stand-in for a failed tool and runs the guards again. On PostToolUse
 * it returns Claude Code's `tool_response`, and a rewrite of it is answered only in a shape Claude
 * Code accepts for that tool (bridge-output.ts); a Reject there withholds the output where Claude
 * Code can take a replacement. Each run carries `metadata.claudeEvent`. On PreCompact a hook's
 * Reject, a failure in process (compaction observes), is answered as the block it is there.
 */
import type { AgentStack } from "../agent/stack.ts";
import { toolDurationMs } from "../agent/tool-duration.ts";
import type { ToolCall, ToolResult, UserPrompt } from "../agent/types.ts";
import { describe } from "../core/errors.ts";
import type { ApprovalHandler, HookContext, RunOptions } from "../core/context.ts";
import type { Outcome } from "../core/outcome.ts";
import { linkSignal } from "../core/signal.ts";
import { Trace, type TraceEntry } from "../core/trace.ts";
import type { BridgeEvent } from "./bridge-event.ts";
import { claudeToolOutput, withheldToolOutput } from "./bridge-output.ts";
import { cleanText } from "./sanitize.ts";

/** What to answer Claude Code. */
export interface ClaudeReply {
  readonly exitCode: 0 | 1 | 2;
  /** Printed on stdout when present. */
  readonly json?: Record<string, unknown>;
  /** Printed on stderr when present. */
  readonly stderr?: string;
  /** A one-word summary for people: allow, deny, ask, block, stop, continue, none. */
  readonly decision: string;
  readonly reason?: string;
}

/** Options of `runBridge`: a trace, the approval handler and its record of requests, and a signal. */
export interface BridgeRunOptions {
  readonly trace?: Trace;
  /** Approval requests the stack made, when its approval handler was the bridge's recorder. */
  readonly asks?: readonly { readonly reason?: string | undefined }[];
  /** Answers the stack's approval requests in place of its own handler (the recorder behind `asks`). */
  readonly approval?: ApprovalHandler;
  readonly signal?: AbortSignal;
  /** Run options for every run (metadata is merged with the event's; its `onContext` also gets the context hooks add). */
  readonly run?: RunOptions;
}

/** Why the PreToolUse stand-in aborts its run: the call was allowed and reached the tool. */
class ReachedTool extends Error {
  constructor() {
    super("the call reached the tool, which runs in Claude Code");
  }
}

const phasesOf: Partial<Record<string, readonly string[]>> = {
  PreToolUse: ["before", "around"],
  PostToolUse: ["after", "around"],
  PostToolUseFailure: ["recover", "around"],
  PreCompact: ["before", "around"],
  PostCompact: ["after", "around"],
};

/**
 * The phases whose hooks an event runs, or undefined when it runs every hook of its point.
 * `agent-onion explain` reports by the same rule.
 *
 * @example
 * bridgedPhases("PreToolUse") // ["before", "around"]
 */
export const bridgedPhases = (event: string): readonly string[] | undefined => phasesOf[event];

/** True when a hook with `phases` runs for an event that runs `keep` (see bridgedPhases). */
export const runsOnEvent = (phases: readonly string[], keep: readonly string[] | undefined): boolean =>
  keep === undefined || phases.some((p) => keep.includes(p));

/** `stack` without the hooks of `point` that have none of `keep`'s phases. */
const onlyPhases = (stack: AgentStack, point: string, input: unknown, keep: readonly string[] | undefined): AgentStack => {
  if (!keep) return stack;
  let out = stack;
  for (const e of (stack.explain as (p: string, i: unknown) => ReturnType<AgentStack["explain"]>)(point, input))
    if (!runsOnEvent(e.phases, keep)) out = out.without(e.hook);
  return out;
};

/** The reason a hook gave with its Reject on an observation point, which the trace keeps beside the failure. */
const refusalReason = (e: TraceEntry): string => e.rejected || `blocked by hook "${e.hook}"`;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const text = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

/**
 * Run `ev` through `stack` and build Claude Code's answer.
 *
 * @example
 * const reply = await runBridge(stack, fromClaudeEvent(JSON.parse(stdin)))
 * if (reply.json) process.stdout.write(JSON.stringify(reply.json)); process.exitCode = reply.exitCode
 */
export const runBridge = async (full: AgentStack, ev: BridgeEvent, options: BridgeRunOptions = {}): Promise<ClaudeReply> => {
  const stack = onlyPhases(full, ev.spec.point, ev.input, phasesOf[ev.event]);
  const trace = options.trace ?? new Trace();
  const context: string[] = [];
  const run = (point: string, operation: (input: unknown, ctx: HookContext) => unknown, signal = options.signal): Promise<Outcome> =>
    (stack.run as (p: string, i: unknown, op: (i: unknown, ctx: HookContext) => unknown, o: object) => Promise<Outcome>)(
      point,
      ev.input,
      operation,
      {
        ...options.run,
        sessionId: ev.sessionId ?? options.run?.sessionId,
        metadata: options.run?.metadata ? { ...options.run.metadata, ...ev.metadata } : ev.metadata,
        trace,
        onContext: (t: string, hook: string) => (context.push(t), options.run?.onContext?.(t, hook)),
        ...(signal ? { signal } : {}),
        ...(options.approval ? { approval: options.approval } : {}),
      },
    );
  // The stand-in for the tool took what Claude Code's tool took: `after` and `recover` hooks read it as in process.
  const tookTool = (ctx: HookContext): void => void (ev.durationMs !== undefined && ctx.local(toolDurationMs, ev.durationMs));
  const name = ev.event;
  const specific = (fields: Record<string, unknown>): Record<string, unknown> => ({
    hookSpecificOutput: { hookEventName: name, ...fields },
  });
  const withContext = (fields: Record<string, unknown> = {}): Record<string, unknown> =>
    context.length ? { ...fields, additionalContext: context.join("\n\n") } : fields;
  // Failures let through (fail-open) are reported to the user, never silent (R6); `except` are reported otherwise.
  const notes = (except: readonly TraceEntry[] = []): Record<string, unknown> => {
    const list = trace.entries.filter((e) => e.action === "Failed" && e.failMode === "open" && !except.includes(e));
    return list.length
      ? { systemMessage: cleanText(`agent-onion: ${list.map((e) => `${e.hook} failed (let through): ${e.reason ?? ""}`).join("; ")}`) }
      : {};
  };
  const reply = (decision: string, json: Record<string, unknown>, reason?: string): ClaudeReply => ({
    exitCode: 0,
    json: { ...notes(), ...json },
    decision,
    ...(reason !== undefined ? { reason } : {}),
  });
  const broken = (outcome: Outcome): ClaudeReply => {
    const why = outcome._tag === "Failed" ? describe(outcome.error) : "unexpected outcome";
    return { exitCode: 2, stderr: `agent-onion: ${name} failed: ${why}`, decision: "block", reason: why };
  };

  switch (ev.spec.point) {
    case "toolCall": {
      if (name === "PreToolUse") {
        const original = ev.input as ToolCall;
        const stop = linkSignal(options.signal);
        let reached: { call: unknown } | undefined;
        const outcome = await run(
          "toolCall",
          (call) => {
            reached = { call };
            stop.controller.abort(new ReachedTool());
            // The run has already settled (the abort above): this answer is dropped, and an around
            // waiting on next() gets the settled run's outcome, so its own code after it still runs.
            return Promise.reject(new ReachedTool());
          },
          stop.controller.signal,
        ).finally(stop.dispose);
        if (outcome._tag === "Rejected")
          return reply("deny", specific({ permissionDecision: "deny", permissionDecisionReason: outcome.reason }), outcome.reason);
        if (outcome._tag === "Completed") {
          // A hook answered in the tool's place (a cache, a stub): Claude Code cannot take a result instead of running the tool.
          const why = `answered by a hook instead of running ${original.name}: ${cleanText(text((outcome.value as ToolResult)?.content))}`;
          return reply("deny", specific({ permissionDecision: "deny", permissionDecisionReason: why }), why);
        }
        if (reached === undefined) return broken(outcome);
        const call = reached.call as ToolCall;
        // Claude Code replaces the whole input with updatedInput: anything but an object cannot be a tool's input.
        if (typeof call?.input !== "object" || call.input === null || Array.isArray(call.input)) {
          const why = `a hook rewrote the input of ${original.name} into ${call?.input === null ? "null" : Array.isArray(call?.input) ? "an array" : `a ${typeof call?.input}`}; a tool's input is an object`;
          return { exitCode: 2, stderr: `agent-onion: PreToolUse: ${why}`, decision: "block", reason: why };
        }
        const updated = same(call.input, original.input) ? {} : { updatedInput: call.input };
        const ask = options.asks?.[0];
        if (ask)
          return reply(
            "ask",
            specific(
              withContext({ permissionDecision: "ask", ...(ask.reason ? { permissionDecisionReason: ask.reason } : {}), ...updated }),
            ),
            ask.reason,
          );
        const fields = withContext(updated);
        return reply(Object.keys(fields).length ? "allow" : "none", Object.keys(fields).length ? specific(fields) : {});
      }
      if (name === "PostToolUse") {
        const original = ev.output as ToolResult;
        const tool = (ev.input as ToolCall).name;
        const outcome = await run("toolCall", (_call, ctx) => (tookTool(ctx), original));
        if (outcome._tag === "Rejected") {
          // As in process, a refused result does not reach the model, where Claude Code can take a replacement.
          const withheld = withheldToolOutput(tool, original.content, outcome.reason);
          const fields = withContext(withheld === undefined ? {} : { updatedToolOutput: withheld });
          return reply(
            "block",
            { decision: "block", reason: outcome.reason, ...(Object.keys(fields).length ? specific(fields) : {}) },
            outcome.reason,
          );
        }
        if (outcome._tag === "Failed") return broken(outcome);
        const replacement = claudeToolOutput(tool, original.content, (outcome.value as ToolResult)?.content);
        if (replacement.kind === "unexpressible") {
          const by = [...new Set(trace.entries.filter((e) => e.action === "Transform").map((e) => e.hook))].join(", ") || "a hook";
          const why = `${by} rewrote the output of ${tool}, and the rewrite cannot be sent: ${replacement.why}`;
          return { exitCode: 2, stderr: `agent-onion: PostToolUse: ${why}`, decision: "block", reason: why };
        }
        const fields = withContext(replacement.kind === "replace" ? { updatedToolOutput: replacement.value } : {});
        return reply(Object.keys(fields).length ? "continue" : "none", Object.keys(fields).length ? specific(fields) : {});
      }
      const outcome = await run("toolCall", (_call, ctx) => {
        tookTool(ctx);
        throw new Error(ev.error);
      });
      if (outcome._tag === "Completed")
        context.push(`A hook supplied a result for the failed call: ${cleanText(text((outcome.value as ToolResult)?.content))}`);
      if (outcome._tag === "Rejected") context.push(outcome.reason);
      return reply(context.length ? "continue" : "none", context.length ? specific(withContext()) : {});
    }
    case "userPrompt": {
      const outcome = await run("userPrompt", (p) => p);
      if (outcome._tag === "Rejected") return reply("block", { decision: "block", reason: outcome.reason }, outcome.reason);
      if (outcome._tag === "Failed") return broken(outcome);
      const rewritten = (outcome.value as UserPrompt).text;
      if (rewritten !== (ev.input as UserPrompt).text) {
        // Claude Code cannot replace a prompt; letting the original through would skip the rewrite (a redaction, say).
        const why = `A hook rewrote this prompt and Claude Code cannot replace it. Rewritten prompt: ${rewritten}`;
        return reply("block", { decision: "block", reason: why }, why);
      }
      return reply(context.length ? "continue" : "none", context.length ? specific(withContext()) : {});
    }
    case "sessionStart": {
      const outcome = await run("sessionStart", (s) => ({ sessionId: (s as { sessionId: string }).sessionId }));
      if (outcome._tag === "Rejected") return reply("stop", { continue: false, stopReason: outcome.reason }, outcome.reason);
      if (outcome._tag === "Failed") return broken(outcome);
      return reply(context.length ? "continue" : "none", context.length ? specific(withContext()) : {});
    }
    case "stop":
    case "subagentStop": {
      const outcome = await run(ev.spec.point, () => ({ stop: true }));
      if (outcome._tag === "Rejected") return reply("block", { decision: "block", reason: outcome.reason }, outcome.reason);
      if (outcome._tag === "Failed") return broken(outcome);
      return reply("none", {});
    }
    default: {
      // Observation points (compaction, error, sessionEnd, notification): the operation is what already happened.
      const from = trace.entries.length;
      await run(ev.spec.point, () => ev.output);
      // In process, compaction observes (DESIGN): a Reject there is an R2 failure and compaction goes on. Claude Code
      // lets PreCompact block, so the bridge answers a hook's Reject (exit 2, decision: "block") as the block it was.
      const refusals =
        name === "PreCompact"
          ? trace.entries.slice(from).filter((e) => e.action === "Failed" && !e.shadow && e.rejected !== undefined)
          : [];
      if (refusals.length > 0) {
        const why = refusals.map(refusalReason).join("; ");
        return { exitCode: 0, json: { ...notes(refusals), decision: "block", reason: why }, decision: "block", reason: why };
      }
      return reply("none", {});
    }
  }
};
