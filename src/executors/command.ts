/**
 * `commandHook`: run a Claude Code command hook unchanged. The event JSON goes on stdin (tool
 * input is never placed in the command text), the answer is read from the exit code, stdout
 * and stderr, and the child runs in its own process group with the environment Claude Code
 * gives hooks (`CLAUDECODE`, `CLAUDE_PROJECT_DIR`, `CLAUDE_CODE_SESSION_ID`...) on top of either
 * an allowlist of our variables (the default here) or all of them (`environment: "inherit"`, as
 * Claude Code does, and as `fromClaudeSettings` does by default).
 */
import { programLabel } from "./command-label.ts";
import { commandAnswer } from "./answer.ts";
import { childEnv, inheritedEnv } from "./env.ts";
import type { AgentEvent } from "./events.ts";
import {
  EXTERNAL_HOOK_FIELDS,
  claudeDefaultSeconds,
  externalHook,
  resolveTimeoutMs,
  type ExternalHook,
  type ExternalHookOptions,
  type RunnerSpec,
} from "./external.ts";
import { runProcess } from "./process.ts";
import { checkLimit } from "./limits.ts";
import { knownOptions } from "../core/known-options.ts";

export interface CommandHookOptions<E extends AgentEvent = AgentEvent> extends ExternalHookOptions<E> {
  /** Shell form: a command line for `/bin/sh -c`. Exec form (with `args`): the executable, resolved on PATH. */
  readonly command: string;
  /** Exec form: the argument vector, no shell involved. */
  readonly args?: readonly string[];
  /** Shell form only (ignored with `args`, as in Claude Code): `bash -c` or `pwsh -NoProfile -Command` instead of `/bin/sh -c`. */
  readonly shell?: "bash" | "powershell";
  /** Variables set for the child, on top of the allowlisted ones. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names copied from `process.env` besides PATH, HOME, LANG and the other defaults (with `environment: "allowlist"`). */
  readonly allowedEnvVars?: readonly string[];
  /**
   * What the child inherits from `process.env`: `"allowlist"` (default) PATH, HOME, LANG and the
   * other defaults plus `allowedEnvVars`; `"inherit"` everything but OpenTelemetry exporter
   * settings (`OTEL_*`), as Claude Code gives its hooks.
   */
  readonly environment?: "allowlist" | "inherit";
  /** `CLAUDE_PROJECT_DIR` for the child and for `${CLAUDE_PROJECT_DIR}` in exec form. Default: the cwd. */
  readonly projectDir?: string;
  /** A plugin's directory: `CLAUDE_PLUGIN_ROOT` for this hook alone, and `${CLAUDE_PLUGIN_ROOT}` in exec form. */
  readonly pluginRoot?: string;
  /** The plugin's persistent data directory: `CLAUDE_PLUGIN_DATA`, and `${CLAUDE_PLUGIN_DATA}` in exec form. */
  readonly pluginData?: string;
  /** Between SIGTERM and SIGKILL on timeout. Default 1000 ms. */
  readonly killGraceMs?: number;
  /** More stdout kills the process and fails the hook. Default 1 MiB. */
  readonly maxStdoutBytes?: number;
  /** stderr kept for reasons and errors. Default 64 KiB. */
  readonly maxStderrBytes?: number;
}

const placeholders = (text: string, env: Readonly<Record<string, string>>): string =>
  text.replace(/\$\{(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA)\}/g, (m, key: string) => env[key] ?? m);

const check = (options: CommandHookOptions<AgentEvent>): void => {
  if (typeof options.command !== "string" || options.command.trim() === "")
    throw new TypeError("commandHook: command must be a non-empty string");
  if (options.shell !== undefined && options.shell !== "bash" && options.shell !== "powershell")
    throw new TypeError(`commandHook: shell must be "bash" or "powershell", got ${JSON.stringify(options.shell) ?? String(options.shell)}`);
  checkLimit("commandHook", "killGraceMs", options.killGraceMs, "delay");
  checkLimit("commandHook", "maxStdoutBytes", options.maxStdoutBytes, "bytes");
  checkLimit("commandHook", "maxStderrBytes", options.maxStderrBytes, "bytes");
  if (options.environment !== undefined && options.environment !== "allowlist" && options.environment !== "inherit")
    throw new TypeError(
      `commandHook: environment must be "allowlist" or "inherit", got ${JSON.stringify(options.environment) ?? String(options.environment)}`,
    );
  if (options.args !== undefined) {
    if (!Array.isArray(options.args) || options.args.some((a) => typeof a !== "string"))
      throw new TypeError("commandHook: args must be an array of strings");
    if (/\s/.test(options.command) && !options.command.includes("/"))
      throw new TypeError(
        `commandHook: in exec form "command" is one executable; move the extra words of ${JSON.stringify(options.command)} into args`,
      );
  }
};

