/**
 * Path rules: the pattern of `Read(…)`, `Edit(…)`, `Write(…)` or any other `Name(path glob)`,
 * read in Claude Code's grammar and matched against the normalised forms of a tool call's paths.
 *
 * | pattern          | is read against                                             |
 * |------------------|-------------------------------------------------------------|
 * | `//abs/path`     | the file system root                                        |
 * | `~/path`         | the home directory                                          |
 * | `/path`          | the project directory AND the root (both readings)          |
 * | `./path`, `a/b`  | the project directory                                       |
 * | `name`, `**\/x`  | any depth: anywhere for a deny, under the project for an allow |
 *
 * As in `.gitignore` (which Claude Code's rules follow), a rule that matches a directory matches
 * everything in it. Deny and allow read a rule differently because they fail in opposite
 * directions: a deny matches when ANY form of the path (as given, as resolved) matches, or when the
 * path is opaque; an allow holds only when every form the kernel would open matches and none is opaque.
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { UNREADABLE_DETAIL } from "./detail.ts";
import { GLOBSTAR, escapeGlob, globsOverlap, literalPrefix, matchGlob, parseGlob, type Segment } from "./glob.ts";
import { partsOf, pathForms, toPosixPath, type PathContext, type PathForms } from "./path-forms.ts";
import { expandBraces } from "./search.ts";
import { SEARCH_TOOLS, WRITE_TOOLS } from "./tool-families.ts";
import type { PathOptions } from "./types.ts";

/** `PathOptions` with every default applied, as a rule uses them. */
export interface PathSettings {
  /** The working directory given in the options, or `undefined` for `process.cwd()` at call time. */
  readonly cwd: string | undefined;
  readonly projectDir: string;
  readonly home: string;
  readonly symlinks: boolean;
  readonly caseInsensitive: boolean;
  readonly searchContents: boolean;
  readonly windows: boolean;
}

/** What a rule knows of the call it is checking: the tool (for searches), the input (the per-call cache key) and the run's metadata (`cwd`). */
export interface PathScope {
  readonly subject?: string | undefined;
  readonly input?: unknown;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** A compiled path rule. */
export interface PathRule {
  /** The deny reading (also a guard hook's): ANY form matches, or the path is opaque. */
  matches(detail: string | undefined, scope?: PathScope): boolean;
  /** The allow reading: every form the kernel would open matches, and none is opaque. */
  allows(detail: string | undefined, scope?: PathScope): boolean;
}

const platformIsCaseInsensitive = process.platform === "darwin" || process.platform === "win32";

/**
 * Apply the defaults to `PathOptions`; throws a `TypeError` naming the option when one is invalid.
 * Relative directories are resolved against `process.cwd()` now.
 *
 * @example
 * pathSettings({ projectDir: "/home/u/proj" }).symlinks // true
 */
export const pathSettings = (options: PathOptions | undefined = {}): PathSettings => {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`paths must be an object, got ${options === null ? "null" : typeof options}`);
  const dir = (key: "cwd" | "projectDir" | "home"): string | undefined => {
    const value = options[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value === "")
      throw new TypeError(`paths.${key} must be a non-empty string, got ${JSON.stringify(value)}`);
    return resolve(value);
  };
  const flag = (key: "symlinks" | "caseInsensitive" | "searchContents", fallback: boolean): boolean => {
    const value = options[key];
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") throw new TypeError(`paths.${key} must be a boolean, got ${typeof value}`);
    return value;
  };
  const cwd = dir("cwd");
  const fromEnv = process.env.CLAUDE_PROJECT_DIR;
  return {
    cwd,
    projectDir: dir("projectDir") ?? (fromEnv !== undefined && fromEnv !== "" && isAbsolute(fromEnv) ? fromEnv : (cwd ?? process.cwd())),
    home: dir("home") ?? homedir(),
    symlinks: flag("symlinks", true),
    caseInsensitive: flag("caseInsensitive", platformIsCaseInsensitive),
    searchContents: flag("searchContents", false),
    windows: process.platform === "win32",
  };
};

/**
 * Compile a path pattern once. Throws an `Error` saying what is wrong (empty, a `..` after a
 * wildcard, an invalid bracket class).
 *
 * @example
 * const rule = compilePathRule("src/**", pathSettings({ projectDir: "/home/u/proj", symlinks: false }))
 * rule.allows("/home/u/proj/src/a.ts") // true
 * rule.allows("/home/u/proj/src/../../../../etc/passwd") // false
 */
