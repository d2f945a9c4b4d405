/**
 * Schemas for every answer an external hook gives: Claude Code's JSON output (per event) and
 * the `{ ok, reason }` verdict of prompt and agent hooks. Unknown fields are errors, and every
 * error names the hook and the field path, so a typo in a script is found on its first run.
 */
import { Either, ParseResult, Schema } from "effect";
import { ExecutorError } from "./errors.ts";
import type { ClaudeEvent } from "./events.ts";

const opt = <S extends Schema.Schema.All>(s: S) => Schema.optionalWith(s, { exact: true });
const JsonRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown });

const specific = {
  PreToolUse: {
    permissionDecision: opt(Schema.Literal("allow", "deny", "ask", "defer")),
    permissionDecisionReason: opt(Schema.String),
    updatedInput: opt(JsonRecord),
    additionalContext: opt(Schema.String),
  },
  PostToolUse: {
    additionalContext: opt(Schema.String),
    updatedToolOutput: opt(Schema.Unknown),
    updatedMCPToolOutput: opt(Schema.Unknown),
    classifierContext: opt(Schema.String),
  },
  PostToolUseFailure: { additionalContext: opt(Schema.String) },
  UserPromptSubmit: { additionalContext: opt(Schema.String), sessionTitle: opt(Schema.String) },
  SessionStart: {
    additionalContext: opt(Schema.String),
    initialUserMessage: opt(Schema.String),
    sessionTitle: opt(Schema.String),
    watchPaths: opt(Schema.Array(Schema.String)),
    reloadSkills: opt(Schema.Boolean),
  },
  Stop: { additionalContext: opt(Schema.String) },
  SubagentStop: { additionalContext: opt(Schema.String) },
} as const;

const outputSchema = (event: ClaudeEvent) => {
  const fields = (specific as Record<string, Schema.Struct.Fields>)[event] ?? {};
  return Schema.Struct({
    continue: opt(Schema.Boolean),
    stopReason: opt(Schema.String),
    suppressOutput: opt(Schema.Boolean),
    systemMessage: opt(Schema.String),
    terminalSequence: opt(Schema.String),
    // "approve" is the deprecated PreToolUse spelling of allow; "block" of deny.
    decision: opt(Schema.Literal("block", "approve")),
    reason: opt(Schema.String),
    suppressOriginalPrompt: opt(Schema.Boolean),
    hookSpecificOutput: opt(Schema.Struct({ hookEventName: Schema.Literal(event), ...fields })),
  });
};

/** Claude Code's JSON output, as far as the events we drive read it. */
export interface HookOutput {
  readonly continue?: boolean;
  readonly stopReason?: string;
  readonly suppressOutput?: boolean;
  readonly systemMessage?: string;
  readonly terminalSequence?: string;
  readonly decision?: "block" | "approve";
  readonly reason?: string;
  readonly suppressOriginalPrompt?: boolean;
  readonly hookSpecificOutput?: {
    readonly hookEventName: string;
    readonly permissionDecision?: "allow" | "deny" | "ask" | "defer";
    readonly permissionDecisionReason?: string;
    readonly updatedInput?: Readonly<Record<string, unknown>>;
    readonly additionalContext?: string;
    readonly updatedToolOutput?: unknown;
    readonly updatedMCPToolOutput?: unknown;
  };
}

const cache = new Map<ClaudeEvent, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>();

const formatPath = (path: readonly PropertyKey[]): string =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "(root)";

/** Turn a parse error into one line per field: `hook "x": hookSpecificOutput.permissionDecision: Expected ...`. */
const describeIssues = (hook: string, what: string, error: ParseResult.ParseError): string => {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = formatPath(issue.path);
    if (seen.has(path)) continue; // a union reports one issue per member; the first says enough
    seen.add(path);
    lines.push(`${path}: ${issue.message}`);
  }
  return `hook "${hook}" answered ${what} that does not fit the schema: ${lines.join("; ")}`;
};

/**
 * Validate a Claude Code JSON answer for `event`; throws `ExecutorError("schema")` naming the hook and field.
 *
 * @example
 * decodeHookOutput("guard", "PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } })
 */
export const decodeHookOutput = (hook: string, event: ClaudeEvent, value: unknown): HookOutput => {
  let decode = cache.get(event);
  if (!decode) {
    decode = Schema.decodeUnknownEither(outputSchema(event), { onExcessProperty: "error", errors: "all" });
    cache.set(event, decode);
  }
  const result = decode(value);
  if (Either.isLeft(result)) throw new ExecutorError("schema", describeIssues(hook, `${event} JSON`, result.left));
  return result.right as HookOutput;
};

const Verdict = Schema.Struct({ ok: Schema.Boolean, reason: opt(Schema.String), impossible: opt(Schema.Boolean) });
const decodeVerdictEither = Schema.decodeUnknownEither(Verdict, { onExcessProperty: "error", errors: "all" });

/** The answer of a prompt or agent hook. */
export interface Verdict {
  readonly ok: boolean;
  readonly reason?: string;
  readonly impossible?: boolean;
}

/**
 * Validate a prompt or agent hook's `{ ok, reason, impossible? }`; `ok: false` needs a reason.
 *
 * @example
 * decodeVerdict("judge", { ok: false, reason: "tests fail" }) // { ok: false, reason: "tests fail" }
 */
export const decodeVerdict = (hook: string, value: unknown): Verdict => {
  const result = decodeVerdictEither(value);
  if (Either.isLeft(result)) throw new ExecutorError("schema", describeIssues(hook, "a verdict", result.left));
  const verdict = result.right;
  if (!verdict.ok && (verdict.reason === undefined || verdict.reason.trim() === ""))
    throw new ExecutorError("schema", `hook "${hook}" answered a verdict that does not fit the schema: reason: is required when ok is false`);
  return verdict;
};
