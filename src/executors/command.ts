/**
 * `commandHook`: run a Claude Code command hook unchanged. The event JSON goes on stdin (tool
 * input is never placed in the command text), the answer is read from the exit code, stdout
 * and stderr, and the child gets an allowlisted environment and its own process group.
 */
import { basename } from "node:path";
import { commandAnswer } from "./answer.ts";
import { childEnv } from "./env.ts";
import type { ClaudeEvent } from "./events.ts";
import { claudeDefaultSeconds, externalHook, resolveTimeoutMs, type ExternalHook, type ExternalHookOptions } from "./external.ts";
import { runProcess } from "./process.ts";
import { checkLimit } from "./limits.ts";

export interface CommandHookOptions<E extends ClaudeEvent = ClaudeEvent> extends ExternalHookOptions<E> {
  /** Shell form: a command line for `/bin/sh -c`. Exec form (with `args`): the executable, resolved on PATH. */
  readonly command: string;
  /** Exec form: the argument vector, no shell involved. */
  readonly args?: readonly string[];
  /** Shell form only (ignored with `args`, as in Claude Code): `bash -c` or `pwsh -NoProfile -Command` instead of `/bin/sh -c`. */
  readonly shell?: "bash" | "powershell";
  /** Variables set for the child, on top of the allowlisted ones. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names copied from `process.env` besides PATH, HOME, LANG and the other defaults. */
  readonly allowedEnvVars?: readonly string[];
  /** `CLAUDE_PROJECT_DIR` for the child and for `${CLAUDE_PROJECT_DIR}` in exec form. Default: the cwd. */
  readonly projectDir?: string;
  /** Between SIGTERM and SIGKILL on timeout. Default 1000 ms. */
  readonly killGraceMs?: number;
  /** More stdout kills the process and fails the hook. Default 1 MiB. */
  readonly maxStdoutBytes?: number;
  /** stderr kept for reasons and errors. Default 64 KiB. */
  readonly maxStderrBytes?: number;
}

const placeholders = (text: string, env: Readonly<Record<string, string>>): string =>
  text.replace(/\$\{(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}/g, (m, key: string) => env[key] ?? m);

const check = (options: CommandHookOptions<ClaudeEvent>): void => {
  if (typeof options.command !== "string" || options.command.trim() === "") throw new TypeError("commandHook: command must be a non-empty string");
  if (options.shell !== undefined && options.shell !== "bash" && options.shell !== "powershell")
    throw new TypeError(`commandHook: shell must be "bash" or "powershell", got ${JSON.stringify(options.shell) ?? String(options.shell)}`);
  checkLimit("commandHook", "killGraceMs", options.killGraceMs, "delay");
  checkLimit("commandHook", "maxStdoutBytes", options.maxStdoutBytes, "bytes");
  checkLimit("commandHook", "maxStderrBytes", options.maxStderrBytes, "bytes");
  if (options.args !== undefined) {
    if (!Array.isArray(options.args) || options.args.some((a) => typeof a !== "string")) throw new TypeError("commandHook: args must be an array of strings");
    if (/\s/.test(options.command) && !options.command.includes("/"))
      throw new TypeError(`commandHook: in exec form "command" is one executable; move the extra words of ${JSON.stringify(options.command)} into args`);
  }
};

/**
 * A hook that runs a shell command (or an executable with `args`) with Claude Code's protocol.
 *
 * @example
 * stack.use("toolCall", commandHook({ event: "PreToolUse", match: "Bash", command: "node", args: ["hooks/block-rm.mjs"], timeout: 5 }))
 */
export const commandHook = <E extends ClaudeEvent>(options: CommandHookOptions<E>): ExternalHook<E> => {
  check(options as CommandHookOptions<ClaudeEvent>);
  const timeoutMs = resolveTimeoutMs(options, claudeDefaultSeconds(options.event));
  const grace = options.killGraceMs ?? 1000;
  const maxStdoutBytes = options.maxStdoutBytes ?? 1024 * 1024;
  const label = basename((options.args ? options.args[0] : undefined) ?? options.command.split(/\s+/)[0] ?? "command");
  const name = options.name ?? `command:${label}`;
  return externalHook({ ...options, name }, timeoutMs, async ({ json, signal, cwd }) => {
    const env = childEnv({
      allowedEnvVars: options.allowedEnvVars,
      env: { CLAUDE_PROJECT_DIR: options.projectDir ?? cwd, ...options.env },
    });
    const result = await runProcess({
      command: options.args ? placeholders(options.command, env) : options.command,
      args: options.args?.map((a) => placeholders(a, env)), shell: options.shell,
      input: json, env, cwd, timeoutMs, signal, killGraceMs: grace, maxStdoutBytes,
      maxStderrBytes: options.maxStderrBytes,
    });
    return commandAnswer(name, options.event, result, { timeoutMs, maxStdoutBytes });
  }, grace + 1500);
};
