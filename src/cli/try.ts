/**
 * `agent-onion try --settings <file>... --event <Event>`: run settings hooks against an event
 * JSON on stdin and print the decision, what Claude Code would receive, and the trace. Exit 0
 * when the action would go ahead, 2 when it would be blocked.
 */
import { parseArgs } from "node:util";
import { fromClaudeEvent } from "../executors/bridge-event.ts";
import { runBridge } from "../executors/bridge.ts";
import type { ExternalNotice } from "../executors/protocol.ts";
import { fromClaudeSettings } from "../executors/settings.ts";
import { Trace } from "../core/trace.ts";
import { completeEvent, eventName } from "./event-input.ts";
import { UsageError, type CliIo } from "./io.ts";

const blocking = new Set(["deny", "block", "stop"]);

/**
 * Run the `try` command; returns the exit code.
 *
 * @example
 * echo '{"tool_input":{"command":"rm -rf /"}}' | agent-onion try --settings .claude/settings.json --event PreToolUse
 */
export const tryCommand = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      settings: { type: "string", multiple: true },
      "project-dir": { type: "string" },
      event: { type: "string" },
      "fail-open": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.settings?.length) throw new UsageError("try needs at least one --settings <file>");
  const event = eventName(values.event);
  const text = await io.readStdin();
  if (text === undefined) throw new UsageError("pipe the event JSON on stdin (an empty object {} is fine)");
  const json = completeEvent(text, event, io.cwd);
  const notices: ExternalNotice[] = [];
  const { stack, unused } = fromClaudeSettings(values.settings, {
    cwd: io.cwd,
    projectDir: values["project-dir"] ?? io.cwd,
    trustProjectSettings: true, // the person named these files on the command line: that is the trust a project layer needs
    withoutModel: "skip", // no model on the command line: prompt and agent hooks are listed as not run
    onNotice: (n) => notices.push(n),
    ...(values["fail-open"] ? { failMode: "open" } : {}),
  });
  const trace = new Trace();
  const reply = await runBridge(stack, fromClaudeEvent(json), { trace });
  await stack.flush();
  const code = reply.exitCode !== 0 ? reply.exitCode : blocking.has(reply.decision) ? 2 : 0;
  if (values.json) {
    io.out(
      `${JSON.stringify({ decision: reply.decision, reason: reply.reason, exitCode: reply.exitCode, answer: reply.json ?? null, trace: trace.entries, notices, unused }, null, 2)}\n`,
    );
    return code;
  }
  io.out(`decision: ${reply.decision}${reply.reason ? `\nreason:   ${reply.reason}` : ""}\n`);
  io.out(
    `Claude Code receives: exit ${reply.exitCode}${reply.json && Object.keys(reply.json).length ? `, ${JSON.stringify(reply.json)}` : ""}\n`,
  );
  io.out(`\ntrace:\n${trace.format() || "(no hook ran)"}\n`);
  for (const n of notices) io.out(`notice: ${n.hook}: ${n.kind}: ${n.message}\n`);
  for (const u of unused) io.out(`not run: ${u.source}: ${u.reason}\n`);
  return code;
};