export const compilePathRule = (pattern: string, settings: PathSettings): PathRule => {
  // Names are compared in NFC; an allow also takes the rule's own bytes (an NFD name on Linux is
  // another file than its NFC twin, and is allowed only by a rule that names it so).
  const nfc = pattern.normalize("NFC");
  const { deny, allow: allowNfc, files } = alternatives(nfc, settings);
  const allow = nfc === pattern ? allowNfc : [...allowNfc, ...alternatives(pattern, settings).allow];
  const last: { context?: KeyedContext } = {};
  const check = (detail: string | undefined, scope: PathScope | undefined, side: "deny" | "allow"): boolean => {
    if (detail === undefined) return false;
    if (detail === UNREADABLE_DETAIL) return side === "deny";
    const context = contextOf(settings, scope?.metadata, last);
    const alts = side === "deny" ? deny : allow;
    if (scope?.subject !== undefined && SEARCH_TOOLS.has(scope.subject))
      return checkSearch(detail, context, scope.input, alts, files, side, settings.searchContents);
    const forms = formsOf(detail, context, scope?.input);
    if (side === "deny") return forms.opaque || forms.parts.some((parts) => alts.some((a) => matchGlob(a, parts)));
    if (forms.opaque || !forms.opened.every((parts) => alts.some((a) => matchGlob(a, parts)))) return false;
    // A file with other hard links is also those files, wherever they are: writing it writes them.
    return !(scope?.subject !== undefined && WRITE_TOOLS.has(scope.subject) && settings.symlinks && hardLinked(forms));
  };
  return Object.freeze({
    matches: (detail: string | undefined, scope?: PathScope) => check(detail, scope, "deny"),
    allows: (detail: string | undefined, scope?: PathScope) => check(detail, scope, "allow"),
  });
};

/** Whether a form the kernel would open is an existing regular file with more than one name (hard links). */
const hardLinked = (forms: PathForms): boolean =>
  forms.opened.some((parts) => {
    try {
      const stat = statSync(parts.join("/") || "/", { throwIfNoEntry: false });
      return stat?.isFile() === true && stat.nlink > 1;
    } catch {
      return false;
    }
  });

/** A path context and the key its forms are cached under. */
interface KeyedContext extends PathContext {
  readonly key: string;
}

/** The call's path context: the run's `metadata.cwd` wins over the options' `cwd`, then `process.cwd()`. */
const contextOf = (
  settings: PathSettings,
  metadata: Readonly<Record<string, unknown>> | undefined,
  last: { context?: KeyedContext },
): KeyedContext => {
  const given = metadata?.cwd;
  const base = settings.cwd ?? process.cwd();
  const cwd = typeof given === "string" && given !== "" ? resolve(base, given) : base;
  if (last.context?.cwd === cwd) return last.context;
  const key = `${cwd}\u0000${settings.home}\u0000${settings.symlinks ? 1 : 0}${settings.caseInsensitive ? 1 : 0}\u0000`;
  return (last.context = {
    cwd,
    key,
    home: settings.home,
    symlinks: settings.symlinks,
    windows: settings.windows,
    caseInsensitive: settings.caseInsensitive,
  });
};

// One normalisation of a path per tool call, shared by every rule that reads it: keyed by the call's
// input object, then by the context and the path.
const perCall = new WeakMap<object, Map<string, PathForms>>();

const formsOf = (path: string, context: KeyedContext, input: unknown): PathForms => {
  if (typeof input !== "object" || input === null) return pathForms(path, context);
  let cache = perCall.get(input);
  if (cache === undefined) perCall.set(input, (cache = new Map()));
  const key = context.key + path;
  let forms = cache.get(key);
  if (forms === undefined) cache.set(key, (forms = pathForms(path, context)));
  return forms;
};

