/**
 * One Claude Code event in, one answer out: the code path `claude-hook` (a process per event) and
 * `serve` (a resident process, one HTTP request per event) share, so both decide alike.
 *
 * The event is read first and the stack loaded only when the event is one we drive. Anything that
 * keeps us from deciding (a module that does not load, an event we cannot read) is a blocking
 * error (exit 2): a broken guard must not silently allow. With `failOpen` it is a non-blocking
 * error (exit 1) instead. An event we do not drive is a non-blocking error too: no guard of ours
 * covers it, so blocking it would refuse what nothing checked, and on every such event but
 * WorktreeCreate exit 1 lets Claude Code go on as without the hook, showing why where it shows
 * hook errors (exit 0's stderr reaches only the debug log).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AgentStack } from "../agent/stack.ts";
import type { ApprovalHandler } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import { fromClaudeEvent, UndrivenEventError, type BridgeEvent } from "../executors/bridge-event.ts";
import { runBridge } from "../executors/bridge.ts";
import { allClaudeEvents } from "../executors/events.ts";
import { hookWarningText, routeHookNotices } from "../executors/external.ts";
import { parseJson } from "../executors/json.ts";
import { cleanText } from "../executors/sanitize.ts";

/** The answer to one event, in the command protocol: exit code, JSON for stdout, text for stderr. */
export interface HookAnswer {
  /** The event's `hook_event_name`, when it could be read. */
  readonly event?: string;
  readonly exitCode: 0 | 1 | 2;
  readonly json?: Record<string, unknown>;
  readonly stderr?: string;
}

export interface AnswerOptions {
  /** A failure to decide is a non-blocking error (exit 1) rather than a block (exit 2). */
  readonly failOpen: boolean;
  /** Prefix of the messages on stderr: `agent-onion claude-hook`, `agent-onion serve`. */
  readonly who: string;
  /** Wait for the stack's background work before answering (a process that exits right after must). */
  readonly flush: boolean;
  /**
   * Answer "could not decide" when the stack has not answered by then (loading, the run and the
   * flush together), rather than let the host's own timeout decide: Claude Code lets the action
   * go on when a hook times out. `label` names the option in the message.
   */
  readonly deadline?: { readonly ms: number; readonly label: string } | undefined;
}

/** The stack to run, loaded on first need; `approval` is the handler a stack factory receives (`bridgeApproval`). */
export type StackSource = (approval: ApprovalHandler) => Promise<AgentStack>;

/** What one event collects while its run is in progress. */
interface EventScope {
  readonly event: string;
  readonly asks: { reason?: string | undefined }[];
  readonly told: string[];
}

const current = new AsyncLocalStorage<EventScope>();

/**
 * The approval handler stacks get (a stack factory receives it): it answers for the event in
 * progress. Claude Code asks the person only on PreToolUse (our answer there is "ask"); anywhere
 * else nobody can approve, and a guard that asked must not pass silently.
 *
 * @example
 * const stack = await loadStack("hooks/guard.ts", cwd, "default", { approval: bridgeApproval })
 */
export const bridgeApproval: ApprovalHandler = (request) => {
  const scope = current.getStore();
  if (scope === undefined || scope.event !== "PreToolUse") {
    const where = scope?.event ?? "no event in progress";
    return {
      decision: "deny",
      reason: `approval required by ${request.hook}${request.reason ? ` (${request.reason})` : ""}, but Claude Code asks a person only on PreToolUse, so no one could approve on ${where}`,
    };
  }
  scope.asks.push({ reason: request.reason });
  return { decision: "approve" };
};

let routed = false;
/** Notices of command or HTTP hooks mounted without an `onNotice` go to the event that caused them. */
const routeNotices = (): void => {
  if (routed) return;
  routed = true;
  routeHookNotices((n) => {
    const text = n.kind === "systemMessage" ? n.message : hookWarningText(n);
    if (text === undefined) return;
    const scope = current.getStore();
    if (scope) scope.told.push(text);
    else process.emitWarning(text, "AgentOnionHookWarning");
  });
};

/**
 * What exit 1 does to an event we do not drive, per the reference's "Exit code output": a
 * non-blocking error, after which Claude Code goes on as without the hook (a permission is asked
 * as usual, a denial stands, the original text is shown...), except on WorktreeCreate, whose hook
 * replaces git's and must print the new worktree's path: any non-zero exit fails the creation.
 */
const afterExitOne = (event: string): string =>
  event === "WorktreeCreate"
    ? "nothing was checked and no worktree path was printed, so worktree creation fails (any non-zero exit fails it). Do not register agent-onion on WorktreeCreate."
    : allClaudeEvents.has(event)
      ? "nothing was checked, and Claude Code goes on as without this hook (exit 1 is a non-blocking error there). Register agent-onion only on the events it drives."
      : "nothing was checked. Claude Code treats exit 1 as a non-blocking error on most events, going on as without this hook. Register agent-onion only on the events it drives.";

/** `hook_event_name` of an event that could not be translated, when it is there to read. */
const nameIn = (json: unknown): string | undefined => {
  const name = typeof json === "object" && json !== null ? (json as { hook_event_name?: unknown }).hook_event_name : undefined;
  return typeof name === "string" ? name : undefined;
};

/**
 * Answer one event (the JSON text Claude Code sends) with the stack `source` loads.
 *
 * @example
 * const answer = await answerHookEvent(stdin, (approval) => loadStack(file, cwd, "default", { approval }), { failOpen: false, who: "agent-onion claude-hook", flush: true })
 */
