/**
 * Small rules of Claude Code's settings that decide whether a handler runs: the
 * `allowedHttpHookUrls` wildcard match, how a `matcher` is read, the matcher of a handler
 * defined in several groups, and readable hook names.
 */
import { compileLinearRegExp, type LinearRegExp } from "../core/match/linear-regexp.ts";
import { compileMatcher, conditionShape, namesOnly } from "../core/match/matcher.ts";
import type { Matcher } from "../core/match/types.ts";
import { scriptLabel } from "./command-label.ts";
import { httpHookLabel } from "./http.ts";
import { SettingsError, type SettingsHandler } from "./settings-schema.ts";

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One `allowedHttpHookUrls` pattern as a RegExp over a URL's text, run in linear time (a project's settings may be hostile). */
const urlPattern = (pattern: string): LinearRegExp => {
  // In the scheme and authority, `*` stays inside a host name: it never spans `/`, `?`, `#`, `@` or
  // `:`, so `https://*.example.com/*` cannot be satisfied by `https://evil.com/x.example.com/` (E6).
  const start = pattern.indexOf("://");
  const slash = pattern.indexOf("/", start < 0 ? 0 : start + 3);
  const authority = slash < 0 ? pattern : pattern.slice(0, slash);
  const path = slash < 0 ? "" : pattern.slice(slash);
  const host = authority.split("*").map(escape).join("[A-Za-z0-9.-]*");
  const rest = path.split("*").map(escape).join(".*");
  // Tested against the settings' own hook URLs, not long text a model wrote: a larger program is fine.
  return compileLinearRegExp(`^${host}${rest}$`, MAX_URL_PROGRAM);
};

const MAX_URL_PROGRAM = 20_000;

/**
 * Whether `url` matches `allowedHttpHookUrls` (no list means any URL). A `*` in the host part
 * matches within the host name only; in the path it matches anything. The URL must match both as
 * written and as `httpHook` will request it, normalised: `/hooks/../admin` and
 * `/hooks/%2e%2e/admin` are requested as `/admin`, so they do not pass `/hooks/*`. A URL that does
 * not parse matches nothing.
 *
 * @example
 * urlAllowed("https://hooks.example.com/pre", ["https://hooks.example.com/*"]) // true
 * urlAllowed("https://evil.com/x.example.com/pre", ["https://*.example.com/*"]) // false
 * urlAllowed("https://hooks.example.com/pre/../admin", ["https://hooks.example.com/pre/*"]) // false
 */
export const urlAllowed = (url: string, patterns: readonly string[] | undefined): boolean => {
  if (patterns === undefined) return true;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  target.hash = ""; // never sent, so it cannot be what makes a URL allowed
  // `URL` writes a bare origin with a trailing `/`; the pattern "https://hooks.example.com" means that same URL.
  const requested = target.pathname === "/" && target.href.endsWith("/") ? [target.href, target.href.slice(0, -1)] : [target.href];
  return patterns.some((p) => {
    const pattern = urlPattern(p);
    return pattern.test(url) && requested.some((form) => pattern.test(form));
  });
};

// FileChanged and StopFailure read only letters, digits, `_` and `|` as names ("Matcher patterns").
const narrowNames = /^[A-Za-z0-9_|]*$/;

/**
 * One `matcher` text for what either of two matchers matches on `event`, read as Claude Code
 * reads each ("Matcher patterns"): no matcher, `""` or `"*"` matches all; two name lists join into
 * one; otherwise a name list becomes an anchored RegExp and both go into one alternation. It is
 * for reading: joined RegExps can renumber back-references or repeat a group name, so what runs
 * is `anyGroupMatcher`, which compiles each on its own.
 *
 * @example
 * orMatchers("PreToolUse", "Bash", "Bash|Edit") // "Bash|Edit"
 * orMatchers("PreToolUse", "Bash", "^mcp__") // "^(?:Bash)$|(?:^mcp__)"
 */