/** The absolute glob alternatives a pattern stands for, for each side. */
const alternatives = (pattern: string, settings: PathSettings): { deny: Segment[][]; allow: Segment[][]; files: Segment[][] } => {
  let p = pattern;
  while (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  while (p.startsWith("./")) p = p.slice(2);
  if (p === "" || p === "." || p === "./") throw new Error("is an empty path pattern");
  // Claude Code's rules name the home directory `~/`; a variable would be read as a directory of that name.
  if (/^(?:\$HOME|\$\{HOME\}|%USERPROFILE%)(?:[\\/]|$)/i.test(p))
    throw new Error(
      `starts with a variable, which rules do not expand; write ~/ for the home directory ("~/${p.replace(/^[^\\/]*[\\/]?/, "")}")`,
    );
  const project = toPosixPath(settings.projectDir, settings.windows);
  const home = toPosixPath(settings.home, settings.windows);
  const under = (base: string, rest: string): string => `${escapeGlob(base)}${base.endsWith("/") ? "" : "/"}${rest}`;
  let deny: string[];
  let allow: string[];
  if (p.startsWith("//")) deny = allow = [p.slice(1)];
  else if (p === "~" || p.startsWith("~/")) deny = allow = [under(home, p.slice(2))];
  else if (p.startsWith("/")) deny = allow = [p, under(project, p.slice(1))];
  else if (pattern.startsWith("./") || (p.includes("/") && !p.startsWith("**/"))) deny = allow = [under(project, p)];
  else {
    const name = p.startsWith("**/") ? p.slice(3) : p;
    deny = [`**/${name}`];
    allow = [under(project, `**/${name}`)];
  }
  const written = (texts: string[]) =>
    texts.flatMap((t) => withLinks(absoluteGlob(settings.caseInsensitive ? t.toLowerCase() : t), settings));
  const asDenied = written(deny);
  return {
    deny: asDenied.map(coveringContents),
    allow: written(allow).map(coveringContents),
    // A rule whose last segment is `**` names a directory's contents; any other names files.
    files: asDenied.filter((a) => a.at(-1) !== GLOBSTAR),
  };
};

/** As in `.gitignore`, a rule that matches a directory matches everything in it: `/**` appended. */
const coveringContents = (segments: Segment[]): Segment[] => (segments.at(-1) === GLOBSTAR ? segments : [...segments, GLOBSTAR]);

/** Parse an absolute (or `**`-led) glob: `.` and `..` resolved in its literal part, separators collapsed. */
const absoluteGlob = (text: string): Segment[] => {
  const out: Segment[] = [];
  let wild = false;
  for (const segment of parseGlob(text)) {
    if (segment === ".") continue;
    if (segment === "..") {
      if (wild) throw new Error(`has ".." after a wildcard, which no normalised path contains; write the directory it means`);
      if (out.length > 1) out.pop();
      continue;
    }
    if (segment === "" && out.length > 0) continue; // repeated or trailing separators
    if (typeof segment !== "string") wild = true;
    out.push(segment);
  }
  return out;
};

/** The glob, and when its literal directory goes through a symbolic link, the same glob from the link's target. */
const withLinks = (segments: Segment[], settings: PathSettings): Segment[][] => {
  const prefix = literalPrefix(segments);
  if (!settings.symlinks || prefix.length < 2 || prefix[0] !== "") return [segments];
  const dir = prefix.join("/");
  const real = realPrefix(dir, settings);
  if (real === undefined || real === dir) return [segments];
  const folded = settings.caseInsensitive ? real.toLowerCase() : real;
  return [segments, [...absoluteGlob(escapeGlob(folded)), ...segments.slice(prefix.length)]];
};

/** `realpath` of the longest existing prefix of `dir`, with the rest appended. */
const realPrefix = (dir: string, settings: PathSettings): string | undefined => {
  const parts = dir.split("/");
  for (let k = parts.length; k > 1; k--) {
    try {
      const real = toPosixPath(realpathSync.native(parts.slice(0, k).join("/")), settings.windows);
      return [real === "/" ? "" : real, ...parts.slice(k)].join("/");
    } catch {
      // missing: try the parent
    }
  }
  return undefined;
};

/**
 * A search (Grep, Glob, LS): its detail is a glob, the directory escaped then the file pattern.
 * Deny: the search is refused when the directory it starts from (the literal part of the glob) is
 * matched, and when its file pattern could name a file that a rule naming files (one whose last
 * segment is not `**`) matches, as written; with `searchContents`, when anything it could reach
 * (everything under its directory, without a file pattern) matches. Allow: the directory it starts
 * from must be matched, which covers everything under it.
 */
const checkSearch = (
  detail: string,
  context: KeyedContext,
  input: unknown,
  alts: Segment[][],
  files: Segment[][],
  side: "deny" | "allow",
  contents: boolean,
): boolean => {
  const queries = expandBraces(detail);
  if (queries === undefined) return side === "deny";
  for (const query of queries) {
    const raw = query.split("/");
    let k = 0;
    // The directory part is escaped with bracket classes, so a backslash belongs to the file pattern,
    // where it escapes the next character as the search tools read it (`.en\v` is `.env`).
    while (k < raw.length && !/[*?[{\\]|[@!+]\(/.test(raw[k]!)) k++;
    const rest = raw.slice(k).filter((s) => s !== "." && s !== "");
    // A `..` after a wildcard (or in braces left unexpanded) can reach anywhere; an extended glob
    // (`@(.env)`, `+(x)`), which some search tools read, can name what this reading does not follow.
    if (rest.some((s) => s.includes("..") || /[@!+*?]\(/.test(s))) return side === "deny";
    const start = raw.slice(0, k).join("/");
    const forms = formsOf(start === "" ? (query.startsWith("/") ? "/" : ".") : start, context, input);
    if (forms.opaque) return side === "deny";
    const restText = rest.length > 0 ? rest.join("/") : contents ? "**" : undefined;
    if (side === "allow") {
      if (!forms.opened.every((at) => alts.some((a) => matchGlob(a, at)))) return false;
      continue;
    }
    for (const form of forms.forms) {
      if (alts.some((a) => matchGlob(a, partsOf(form)))) return true;
      if (restText === undefined) continue;
      const q = parseGlob(`${escapeGlob(form === "/" ? "" : form)}/${context.caseInsensitive ? restText.toLowerCase() : restText}`);
      if ((contents ? alts : files).some((a) => globsOverlap(a, q))) return true;
    }
  }
  return side === "allow";
};