export const answerHookEvent = (text: string | undefined, source: StackSource, options: AnswerOptions): Promise<HookAnswer> => {
  const answering = answerWithin(text, source, options);
  const deadline = options.deadline;
  if (deadline === undefined) return answering;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<HookAnswer>((resolve) => {
    timer = setTimeout(() => {
      const event = nameIn(tryParse(text));
      resolve({
        ...(event !== undefined ? { event } : {}),
        exitCode: options.failOpen ? 1 : 2,
        stderr: `${options.who}: the stack did not decide within ${deadline.ms / 1000} s (${deadline.label})`,
      });
    }, deadline.ms);
    // Nothing to wait for but this timer: the stack can no longer decide, and the process ends as
    // an unanswered one does (run.ts), now rather than at the deadline.
    timer.unref();
  });
  return Promise.race([answering, late]).finally(() => clearTimeout(timer));
};

/** The event's JSON, when it is JSON. */
const tryParse = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : parseJson(text);
  } catch {
    return undefined;
  }
};

const answerWithin = async (text: string | undefined, source: StackSource, options: AnswerOptions): Promise<HookAnswer> => {
  const refuse = (message: string, event?: string): HookAnswer => ({
    ...(event !== undefined ? { event } : {}),
    exitCode: options.failOpen ? 1 : 2,
    stderr: `${options.who}: ${message}`,
  });
  if (text === undefined || text.trim() === "") return refuse("no event on stdin (Claude Code pipes the event JSON to its hooks)");
  let json: unknown;
  let event: BridgeEvent;
  try {
    json = parseJson(text);
    event = fromClaudeEvent(json);
  } catch (error) {
    if (error instanceof UndrivenEventError)
      return { event: error.event, exitCode: 1, stderr: `${options.who}: ${error.message}; ${afterExitOne(error.event)}` };
    return refuse(`cannot read the event: ${describe(error)}`, nameIn(json));
  }
  let stack: AgentStack;
  try {
    stack = await source(bridgeApproval);
  } catch (error) {
    return refuse(describe(error), event.event);
  }
  routeNotices();
  const scope: EventScope = { event: event.event, asks: [], told: [] };
  let reply = await current.run(scope, async () => {
    const r = await runBridge(stack, event, { asks: scope.asks, approval: bridgeApproval });
    if (options.flush) await stack.flush();
    return r;
  });
  // It goes where Claude Code shows it: systemMessage, or stderr with exit 2.
  let out = reply.json;
  if (scope.told.length > 0) {
    const told = scope.told.join("\n");
    if (reply.exitCode === 0)
      out = { ...out, systemMessage: cleanText(typeof out?.systemMessage === "string" ? `${out.systemMessage}\n${told}` : told) };
    else reply = { ...reply, stderr: reply.stderr ? `${reply.stderr}\n${told}` : told };
  }
  return {
    event: event.event,
    exitCode: reply.exitCode === 2 && options.failOpen ? 1 : reply.exitCode,
    ...(out && Object.keys(out).length > 0 ? { json: out } : {}),
    ...(reply.stderr ? { stderr: reply.stderr } : {}),
  };
};

/** Events whose blocking answer in JSON is a top-level `decision: "block"` (the reference's Decision control table). */
const blockByDecision = new Set([
  "UserPromptSubmit",
  "UserPromptExpansion",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Stop",
  "SubagentStop",
  "ConfigChange",
  "PreCompact",
  "TaskCreated",
]);

/** An HTTP hook's answer: status, and a JSON body or none. */
export interface HttpAnswer {
  readonly status: number;
  readonly body?: string;
  readonly contentType?: string;
}

/**
 * The same answer for an HTTP hook. Claude Code reads a 2xx JSON body as a command's stdout, and
 * anything else as a non-blocking error; no status blocks. So exit 2 becomes the JSON that blocks
 * on that event (a deny on PreToolUse, `decision: "block"` where the event takes one, and on the
 * events where exit 2 only shows stderr to the user, a `systemMessage`), and exit 1 becomes a 500.
 *
 * @example
 * httpAnswer({ event: "PreToolUse", exitCode: 2, stderr: "cannot load guard.ts" }).body // '{"hookSpecificOutput":{..."permissionDecision":"deny"...}}'
 */
export const httpAnswer = (answer: HookAnswer): HttpAnswer => {
  const json = (value: Record<string, unknown>): HttpAnswer => ({
    status: 200,
    body: JSON.stringify(value),
    contentType: "application/json",
  });
  if (answer.exitCode === 0) return answer.json ? json(answer.json) : { status: 200 };
  const reason = answer.stderr ?? "agent-onion could not decide";
  if (answer.exitCode === 1) return { status: 500, body: `${reason}\n`, contentType: "text/plain; charset=utf-8" };
  const event = answer.event;
  // No event name to say how to block with: Claude Code never sends such a request.
  if (event === undefined) return { status: 400, body: `${reason}\n`, contentType: "text/plain; charset=utf-8" };
  if (event === "PreToolUse")
    return json({
      ...answer.json,
      hookSpecificOutput: {
        ...(answer.json?.hookSpecificOutput as object | undefined),
        hookEventName: event,
        permissionDecision: "deny",
        permissionDecisionReason: reason,
      },
    });
  if (blockByDecision.has(event)) return json({ ...answer.json, decision: "block", reason });
  return json({ ...answer.json, systemMessage: reason });
};
