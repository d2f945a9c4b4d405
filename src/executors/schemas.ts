/**
 * Schemas for every answer an external hook gives: Claude Code's JSON output (one schema per
 * event, field by field) and the `{ ok, reason }` verdict of prompt and agent hooks.
 *
 * Claude Code ignores fields it does not know (`metrics`, a field for another event), so we do:
 * each is reported, never a failure. A known field with a malformed value is dropped and reported;
 * when that field decides something (`decision`, `permissionDecision`, `continue`, `updatedInput`,
 * a PermissionRequest `decision`), the answer is unreadable as a decision and the hook's failure
 * policy decides, while what the rest of the answer says (its context, its message) is kept.
 */
import { Either, ParseResult, Schema } from "effect";
import { ExecutorError } from "./errors.ts";
import type { ClaudeHookEvent } from "./events.ts";

/** A field of an answer: a schema for its value, or an object of fields; `decisive` when a malformed value makes the decision unreadable. */
type Field =
  | { readonly schema: Schema.Schema<any, any, never>; readonly decisive?: boolean }
  | { readonly fields: Readonly<Record<string, Field>>; readonly decisive?: boolean };

const value = (schema: Schema.Schema<any, any, never>, decisive = false): Field => ({ schema, decisive });
const text = value(Schema.String);
const flag = value(Schema.Boolean);
const record = Schema.Record({ key: Schema.String, value: Schema.Unknown });

const context = { additionalContext: text };
const watch = { watchPaths: value(Schema.Array(Schema.String)) };

/** `hookSpecificOutput` fields per event (the reference's decision control of each). */
const specific: Readonly<Partial<Record<ClaudeHookEvent, Readonly<Record<string, Field>>>>> = {
  PreToolUse: {
    permissionDecision: value(Schema.Literal("allow", "deny", "ask", "defer"), true),
    permissionDecisionReason: text,
    updatedInput: value(record, true),
    ...context,
  },
  PermissionRequest: {
    decision: {
      decisive: true,
      fields: {
        behavior: value(Schema.Literal("allow", "deny"), true),
        updatedInput: value(record, true),
        updatedPermissions: value(Schema.Array(Schema.Unknown)),
        message: text,
        interrupt: flag,
      },
    },
  },
  PermissionDenied: { retry: flag },
  PostToolUse: {
    ...context,
    updatedToolOutput: value(Schema.Unknown),
    updatedMCPToolOutput: value(Schema.Unknown),
    classifierContext: text,
    // Not in PostToolUse's table, but hookify sends it there to block: read as a block.
    permissionDecision: value(Schema.Literal("allow", "deny", "ask", "defer"), true),
    permissionDecisionReason: text,
  },
  PostToolUseFailure: context,
  PostToolBatch: context,
  UserPromptSubmit: { ...context, sessionTitle: text },
  UserPromptExpansion: context,
  SessionStart: { ...context, initialUserMessage: text, sessionTitle: text, ...watch, reloadSkills: flag },
  Setup: context,
  SubagentStart: context,
  Stop: context,
  SubagentStop: context,
  MessageDisplay: { displayContent: text },
  CwdChanged: watch,
  FileChanged: watch,
  WorktreeCreate: { worktreePath: text },
  Elicitation: { action: value(Schema.Literal("accept", "decline", "cancel"), true), content: value(record) },
  ElicitationResult: { action: value(Schema.Literal("accept", "decline", "cancel"), true), content: value(record) },
};

/** The top-level fields every event accepts ("JSON output"), plus the legacy and per-event top-level ones. */
const universal: Readonly<Record<string, Field>> = {
  continue: value(Schema.Boolean, true),
  stopReason: text,
  suppressOutput: flag,
  systemMessage: text,
  terminalSequence: text,
  // "block" is the current form; "approve" is PreToolUse's deprecated allow, and "allow"/"deny" are still sent.
  decision: value(Schema.Literal("approve", "allow", "block", "deny"), true),
  reason: text,
  suppressOriginalPrompt: flag,
};

/** Claude Code's JSON output, the fields it reads on any event. */
export interface HookOutput {
  readonly continue?: boolean;
  readonly stopReason?: string;
  readonly suppressOutput?: boolean;
  readonly systemMessage?: string;
  readonly terminalSequence?: string;
  readonly decision?: "approve" | "allow" | "block" | "deny";
  readonly reason?: string;
  readonly suppressOriginalPrompt?: boolean;
  readonly hookSpecificOutput?: {
    readonly hookEventName?: string;
    readonly permissionDecision?: "allow" | "deny" | "ask" | "defer";
    readonly permissionDecisionReason?: string;
    readonly updatedInput?: Readonly<Record<string, unknown>>;
    readonly additionalContext?: string;
    readonly updatedToolOutput?: unknown;
    readonly updatedMCPToolOutput?: unknown;
    readonly classifierContext?: string;
    readonly decision?: {
      readonly behavior?: "allow" | "deny";
      readonly updatedInput?: Readonly<Record<string, unknown>>;
      readonly updatedPermissions?: readonly unknown[];
      readonly message?: string;
      readonly interrupt?: boolean;
    };
    readonly retry?: boolean;
    readonly sessionTitle?: string;
    readonly initialUserMessage?: string;
    readonly watchPaths?: readonly string[];
    readonly reloadSkills?: boolean;
    readonly displayContent?: string;
    readonly worktreePath?: string;
    readonly action?: "accept" | "decline" | "cancel";
    readonly content?: Readonly<Record<string, unknown>>;
  };
}

/** A field that did not fit its schema: dropped from the output. */
export interface MalformedField {
  readonly path: string;
  readonly message: string;
  /** It decides something, so the answer's decision cannot be read. */
  readonly decisive: boolean;
}

