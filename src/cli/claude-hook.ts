/**
 * `agent-onion claude-hook <module>`: act as a Claude Code command hook. Read the event on stdin,
 * run the module's stack on the matching point, answer with exit code and JSON (see
 * hook-answer.ts for what each exit code means). The module is loaded after the event is read,
 * and only for an event agent-onion drives.
 */
import { parseArgs } from "node:util";
import { answerHookEvent } from "./hook-answer.ts";
import { timeoutSeconds, UsageError, type CliIo } from "./io.ts";
import { loadStack } from "./load-stack.ts";

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
  const seconds = timeoutSeconds(values.timeout);
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
