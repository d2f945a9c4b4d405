/**
 * Reading a Claude Code plugin's hooks: `hooks/hooks.json` in the plugin's directory (and any
 * hooks files or inline hooks its `.claude-plugin/plugin.json` names), in the same format as the
 * `hooks` section of settings. Its hooks run with `CLAUDE_PLUGIN_ROOT` set to the plugin's
 * directory and `CLAUDE_PLUGIN_DATA` to its data directory, for its hooks alone.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { parseJson } from "./json.ts";
import { decodeHooksSection, pointer, SettingsError, type MatcherGroup, type SettingsNote } from "./settings-schema.ts";

/** Where a plugin is: its directory, or its directory and its data directory. */
export type PluginSource = string | { readonly dir: string; readonly dataDir?: string };

/** A plugin as its hooks see it. */
export interface ClaudePlugin {
  /** `name` in its plugin.json, else its directory's name. */
  readonly name: string;
  /** Its directory: `CLAUDE_PLUGIN_ROOT`. */
  readonly root: string;
  /** Its persistent data directory: `CLAUDE_PLUGIN_DATA` (default `~/.claude/plugins/data/<name>`, not created). */
  readonly data: string;
}

/** A plugin's hooks, file by file. */
export interface LoadedPlugin extends ClaudePlugin {
  readonly sections: readonly {
    readonly file: string;
    readonly at: readonly string[];
    readonly hooks: Readonly<Record<string, readonly MatcherGroup[]>>;
  }[];
  readonly notes: readonly { readonly source: string; readonly message: string }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const readJson = (file: string): unknown => {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SettingsError(file, "", `cannot read the file: ${(error as Error).message}`);
  }
  try {
    return parseJson(text);
  } catch (error) {
    throw new SettingsError(file, "", `is not valid JSON: ${(error as Error).message}`);
  }
};

/**
 * The hooks of one hooks file: `{ "description": …, "hooks": { <event>: [...] } }`, or, as some
 * plugins still write it, the events at the top level.
 */
const hooksOfFile = (file: string, value: unknown, notes: SettingsNote[]): { at: string[]; hooks: Record<string, MatcherGroup[]> } => {
  if (!isObject(value)) throw new SettingsError(file, "", "a hooks file must be a JSON object");
  if (Object.hasOwn(value, "hooks")) {
    for (const key of Object.keys(value))
      if (key !== "hooks" && key !== "description")
        notes.push({ pointer: pointer([key]), message: `"${key}" is not a hooks file field agent-onion knows; ignored` });
    return { at: ["hooks"], hooks: decodeHooksSection(file, ["hooks"], value.hooks, notes) };
  }
  const { description: _description, ...events } = value;
  return { at: [], hooks: decodeHooksSection(file, [], events, notes) };
};

/**
 * Read a plugin's hooks (see the module comment). Throws `SettingsError` naming the file and
 * pointer of anything malformed; fields it does not know are listed in `notes`.
 *
 * @example
 * const plugin = loadClaudePlugin("~/.claude/plugins/cache/hookify", homedir())
 * plugin.sections[0]?.file // ".../hookify/hooks/hooks.json"
 */
export const loadClaudePlugin = (source: PluginSource, home: string): LoadedPlugin => {
  const given = typeof source === "string" ? source : source.dir;
  const root = resolve(given === "~" || given.startsWith("~/") ? join(home, given.slice(1)) : given);
  const manifestFile = join(root, ".claude-plugin", "plugin.json");
  const manifest = existsSync(manifestFile) ? readJson(manifestFile) : undefined;
  if (manifest !== undefined && !isObject(manifest)) throw new SettingsError(manifestFile, "", "plugin.json must be a JSON object");
  const name = typeof manifest?.name === "string" && manifest.name !== "" ? manifest.name : basename(root);
  const data =
    typeof source !== "string" && source.dataDir !== undefined ? resolve(source.dataDir) : join(home, ".claude", "plugins", "data", name);
  const sections: { file: string; at: readonly string[]; hooks: Record<string, MatcherGroup[]> }[] = [];
  const notes: { source: string; message: string }[] = [];
  const fromFile = (file: string): void => {
    const fileNotes: SettingsNote[] = [];
    const { at, hooks } = hooksOfFile(file, readJson(file), fileNotes);
    sections.push({ file, at, hooks });
    for (const n of fileNotes) notes.push({ source: `${file}#${n.pointer}`, message: n.message });
  };
  const standard = join(root, "hooks", "hooks.json");
  if (existsSync(standard)) fromFile(standard);
  // plugin.json may name more hooks files, or hold hooks inline; naming the standard file again loads it once.
  const declared = manifest?.hooks;
  if (typeof declared === "string" || Array.isArray(declared)) {
    for (const [i, path] of (Array.isArray(declared) ? declared : [declared]).entries()) {
      const at = Array.isArray(declared) ? pointer(["hooks", i]) : pointer(["hooks"]);
      if (typeof path !== "string") throw new SettingsError(manifestFile, at, `expected a path to a hooks file, got ${typeof path}`);
      const file = isAbsolute(path) ? path : resolve(root, path);
      if (file === standard) continue;
      fromFile(file);
    }
  } else if (isObject(declared)) {
    const fileNotes: SettingsNote[] = [];
    sections.push({ file: manifestFile, at: ["hooks"], hooks: decodeHooksSection(manifestFile, ["hooks"], declared, fileNotes) });
    for (const n of fileNotes) notes.push({ source: `${manifestFile}#${n.pointer}`, message: n.message });
  } else if (declared !== undefined) {
    throw new SettingsError(manifestFile, "/hooks", "expected a path, a list of paths, or an object of hooks");
  }
  if (sections.length === 0)
    notes.push({ source: root, message: "the plugin has no hooks (no hooks/hooks.json, and its plugin.json names none)" });
  return { name, root, data, sections, notes };
};
