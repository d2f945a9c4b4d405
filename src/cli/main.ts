/**
 * The `agent-onion` command line: dispatch, usage, and exit codes.
 *
 * Exit codes: 0 success (for `try`: the action would go ahead); 1 an error; 2 blocked (the
 * Claude Code protocol's blocking code: `claude-hook` uses it for its decisions and, so that
 * a broken guard never allows, for its own failures); 64 a usage mistake (but `claude-hook`,
 * whose every exit code Claude Code reads, exits 2, or 1 with `--fail-open`).
 */
import { describe } from "../core/errors.ts";
import { nearestName } from "../core/nearest-name.ts";
import { UsageError, type CliIo } from "./io.ts";

/**
 * The usage text printed for `--help` and usage mistakes.
 *
 * @example
 * io.err(USAGE)
 */
export const USAGE = `Usage: agent-onion <command> [options]

Commands:
  claude-hook <module> [--export <name>] [--fail-open] [--timeout <seconds>]
      Act as a Claude Code command hook: read the event JSON on stdin, run the stack exported
      by <module> (default export, or a function returning a stack) and answer in the protocol.
      In settings.json: {"type": "command", "command": "npx", "args": ["agent-onion", "claude-hook", "hooks/guard.ts"]}
      --timeout (also for serve): seconds to wait for the stack before answering "could not decide"
      (default 590, under Claude Code's 600); keep it below the hook's "timeout" in settings.
  serve <module> [--port <port>] [--host <address>] [--export <name>] [--fail-open] [--no-watch] [--timeout <seconds>] [--max-restarts <n>]
      Answer Claude Code's http hooks from a resident process, with the same decisions as
      claude-hook; reload the module when a file beside it changes. Port 7337, host 127.0.0.1.
      In settings.json: {"type": "http", "url": "http://127.0.0.1:7337/"}
  try --settings <file> [--settings <file>...] --event <Event> [--project-dir <dir>] [--fail-open] [--json]
      Run the hooks of Claude Code settings files (user, project, local: lowest precedence
      first) against the event JSON on stdin; print the decision, the answer and the trace.
  explain (--settings <file>... | --module <module>) --event <Event> [--input <event JSON>] [--project-dir <dir>] [--json]
      Print which hooks would run for the event, in order, and why others would not.
  --version
      Print the version.

<module> is a .js, .mjs, .cjs file, or a .ts, .mts, .cts file (which needs tsx in the project).

Events: SessionStart UserPromptSubmit PreToolUse PostToolUse PostToolUseFailure Stop SubagentStop
        PreCompact PostCompact StopFailure SessionEnd Notification

Exit codes: 0 ok / allowed, 1 error, 2 blocked by try, 64 usage error. claude-hook answers a block
with exit 0 and JSON, as Claude Code reads it, and exits 2 only when it cannot decide (1 with --fail-open).
`;

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

// Loaded on demand: `claude-hook` runs once per tool call, so it must not pay for the settings
// loader and its schemas (Effect) that only `try` and `explain` need.
const commands: Record<string, () => Promise<Command>> = {
  "claude-hook": async () => (await import("./claude-hook.ts")).claudeHook,
  serve: async () => (await import("./serve.ts")).serveCommand,
  try: async () => (await import("./try.ts")).tryCommand,
  explain: async () => (await import("./explain.ts")).explainCommand,
  // The child process of `serve`; not for people.
  "_hook-process": async () => (await import("./hook-process-command.ts")).hookProcessCommand,
};

/** Commands whose every exit code Claude Code reads: a usage mistake must not look like a block by accident, nor an allow. */
const hookCommands = new Set(["claude-hook", "_hook-process"]);

/**
 * Run the CLI with `argv` (without `node` and the script); returns the exit code.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2), processIo())
 */
export const main = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    (name === undefined ? io.err : io.out)(USAGE);
    return name === undefined ? 64 : 0;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    io.err(`agent-onion: unknown command "${name}"\n\n${USAGE}`);
    return 64;
  }
  try {
    return await (await load())(rest, io);
  } catch (error) {
    // parseArgs throws TypeErrors with codes like ERR_PARSE_ARGS_UNKNOWN_OPTION.
    const usage = error instanceof UsageError || String((error as { code?: unknown })?.code ?? "").startsWith("ERR_PARSE_ARGS");
    const message = usage ? usageMistake(name, error) : describe(error);
    if (hookCommands.has(name)) {
      // Claude Code shows a hook's stderr to Claude and the user: one line, not the whole usage.
      io.err(`agent-onion ${name}: ${message}${usage ? "; agent-onion --help shows the usage" : ""}\n`);
      return rest.includes("--fail-open") ? 1 : 2;
    }
    io.err(`agent-onion ${name}: ${message}\n${usage ? `\n${USAGE}` : ""}`);
    return usage ? 64 : 1;
  }
};

/**
 * A usage mistake in a few words: an unknown option with the option of the command it is nearest
 * (node's own message explains `--` at length and suggests nothing).
 */
const usageMistake = (command: string, error: unknown): string => {
  const unknown = /^Unknown option '([^']+)'/.exec((error as Error)?.message ?? "");
  if (unknown === null || (error as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return describe(error);
  const line = USAGE.split("\n").find((l) => l.startsWith(`  ${command} `)) ?? "";
  const near = nearestName(unknown[1]!, line.match(/--[a-z-]+/g) ?? []);
  return `unknown option "${unknown[1]}"${near === undefined ? "" : ` (did you mean "${near}"?)`}`;
};
