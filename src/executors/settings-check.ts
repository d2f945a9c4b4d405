/**
 * Load-time checks of command hooks (D6): a hook whose program is a path that does not exist,
 * is a directory, or may not be executed is reported when the settings are loaded, instead of
 * on the first tool call it would have guarded. Programs looked up on PATH, and paths that
 * depend on variables other than `CLAUDE_PROJECT_DIR` (and a plugin's `CLAUDE_PLUGIN_ROOT`), are
 * known only when they run.
 */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { firstCommand, isAssignment } from "../core/match/shell.ts";

// The shell expands both spellings; exec form replaces only the braced one (see command.ts).
const inShell = (name: string) => new RegExp(`\\$\\{${name}\\}|\\$${name}(?![A-Za-z0-9_])`, "g");
const inExec = (name: string) => new RegExp(`\\$\\{${name}\\}`, "g");

/**
 * The program a command hook starts, as an absolute path, when it is a path known before it
 * runs; otherwise `undefined`.
 *
 * @example
 * commandProgram('"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --fast', undefined, "/repo", "/repo") // "/repo/.claude/hooks/check.sh"
 */
export const commandProgram = (
  command: string,
  args: readonly string[] | undefined,
  project: string,
  cwd: string,
  pluginRoot?: string,
): string | undefined => {
  const known: [string, string][] = [
    ["CLAUDE_PROJECT_DIR", project],
    ...(pluginRoot !== undefined ? [["CLAUDE_PLUGIN_ROOT", pluginRoot] as [string, string]] : []),
  ];
  let expanded: string;
  if (args !== undefined) {
    // Exec form: the executable itself, taken literally but for the braced placeholders.
    expanded = known.reduce((text, [name, value]) => text.replace(inExec(name), () => value), command);
  } else {
    const first = firstCommand(command)?.find((w) => !isAssignment(w));
    if (first === undefined) return undefined;
    expanded = known.reduce((text, [name, value]) => text.replace(inShell(name), () => value), first.text);
    // `~` is the shell's to expand; other variables and backticks are known only at run time.
    if (/[$`]/.test(expanded) || expanded.startsWith("~")) return undefined;
  }
  if (!expanded.includes("/")) return undefined; // looked up on PATH
  return isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
};

/**
 * What is wrong with `path` as a program to run, or `undefined` when it looks runnable.
 *
 * @example
 * programProblem("/repo/.claude/hooks/missing.sh") // "does not exist"
 */
export const programProblem = (path: string): string | undefined => {
  try {
    if (statSync(path).isDirectory()) return "is a directory";
  } catch {
    return "does not exist";
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return "is not executable";
  }
  return undefined;
};
