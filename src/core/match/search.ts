/**
 * A search tool's call (Grep, Glob, LS) as one glob: the directory it searches, escaped so that its
 * name is read literally, then its file pattern. Path rules read this glob (see `path-rule.ts`).
 * Braces in the file pattern are expanded as the search tools expand them, by `braces` (micromatch's
 * expander, loaded on first use), so an alternative that is absolute (`{/etc,x}/passwd`) stands on its own.
 */
import { createRequire } from "node:module";
import { escapeGlob } from "./glob.ts";

// A require made when a dependency is first loaded, not at import: createRequire costs a little
// in every process that imports this file, and most never load the dependency.
const require = (id: string): unknown => createRequire(import.meta.url)(id);
let braces: typeof import("braces") | undefined;

/** At most 2^8 alternatives are expanded; a pattern with more commas is widened instead. */
const maxCommas = 8;

/**
 * The alternatives of a glob with braces (`*.{ts,tsx}`), or `undefined` when they cannot be known.
 * Past 2^8 alternatives (or a range past that many), the segment holding the first brace and all
 * after it become `**`, which a deny matches more widely; a brace in the first segment (whose
 * alternatives could be absolute) makes the glob unknowable.
 *
 * @example
 * expandBraces("src/**\/*.{ts,tsx}") // ["src/**\/*.ts", "src/**\/*.tsx"]
 * expandBraces("a/*.ts") // ["a/*.ts"]
 */
export const expandBraces = (glob: string): string[] | undefined => {
  if (!glob.includes("{")) return [glob];
  if (glob.split(",").length - 1 <= maxCommas) {
    try {
      braces ??= require("braces") as typeof import("braces");
      return braces(glob, { expand: true, rangeLimit: 1 << maxCommas });
    } catch {
      // a range past the limit: widen below
    }
  }
  const raw = glob.split("/");
  const cut = raw.findIndex((s) => s.includes("{"));
  if (cut <= 0) return undefined;
  return [[...raw.slice(0, cut), raw.slice(cut).some((s) => s.includes("..")) ? "../**" : "**"].join("/")];
};

const absolute = /^(?:[/~]|[A-Za-z]:[\\/])/;

/**
 * The globs a Grep `glob` field stands for, split as Claude Code splits it before handing each to
 * ripgrep's `--glob`: on whitespace, then on commas in a part without braces (`"*.ts,.env"` is two
 * globs, `"*.{ts,tsx}"` one).
 *
 * @example
 * grepGlobs("*.ts,.env *.md") // ["*.ts", ".env", "*.md"]
 */
export const grepGlobs = (field: string): string[] =>
  field
    .split(/\s+/)
    .flatMap((part) => (part.includes("{") && part.includes("}") ? [part] : part.split(",")))
    .filter((g) => g !== "");

/**
 * The glob a search stands for: `dir` (default the working directory, `.`) escaped, then each of
 * `filters` relative to it, as ripgrep's `--glob` reads them: a glob without `/` names a file at any
 * depth, a glob that starts with `!` excludes files and so narrows nothing (only exclusions: the
 * search is unfiltered), and an absolute glob is read from the root (its literal directory is where
 * the search starts, and the rest is read from there) and, for Grep (`grep`), whose `glob` ripgrep
 * anchors at the search's directory, also from `dir`. Several alternatives (several globs, or braces) become one
 * brace group of whole globs. `undefined` when the filter's alternatives cannot be known.
 *
 * @example
 * searchGlob("src", "**\/*.ts") // "src/**\/*.ts"
 * searchGlob(undefined, "*.env") // "./**\/*.env"
 * searchGlob("src", "{/etc,x}/passwd") // "{/etc/passwd,src/x/passwd}"
 * searchGlob("src", ["!*.test.ts"]) // "src"
 */
export const searchGlob = (dir: string | undefined, filters: string | readonly string[] | undefined, grep = false): string | undefined => {
  const root = escapeGlob((dir === undefined || dir === "" ? "." : dir).replaceAll("\\", "/"));
  const given = filters === undefined ? [] : typeof filters === "string" ? [filters] : filters;
  const globs: string[] = [];
  for (const filter of given) {
    if (filter === "" || filter.startsWith("!")) continue;
    const alternatives = filter.includes("{") ? expandBraces(filter) : [filter];
    if (alternatives === undefined) return undefined;
    for (const alt of alternatives) {
      globs.push(join(root, alt));
      // ripgrep reads a leading `/` in Grep's glob as "from the search's directory": both readings.
      if (grep && alt.startsWith("/")) globs.push(`${root}${alt}`);
    }
  }
  if (globs.length === 0) return root;
  const unique = [...new Set(globs)];
  if (unique.length === 1) return unique[0]!;
  return `{${unique.map((a) => a.replace(/[,{}\\]/g, "\\$&")).join(",")}}`;
};

/** One filter glob of a search from `root`, as ripgrep reads it. */
const join = (root: string, alt: string): string => {
  if (absolute.test(alt)) {
    // The literal directory in front is where the search starts; the rest is relative to it.
    const wild = alt.search(/[*?[{\\]/);
    const slash = wild < 0 ? alt.lastIndexOf("/") : alt.lastIndexOf("/", wild);
    const base = alt.slice(0, slash + 1);
    const rest = alt.slice(slash + 1);
    return rest === "" || rest.includes("/") ? alt : `${base}**/${rest}`;
  }
  return `${root}/${alt.includes("/") ? "" : "**/"}${alt}`;
};
