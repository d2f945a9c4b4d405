/**
 * Conditions on a point's detail string, the `pattern` in `Name(pattern)`: shell patterns for
 * shell tools, `domain:` for URLs, path globs for everything else. Each is compiled once.
 * When the detail cannot be understood (a shell command that cannot be read, a command whose name is
 * only known at run time, a shell that reads its script from a pipe or a file, a URL that does not
 * parse), the condition matches: a guard written as `Bash(rm *)` must not be skipped because the
 * input was garbled on purpose.
 */
import { readDetail, UNREADABLE_DETAIL } from "./detail.ts";
import { compilePathRule, pathSettings, type PathScope } from "./path-rule.ts";
import { analyseShell } from "./shell.ts";
import { loadShellParser } from "./shell/parser.ts";
import type { PathOptions } from "./types.ts";
import { wildcard } from "./wildcard.ts";

/**
 * Tool names whose detail is a shell command, matched with shell semantics (compound commands split,
 * wrappers looked through). Any other name gets path or `domain:` semantics.
 *
 * @example
 * SHELL_TOOLS.has("Bash") // true
 */
export const SHELL_TOOLS: ReadonlySet<string> = new Set(["Bash", "bash", "shell", "sh", "exec", "run_command", "run_shell_command"]);

/**
 * A compiled condition: whether the detail (undefined when the point has none for this input) satisfies it.
 * `UNREADABLE_DETAIL` satisfies none: `toolPolicy`'s allow side reads conditions directly and must
 * not allow what it cannot read; the matcher, a guard's view, matches it on its own. `scope` tells a
 * path condition which tool the call is to, the call's input (one normalisation of a path per call)
 * and the run's metadata (its `cwd`).
 */
export type Condition = (detail: string | undefined, scope?: PathScope) => boolean;

/**
 * Compile the condition of `tool(pattern)`. Throws an `Error` saying what is wrong with the pattern.
 * A path condition is the deny reading of the rule (see `path-rule.ts`): it holds when any form of
 * the path matches, or when the path cannot be known.
 *
 * @example
 * compileCondition("Bash", "rm *")("ls && rm -rf /") // true
 * compileCondition("WebFetch", "domain:*.example.com")("https://api.example.com/x") // true
 * compileCondition("Write", "/etc/**")("/proc/self/root/etc/passwd") // true
 */
export const compileCondition = (tool: string, pattern: string, paths?: PathOptions): Condition => {
  // A shell condition refuses the unreadable detail itself: one wrapper less per hook of a call.
  if (SHELL_TOOLS.has(tool)) return shellCondition(pattern);
  const holds = conditionOn(pattern, paths);
  return (detail, scope) => detail !== UNREADABLE_DETAIL && holds(detail, scope);
};

const conditionOn = (pattern: string, paths: PathOptions | undefined): Condition => {
  if (pattern.startsWith("domain:")) return domainCondition(pattern.slice("domain:".length));
  const rule = compilePathRule(pattern, pathSettings(paths));
  return (detail, scope) => rule.matches(detail, scope);
};

const matchText = (pattern: string) => (text: string) =>
  wildcard(
    pattern,
    text,
    (a) => a === "*",
    (a, c) => a === c,
  );

/** A compiled `Bash(pattern)`: whether one command's text matches, and whether the pattern says no more than the command's name. */
export interface ShellPattern {
  readonly test: (command: string) => boolean;
  /** The text every matching command starts with (the pattern up to its first star), for a quick test first. */
  readonly prefix: string;
  /** The pattern constrains only the name (`git *`, `ls`, `npm:*`), so words computed at run time cannot change whether it holds. */
  readonly nameOnly: boolean;
}

/**
 * Claude Code's Bash rule syntax, on the whitespace-normalised command: `*` matches anything
 * (spaces and `/` included); a trailing ` *` also matches the bare command (`rm *` matches `rm` but
 * not `rmdir`); the legacy trailing `:*` matches the literal prefix alone or followed by a blank, as
 * Claude Code reads it (`npm run test:*` matches `npm run test --watch`, not `npm run testx`).
 * Throws an `Error` for an empty pattern.
 *
 * @example
 * compileShellPattern("git *").test("git status") // true
 * compileShellPattern("git push *").nameOnly // false
 */
