/**
 * Reading what an external hook said. A process result, an HTTP response or an MCP tool's text
 * becomes a `HookAnswer` (block, JSON output, plain text), or an `ExecutorError` saying why it
 * could not: every exit path of Claude Code's protocol is decided here and nowhere else.
 *
 * What stdout may hold: on events where Claude Code reads plain stdout as context
 * (UserPromptSubmit, SessionStart), plain text is context; everywhere else an answer is empty or
 * exactly one JSON object once surrounding whitespace is trimmed. Text around the object (a
 * banner, `checking... `, an ANSI colour code, `OK\r`) makes the answer unreadable: a hook
 * failure, which the failure policy decides (a guard mounted by hand blocks and says why).
 */
import { ExecutorError } from "./errors.ts";
import { agentEvents, type AgentEvent } from "./events.ts";
import type { HookAnswer } from "./hook-answer.ts";
import { duplicateKeys, parseJson } from "./json.ts";
import type { ProcessResult } from "./process.ts";
import { cleanText } from "./sanitize.ts";
import { malformedMessage, readHookOutput } from "./schemas.ts";

export type { HookAnswer } from "./hook-answer.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/**
 * `{` then a key or `}`: what an object meant as the answer starts with, whole or broken, also
 * when another language printed it: a quoted key (`{'decision': 'block'}` from Python), a bare
 * name and `:`, `=` or `=>` (`{decision: "block"}`, `{decision = "block"}`), a symbol
 * (`{:decision=>"block"}` from Ruby). `{WIP} ...` does not.
 */