/** An answer read against its event's schema. */
export interface ReadOutput {
  /** The known fields whose values fit. */
  readonly output: HookOutput;
  /** Fields Claude Code does not read on this event (ignored, as it ignores them). */
  readonly unknown: readonly string[];
  readonly malformed: readonly MalformedField[];
}

const decoders = new WeakMap<Schema.Schema<any, any, never>, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>();
const decoderOf = (schema: Schema.Schema<any, any, never>) => {
  let decode = decoders.get(schema);
  if (!decode) {
    decode = Schema.decodeUnknownEither(schema, { errors: "first" });
    decoders.set(schema, decode);
  }
  return decode;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Decode `raw` against `fields`, collecting what is unknown or malformed under `at`. */
const readFields = (
  raw: Record<string, unknown>,
  fields: Readonly<Record<string, Field>>,
  at: string,
  unknown: string[],
  malformed: MalformedField[],
): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const path = at ? `${at}.${key}` : key;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (field === undefined) {
      unknown.push(path);
      continue;
    }
    const v = raw[key];
    const decisive = field.decisive === true;
    if ("fields" in field) {
      if (isObject(v)) out[key] = readFields(v, field.fields, path, unknown, malformed);
      else malformed.push({ path, message: `expected an object, got ${describeValue(v)}`, decisive });
      continue;
    }
    const result = decoderOf(field.schema)(v);
    if (Either.isRight(result)) out[key] = result.right;
    else malformed.push({ path, message: ParseResult.ArrayFormatter.formatErrorSync(result.left)[0]?.message ?? "is malformed", decisive });
  }
  return out;
};

const describeValue = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/**
 * Read a Claude Code JSON answer for `event`: the known fields that fit, what is unknown, what
 * is malformed. Never throws: the caller decides what an unreadable decision means.
 *
 * @example
 * readHookOutput("PreToolUse", { metrics: { ms: 3 }, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } })
 * // { output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } }, unknown: ["metrics"], malformed: [] }
 */
export const readHookOutput = (event: ClaudeHookEvent, raw: unknown): ReadOutput => {
  const unknown: string[] = [];
  const malformed: MalformedField[] = [];
  if (!isObject(raw))
    return {
      output: {},
      unknown,
      malformed: [{ path: "(root)", message: `expected a JSON object, got ${describeValue(raw)}`, decisive: true }],
    };
  const { hookSpecificOutput: hso, ...top } = raw;
  const output: Record<string, unknown> = readFields(top, universal, "", unknown, malformed);
  if (hso !== undefined) {
    if (!isObject(hso))
      malformed.push({ path: "hookSpecificOutput", message: `expected an object, got ${describeValue(hso)}`, decisive: true });
    else {
      const { hookEventName, ...rest } = hso;
      if (hookEventName !== undefined && hookEventName !== event) {
        // Written for another event: which of its fields mean what here is anyone's guess.
        malformed.push({
          path: "hookSpecificOutput.hookEventName",
          message: `is ${JSON.stringify(hookEventName)}, but the event is ${event}`,
          decisive: true,
        });
      } else {
        if (hookEventName === undefined)
          malformed.push({ path: "hookSpecificOutput.hookEventName", message: "is missing (read as this event's)", decisive: false });
        const fields = readFields(rest, specific[event] ?? {}, "hookSpecificOutput", unknown, malformed);
        output.hookSpecificOutput = { ...(hookEventName !== undefined ? { hookEventName } : {}), ...fields };
      }
    }
  }
  return { output: output as HookOutput, unknown, malformed };
};

/**
 * Validate a Claude Code JSON answer for `event`, ignoring fields Claude Code ignores; throws
 * `ExecutorError("schema")` naming the hook and the field when a deciding field is malformed.
 *
 * @example
 * decodeHookOutput("guard", "PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } })
 */
export const decodeHookOutput = (hook: string, event: ClaudeHookEvent, value: unknown): HookOutput => {
  const read = readHookOutput(event, value);
  const bad = read.malformed.filter((m) => m.decisive);
  if (bad.length > 0) throw new ExecutorError("schema", malformedMessage(hook, `${event} JSON`, bad));
  return read.output;
};

/**
 * One line naming the hook and each malformed field.
 *
 * @example
 * malformedMessage("guard", "PreToolUse JSON", [{ path: "continue", message: 'Expected boolean, actual "no"', decisive: true }])
 */
export const malformedMessage = (hook: string, what: string, fields: readonly MalformedField[]): string =>
  `hook "${hook}" answered ${what} that does not fit the schema: ${fields.map((f) => `${f.path}: ${f.message}`).join("; ")}`;

const formatPath = (path: readonly PropertyKey[]): string =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "(root)";

/** Turn a parse error into one line per field: `hook "x": reason: Expected ...`. */
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

const opt = <S extends Schema.Schema.All>(s: S) => Schema.optionalWith(s, { exact: true });
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
 * Strict: a model that answers anything else has not judged.
 *
 * @example
 * decodeVerdict("judge", { ok: false, reason: "tests fail" }) // { ok: false, reason: "tests fail" }
 */
export const decodeVerdict = (hook: string, value: unknown): Verdict => {
  const result = decodeVerdictEither(value);
  if (Either.isLeft(result)) throw new ExecutorError("schema", describeIssues(hook, "a verdict", result.left));
  const verdict = result.right;
  if (!verdict.ok && (verdict.reason === undefined || verdict.reason.trim() === ""))
    throw new ExecutorError(
      "schema",
      `hook "${hook}" answered a verdict that does not fit the schema: reason: is required when ok is false`,
    );
  return verdict;
};
