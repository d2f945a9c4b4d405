/**
 * Claude Code's answers as decisions. `readDecision` turns what one external hook answered
 * (command, HTTP, MCP tool, prompt, agent) into what it decided for its event: a block and its
 * reason, an ask, an allow, a rewrite, context for the model, a request to end the turn.
 * `combine.ts` then decides for all the hooks of an event together, Claude Code's way.
 *
 * Precedence inside one answer: `continue: false` is read first, a block (exit 2,
 * `decision: "block"`, `permissionDecision: "deny"`) beats `ask` and `allow`; `defer` is
 * ignored (agent-onion has no deferred mode), as Claude Code ignores it outside `-p`.
 */
import { stopsRun } from "../agent/stop-signal.ts";
import type { Reject } from "../core/action.ts";
import { AgentOnionError, describe } from "../core/errors.ts";
import type { ExecutorError } from "./errors.ts";
import type { AgentEvent, EventSpec } from "./events.ts";
import type { HookAnswer } from "./hook-answer.ts";
import { cleanText } from "./sanitize.ts";

/** Something an external hook said that is not a decision: a message for the user, a `defer`, an ignored field, a failure let through. */
export interface ExternalNotice {
  readonly hook: string;
  readonly event: AgentEvent;
  readonly kind:
    | "systemMessage"
    | "stopReason"
    | "defer"
    | "ignored"
    | "hook-error"
    | "background-result"
    | "background-failure"
    | "dropped"
    | "cancelled";
  readonly message: string;
  readonly source?: string | undefined;
}

/** Where notices go (a logger, the `notification` point, a test array). */
export type NoticeSink = (notice: ExternalNotice) => void;

/** Tell the user something about one hook (its name and source are added by whoever holds them). */
export type Notify = (kind: ExternalNotice["kind"], message: string) => void;

/**
 * Marks the `Reject` of a tool call whose hook answered `continue: false` when nothing can end
 * the turn (a hook mounted by hand); its value is the `stopReason`, for the user. Hooks loaded
 * by `fromClaudeSettings` end the turn instead (see turn-stop.ts) and let the call run.
 */
export const endsTurn: unique symbol = Symbol.for("agent-onion.endsTurn") as never;

/** A `Reject` that also asks for the turn to end (see `endsTurn`). */
export type TurnEndingReject = Reject & { readonly [endsTurn]: string };

/**
 * A hook asked to end the turn (`continue: false`, or a prompt hook's `ok: false` without
 * `continueOnBlock`): the `Failed` outcome of the next `step`, which the reference loop reads as a
 * clean stop (`finishReason: "stopped-by-guard"`, `stoppedBy: { reason, by, kind: "hook" }`), so
 * the reason reaches the caller and the notification point, never the model.
 *
 * @example
 * turn.finishReason === "stopped-by-guard" && turn.result?.stoppedBy?.kind // "hook"
 */
export class HookStopError extends AgentOnionError {
  override name = "HookStopError";
  readonly [stopsRun] = true as const;
  readonly kind = "hook";
  constructor(
    /** The hook that asked (the loop reads a stop's author from `middleware`). */
    readonly middleware: string,
    reason: string,
  ) {
    super(reason);
  }
}

/** What one hook decided about one event. */
export interface HookDecision {
  readonly hook: string;
  readonly source?: string | undefined;
  /** The hook failed; `closed` when its failure policy says the event's action must not go ahead. */
  readonly failure?: { readonly message: string; readonly closed: boolean };
  /** A blocking answer, with its reason (the JSON's, else exit 2's stderr, else a default naming the hook). */
  readonly block?: string;
  /** PreToolUse's `ask`, with the reason for the person. */
  readonly ask?: { readonly reason: string };
  /** An explicit allow (PreToolUse's `allow`, a PermissionRequest grant). */
  readonly allow?: boolean;
  /** A rewritten tool input (PreToolUse's `updatedInput`, a PermissionRequest grant's). */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** PermissionRequest's permission updates. */
  readonly updatedPermissions?: readonly unknown[];
  /** A replacement for the tool's output (PostToolUse's `updatedToolOutput` / `updatedMCPToolOutput`). */
  readonly updatedOutput?: { readonly value: unknown };
  /** Text for the model, in the order given (`additionalContext`, plain stdout where it is context). */
  readonly context: readonly string[];
  /** Stop's `additionalContext`: non-error feedback that keeps the agent going. */
  readonly feedback?: string;
  /** `continue: false`, with the `stopReason` (for the user). */
  readonly halt?: string;
  /** Its block also ends the turn (a prompt hook's `ok: false` without `continueOnBlock`). */
  readonly blockEndsTurn?: boolean;
  /** A prompt hook judged a Stop condition impossible. */
  readonly impossible?: boolean;
}

/** Fields Claude Code acts on that an agent loop has nothing for: read, then told as ignored. */
const noCounterpartWhy = {
  initialUserMessage: "a session's first message is the caller's",
  sessionTitle: "sessions have no title",
  watchPaths: "there is no file watcher",
  reloadSkills: "there are no skills to rescan",
  classifierContext: "there is no auto-mode classifier",
  terminalSequence: "there is no terminal",
} as const;
const noCounterpart = Object.keys(noCounterpartWhy) as (keyof typeof noCounterpartWhy)[];

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const legacyPermission = (decision: string | undefined): "allow" | "deny" | undefined =>
  decision === "approve" || decision === "allow" ? "allow" : decision === "block" || decision === "deny" ? "deny" : undefined;

/**
 * What one hook's answer decided for `spec`'s event. Notices (systemMessage, ignored fields,
 * a `defer`) go to `notify`; nothing else happens here.
 *
 * @example
 * readDecision(agentEvents.PreToolUse, { output: { decision: "approve" } }, { hook: "g", notify }) // { hook: "g", allow: true, context: [] }
 */