export const orMatchers = (event: string, a: string | undefined, b: string | undefined): string | undefined => {
  const matchesAll = (m: string | undefined) => m === undefined || m === "" || m === "*";
  if (matchesAll(a) || matchesAll(b)) return undefined;
  if (a === b) return a;
  const narrow = event === "StopFailure" || event === "FileChanged";
  const names = (m: string): string[] | undefined =>
    (narrow ? narrowNames : namesOnly).test(m)
      ? m
          .split(narrow ? "|" : /[|,]/)
          .map((n) => n.trim())
          .filter((n) => n !== "")
      : undefined;
  const [na, nb] = [names(a!), names(b!)];
  if (na && nb) return [...new Set([...na, ...nb])].join("|");
  // Names hold only letters, digits, `_`, `-` and spaces: nothing to escape in a RegExp.
  const part = (m: string, list: string[] | undefined) => (list ? `^(?:${list.join("|")})$` : `(?:${m})`);
  return `${part(a!, na)}|${part(b!, nb)}`;
};

/**
 * A settings `matcher` written so that our match grammar reads it as Claude Code does. Names and
 * RegExps read the same in both, except two shapes Claude Code reads as a RegExp and ours would
 * not: `Name(...)` (a condition in ours; settings put those in `if`) and, on StopFailure (`narrow`),
 * a list with `-`, `,` or spaces (names in ours). Those go in a non-capturing group, which matches
 * exactly what the pattern matches.
 *
 * @example
 * claudeMatch("Notebook(Edit|Read)", false) // "(?:Notebook(Edit|Read))"
 */
export const claudeMatch = (pattern: string, narrow: boolean): string =>
  conditionShape.test(pattern) || (narrow && namesOnly.test(pattern) && !narrowNames.test(pattern)) ? `(?:${pattern})` : pattern;

/** One group's `matcher`, and where it is written: the file and the JSON pointer of the field. */
export interface GroupMatcher {
  readonly matcher: string | undefined;
  readonly file: string;
  readonly pointer: string;
}

/**
 * What a handler defined in one or more groups matches: each group's `matcher` read as Claude
 * Code reads it (`narrow` on StopFailure), compiled and checked on its own, as when the handler
 * is defined once, so an invalid one throws naming its own file and pointer; then ORed. Compiled
 * rather than joined as text, where back-references would renumber, a group name repeated in two
 * files would not compile and two long patterns would pass the length limit together. `undefined`
 * when one of them matches everything.
 *
 * @example
 * const at = (matcher: string) => ({ matcher, file: "a.json", pointer: "/hooks/PreToolUse/0/matcher" });
 * anyGroupMatcher([at("Bash"), at("^mcp__")], false, "guard")?.matchSubject("mcp__x") // true
 */
export const anyGroupMatcher = (groups: readonly GroupMatcher[], narrow: boolean, hook: string): Matcher | undefined => {
  const compiled: Matcher[] = [];
  let all = false;
  for (const { matcher, file, pointer } of groups) {
    if (matcher === undefined || matcher === "" || matcher === "*") {
      all = true;
      continue;
    }
    try {
      compiled.push(compileMatcher(claudeMatch(matcher, narrow), hook));
    } catch (error) {
      throw new SettingsError(file, pointer, (error as Error).message);
    }
  }
  if (all || compiled.length === 0) return undefined;
  if (compiled.length === 1) return compiled[0];
  // Each is a name list or a RegExp (claudeMatch leaves no condition), so the subject decides.
  const matchSubject = (subject: string | undefined): boolean => compiled.some((m) => m.matchSubject(subject));
  return Object.freeze({
    source: compiled.map((m) => m.source).join(" | "),
    all: false,
    needsInput: false,
    needsSubject: true,
    matchSubject,
    test: (subject: string | undefined) => matchSubject(subject),
  });
};

/**
 * A short label for a handler: the script a command runs, the host of a URL and a hash of it (its
 * path may hold a credential), the start of a prompt.
 *
 * @example
 * hookLabel({ type: "command", command: "node", args: ["${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.mjs"] }) // "guard.mjs"
 */
export const hookLabel = (handler: SettingsHandler): string => {
  switch (handler.type) {
    case "command":
      return scriptLabel(handler.command, handler.args);
    case "http": {
      try {
        return httpHookLabel(new URL(handler.url));
      } catch {
        return "invalid-url"; // httpHook refuses it; its text may still hold a credential
      }
    }
    case "prompt":
    case "agent":
      return handler.prompt.length > 32 ? `${handler.prompt.slice(0, 32)}…` : handler.prompt;
    case "mcp_tool":
      return `${handler.server}/${handler.tool}`;
    case "unknown":
      return handler.declared;
  }
};
