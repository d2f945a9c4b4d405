/**
 * Deciding for all the hooks of one event at once, Claude Code's way: every hook answered on the
 * same input; a block (or a hook failing closed) beats an ask, an ask beats an allow; every
 * hook's context reaches the model, in settings order. Two things differ from Claude Code on
 * purpose: when several hooks rewrite the input the last one in settings order wins (not the
 * last to finish), and a rewritten input goes through the event's hooks again (`recheck`), where
 * only a block or an ask counts, so nothing runs that a guard has not seen.
 */
import { permissionGrant } from "../agent/permissions.ts";
import type { PermissionDecision, StopRequest, ToolCall, ToolResult } from "../agent/types.ts";
import { Continue, Reject, Replace, Transform, type HookAction } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import { isDeepStrictEqual } from "node:util";
import type { EventSpec } from "./events.ts";
import type { PointData } from "./event-json.ts";
import type { HookAnswer } from "./hook-answer.ts";
import { endsTurn, readDecision, type HookDecision, type Notify, type TurnEndingReject } from "./protocol.ts";
import { cleanText } from "./sanitize.ts";

/** What `combine` needs besides the decisions. */
export interface CombineInput {
  readonly spec: EventSpec;
  readonly decisions: readonly HookDecision[];
  readonly data: PointData;
  readonly ctx: HookContext;
  /** Notices about one hook of the set. */
  readonly notify: (hook: string, source?: string) => Notify;
  /** Who speaks for the set (an approval request, a refusal). */
  readonly name: string;
  /** Ends the turn after this event (hooks loaded from settings); without it, `continue: false` on a tool call refuses the call. */
  readonly endTurn?: ((by: string, reason: string) => void) | undefined;
  /** The set's hooks again, on a rewritten input. */
  readonly recheck?: ((input: unknown) => Promise<readonly HookDecision[]>) | undefined;
  /** Stop: blocks in a row honoured at most; past it the stop goes ahead. */
  readonly stopCap?: number | undefined;
}

const isToolCall = (v: unknown): v is ToolCall =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as ToolCall).name === "string" &&
  typeof (v as ToolCall).input === "object" &&
  (v as ToolCall).input !== null;

const failedText = (d: HookDecision): string => `hook "${d.hook}"${d.source ? ` (${d.source})` : ""} failed: ${d.failure?.message ?? ""}`;

/** Reasons to refuse: blocks, and failures that fail closed where that refuses. */
const refusals = (spec: EventSpec, decisions: readonly HookDecision[]): string[] => {
  const out: string[] = [];
  for (const d of decisions) {
    if (d.block !== undefined) out.push(d.block);
    if (d.failure?.closed && spec.onClosedFailure === "refuse") out.push(failedText(d));
  }
  return out;
};

const join = (reasons: readonly string[]): string => [...new Set(reasons)].join("\n");

/** Failures reported to the user: every one that did not refuse the event. */
const reportFailures = (c: CombineInput, decisions: readonly HookDecision[]): void => {
  for (const d of decisions) {
    if (d.failure === undefined) continue;
    if (d.failure.closed && c.spec.onClosedFailure !== "notice") continue; // said in the refusal or the withheld output
    c.notify(d.hook, d.source)("hook-error", `${d.failure.message}${d.failure.closed ? "" : " (let through)"}`);
  }
};

const addContexts = (
  c: CombineInput,
  decisions: readonly HookDecision[],
  also: (d: HookDecision) => readonly string[] = () => [],
): void => {
  for (const d of decisions) for (const text of [...d.context, ...also(d)]) c.ctx.addContext(text);
};

/** Turn-ending requests (`continue: false`, a turn-ending block); true when one could not end the turn and refuses instead. */
const halts = (c: CombineInput, decisions: readonly HookDecision[]): TurnEndingReject | undefined => {
  let refused: TurnEndingReject | undefined;
  for (const d of decisions) {
    if (d.blockEndsTurn && d.block !== undefined) c.endTurn?.(d.hook, d.block);
    if (d.halt === undefined) continue;
    // stopReason is "not shown to Claude": it goes to the user, and to whoever ends the turn.
    c.notify(d.hook, d.source)("stopReason", d.halt);
    if (c.endTurn) c.endTurn(d.hook, d.halt);
    else refused ??= { ...Reject(`hook "${d.hook}" refused the call and asked to stop the turn (continue: false)`), [endsTurn]: d.halt };
  }
  return refused;
};