const looksLikeObject = /^\{\s*(?:["'}]|:[A-Za-z_]|[A-Za-z_$][\w$-]*\s*(?::|=))/;

const quote = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * Where the object that ends `text` would start: the `{` that matches its last `}`, read backwards
 * with strings skipped; -1 when the brackets do not match. If any suffix of `text` is a JSON object,
 * it starts there: reading backwards from its end, its own braces and strings are matched exactly.
 * One pass: a parse tried from every `{` instead was quadratic, and a hook printing 100 KB of
 * nested braces held the agent's process for minutes.
 */
const objectStartAtEnd = (text: string): number => {
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === '"') {
      // Back to the quote that opens this string: one preceded by an even number of backslashes.
      let j = i - 1;
      for (;;) {
        j = j < 0 ? -1 : text.lastIndexOf('"', j);
        if (j < 0) return -1;
        let k = j - 1;
        while (k >= 0 && text[k] === "\\") k--;
        if ((j - 1 - k) % 2 === 0) break;
        j--;
      }
      i = j;
    } else if (c === "}" || c === "]") depth++;
    else if (c === "{" || c === "[") {
      depth--;
      if (depth === 0) return c === "{" ? i : -1;
    }
  }
  return -1;
};

/** A JSON object at the end of `text`, after something else: `checking... {"decision":"block"}`. */
const objectAtEnd = (text: string): boolean => {
  if (!text.endsWith("}")) return false;
  const start = objectStartAtEnd(text);
  if (start <= 0) return false;
  try {
    const v = JSON.parse(text.slice(start));
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
};

/** Plain stdout on an event that neither reads it as context nor can be refused is ignored, as Claude Code logs it. */
const textIgnored = (event: AgentEvent): boolean => {
  const spec = agentEvents[event];
  return spec !== undefined && !spec.stdoutIsContext && (spec.onClosedFailure === "notice" || spec.ignoresOutput || spec.ignoresExitCode);
};

/** A parsed JSON object read against the event's schema: unknown fields ignored, a malformed deciding field unreadable. */
const readObject = (hook: string, event: AgentEvent, value: unknown, text: string): Pick<HookAnswer, "output" | "ignored"> => {
  const read = readHookOutput(event, value);
  const ignored = [
    // Claude Code's JSON.parse keeps the last of a key given twice; so does this reader, and says so.
    ...[...new Set(duplicateKeys(text))].map((path) => `${path}: given more than once; the last is read, as Claude Code reads it`),
    ...read.unknown.map((path) => `${path}: not a field Claude Code reads on ${event}`),
    ...read.malformed.filter((m) => !m.decisive).map((m) => `${m.path}: ${m.message}`),
  ];
  const answer = { output: read.output, ...(ignored.length ? { ignored } : {}) };
  const bad = read.malformed.filter((m) => m.decisive);
  if (bad.length > 0) throw new ExecutorError("schema", malformedMessage(hook, `${event} JSON`, bad), { partial: answer });
  return answer;
};

/**
 * Read stdout (or a response body, or an MCP tool's text) for `event` (see the module comment).
 *
 * @example
 * readAnswerText("guard", "PreToolUse", '{"decision":"block","reason":"no"}') // { output: { decision: "block", reason: "no" } }
 * readAnswerText("ctx", "UserPromptSubmit", "{WIP} on main") // { text: "{WIP} on main" }
 * readAnswerText("guard", "PreToolUse", 'checking... {"decision":"block"}') // throws ExecutorError("unreadable")
 */
export const readAnswerText = (hook: string, event: AgentEvent, text: string): Pick<HookAnswer, "output" | "text" | "ignored"> => {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  const asContext = agentEvents[event]?.stdoutIsContext === true;
  if (trimmed.startsWith("{")) {
    let value: unknown;
    try {
      value = parseJson(trimmed);
    } catch (error) {
      if (objectAtEnd(trimmed))
        throw new ExecutorError(
          "unreadable",
          `hook "${hook}" printed text before its JSON (${quote(trimmed)}); stdout must contain only the JSON object`,
        );
      if (!asContext || looksLikeObject.test(trimmed))
        throw new ExecutorError("invalid-json", `hook "${hook}" printed invalid JSON: ${(error as Error).message}`);
      return { text: cleanText(trimmed) }; // `{WIP} on main`: text that happens to start with a brace
    }
    return readObject(hook, event, value, trimmed);
  }
  if (objectAtEnd(trimmed))
    throw new ExecutorError(
      "unreadable",
      `hook "${hook}" printed text before its JSON (${quote(trimmed)}); stdout must contain only the JSON object`,
    );
  if (asContext) return { text: cleanText(trimmed) };
  if (textIgnored(event)) return { ignored: [`stdout ${quote(cleanText(trimmed))}: not an answer on ${event}`] };
  throw new ExecutorError(
    "unreadable",
    `hook "${hook}" printed ${quote(cleanText(trimmed))} where its answer must be empty or one JSON object`,
  );
};

/** The line of stderr that says what went wrong: the first mentioning an error, else the first. */
const firstLine = (buf: Buffer): string => {
  const lines = cleanText(lenient.decode(buf))
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return lines.find((l) => /error|denied|not found|no such/i.test(l)) ?? lines[0] ?? "";
};

/**
 * Interpret a command hook's process result: exit 0 reads stdout, exit 2 blocks with stderr
 * (a JSON blocking reason wins), another exit code counts only if stdout holds a valid JSON
 * answer (as in Claude Code: exit 1 with a JSON deny blocks); everything else is an `ExecutorError`.
 *
 * @example
 * commandAnswer("guard", "PreToolUse", result, limits) // { block: "rm is not allowed" } for exit 2
 */
export const commandAnswer = (
  hook: string,
  event: AgentEvent,
  r: ProcessResult,
  limits: { readonly timeoutMs: number; readonly maxStdoutBytes: number },
): HookAnswer => {
  if (r.spawnError) throw new ExecutorError("spawn", `could not start: ${r.spawnError.message}`, { cause: r.spawnError });
  if (r.timedOut) throw new ExecutorError("timeout", `timed out after ${limits.timeoutMs} ms; its process tree was killed`);
  if (r.aborted) throw new ExecutorError("aborted", "the run was cancelled; its process tree was killed");
  if (r.stdoutOverflow) throw new ExecutorError("output-too-large", `printed more than ${limits.maxStdoutBytes} bytes on stdout; killed`);
  if (r.exitCode === null)
    throw new ExecutorError("signal", `was killed by ${r.signal ?? "a signal"}${r.stderr.length ? `: ${firstLine(r.stderr)}` : ""}`);
  const spec = agentEvents[event];
  // StopFailure and Notification ignore the exit code (and stderr): exit 2 blocks nothing there and no code is a failure.
  const codeCounts = spec?.ignoresExitCode !== true;
  let stdout: string;
  try {
    stdout = utf8.decode(r.stdout);
  } catch {
    if (r.exitCode === 2 && codeCounts) return { block: cleanText(lenient.decode(r.stderr)) || `exited with code 2` };
    throw new ExecutorError("invalid-utf8", "printed bytes on stdout that are not valid UTF-8");
  }
  if (r.exitCode === 2 && codeCounts) {
    let read: Pick<HookAnswer, "output" | "text" | "ignored"> = {};
    try {
      read = readAnswerText(hook, event, stdout);
    } catch (error) {
      // Exit 2 blocks even when the JSON beside it is broken (Claude Code 2.1.214); stderr is the reason.
      read = (error as ExecutorError).partial ?? {};
    }
    return {
      ...(read.output ? { output: read.output } : {}),
      ...(read.ignored ? { ignored: read.ignored } : {}),
      block: cleanText(lenient.decode(r.stderr)) || "exited with code 2",
    };
  }
  if (r.exitCode === 0 || !codeCounts) {
    if (codeCounts) return readAnswerText(hook, event, stdout);
    try {
      return readAnswerText(hook, event, stdout);
    } catch {
      return {};
    }
  }
  let read: Pick<HookAnswer, "output" | "text" | "ignored"> | undefined;
  let partial: HookAnswer | undefined;
  try {
    read = readAnswerText(hook, event, stdout);
  } catch (error) {
    partial = (error as ExecutorError).partial;
  }
  if (read?.output) return read;
  throw new ExecutorError(
    "exit-code",
    `exited with code ${r.exitCode}${r.stderr.length ? `: ${firstLine(r.stderr)}` : ""}`,
    partial ? { partial } : undefined,
  );
};

/**
 * Interpret an HTTP hook's answer: 2xx with an empty body is no decision, 2xx with a JSON
 * object is read like stdout, anything else (plain text, non-2xx, redirects) is an error.
 *
 * @example
 * httpAnswer("audit", "PostToolUse", 204, Buffer.alloc(0)) // {}
 */
export const httpAnswer = (hook: string, event: AgentEvent, status: number, body: Buffer): HookAnswer => {
  if (status >= 300 && status < 400) throw new ExecutorError("http-status", `answered ${status}; redirects are never followed`);
  if (status < 200 || status >= 300)
    throw new ExecutorError("http-status", `answered HTTP ${status}${body.length ? `: ${firstLine(body.subarray(0, 500))}` : ""}`);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ExecutorError("invalid-utf8", "answered a body that is not valid UTF-8");
  }
  const trimmed = text.trim();
  if (trimmed !== "" && !trimmed.startsWith("{"))
    throw new ExecutorError("unreadable", `answered HTTP ${status} with a body that is not a JSON object`);
  const read = readAnswerText(hook, event, text);
  if (read.text !== undefined) throw new ExecutorError("invalid-json", `answered HTTP ${status} with a body that is not a JSON object`);
  return read;
};
