/**
 * `agent-onion claude-hook <module>`: act as a Claude Code command hook. Read the event on stdin,
 * run the module's stack on the matching point, answer with exit code and JSON (see
 * hook-answer.ts for what each exit code means). The module is loaded after the event is read,
 * and only for an event agent-onion drives.
 */
import { parseArgs } from "node:util";
import { maxTimerMs } from "../core/signal.ts";
import { answerHookEvent } from "./hook-answer.ts";
import { UsageError, type CliIo } from "./io.ts";
import { loadStack } from "./load-stack.ts";

/**
 * How long `claude-hook` waits for the stack by default: under Claude Code's own default of 600
 * seconds for a command hook, after which Claude Code would let the action go on.
 *
 * @example
 * // settings.json, for a hook with "timeout": 30: "args": ["agent-onion", "claude-hook", "--timeout", "25", "hooks/guard.ts"]
 */
export const DEFAULT_TIMEOUT_SECONDS = 590;

/**
 * Run the `claude-hook` command; returns the exit code.
 *
 * @example
 * // settings.json: { "type": "command", "command": "npx", "args": ["agent-onion", "claude-hook", "hooks/guard.ts"] }
 * await claudeHook(["hooks/guard.ts"], processIo())
 */
export const claudeHook = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      export: { type: "string", default: "default" },
      "fail-open": { type: "boolean", default: false },
      timeout: { type: "string" },
    },
  });
  if (positionals.length !== 1) throw new UsageError("claude-hook takes exactly one module path");
  const file = positionals[0]!;
  const seconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (values.timeout !== undefined && (values.timeout.trim() === "" || !(seconds > 0 && seconds * 1000 <= maxTimerMs)))
    throw new UsageError(`--timeout must be a positive number of seconds, got ${JSON.stringify(values.timeout)}`);
  const answer = await answerHookEvent(await io.readStdin(), (approval) => loadStack(file, io.cwd, values.export!, { approval }), {
    failOpen: values["fail-open"]!,
    who: "agent-onion claude-hook",
    flush: true,
    deadline: { ms: seconds * 1000, label: values.timeout === undefined ? "the default --timeout" : "--timeout" },
  });
  if (answer.json) io.out(`${JSON.stringify(answer.json)}\n`);
  if (answer.stderr) io.err(`${answer.stderr}\n`);
  return answer.exitCode;
};
