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
 * The glob a search stands for: `dir` (default the working directory, `.`) escaped, then `filter`
 * relative to it (at any depth when `anyDepth` and it has no `/`, as ripgrep reads `--glob`); an
 * absolute filter stands alone. Several brace alternatives become one brace group of whole globs.
 * `undefined` when the filter's alternatives cannot be known.
 *
 * @example
 * searchGlob("src", "**\/*.ts", false) // "src/**\/*.ts"
 * searchGlob(undefined, "*.env", true) // "./**\/*.env"
 * searchGlob("src", "{/etc,x}/passwd", false) // "{/etc/passwd,src/x/passwd}"
 */
export const searchGlob = (dir: string | undefined, filter: string | undefined, anyDepth: boolean): string | undefined => {
  const root = escapeGlob((dir === undefined || dir === "" ? "." : dir).replaceAll("\\", "/"));
  if (filter === undefined || filter === "") return root;
  const join = (alt: string): string => (absolute.test(alt) ? alt : `${root}/${anyDepth && !alt.includes("/") ? "**/" : ""}${alt}`);
  if (!filter.includes("{")) return join(filter);
  const alternatives = expandBraces(filter);
  if (alternatives === undefined) return undefined;
  if (alternatives.length === 1) return join(alternatives[0]!);
  return `{${[...new Set(alternatives.map(join))].map((a) => a.replace(/[,{}\\]/g, "\\$&")).join(",")}}`;
};
