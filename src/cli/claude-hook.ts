/**
 * `agent-onion claude-hook <module>`: act as a Claude Code command hook. Read the event on
 * stdin, run the module's TypeScript stack on the matching point, answer with exit code and
 * JSON. Anything that keeps the bridge from deciding (a module that does not load, an event
 * it cannot read) exits 2, which blocks: a broken guard must not silently allow. `--fail-open`
 * exits 1 instead, which Claude Code treats as a non-blocking error. An event we do not drive
 * (PermissionRequest, WorktreeRemove...) exits 1 too: no guard of ours covers it, so blocking it
 * would refuse what nothing checked, and on every such event but WorktreeCreate exit 1 lets
 * Claude Code go on as without the hook, showing why where it shows hook errors (exit 0's stderr
 * reaches only the debug log). WorktreeCreate fails on any exit: its hook must make the worktree.
 */
import { parseArgs } from "node:util";
import type { ApprovalHandler } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import { fromClaudeEvent, UndrivenEventError } from "../executors/bridge-event.ts";
import { runBridge } from "../executors/bridge.ts";
import { allClaudeEvents } from "../executors/events.ts";
import { hookWarningText, routeHookNotices } from "../executors/external.ts";
import { parseJson } from "../executors/json.ts";
import { cleanText } from "../executors/sanitize.ts";
import { UsageError, type CliIo } from "./io.ts";
import { loadStack } from "./load-stack.ts";

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

/**
 * Run the `claude-hook` command; returns the exit code.
 *
 * @example
 * // settings.json: { "type": "command", "command": "npx", "args": ["agent-onion", "claude-hook", "hooks/guard.ts"] }
 * await claudeHook(["hooks/guard.ts"], processIo())
 */
export const claudeHook = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv], allowPositionals: true, strict: true,
    options: { export: { type: "string", default: "default" }, "fail-open": { type: "boolean", default: false } },
  });
  if (positionals.length !== 1) throw new UsageError("claude-hook takes exactly one module path");
  const refuse = (message: string): number => {
    io.err(`agent-onion claude-hook: ${message}\n`);
    return values["fail-open"] ? 1 : 2;
  };
  const asks: { reason?: string | undefined }[] = [];
  // Known once stdin is read; hooks can only ask for approval after that.
  let eventName = "";
  const approval: ApprovalHandler = (request) => {
    // Claude Code asks the person only on PreToolUse (our answer there is "ask"); anywhere
    // else nobody can approve, and a guard that asked must not pass silently.
    if (eventName !== "PreToolUse")
      return { decision: "deny", reason: `approval required by ${request.hook}${request.reason ? ` (${request.reason})` : ""}, but Claude Code asks a person only on PreToolUse, so no one could approve on ${eventName}` };
    asks.push({ reason: request.reason });
    return { decision: "approve" };
  };
  let stack;
  try {
    // A factory gets it as its stack's handler; the bridge also passes it per run, for a module
    // that exports a stack made without one.
    stack = await loadStack(positionals[0]!, io.cwd, values.export!, { approval });
  } catch (error) {
    return refuse(describe(error));
  }
  let event;
  try {
    const text = await io.readStdin();
    if (text === undefined || text.trim() === "") return refuse("no event on stdin (Claude Code pipes the event JSON to its hooks)");
    event = fromClaudeEvent(parseJson(text));
    eventName = event.event;
  } catch (error) {
    if (error instanceof UndrivenEventError) {
      io.err(`agent-onion claude-hook: ${error.message}; ${afterExitOne(error.event)}\n`);
      return 1;
    }
    return refuse(`cannot read the event: ${describe(error)}`);
  }
  // What mounted command or HTTP hooks made without an `onNotice` have to tell the user.
  const told: string[] = [];
  const restore = routeHookNotices((n) => {
    const text = n.kind === "systemMessage" ? n.message : hookWarningText(n);
    if (text !== undefined) told.push(text);
  });
  let reply;
  try {
    reply = await runBridge(stack, event, { asks, approval });
    await stack.flush();
  } finally {
    restore();
  }
  // It goes where Claude Code shows it: systemMessage, or stderr with exit 2.
  let json = reply.json;
  if (told.length > 0) {
    const text = told.join("\n");
    if (reply.exitCode === 0) json = { ...json, systemMessage: cleanText(typeof json?.systemMessage === "string" ? `${json.systemMessage}\n${text}` : text) };
    else reply = { ...reply, stderr: reply.stderr ? `${reply.stderr}\n${text}` : text };
  }
  if (json && Object.keys(json).length > 0) io.out(`${JSON.stringify(json)}\n`);
  if (reply.stderr) io.err(`${reply.stderr}\n`);
  return reply.exitCode === 2 && values["fail-open"] ? 1 : reply.exitCode;
};