/** The input the last rewriting hook (in settings order) gave, when it differs from `current`. */
const lastRewrite = (
  decisions: readonly HookDecision[],
  current: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> | undefined => {
  const last = decisions.filter((d) => d.updatedInput !== undefined).at(-1)?.updatedInput;
  return last === undefined || isDeepStrictEqual(last, current) ? undefined : last;
};

/** A second round on a rewritten input: its refusals, and its asks; rewrites there are not followed (noticed). */
const recheckRound = async (c: CombineInput, input: unknown, settled: Readonly<Record<string, unknown>>) => {
  const again = await c.recheck!(input);
  reportFailures(c, again);
  halts(c, again);
  for (const d of again)
    if (d.updatedInput !== undefined && !isDeepStrictEqual(d.updatedInput, settled))
      c.notify(d.hook, d.source)("ignored", "rewrote the input again when rechecking a rewrite; the first rewrite stands");
  return { refused: refusals(c.spec, again), asks: again.filter((d) => d.ask !== undefined) };
};

const preToolUse = async (c: CombineInput): Promise<HookAction> => {
  const call = c.data.input as ToolCall;
  addContexts(c, c.decisions);
  const refused = halts(c, c.decisions);
  const first = refusals(c.spec, c.decisions);
  if (first.length > 0) return Reject(join(first));
  if (refused) return refused;
  const rewritten = lastRewrite(c.decisions, call.input);
  const current: ToolCall = rewritten ? { ...call, input: { ...rewritten } } : call;
  const asks = c.decisions.filter((d) => d.ask !== undefined);
  if (rewritten && c.recheck) {
    const round = await recheckRound(c, current, current.input);
    if (round.refused.length > 0) return Reject(join(round.refused));
    asks.push(...round.asks);
  }
  if (asks.length > 0) {
    const reason = join(asks.map((d) => d.ask!.reason).filter((r) => r !== ""));
    const by = asks.length === 1 ? asks[0]!.hook : c.name;
    const answer = await c.ctx.approve({ hook: by, input: current, ...(reason ? { reason } : {}) });
    if (answer.decision === "deny") return Reject(cleanText(answer.reason ?? "") || `denied by the approval handler for hook "${by}"`);
    // Someone answered for this call: the agent's permission policy does not ask again.
    c.ctx.local(permissionGrant, "approved");
    if (answer.decision === "edit") {
      const edited = isToolCall(answer.input)
        ? answer.input
        : typeof answer.input === "object" && answer.input !== null && !Array.isArray(answer.input)
          ? { ...current, input: answer.input as Record<string, unknown> }
          : undefined;
      if (edited === undefined) return Reject(`the approval handler's edit for hook "${by}" is not a tool input; refused`);
      if (edited.name !== call.name) return Reject(`the approval handler's edit renamed ${call.name} to ${edited.name}; refused`);
      if (c.recheck && !isDeepStrictEqual(edited.input, current.input)) {
        // A person approved this very input: only a refusal counts now.
        const round = await recheckRound(c, edited, edited.input);
        if (round.refused.length > 0) return Reject(join(round.refused));
      }
      return Transform(edited);
    }
  }
  // An explicit allow skips the agent's permission question (its ask and deny rules still apply), as in Claude Code.
  if (asks.length === 0 && c.decisions.some((d) => d.allow)) c.ctx.local(permissionGrant, "allowed");
  return rewritten ? Transform(current) : Continue;
};

const postToolUse = (c: CombineInput): HookAction => {
  const call = c.data.input as ToolCall;
  const output = c.data.output as ToolResult;
  // The call already ran: a block's reason goes beside its output, as Claude Code shows it to Claude.
  addContexts(c, c.decisions, (d) => (d.block !== undefined ? [d.block] : []));
  halts(c, c.decisions);
  const withheld = c.decisions.filter((d) => d.failure?.closed).map(failedText);
  if (withheld.length > 0)
    return Transform({ content: `${call.name} ran, but its output was withheld: ${join(withheld)}`, isError: true } satisfies ToolResult);
  const replacement = c.decisions.filter((d) => d.updatedOutput !== undefined).at(-1)?.updatedOutput;
  return replacement ? Transform({ ...output, content: replacement.value }) : Continue;
};

const stop = (c: CombineInput): HookAction => {
  for (const d of c.decisions) {
    if (d.halt !== undefined) c.notify(d.hook, d.source)("stopReason", d.halt);
    if (d.impossible) c.notify(d.hook, d.source)("stopReason", "the hook judged its condition impossible; the stop goes ahead");
  }
  // `continue: false` asks for exactly what was about to happen: it wins over another hook's block.
  if (c.decisions.some((d) => d.halt !== undefined)) return Continue;
  const reasons = [...refusals(c.spec, c.decisions), ...c.decisions.flatMap((d) => (d.feedback !== undefined ? [d.feedback] : []))];
  if (reasons.length === 0) return Continue;
  const blocked = (c.data.input as StopRequest).blockedCount;
  if (c.stopCap !== undefined && blocked >= c.stopCap) {
    c.notify(c.name)("ignored", `the stop was blocked ${blocked} times in a row; it goes ahead (at most ${c.stopCap}): ${join(reasons)}`);
    return Continue;
  }
  return Reject(join(reasons));
};

const permissionRequest = async (c: CombineInput): Promise<HookAction> => {
  const request = c.data.input as { readonly call: ToolCall };
  halts(c, c.decisions);
  const denied = refusals(c.spec, c.decisions);
  if (denied.length > 0) return Reject(join(denied));
  const grants = c.decisions.filter((d) => d.allow);
  if (grants.length === 0) return Continue;
  const rewritten = lastRewrite(grants, request.call.input);
  if (rewritten && c.recheck) {
    const round = await recheckRound(c, { ...request, call: { ...request.call, input: rewritten } }, rewritten);
    if (round.refused.length > 0) return Reject(join(round.refused));
  }
  const permissions = grants.flatMap((d) => d.updatedPermissions ?? []);
  const decision: PermissionDecision = {
    behavior: "allow",
    ...(rewritten ? { updatedInput: rewritten } : {}),
    ...(permissions.length > 0 ? { updatedPermissions: permissions } : {}),
  };
  return Replace(decision);
};

/** Events whose refusal refuses their action: a prompt, a batch, a compaction. */
const refusing = (c: CombineInput): HookAction => {
  addContexts(c, c.decisions);
  const reasons = [...refusals(c.spec, c.decisions)];
  for (const d of c.decisions) {
    if (d.halt === undefined) continue;
    if (c.spec.onContinueFalse === "reject") reasons.push(d.halt);
    else c.notify(d.hook, d.source)("ignored", `continue: false is ignored on ${c.spec.event}: ${d.halt}`);
  }
  return reasons.length > 0 ? Reject(join(reasons)) : Continue;
};

/** Events nothing can refuse: a block is shown to the user or ignored; context still reaches the model. */
const notRefusing = (c: CombineInput): HookAction => {
  addContexts(c, c.decisions, (d) => (c.spec.onBlock === "context" && d.block !== undefined ? [d.block] : []));
  if (c.spec.onContinueFalse === "end-turn") halts(c, c.decisions);
  for (const d of c.decisions) {
    const say = c.notify(d.hook, d.source);
    if (d.block !== undefined && c.spec.onBlock === "notice") say("hook-error", d.block);
    if (d.block !== undefined && c.spec.onBlock === "ignore") say("ignored", `a block is ignored on ${c.spec.event}: ${d.block}`);
    if (d.halt !== undefined && c.spec.onContinueFalse === "notice")
      say("ignored", `continue: false is ignored on ${c.spec.event}: ${d.halt}`);
  }
  return Continue;
};

/**
 * Decide for every hook of `c.spec`'s event at once (see the module comment for the rules).
 *
 * @example
 * const action = await combine({ spec: agentEvents.PreToolUse, decisions, data: { input: call }, ctx, notify, name: "claude-settings:PreToolUse" })
 */
export const combine = async (c: CombineInput): Promise<HookAction> => {
  if (c.spec.ignoresOutput) return Continue;
  reportFailures(c, c.decisions);
  switch (c.spec.event) {
    case "PreToolUse":
      return preToolUse(c);
    case "PostToolUse":
      return postToolUse(c);
    case "Stop":
    case "SubagentStop":
      return stop(c);
    case "PermissionRequest":
      return permissionRequest(c);
    case "UserPromptSubmit":
    case "PostToolBatch":
    case "PreCompact":
      return refusing(c);
    default:
      return notRefusing(c);
  }
};

/**
 * Turn one external hook's answer into a HookAction for `spec`'s point and phase: a set of one.
 *
 * @example
 * await applyAnswer(agentEvents.PreToolUse, { block: "rm is not allowed" }, { input: call }, ctx, { hook: "guard", phase: "before", notify })
 * // Reject("rm is not allowed")
 */
export const applyAnswer = (
  spec: EventSpec,
  answer: HookAnswer,
  data: PointData,
  ctx: HookContext,
  o: { readonly hook: string; readonly phase?: string; readonly notify: Notify },
): Promise<HookAction> =>
  combine({
    spec,
    decisions: [readDecision(spec, answer, { hook: o.hook, notify: o.notify })],
    data,
    ctx,
    notify: () => o.notify,
    name: o.hook,
  });
