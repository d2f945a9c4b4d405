/**
 * The schema of the parts of Claude Code's `settings.json` (and a plugin's `hooks/hooks.json`)
 * that concern hooks. Other top-level settings are none of our business and are left alone.
 * Inside `hooks`, a known field with a malformed value is an error naming the file and the JSON
 * pointer of the field (a guard that cannot run as written is a setup mistake); a field we do not
 * know, or a handler type we do not know, is reported and skipped, never fatal, since Claude Code
 * adds fields over time and ignores the ones it does not read.
 */
import { Either, ParseResult, Schema } from "effect";
import { brandError } from "../core/errors.ts";

const opt = <S extends Schema.Schema.All>(s: S) => Schema.optionalWith(s, { exact: true });
const NonEmpty = Schema.String.pipe(Schema.minLength(1));

const common = {
  if: opt(NonEmpty),
  timeout: opt(Schema.Number.pipe(Schema.positive())),
  statusMessage: opt(Schema.String),
  once: opt(Schema.Boolean),
};

const CommandHandler = Schema.Struct({
  type: Schema.Literal("command"),
  command: NonEmpty,
  args: opt(Schema.Array(Schema.String)),
  async: opt(Schema.Boolean),
  asyncRewake: opt(Schema.Boolean),
  shell: opt(Schema.Literal("bash", "powershell")),
  // Claude Code's own (marked internal in its schema): the prefix and summary of an asyncRewake wake-up.
  rewakeMessage: opt(NonEmpty),
  rewakeSummary: opt(NonEmpty),
  ...common,
});
const HttpHandler = Schema.Struct({
  type: Schema.Literal("http"),
  url: NonEmpty,
  headers: opt(Schema.Record({ key: Schema.String, value: Schema.String })),
  allowedEnvVars: opt(Schema.Array(Schema.String)),
  ...common,
});
const PromptHandler = Schema.Struct({
  type: Schema.Literal("prompt"),
  prompt: NonEmpty,
  model: opt(Schema.String),
  continueOnBlock: opt(Schema.Boolean),
  ...common,
});
const AgentHandler = Schema.Struct({ type: Schema.Literal("agent"), prompt: NonEmpty, model: opt(Schema.String), ...common });
const McpToolHandler = Schema.Struct({
  type: Schema.Literal("mcp_tool"),
  server: NonEmpty,
  tool: NonEmpty,
  input: opt(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  ...common,
});

const handlerSchemas = {
  command: CommandHandler,
  http: HttpHandler,
  prompt: PromptHandler,
  agent: AgentHandler,
  mcp_tool: McpToolHandler,
} as const;

/** A `"type": "command"` handler of a settings file: a shell command run with the event on standard input. */
export type CommandHandler = typeof CommandHandler.Type;
/** A `"type": "http"` handler: the event POSTed to a URL. */
export type HttpHandler = typeof HttpHandler.Type;
/** A `"type": "prompt"` handler: a prompt a model answers with a decision. */
export type PromptHandler = typeof PromptHandler.Type;
/** A `"type": "agent"` handler: a subagent that answers with a decision. */
export type AgentHandler = typeof AgentHandler.Type;
/** A `"type": "mcp_tool"` handler: a tool of an MCP server called with the event. */
export type McpToolHandler = typeof McpToolHandler.Type;
/** A handler of a type Claude Code added after this version: kept in place (pointers stay right), reported, never run. */
export interface UnknownTypeHandler {
  readonly type: "unknown";
  /** The `type` it declared. */
  readonly declared: string;
  readonly if?: undefined;
  readonly timeout?: undefined;
}
/** One hook handler of Claude Code settings, by its `type`. */
export type SettingsHandler = CommandHandler | HttpHandler | PromptHandler | AgentHandler | McpToolHandler | UnknownTypeHandler;

/** A matcher group: which events it applies to, and its handlers. */
export interface MatcherGroup {
  readonly matcher?: string;
  readonly hooks: readonly SettingsHandler[];
}

/** Something in a file that is not read: a field we do not know, or a handler of a type we do not know. */
export interface SettingsNote {
  readonly pointer: string;
  readonly message: string;
}

/** The hook-related settings of one file. */
export interface HookSettings {
  readonly hooks?: Readonly<Record<string, readonly MatcherGroup[]>>;
  readonly disableAllHooks?: boolean;
  readonly httpHookAllowedEnvVars?: readonly string[];
  readonly allowedHttpHookUrls?: readonly string[];
  /** Fields and handlers not read, each with where it is. */
  readonly notes?: readonly SettingsNote[];
}

/**
 * A settings file (or object) that does not fit the schema, naming the file and JSON pointer.
 *
 * @example
 * new SettingsError(".claude/settings.json", "/hooks/Stop/0", "is not an object").message // ".claude/settings.json: /hooks/Stop/0: is not an object"
 */
export class SettingsError extends TypeError {
  override name = "SettingsError";
  constructor(
    readonly file: string,
    readonly pointer: string,
    problem: string,
  ) {
    super(`${file}: ${pointer || "/"}: ${problem}`);
  }
}
brandError(SettingsError);

type Decoder = (u: unknown) => Either.Either<unknown, ParseResult.ParseError>;
const decoderOf = (schema: Schema.Schema<any, any, never>): Decoder =>
  Schema.decodeUnknownEither(schema, { onExcessProperty: "ignore", errors: "all" });

const topLevel = {
  disableAllHooks: decoderOf(Schema.Boolean),
  httpHookAllowedEnvVars: decoderOf(Schema.Array(Schema.String)),
  allowedHttpHookUrls: decoderOf(Schema.Array(Schema.String)),
} as const;
const handlerDecoders = Object.fromEntries(
  Object.entries(handlerSchemas).map(([k, s]) => [k, decoderOf(s as Schema.Schema<any, any, never>)]),
) as Record<keyof typeof handlerSchemas, Decoder>;
const handlerFields = Object.fromEntries(
  Object.entries(handlerSchemas).map(([k, s]) => [k, new Set(Object.keys(s.fields))]),
) as unknown as Record<keyof typeof handlerSchemas, ReadonlySet<string>>;
const decodeMatcher = decoderOf(Schema.String);

/**
 * RFC 6901 pointer for a path.
 *
 * @example
 * pointer(["hooks", "PreToolUse", 0]) // "/hooks/PreToolUse/0"
 */
export const pointer = (path: readonly PropertyKey[]): string =>
  path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

/** `raw` decoded, or a `SettingsError` at `path` naming every bad field. */
const decoded = (file: string, path: readonly PropertyKey[], decode: Decoder, raw: unknown): unknown => {
  const result = decode(raw);
  if (Either.isRight(result)) return result.right;
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left);
  const first = issues[0]!;
  const more = issues.slice(1).map((i) => `${pointer([...path, ...i.path])}: ${i.message}`);
  throw new SettingsError(file, pointer([...path, ...first.path]), `${first.message}${more.length ? ` (also ${more.join("; ")})` : ""}`);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const kindOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/** Own keys, `__proto__` included (JSON.parse makes it an own key; it must be reported, not lost). */
const entriesOf = (raw: Record<string, unknown>): [string, unknown][] =>
  Object.keys(raw).map((k) => [k, Object.getOwnPropertyDescriptor(raw, k)!.value]);

const decodeHandler = (file: string, path: PropertyKey[], raw: unknown, notes: SettingsNote[]): SettingsHandler => {
  if (!isObject(raw)) throw new SettingsError(file, pointer(path), `expected a hook handler object, got ${kindOf(raw)}`);
  const type = raw.type;
  if (type === undefined) throw new SettingsError(file, pointer([...path, "type"]), "is missing");
  if (typeof type !== "string") throw new SettingsError(file, pointer([...path, "type"]), `expected a string, got ${kindOf(type)}`);
  if (!Object.hasOwn(handlerSchemas, type)) {
    notes.push({ pointer: pointer(path), message: `handler type "${type}" is not one agent-onion knows; it is not run` });
    return { type: "unknown", declared: type };
  }
  const known = handlerFields[type as keyof typeof handlerSchemas];
  for (const key of Object.keys(raw))
    if (!known.has(key))
      notes.push({ pointer: pointer([...path, key]), message: `"${key}" is not a ${type} hook field agent-onion knows; ignored` });
  return decoded(file, path, handlerDecoders[type as keyof typeof handlerSchemas], raw) as SettingsHandler;
};

/**
 * The `hooks` section: an object of event names to arrays of matcher groups. Exported for
 * plugin `hooks.json` files, whose hooks are the same section.
 *
 * @example
 * decodeHooksSection("hooks.json", ["hooks"], { Stop: [{ hooks: [{ type: "command", command: "true" }] }] }, [])
 */
export const decodeHooksSection = (
  file: string,
  at: readonly PropertyKey[],
  raw: unknown,
  notes: SettingsNote[],
): Record<string, MatcherGroup[]> => {
  if (!isObject(raw)) throw new SettingsError(file, pointer(at), `expected an object of events, got ${kindOf(raw)}`);
  const out: Record<string, MatcherGroup[]> = {};
  for (const [event, groups] of entriesOf(raw)) {
    const ep = [...at, event];
    if (!Array.isArray(groups)) throw new SettingsError(file, pointer(ep), `expected an array of matcher groups, got ${kindOf(groups)}`);
    const decodedGroups = groups.map((group, gi): MatcherGroup => {
      const gp = [...ep, gi];
      if (!isObject(group)) throw new SettingsError(file, pointer(gp), `expected a matcher group object, got ${kindOf(group)}`);
      for (const key of Object.keys(group))
        if (key !== "matcher" && key !== "hooks")
          notes.push({ pointer: pointer([...gp, key]), message: `"${key}" is not a matcher group field agent-onion knows; ignored` });
      if (group.hooks === undefined) throw new SettingsError(file, pointer([...gp, "hooks"]), "is missing");
      if (!Array.isArray(group.hooks))
        throw new SettingsError(file, pointer([...gp, "hooks"]), `expected an array of handlers, got ${kindOf(group.hooks)}`);
      const matcher = group.matcher === undefined ? undefined : (decoded(file, [...gp, "matcher"], decodeMatcher, group.matcher) as string);
      const hooks = group.hooks.map((h, hi) => decodeHandler(file, [...gp, "hooks", hi], h, notes));
      return { ...(matcher !== undefined ? { matcher } : {}), hooks };
    });
    // An own property even when the event is named `__proto__`: a plain assignment would set the prototype.
    Object.defineProperty(out, event, { value: decodedGroups, enumerable: true, writable: true, configurable: true });
  }
  return out;
};

/**
 * Validate the hook settings of one file; throws `SettingsError` naming the file and the JSON
 * pointer of the first malformed field (all of them are listed in the message). Fields and
 * handler types it does not know are listed in `notes`.
 *
 * @example
 * decodeHookSettings(".claude/settings.json", { hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } })
 * // throws: .claude/settings.json: /hooks/PreToolUse/0/hooks/0/command: is missing
 */
export const decodeHookSettings = (file: string, value: unknown): HookSettings => {
  if (!isObject(value)) throw new SettingsError(file, "", "settings must be a JSON object");
  const out: Record<string, unknown> = {};
  const notes: SettingsNote[] = [];
  for (const key of Object.keys(topLevel) as (keyof typeof topLevel)[]) {
    const raw = value[key];
    if (raw !== undefined) out[key] = decoded(file, [key], topLevel[key], raw);
  }
  if (value.hooks !== undefined) out.hooks = decodeHooksSection(file, ["hooks"], value.hooks, notes);
  if (notes.length > 0) out.notes = notes;
  return out as HookSettings;
};
