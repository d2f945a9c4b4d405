/**
 * Loading Claude Code settings as layers: read and validate each file, then merge their hooks
 * in Claude Code's order (user, project, local: later layers add to earlier ones, they never
 * replace them), run identical handlers once, and remember where every handler came from.
 * Plugins' hooks come after the settings' ones; a plugin's copy of a handler stays its own.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { claudeDefaultSeconds, sessionEndBudgetMs } from "./external.ts";
import { parseJson } from "./json.ts";
import { loadClaudePlugin, type ClaudePlugin, type PluginSource } from "./plugin.ts";
import { orMatchers, type GroupMatcher } from "./settings-rules.ts";
import { decodeHookSettings, pointer, SettingsError, type MatcherGroup, type SettingsHandler } from "./settings-schema.ts";
import { knownOptions } from "../core/known-options.ts";

/** A settings object with a name for error messages and sources. */
export interface SettingsLayer {
  readonly file: string;
  readonly settings: unknown;
}

/** What `fromClaudeSettings` accepts: one parsed settings object, or layers (file paths or named objects), lowest precedence first. */
export type SettingsInput = object | readonly (string | SettingsLayer)[];

/** One handler of one matcher group, with where it came from. */
export interface HandlerEntry {
  readonly event: string;
  /**
   * The group's matcher; for a handler defined in several groups, one text for what any of theirs
   * matches (`orMatchers`), for reading: what runs is each of `matchers`, compiled on its own.
   */
  readonly matcher: string | undefined;
  /** The matcher of every group the handler is defined in, first one first, with its file and JSON pointer. */
  readonly matchers: readonly GroupMatcher[];
  readonly handler: SettingsHandler;
  readonly file: string;
  /** JSON pointer of the handler in its file: `/hooks/PreToolUse/0/hooks/1`. */
  readonly pointer: string;
  /** `file#pointer`, the hook's `source`. */
  readonly source: string;
  /** The plugin it comes from, whose directory is its `CLAUDE_PLUGIN_ROOT`. */
  readonly plugin?: ClaudePlugin | undefined;
}

/** What `loadClaudeSettings` read: the handlers, and what it left out and why. */
export interface LoadedSettings {
  readonly entries: readonly HandlerEntry[];
  /** Handlers of project layers that were not trusted, and so not loaded (D11). */
  readonly untrusted: readonly HandlerEntry[];
  /**
   * Handlers dropped because an identical one (same event and fields, `if` included) came first,
   * whatever their groups' matchers: the first one runs once on what either matcher matches.
   */
  readonly duplicates: readonly { readonly source: string; readonly sameAs: string }[];
  /** `disableAllHooks` after precedence (the last layer that sets it wins). */
  readonly disabled: boolean;
  /** Union over layers, when any layer defines it. */
  readonly httpHookAllowedEnvVars: readonly string[] | undefined;
  readonly allowedHttpHookUrls: readonly string[] | undefined;
  /** Permission rules of the loaded layers (each list the union over layers) and the mode of the last layer that sets one. */
  readonly permissions: { allow: string[]; ask: string[]; deny: string[]; defaultMode?: string; source?: string };
  /** Fields and handler types in the files that were not read (unknown to agent-onion), each with where it is. */
  readonly notes: readonly { readonly source: string; readonly message: string }[];
}

/** `~/x` as the shell would read it (Node does not): the settings' conventional paths start with it. */
const expandHome = (file: string, home: string): string => (file === "~" || file.startsWith("~/") ? join(home, file.slice(1)) : file);

const readLayer = (given: string | SettingsLayer, home: string): SettingsLayer => {
  if (typeof given !== "string") return given;
  const entry = expandHome(given, home);
  let text: string;
  try {
    text = readFileSync(entry, "utf8");
  } catch (error) {
    throw new SettingsError(entry, "", `cannot read the file: ${(error as Error).message}`);
  }
  try {
    return { file: entry, settings: parseJson(text) };
  } catch (error) {
    throw new SettingsError(entry, "", `is not valid JSON: ${(error as Error).message}`);
  }
};