export const compileShellPattern = (pattern: string): ShellPattern => {
  const p = pattern.replace(/\s+/g, " ").trim();
  if (p === "") throw new Error("has an empty command pattern");
  // Loaded on the first shell condition, so a parser that cannot load is a registration error.
  loadShellParser();
  // Claude Code reads `prefix:*` as the words of the prefix and nothing or a blank after them, the
  // prefix taken literally (a `*` in it is a plain character): `npm run test:*` matches `npm run test -- -t x`, not
  // `npm run testx` or `npm run test:unit`, and `ls:*` does not match `lsof`.
  const legacy = /^(.+):\*$/s.exec(p)?.[1]?.trimEnd();
  const full =
    legacy !== undefined
      ? (c: string) => c === legacy || c.startsWith(`${legacy} `)
      : p.endsWith(" *")
        ? (
            (whole, bare) => (c: string) =>
              whole(c) || bare(c)
          )(matchText(p), matchText(p.slice(0, -2)))
        : matchText(p);
  // Every match starts with the text before the first star: a cheap test first, since one call may
  // meet a thousand conditions.
  const star = p.indexOf("*");
  const prefix = legacy ?? (star < 0 ? p : p.slice(0, star).replace(/ $/, ""));
  // The first character, compared on its own, rules most commands out for less than `startsWith`.
  const first = prefix.charCodeAt(0);
  const test = prefix === "" ? full : (c: string): boolean => c.charCodeAt(0) === first && c.startsWith(prefix) && full(c);
  // As in Claude Code: a pattern that says more than the command name (`git push *`) cannot be
  // ruled out when parts of the command are computed at run time (`$VAR`, `$(…)`, backticks).
  return { test, prefix, nameOnly: !/[\s*]/.test(legacy ?? p.replace(/(?: \*|\*)$/, "")) };
};

/**
 * The deny side's reading: the condition holds when ANY command the text runs matches, so nothing
 * can hide behind `&&` or a wrapper, and when the analysis cannot rule a match out (opaque, or
 * computed at run time where the pattern names more than the command).
 */
const shellCondition = (pattern: string): Condition => {
  const { test, prefix, nameOnly } = compileShellPattern(pattern);
  const first = prefix === "" ? -1 : prefix.charCodeAt(0);
  return (detail) => shellHolds(detail, first, test, nameOnly);
};

/**
 * The test of a hook matcher `tool(pattern)` on a shell tool: `shellCondition` on the call's detail,
 * in one closure holding what it needs, since one call may meet a thousand such hooks. An
 * unreadable detail matches (the guard's view: a deny still applies).
 *
 * @example
 * shellMatcherTest("Bash", "rm *")("Bash", undefined, () => "ls && rm -rf /") // true
 */
export const shellMatcherTest = (
  tool: string,
  pattern: string,
): ((subject: string | undefined, input: unknown, detail: () => string | undefined) => boolean) => {
  const { test, prefix, nameOnly } = compileShellPattern(pattern);
  const first = prefix === "" ? -1 : prefix.charCodeAt(0);
  return (subject, _input, detail) => {
    if (subject !== tool) return false;
    const d = readDetail(detail());
    return d === UNREADABLE_DETAIL || shellHolds(d, first, test, nameOnly);
  };
};

/** The deny reading of a compiled shell pattern on `detail` (see `shellCondition`). */
const shellHolds = (detail: string | undefined, first: number, test: (command: string) => boolean, nameOnly: boolean): boolean => {
  if (detail === undefined || detail === UNREADABLE_DETAIL) return false;
  const shell = analyseShell(detail);
  if (shell === undefined || shell.opaque || (shell.dynamic && !nameOnly)) return true;
  const commands = shell.commands;
  for (let i = 0; i < commands.length; i++) {
    const command = commands[i] as string;
    // The first character inline: one call may meet a thousand conditions, most ruled out here.
    if ((first === -1 || command.charCodeAt(0) === first) && test(command)) return true;
  }
  return false;
};

/** `domain:example.com` matches that host exactly; `domain:*.example.com` matches its subdomains (not the apex). */
const domainCondition = (spec: string): Condition => {
  const sub = spec.startsWith("*.");
  const name = sub ? spec.slice(2) : spec;
  if (name === "" || /[\s/:@?#*\\[\]]/.test(name))
    throw new Error(`has an invalid domain "${spec}" (expected example.com or *.example.com)`);
  // Through WHATWG URL, so the pattern is compared in the same form as the URL's host (lowercase, punycode).
  const host = hostOf(`http://${name}`) ?? "";
  if (host === "") throw new Error(`has an invalid domain "${spec}"`);
  return (detail) => {
    if (detail === undefined) return false;
    // A scheme-less `evil.com:443/x` parses as scheme "evil.com:" with no host: retry it as https.
    const h = hostOf(detail) || (detail.includes("://") ? undefined : hostOf(`https://${detail}`));
    if (h === undefined) return true;
    return sub ? h.endsWith(`.${host}`) : h === host;
  };
};

/**
 * A URL's host as the connection sees it. WHATWG URL already reads every IPv4 spelling (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`) as the dotted address and names in lowercase punycode; two more spellings
 * reach the same place: a trailing dot (`example.com.`), and an IPv4-mapped IPv6 address
 * (`[::ffff:127.0.0.1]`, which a dual-stack socket connects to 127.0.0.1), read here as the IPv4 one.
 */
const hostOf = (url: string): string | undefined => {
  try {
    const host = new URL(url).hostname.replace(/\.$/, "");
    const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
    if (mapped === null) return host;
    const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  } catch {
    return undefined;
  }
};
