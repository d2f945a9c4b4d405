/**
 * The schema of the parts of Claude Code's `settings.json` that concern hooks. Other top-level
 * settings are none of our business and are left alone; inside `hooks` every unknown or
 * malformed field is an error naming the file and the JSON pointer of the field.
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
  type: Schema.Literal("command"), command: NonEmpty, args: opt(Schema.Array(Schema.String)), async: opt(Schema.Boolean),
  asyncRewake: opt(Schema.Boolean), shell: opt(Schema.Literal("bash", "powershell")), ...common,
});
const HttpHandler = Schema.Struct({
  type: Schema.Literal("http"), url: NonEmpty, headers: opt(Schema.Record({ key: Schema.String, value: Schema.String })),
  allowedEnvVars: opt(Schema.Array(Schema.String)), ...common,
});
const PromptHandler = Schema.Struct({
  type: Schema.Literal("prompt"), prompt: NonEmpty, model: opt(Schema.String), continueOnBlock: opt(Schema.Boolean), ...common,
});
const AgentHandler = Schema.Struct({ type: Schema.Literal("agent"), prompt: NonEmpty, model: opt(Schema.String), ...common });
const McpToolHandler = Schema.Struct({
  type: Schema.Literal("mcp_tool"), server: NonEmpty, tool: NonEmpty, input: opt(Schema.Record({ key: Schema.String, value: Schema.Unknown })), ...common,
});

const Handler = Schema.Union(CommandHandler, HttpHandler, PromptHandler, AgentHandler, McpToolHandler);
const Group = Schema.Struct({ matcher: opt(Schema.String), hooks: Schema.Array(Handler) });
const HooksSection = Schema.Record({ key: Schema.String, value: Schema.Array(Group) });

export type SettingsHandler = typeof Handler.Type;
export type CommandHandler = typeof CommandHandler.Type;
export type HttpHandler = typeof HttpHandler.Type;
export type PromptHandler = typeof PromptHandler.Type;
export type AgentHandler = typeof AgentHandler.Type;
export type MatcherGroup = typeof Group.Type;

/** The hook-related settings of one file. */
export interface HookSettings {
  readonly hooks?: Readonly<Record<string, readonly MatcherGroup[]>>;
  readonly disableAllHooks?: boolean;
  readonly httpHookAllowedEnvVars?: readonly string[];
  readonly allowedHttpHookUrls?: readonly string[];
}

/**
 * A settings file (or object) that does not fit the schema, naming the file and JSON pointer.
 *
 * @example
 * new SettingsError(".claude/settings.json", "/hooks/Stop/0", "is not an object").message // ".claude/settings.json: /hooks/Stop/0: is not an object"
 */
export class SettingsError extends TypeError {
  override name = "SettingsError";
  constructor(readonly file: string, readonly pointer: string, problem: string) {
    super(`${file}: ${pointer || "/"}: ${problem}`);
  }
}
brandError(SettingsError);

const fields = {
  hooks: HooksSection,
  disableAllHooks: Schema.Boolean,
  httpHookAllowedEnvVars: Schema.Array(Schema.String),
  allowedHttpHookUrls: Schema.Array(Schema.String),
} as const;

const decoders = Object.fromEntries(
  Object.entries(fields).map(([k, s]) => [k, Schema.decodeUnknownEither(s as Schema.Schema<unknown>, { onExcessProperty: "error", errors: "all" })]),
) as Record<keyof typeof fields, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>;

/**
 * RFC 6901 pointer for a path.
 *
 * @example
 * pointer(["hooks", "PreToolUse", 0]) // "/hooks/PreToolUse/0"
 */
export const pointer = (path: readonly PropertyKey[]): string =>
  path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

/**
 * Validate the hook settings of one file; throws `SettingsError` naming the file and the
 * JSON pointer of the first bad field (all bad fields are listed in the message).
 *
 * @example
 * decodeHookSettings(".claude/settings.json", { hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } })
 * // throws: .claude/settings.json: /hooks/PreToolUse/0/hooks/0/command: is missing
 */
export const decodeHookSettings = (file: string, value: unknown): HookSettings => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SettingsError(file, "", "settings must be a JSON object");
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
    const raw = (value as Record<string, unknown>)[key];
    if (raw === undefined) continue;
    out[key] = key === "hooks" && hasOwnProto(raw) ? decodeWithProtoEvent(file, raw) : decoded(file, [key], decoders[key], raw);
  }
  return out as HookSettings;
};

/** `raw` decoded, or a `SettingsError` at `path` naming every bad field. */
const decoded = (file: string, path: readonly PropertyKey[], decode: (u: unknown) => Either.Either<unknown, ParseResult.ParseError>, raw: unknown): unknown => {
  const result = decode(raw);
  if (Either.isRight(result)) return result.right;
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left);
  const first = issues[0]!;
  const more = issues.slice(1).map((i) => `${pointer([...path, ...i.path])}: ${i.message}`);
  throw new SettingsError(file, pointer([...path, ...first.path]), `${first.message}${more.length ? ` (also ${more.join("; ")})` : ""}`);
};

const hasOwnProto = (raw: unknown): raw is Record<string, unknown> =>
  typeof raw === "object" && raw !== null && !Array.isArray(raw) && Object.hasOwn(raw, "__proto__");

const decodeGroups = Schema.decodeUnknownEither(Schema.Array(Group), { onExcessProperty: "error", errors: "all" });

/**
 * `hooks` with an event named `__proto__` (JSON.parse makes it an own key). A decoded record
 * would assign it as the prototype, and the event would vanish without a word; kept as an own
 * key, it is reported like any other event we do not know.
 */
const decodeWithProtoEvent = (file: string, raw: Record<string, unknown>): unknown => {
  const groups = decoded(file, ["hooks", "__proto__"], decodeGroups, Object.getOwnPropertyDescriptor(raw, "__proto__")!.value);
  const rest = decoded(file, ["hooks"], decoders.hooks, Object.fromEntries(Object.entries(raw).filter(([event]) => event !== "__proto__")));
  return Object.defineProperty(rest as object, "__proto__", { value: groups, enumerable: true, writable: true, configurable: true });
};