/** Options of `loadClaudeSettings`. */
export interface LoadOptions {
  /** Load a project's `.claude/settings.json` and `.claude/settings.local.json` (D11). Default false. */
  readonly trustProjectSettings?: boolean | undefined;
  /** The user's home, whose `~/.claude/settings.json` is always trusted. Default `os.homedir()`. */
  readonly home?: string | undefined;
  /** Plugins whose hooks load after the settings' (a directory each, or `{ dir, dataDir }`). */
  readonly plugins?: readonly PluginSource[] | undefined;
}

/**
 * A project's own settings file (`<project>/.claude/settings[.local].json`): it comes with the
 * repository, so running its hooks needs the trust Claude Code asks for in its trust dialog.
 * The user's `~/.claude/settings.json`, and files named explicitly elsewhere, are the caller's.
 */
const isProjectLayer = (file: string, home: string): boolean =>
  (basename(file) === "settings.json" || basename(file) === "settings.local.json") &&
  basename(dirname(file)) === ".claude" &&
  resolve(dirname(file)) !== resolve(home, ".claude");

/** JSON with sorted keys: two handlers written in a different key order are still identical. */
/** A group's matcher with where it is written, for a handler in that group. */
const groupMatcher = (file: string, event: string, group: number, matcher: string | undefined): GroupMatcher => ({
  matcher,
  file,
  pointer: pointer(["hooks", event, group, "matcher"]),
});

const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : typeof value === "object" && value !== null
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(value);

/**
 * SessionEnd handlers share a 1.5-second budget, which a longer per-hook `timeout` in any settings
 * file raises, up to 60 s, for every SessionEnd hook (reference, "SessionEnd"). A handler without
 * a `timeout` of its own gets the raised budget as its timeout.
 */
const withSessionEndBudget = (entries: HandlerEntry[]): HandlerEntry[] => {
  // "Timeouts set on plugin-provided hooks don't raise the budget."
  const ends = entries.filter((e) => e.event === "SessionEnd" && e.plugin === undefined);
  const longest = Math.max(0, ...ends.map((e) => (e.handler.timeout ?? 0) * 1000));
  const budget = sessionEndBudgetMs(longest);
  if (budget === claudeDefaultSeconds("SessionEnd") * 1000) return entries;
  return entries.map((e) =>
    e.event === "SessionEnd" && e.handler.type !== "unknown" && e.handler.timeout === undefined
      ? { ...e, handler: { ...e.handler, timeout: budget / 1000 } }
      : e,
  );
};

/**
 * Read, validate and merge settings layers into a flat, de-duplicated list of handlers. A
 * project's own `.claude/settings*.json` is loaded only with `trustProjectSettings: true`.
 *
 * @example
 * loadClaudeSettings(claudeSettingsFiles(process.cwd()), { trustProjectSettings: true }).entries.length
 */
