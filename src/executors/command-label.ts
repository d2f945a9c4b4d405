/**
 * Short labels for command hooks, for their default names. A hook's name is shown to the model
 * (in rejection reasons) and written to audit records, spans and metrics, so it is taken from a
 * program's or script's file name only, never from what may carry a credential: a `NAME=value`
 * assigned before the program, inline code (`node -e`, `bash -c`), a URL.
 */
import { basename } from "node:path";

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;
const fileLike = /^[\w.@+~-]+$/;
const interpreters = new Set(["node", "bun", "deno", "python", "python3", "bash", "sh", "zsh", "npx", "tsx", "ruby", "perl"]);
/** Options after which an interpreter reads code, not a file. */
const inlineCode = new Set(["-c", "-e", "-p", "-r", "--eval", "--print", "--command"]);

/** The words of a command from its program on: leading `NAME=value` assignments are not part of it. */
const programWords = (command: string, args: readonly string[] | undefined): string[] => {
  const words = args ? [command, ...args] : command.trim().split(/\s+/);
  const at = words.findIndex((w) => !assignment.test(w));
  return at < 0 ? [] : words.slice(at);
};

/** A word's file name, when it is a path to a file (not a URL, an assignment or code). */
const fileName = (word: string | undefined): string | undefined => {
  if (word === undefined) return undefined;
  const unquoted = word.replace(/^["']|["']$/g, "");
  if (unquoted.includes("://") || unquoted.includes("=")) return undefined;
  const name = basename(unquoted).replace(/^["']|["']$/g, "");
  return fileLike.test(name) ? name : undefined;
};

/**
 * The file name of a command's program (`command` when there is none to show).
 *
 * @example
 * programLabel("API_TOKEN=sk-1 ./hooks/guard.sh --strict") // "guard.sh"
 */
export const programLabel = (command: string, args?: readonly string[]): string => fileName(programWords(command, args)[0]) ?? "command";

/**
 * The file name of the script an interpreter runs, else of the program.
 *
 * @example
 * scriptLabel("node", ["${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.mjs"]) // "guard.mjs"
 * scriptLabel(`node -e "fetch('https://hooks.example/T0/secret')"`) // "node"
 */
export const scriptLabel = (command: string, args?: readonly string[]): string => {
  const [program, ...rest] = programWords(command, args);
  const exe = fileName(program) ?? "command";
  if (!interpreters.has(exe)) return exe;
  for (const word of rest) {
    if (inlineCode.has(word)) return exe;
    if (!word.startsWith("-")) return fileName(word) ?? exe;
  }
  return exe;
};