export const readDecision = (
  spec: EventSpec,
  answer: HookAnswer,
  o: { readonly hook: string; readonly source?: string | undefined; readonly notify: Notify; readonly blockEndsTurn?: boolean },
): HookDecision => {
  const context: string[] = [];
  const decision: Mutable<HookDecision> = { hook: o.hook, ...(o.source !== undefined ? { source: o.source } : {}), context };
  if (spec.ignoresOutput) return decision;
  for (const part of answer.ignored ?? []) o.notify("ignored", part);
  const out = answer.output ?? {};
  const hso = out.hookSpecificOutput ?? {};
  const message = cleanText(out.systemMessage ?? "");
  if (message) o.notify("systemMessage", message);
  const event = spec.event;
  const isStop = event === "Stop" || event === "SubagentStop";
  for (const field of noCounterpart) {
    const value = field === "terminalSequence" ? out.terminalSequence : (hso as Record<string, unknown>)[field];
    if (value !== undefined) o.notify("ignored", `${field} has no counterpart in agent-onion (${noCounterpartWhy[field]}); ignored`);
  }

  if (out.continue === false) {
    const why = cleanText(out.stopReason ?? "") || `hook "${o.hook}" asked to stop (continue: false)`;
    if (spec.ignoresContinue) o.notify("ignored", `continue: false is ignored on ${event}: ${why}`);
    else decision.halt = why;
  }

  // PreToolUse reads top-level decision as its deprecated permission; PostToolUse also reads
  // permissionDecision: "deny", as hookify sends it, as a block.
  const legacy = event === "PreToolUse" ? legacyPermission(out.decision) : undefined;
  const permission = event === "PreToolUse" || event === "PostToolUse" ? (hso.permissionDecision ?? legacy) : undefined;
  if (event === "PostToolUse" && permission !== undefined && permission !== "deny")
    o.notify("ignored", `permissionDecision: "${permission}" means nothing after the call; only "deny" is read (as a block)`);
  const decisionBlocks = out.decision === "block" || out.decision === "deny";
  const decided = decisionBlocks && (spec.decision || legacy === "deny");
  if (decisionBlocks && !decided) o.notify("ignored", `decision: "${out.decision}" is ignored on ${event}: ${cleanText(out.reason ?? "")}`);
  // A JSON reason is the blocking message only beside the JSON's own blocking decision; otherwise
  // exit 2's stderr is ("the reason from your JSON's blocking decision when it makes one").
  const jsonReason = cleanText(
    (permission === "deny" ? (hso.permissionDecisionReason ?? (decided ? out.reason : undefined)) : decided ? out.reason : undefined) ?? "",
  );
  const added = permission === "defer" ? "" : cleanText(hso.additionalContext ?? "");
  if (added && !isStop) context.push(added);
  if (answer.text && spec.stdoutIsContext && answer.block === undefined) context.push(answer.text);
  if (added && isStop) decision.feedback = added;

  if (event === "PermissionRequest") {
    const grant = hso.decision;
    if (answer.block !== undefined)
      o.notify("ignored", `exit 2 is not honoured on PermissionRequest (only the decision object is): ${answer.block}`);
    if (grant?.behavior === "deny") {
      decision.block = cleanText(grant.message ?? "") || `denied by hook "${o.hook}"`;
      if (grant.interrupt === true) decision.halt ??= decision.block;
    } else if (grant?.behavior === "allow") {
      decision.allow = true;
      if (grant.updatedInput !== undefined) decision.updatedInput = { ...grant.updatedInput };
      if (grant.updatedPermissions !== undefined) decision.updatedPermissions = grant.updatedPermissions;
    }
    return decision;
  }

  const blocked = answer.block !== undefined || decided || permission === "deny";
  if (blocked) {
    decision.block = jsonReason || answer.block || `blocked by hook "${o.hook}"`;
    if (o.blockEndsTurn) decision.blockEndsTurn = true;
  }
  if (answer.impossible && isStop) decision.impossible = true;
  if (event === "PreToolUse") {
    if (permission === "defer") o.notify("defer", "deferred the call; agent-onion has no deferred mode, so the other hooks decide");
    if (permission === "ask") decision.ask = { reason: cleanText(hso.permissionDecisionReason ?? "") };
    if (permission === "allow") decision.allow = true;
    if (hso.updatedInput !== undefined && permission !== "defer") decision.updatedInput = { ...hso.updatedInput };
  }
  if (event === "PostToolUse") {
    const replacement =
      "updatedToolOutput" in hso ? hso.updatedToolOutput : "updatedMCPToolOutput" in hso ? hso.updatedMCPToolOutput : undefined;
    if (replacement !== undefined) decision.updatedOutput = { value: replacement };
  }
  return decision;
};

/**
 * What a failed hook decided: nothing, or a refusal when its policy fails closed. What a
 * partly readable answer said (its context, its message) is kept either way.
 *
 * @example
 * failureDecision(agentEvents.PreToolUse, "guard", new ExecutorError("timeout", "timed out"), true, notify).failure // { message: "timed out", closed: true }
 */
export const failureDecision = (
  spec: EventSpec,
  hook: string,
  error: unknown,
  closed: boolean,
  notify: Notify,
  source?: string,
): HookDecision => {
  const partial = (error as ExecutorError | undefined)?.partial;
  const kept = partial
    ? readDecision(spec, partial, { hook, source, notify })
    : { hook, ...(source !== undefined ? { source } : {}), context: [] };
  return { hook, ...(source !== undefined ? { source } : {}), context: kept.context, failure: { message: describe(error), closed } };
};