export const loadClaudeSettings = (input: SettingsInput, options: LoadOptions = {}): LoadedSettings => {
  knownOptions("loadClaudeSettings", options, { trustProjectSettings: true, home: true, plugins: true });
  const home = options.home ?? homedir();
  const layers = Array.isArray(input)
    ? (input as readonly (string | SettingsLayer)[]).map((entry) => readLayer(entry, home))
    : [{ file: "settings", settings: input }];
  const entries: HandlerEntry[] = [];
  const untrusted: HandlerEntry[] = [];
  const duplicates: { source: string; sameAs: string }[] = [];
  const seen = new Map<string, number>(); // key of a handler -> its index in entries
  let disabled = false;
  let envVars: Set<string> | undefined;
  let urls: Set<string> | undefined;
  const permissions: LoadedSettings["permissions"] = { allow: [], ask: [], deny: [] };
  const notes: { source: string; message: string }[] = [];
  for (const { file, settings } of layers) {
    const s = decodeHookSettings(file, settings);
    for (const n of s.notes ?? []) notes.push({ source: `${file}#${n.pointer}`, message: n.message });
    if (options.trustProjectSettings !== true && isProjectLayer(file, home)) {
      // Validated (a broken file is still an error) but not loaded; every handler is reported.
      for (const [event, groups] of Object.entries(s.hooks ?? {}))
        groups.forEach((group, gi) => {
          const matchers = [groupMatcher(file, event, gi, group.matcher)];
          group.hooks.forEach((handler, hi) => {
            const ptr = pointer(["hooks", event, gi, "hooks", hi]);
            untrusted.push({ event, matcher: group.matcher, matchers, handler, file, pointer: ptr, source: `${file}#${ptr}` });
          });
        });
      continue;
    }
    if (s.disableAllHooks !== undefined) disabled = s.disableAllHooks;
    if (s.httpHookAllowedEnvVars) envVars = new Set([...(envVars ?? []), ...s.httpHookAllowedEnvVars]);
    if (s.allowedHttpHookUrls) urls = new Set([...(urls ?? []), ...s.allowedHttpHookUrls]);
    for (const side of ["allow", "ask", "deny"] as const)
      for (const rule of s.permissions?.[side] ?? []) if (!permissions[side].includes(rule)) permissions[side].push(rule);
    if (s.permissions?.defaultMode !== undefined) {
      permissions.defaultMode = s.permissions.defaultMode;
      permissions.source = `${file}#/permissions/defaultMode`;
    }
    for (const [event, groups] of Object.entries(s.hooks ?? {})) {
      groups.forEach((group, gi) => {
        const at = groupMatcher(file, event, gi, group.matcher);
        group.hooks.forEach((handler, hi) => {
          const ptr = pointer(["hooks", event, gi, "hooks", hi]);
          const source = `${file}#${ptr}`;
          // "If you define the same handler in more than one settings file, it runs once": the matcher
          // belongs to the group, not the handler, so it is not part of what makes two handlers the same.
          const key = `${event}\u0000${canonical(handler)}`;
          const first = seen.get(key);
          if (first !== undefined) {
            const kept = entries[first]!;
            entries[first] = { ...kept, matcher: orMatchers(event, kept.matcher, group.matcher), matchers: [...kept.matchers, at] };
            return void duplicates.push({ source, sameAs: kept.source });
          }
          seen.set(key, entries.length);
          entries.push({ event, matcher: group.matcher, matchers: [at], handler, file, pointer: ptr, source });
        });
      });
    }
  }
  for (const source of options.plugins ?? []) {
    const plugin = loadClaudePlugin(source, home);
    for (const n of plugin.notes) notes.push(n);
    for (const { file, at, hooks } of plugin.sections) entries.push(...groupEntries(file, at, hooks, plugin));
  }
  return {
    entries: withSessionEndBudget(entries),
    untrusted,
    duplicates,
    disabled,
    httpHookAllowedEnvVars: envVars ? [...envVars] : undefined,
    allowedHttpHookUrls: urls ? [...urls] : undefined,
    permissions,
    notes,
  };
};

/** Every handler of a hooks section, as entries of one plugin (no de-duplication: "a plugin's copy stays separate"). */
const groupEntries = (
  file: string,
  at: readonly string[],
  hooks: Readonly<Record<string, readonly MatcherGroup[]>>,
  plugin: ClaudePlugin,
): HandlerEntry[] => {
  const out: HandlerEntry[] = [];
  for (const [event, groups] of Object.entries(hooks))
    groups.forEach((group, gi) => {
      const matchers = [{ matcher: group.matcher, file, pointer: pointer([...at, event, gi, "matcher"]) }];
      group.hooks.forEach((handler, hi) => {
        const ptr = pointer([...at, event, gi, "hooks", hi]);
        out.push({ event, matcher: group.matcher, matchers, handler, file, pointer: ptr, source: `${file}#${ptr}`, plugin });
      });
    });
  return out;
};

/**
 * The settings files Claude Code reads for a project, in precedence order (lowest first), that exist.
 *
 * @example
 * fromClaudeSettings(claudeSettingsFiles(process.cwd()))
 */
export const claudeSettingsFiles = (projectDir: string, home: string = homedir()): string[] =>
  [
    join(home, ".claude", "settings.json"),
    join(projectDir, ".claude", "settings.json"),
    join(projectDir, ".claude", "settings.local.json"),
  ].filter((f) => existsSync(f));
