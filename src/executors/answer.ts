/**
 * Reading what an external hook said. A process result or an HTTP response becomes a
 * `HookAnswer` (block, JSON output, plain text), or an `ExecutorError` saying why it could not:
 * every exit path of Claude Code's protocol is decided here and nowhere else.
 */
import { ExecutorError } from "./errors.ts";
import { claudeEvents, type ClaudeEvent } from "./events.ts";
import { parseJson } from "./json.ts";
import type { ProcessResult } from "./process.ts";
import { cleanText } from "./sanitize.ts";
import { decodeHookOutput, type HookOutput } from "./schemas.ts";

/** What an external hook answered, before it is turned into a HookAction. */
export interface HookAnswer {
  /** A blocking answer's own text (exit 2's stderr, a verdict's reason); the reason of a JSON blocking decision wins over it. */
  readonly block?: string;
  readonly output?: HookOutput;
  /** Plain (non-JSON) stdout, cleaned and capped. */
  readonly text?: string;
  /** A prompt hook judged a Stop condition impossible: let the stop happen. */
  readonly impossible?: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/**
 * `{` then a key or `}`: what an object meant as the answer starts with, whole or broken, also
 * when another language printed it: a quoted key (`{'decision': 'block'}` from Python), a bare
 * name and `:`, `=` or `=>` (`{decision: "block"}`, `{decision = "block"}`), a symbol
 * (`{:decision=>"block"}` from Ruby). `{WIP} ...` does not.
 */
const looksLikeObject = /^\{\s*(?:["'}]|:[A-Za-z_]|[A-Za-z_$][\w$-]*\s*(?::|=))/;

/**
 * Read stdout (or a response body) as Claude Code does: text starting with `{` is parsed as
 * the JSON answer, which must fit the schema; anything else is plain text. Claude Code reads
 * `{` text that does not parse as plain text; we do so only when it does not look like a JSON
 * object (`{WIP} on main`). Text that does (`{"decision": "block",`) is a broken answer and an
 * error, as is a banner printed before the JSON: a guard that malfunctions fails closed (D8).
 *
 * @example
 * readAnswerText("guard", "PreToolUse", '{"decision":"block","reason":"no"}') // { output: { decision: "block", reason: "no" } }
 * readAnswerText("ctx", "UserPromptSubmit", "{WIP} on main") // { text: "{WIP} on main" }
 */
export const readAnswerText = (hook: string, event: ClaudeEvent, text: string): Pick<HookAnswer, "output" | "text"> => {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  if (trimmed.startsWith("{")) {
    let value: unknown;
    try {
      value = parseJson(trimmed);
    } catch (error) {
      if (looksLikeObject.test(trimmed)) throw new ExecutorError("invalid-json", `hook "${hook}" printed invalid JSON: ${(error as Error).message}`);
      value = undefined; // plain text, unless it is a banner before JSON (below)
    }
    if (value !== undefined) return { output: decodeHookOutput(hook, event, value) };
  }
  if (/\n\s*\{/.test(trimmed) && trimmed.endsWith("}"))
    throw new ExecutorError("invalid-json", `hook "${hook}" printed text before its JSON; stdout must contain only the JSON object`);
  return { text: cleanText(trimmed) };
};

/** The line of stderr that says what went wrong: the first mentioning an error, else the first. */
const firstLine = (buf: Buffer): string => {
  const lines = cleanText(lenient.decode(buf)).split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return lines.find((l) => /error|denied|not found|no such/i.test(l)) ?? lines[0] ?? "";
};

/**
 * Interpret a command hook's process result: exit 0 reads stdout, exit 2 blocks with stderr
 * (a JSON blocking reason wins), another exit code counts only if stdout holds valid JSON
 * (as in Claude Code); everything else is an `ExecutorError`.
 *
 * @example
 * commandAnswer("guard", "PreToolUse", result) // { block: "rm is not allowed" } for exit 2
 */
export const commandAnswer = (
  hook: string,
  event: ClaudeEvent,
  r: ProcessResult,
  limits: { readonly timeoutMs: number; readonly maxStdoutBytes: number },
): HookAnswer => {
  if (r.spawnError) throw new ExecutorError("spawn", `could not start: ${r.spawnError.message}`, { cause: r.spawnError });
  if (r.timedOut) throw new ExecutorError("timeout", `timed out after ${limits.timeoutMs} ms; its process tree was killed`);
  if (r.aborted) throw new ExecutorError("aborted", "the run was cancelled; its process tree was killed");
  if (r.stdoutOverflow) throw new ExecutorError("output-too-large", `printed more than ${limits.maxStdoutBytes} bytes on stdout; killed`);
  if (r.exitCode === null) throw new ExecutorError("signal", `was killed by ${r.signal ?? "a signal"}${r.stderr.length ? `: ${firstLine(r.stderr)}` : ""}`);
  let stdout: string;
  try {
    stdout = utf8.decode(r.stdout);
  } catch {
    if (r.exitCode === 2 && claudeEvents[event]?.ignoresExitCode !== true) return { block: cleanText(lenient.decode(r.stderr)) || `exited with code 2` };
    throw new ExecutorError("invalid-utf8", "printed bytes on stdout that are not valid UTF-8");
  }
  // StopFailure and Notification ignore exit 2 like any other code (below): it blocks nothing and its stderr is not shown.
  if (r.exitCode === 2 && claudeEvents[event]?.ignoresExitCode !== true) {
    let read: Pick<HookAnswer, "output" | "text"> = {};
    try {
      read = readAnswerText(hook, event, stdout);
    } catch {
      // Exit 2 blocks even when the JSON beside it is broken (Claude Code 2.1.214); stderr is the reason.
    }
    return { ...(read.output ? { output: read.output } : {}), block: cleanText(lenient.decode(r.stderr)) || "exited with code 2" };
  }
  if (r.exitCode === 0) return readAnswerText(hook, event, stdout);
  // StopFailure and Notification: Claude Code ignores the exit code, so a script that exits 1 has not failed.
  if (claudeEvents[event]?.ignoresExitCode === true) {
    try {
      return readAnswerText(hook, event, stdout);
    } catch {
      return {};
    }
  }
  let read: Pick<HookAnswer, "output" | "text"> | undefined;
  try {
    read = readAnswerText(hook, event, stdout);
  } catch {
    read = undefined;
  }
  if (read?.output) return { output: read.output };
  throw new ExecutorError("exit-code", `exited with code ${r.exitCode}${r.stderr.length ? `: ${firstLine(r.stderr)}` : ""}`);
};

/**
 * Interpret an HTTP hook's answer: 2xx with an empty body is no decision, 2xx with a JSON
 * object is read like stdout, anything else (plain text, non-2xx, redirects) is an error.
 *
 * @example
 * httpAnswer("audit", "PostToolUse", 204, Buffer.alloc(0)) // {}
 */
export const httpAnswer = (hook: string, event: ClaudeEvent, status: number, body: Buffer): HookAnswer => {
  if (status >= 300 && status < 400) throw new ExecutorError("http-status", `answered ${status}; redirects are never followed`);
  if (status < 200 || status >= 300) throw new ExecutorError("http-status", `answered HTTP ${status}${body.length ? `: ${firstLine(body.subarray(0, 500))}` : ""}`);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ExecutorError("invalid-utf8", "answered a body that is not valid UTF-8");
  }
  const read = readAnswerText(hook, event, text);
  if (read.text !== undefined) throw new ExecutorError("invalid-json", `answered HTTP ${status} with a body that is not a JSON object`);
  return read;
};
