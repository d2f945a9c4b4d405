/**
 * The environment a tool's shell command runs with: what the session's start hooks exported
 * through Claude Code's `CLAUDE_ENV_FILE` reaches later commands, as in Claude Code's Bash tool.
 */
import type { ToolExecuteOptions } from "./tool.ts";

/**
 * `base` (default this process's environment) with the variables the session's start hooks
 * exported added over it: what a tool passes to the commands it starts.
 *
 * @example
 * const bash = defineTool<{ command: string }>({
 *   name: "Bash",
 *   execute: ({ command }, options) => execFileSync("bash", ["-c", command], { env: commandEnv(options), encoding: "utf8" }),
 * })
 */
export const commandEnv = (
  options: Pick<ToolExecuteOptions, "env"> | undefined,
  base: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (typeof value === "string") env[name] = value;
  for (const [name, value] of Object.entries(options?.env ?? {})) if (typeof value === "string") env[name] = value;
  return env;
};