/**
 * The runner of a command hook (for a hook of its own, or one of a set): its name, its deadline,
 * and how it runs the process for an event.
 *
 * @example
 * const { run, timeoutMs } = commandRunner({ event: "PreToolUse", command: "node", args: ["hooks/guard.mjs"] })
 */
export const commandRunner = <E extends AgentEvent>(options: CommandHookOptions<E>): RunnerSpec => {
  check(options as CommandHookOptions<AgentEvent>);
  const timeoutMs = resolveTimeoutMs(options, claudeDefaultSeconds(options.event));
  const grace = options.killGraceMs ?? 1000;
  const maxStdoutBytes = options.maxStdoutBytes ?? 1024 * 1024;
  const label = programLabel(options.command, options.args);
  const name = options.name ?? `command:${label}`;
  const inherit = options.environment === "inherit";
  return {
    name,
    timeoutMs,
    backstopMs: grace + 1500,
    processEnv: () =>
      inherit ? { ...inheritedEnv(), ...options.env } : childEnv({ allowedEnvVars: options.allowedEnvVars, env: options.env }),
    run: async ({ json, signal, cwd, env: claude }) => {
      const own: Record<string, string> = {
        ...claude,
        CLAUDE_PROJECT_DIR: options.projectDir ?? cwd,
        ...(options.pluginRoot !== undefined ? { CLAUDE_PLUGIN_ROOT: options.pluginRoot } : {}),
        ...(options.pluginData !== undefined ? { CLAUDE_PLUGIN_DATA: options.pluginData } : {}),
        ...options.env,
      };
      const env = inherit ? { ...inheritedEnv(), ...own } : childEnv({ allowedEnvVars: options.allowedEnvVars, env: own });
      const result = await runProcess({
        command: options.args ? placeholders(options.command, env) : options.command,
        args: options.args?.map((a) => placeholders(a, env)),
        shell: options.shell,
        input: json,
        env,
        cwd,
        timeoutMs,
        signal,
        killGraceMs: grace,
        maxStdoutBytes,
        maxStderrBytes: options.maxStderrBytes,
      });
      return commandAnswer(name, options.event, result, { timeoutMs, maxStdoutBytes });
    },
  };
};

/** Every field of `CommandHookOptions`: a misspelt one is refused rather than dropped. */
const COMMAND_HOOK_FIELDS = {
  ...EXTERNAL_HOOK_FIELDS,
  command: true,
  args: true,
  shell: true,
  env: true,
  allowedEnvVars: true,
  environment: true,
  projectDir: true,
  pluginRoot: true,
  pluginData: true,
  killGraceMs: true,
  maxStdoutBytes: true,
  maxStderrBytes: true,
} as const satisfies { readonly [K in keyof Required<CommandHookOptions<AgentEvent>>]: true };

/**
 * A hook that runs a shell command (or an executable with `args`) with Claude Code's protocol.
 *
 * @example
 * stack.use("toolCall", commandHook({ event: "PreToolUse", match: "Bash", command: "node", args: ["hooks/block-rm.mjs"], timeout: 5 }))
 */
export const commandHook = <E extends AgentEvent>(options: CommandHookOptions<E>): ExternalHook<E> => {
  knownOptions("commandHook", options, COMMAND_HOOK_FIELDS);
  const runner = commandRunner(options);
  return externalHook({ ...options, name: runner.name }, runner.timeoutMs, runner.run, runner.backstopMs, runner.processEnv);
};
