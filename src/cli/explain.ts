/**
 * `agent-onion explain`: which hooks would run for an event, in which order, and why the others
 * would not, for settings files or a TypeScript stack module.
 */
import { parseArgs } from "node:util";
import type { AgentStack } from "../agent/stack.ts";
import { fromClaudeEvent } from "../executors/bridge-event.ts";
import { bridgedPhases, runsOnEvent } from "../executors/bridge.ts";
import type { UnusedHandler } from "../executors/settings.ts";
import { fromClaudeSettings } from "../executors/settings.ts";
import { completeEvent, eventName } from "./event-input.ts";
import { UsageError, type CliIo } from "./io.ts";
import { loadStack } from "./load-stack.ts";

/**
 * Run the `explain` command; returns the exit code.
 *
 * @example
 * agent-onion explain --settings .claude/settings.json --event PreToolUse --input '{"tool_input":{"command":"git push"}}'
 */
export const explainCommand = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      settings: { type: "string", multiple: true },
      "project-dir": { type: "string" },
      module: { type: "string" },
      export: { type: "string", default: "default" },
      event: { type: "string" },
      input: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const event = eventName(values.event);
  if (!values.settings?.length && !values.module) throw new UsageError("explain needs --settings <file>... or --module <file>");
  if (values.settings?.length && values.module) throw new UsageError("give --settings or --module, not both");
  let stack: AgentStack;
  let unused: readonly UnusedHandler[] = [];
  if (values.module) {
    stack = await loadStack(values.module, io.cwd, values.export!, { approval: () => ({ decision: "approve" }) });
  } else {
    // The person named these files on the command line: that is the trust a project layer needs.
    // No model on the command line: prompt and agent hooks are listed as not run, with the reason.
    const options = { cwd: io.cwd, projectDir: values["project-dir"] ?? io.cwd, trustProjectSettings: true, withoutModel: "skip" } as const;
    ({ stack, unused } = fromClaudeSettings(values.settings!, options));
  }
  const ev = fromClaudeEvent(completeEvent(values.input, event, io.cwd));
  // The rule claude-hook runs by: some events run only some phases, the others every hook.
  const keep = bridgedPhases(event);
  const lines = (stack.explain as (p: string, i: unknown) => ReturnType<AgentStack["explain"]>)(ev.spec.point, ev.input).map((e) => {
    const phase = runsOnEvent(e.phases, keep);
    const runs = e.matches && !e.disabled && phase;
    const why = e.disabled
      ? "disabled"
      : !e.matches
        ? `match ${JSON.stringify(e.match)} does not match`
        : !phase
          ? `no ${keep?.join(" or ")} phase (not a ${event} hook)`
          : "";
    return { ...e, runs, why };
  });
  if (values.json) {
    io.out(
      `${JSON.stringify({ event, point: ev.spec.point, phase: ev.spec.phase, phases: keep ?? "all", hooks: lines, unused }, null, 2)}\n`,
    );
    return 0;
  }
  io.out(
    `${event} runs ${keep === undefined ? "every hook" : `the ${keep.join(" and ")} phases`} of ${ev.spec.point}; hooks in onion order (outermost first):\n`,
  );
  let n = 0;
  for (const l of lines) {
    const mark = l.runs ? `${++n}.` : "-";
    const match = l.match && l.match !== "*" ? `, match ${l.match}` : "";
    io.out(
      `${mark.padEnd(4)}${l.hook}  [priority ${l.priority}, ${l.failMode}${match}${l.shadow ? ", shadow" : ""}]${l.runs ? "" : `  skipped: ${l.why}`}\n`,
    );
    if (l.source) io.out(`      from ${l.source}\n`);
  }
  if (lines.length === 0) io.out("(no hooks on this point)\n");
  for (const u of unused) io.out(`not run: ${u.source}: ${u.reason}\n`);
  return 0;
};
