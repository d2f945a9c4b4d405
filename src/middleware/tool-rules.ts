/**
 * Compiling `toolPolicy` rules. A rule has the matcher grammar of the core (R8): `"Read"`,
 * `"Read|Grep"`, a RegExp such as `"^mcp__"`, `"Bash(git *)"`, `"Write(src/**)"`,
 * `"WebFetch(domain:*.example.com)"`, or a function `(name, call) => boolean`.
 *
 * The two sides read a rule differently, because they must fail in opposite directions:
 * - a deny rule is the core's matcher, which matches when it cannot tell (an unreadable shell
 *   command, a command name computed at run time, a URL that does not parse) and when ANY simple
 *   command of a compound one matches: nothing hides behind `&&` or `sudo`;
 * - an allow rule with a condition allows only what it understands: every simple command of a
 *   shell call (wrappers and `bash -c` scripts included) must be covered by some allow rule; a word
 *   computed at run time (`$VAR`, `$(…)`, a glob) is accepted only by a rule that names nothing but
 *   the command (`Bash(echo *)`), and a command that cannot be read or is opaque is never allowed
 *   by a condition (only by the bare tool name). So `Bash(git *)` does not allow `git status && rm -rf /`.
 * The detail comes from `toolDetails`, which may give several strings for a tool whose field is not
 * known (the model writes the input, so any could be the one the tool reads): a deny condition
 * matches when ANY of them does, an allow condition holds only when EVERY one does.
 *
 * Path conditions (`Read(…)`, `Edit(src/**)`, any `Name(path glob)`) are read as `path-rule.ts`
 * says: paths normalised against the call's working directory (the run's `metadata.cwd`, else
 * `paths.cwd`, else `process.cwd()`), rules against the project directory; `Read(…)` covers every
 * tool that reads files and `Edit(…)`/`Write(…)` every tool that writes them.
 *
 * A shell command's redirections are file accesses of their own: the files it writes (`> f`, `>> f`,
 * `&> f`, git's `--output`) are checked against the `Edit(…)`/`Write(…)` rules and the files it reads
 * (`< f`) against the `Read(…)` deny rules. A deny rule matches a redirection to a matching path or to a
 * path computed at run time; an allow of a shell call also needs every file it writes allowed by an
 * `Edit`/`Write` rule of the same list (`/dev/null` and the process's descriptors need none).
 */
import { SHELL_TOOLS, compileCondition, compileShellPattern, type ShellPattern } from "../core/match/condition.ts";
import { RegistrationError } from "../core/errors.ts";
import { compileMatcher } from "../core/match/matcher.ts";
import { compilePathRule, pathSettings } from "../core/match/path-rule.ts";
import { analyseShell, type ShellFile } from "../core/match/shell.ts";
import { coveredTools, READ_TOOLS, WRITE_TOOLS } from "../core/match/tool-families.ts";
import type { Matcher, MatchFunction, PathOptions } from "../core/match/types.ts";
import { wildcard } from "../core/match/wildcard.ts";
import { toolDetails } from "../agent/points.ts";
import type { ToolCall } from "../agent/types.ts";

/** One allow or deny rule: a matcher pattern, a compiled `Matcher`, or a function of the tool name and call. */
export type ToolRule = string | MatchFunction<ToolCall> | Matcher;

/** Which rule decided, as written, for the reason the model reads; `metadata` is the run's (its `cwd` is the call's working directory). */
export type RuleTest = (call: ToolCall, metadata?: Readonly<Record<string, unknown>>) => string | undefined;

/** An allow side's test, with what keeps a shell call from being allowed, for the refusal's reason. */
export type AllowTest = RuleTest & {
  /**
   * Why no rule allows a call of a shell tool that some rule names (the first command or file not
   * covered), or `undefined` for any other call. Asked only when the call is refused.
   */
  readonly whyNot: (call: ToolCall, metadata?: Readonly<Record<string, unknown>>) => string | undefined;
};

const conditioned = /^([A-Za-z0-9_-]+)\((.*)\)$/s;

/** An MCP server rule of Claude Code's permission syntax: the server (`*` for any) and the tool's wildcard (`*` for every tool). */
interface McpRule {
  readonly server: string;
  readonly tool: string;
}

/**
 * Claude Code's MCP permission rules: `mcp__server` and `mcp__server__*` name every tool of a
 * server, `mcp__server__get*` the server's tools matching the wildcard, `mcp__*` every MCP tool.
 * As a hook `match` the same strings are a name and a RegExp (`mcp__github__*` would be "holds
 * `mcp__github_`", which a server named `github_evil` passes), so rule lists read them here.
 * An exact tool name (`mcp__github__get_issue`) is not one of these: it stays a name.
 *
 * @example
 * mcpRule("mcp__github__*") // { server: "github", tool: "*" }
 * mcpRule("mcp__github__get_issue") // undefined
 */
export const mcpRule = (rule: unknown): McpRule | undefined => {
  if (typeof rule !== "string" || !/^mcp__[A-Za-z0-9_*-]+$/.test(rule)) return undefined;
  // Split at the first `__` after the prefix, as Claude Code splits a tool's name.
  const rest = rule.slice("mcp__".length);
  const at = rest.indexOf("__");
  const server = at < 0 ? rest : rest.slice(0, at);
  const tool = at < 0 ? "*" : rest.slice(at + 2);
  if (server === "" || (server.includes("*") && server !== "*") || !tool.includes("*")) return undefined;
  return { server, tool };
};

const mcpToolMatches = (pattern: string, tool: string): boolean =>
  wildcard(
    pattern,
    tool,
    (a) => a === "*",
    (a, c) => a === c,
  );

/**
 * Whether an MCP rule's deny reading matches a tool name: the name is the server's (`mcp__server`
 * itself, or anything after `mcp__server__`), its tool part matching the rule's. Any split of a name
 * that makes it the server's counts, so a name cannot be spelt past it.
 */
const mcpDenies = (rule: McpRule, name: string): boolean => {
  if (!name.startsWith("mcp__")) return false;
  const rest = name.slice("mcp__".length);
  if (rule.server !== "*") {
    if (rest === rule.server) return rule.tool === "*";
    return rest.startsWith(`${rule.server}__`) && mcpToolMatches(rule.tool, rest.slice(rule.server.length + 2));
  }
  if (rule.tool === "*") return rest !== "";
  for (let at = rest.indexOf("__"); at >= 0; at = rest.indexOf("__", at + 1))
    if (mcpToolMatches(rule.tool, rest.slice(at + 2))) return true;
  return false;
};

/**
 * Whether an MCP rule's allow reading holds for a tool name: the name splits one way only (its tool
 * part neither starts with `_` nor holds `__`, so no other server's name could be read into it), the
 * server is the rule's and the tool part matches. `mcp__github__evil__x` may be server `github__evil`'s
 * tool `x`, and `mcp__github___x` server `github_`'s: neither is allowed by `mcp__github`.
 */
const mcpAllows = (rule: McpRule, name: string): boolean => {
  if (rule.server !== "*" && rule.tool === "*" && name === `mcp__${rule.server}`) return true;
  if (!name.startsWith("mcp__")) return false;
  const rest = name.slice("mcp__".length);
  const at = rest.indexOf("__");
  if (at <= 0) return false;
  const server = rest.slice(0, at);
  const tool = rest.slice(at + 2);
  if (tool === "" || tool.startsWith("_") || tool.includes("__")) return false;
  return (rule.server === "*" || server === rule.server) && mcpToolMatches(rule.tool, tool);
};

/**
 * The matcher a rule list compiles a rule to: an MCP server rule (see `mcpRule`) as a function of
 * the tool's name, read for a deny or an allow; anything else as the core's matcher reads it.
 *
 * @example
 * ruleMatcher("mcp__github", "policy", "deny").matchSubject("mcp__github__delete_repo") // true
 */
export const ruleMatcher = (rule: ToolRule, owner: string, side: "allow" | "deny", paths?: PathOptions): Matcher => {
  const mcp = mcpRule(rule);
  if (mcp === undefined) return compileMatcher(rule, owner, paths === undefined ? undefined : { paths });
  const test = side === "deny" ? mcpDenies : mcpAllows;
  return compileMatcher((name: string | undefined) => name !== undefined && test(mcp, name), owner);
};

/**
 * Whether a rule names a tool (by its name part alone, not its condition): for the notice about
 * tools no rule names. A function rule may name any.
 *
 * @example
 * ruleNamesTool("mcp__github", "policy")("mcp__github__get_issue") // true
 */
export const ruleNamesTool = (rule: ToolRule, owner: string): ((tool: string) => boolean) => {
  if (typeof rule === "function") return () => true;
  const mcp = mcpRule(rule);
  if (mcp !== undefined) return (tool) => mcpDenies(mcp, tool);
  const matcher = compileMatcher(rule, owner);
  return (tool) => matcher.matchSubject(tool);
};

const sourceOf = (rule: ToolRule, matcher: Matcher): string => (typeof rule === "string" ? rule : matcher.source);

/**
 * The deny side: the first rule that matches the call (as the core's matcher reads it), or `undefined`.
 *
 * @example
 * compileDenyRules(["Bash(rm *)"], "policy")({ id: "1", name: "Bash", input: { command: "ls && rm -rf /" } }) // "Bash(rm *)"
 */
export const compileDenyRules = (rules: readonly ToolRule[], owner: string, paths?: PathOptions): RuleTest => {
  const matchers = rules.map((rule, i) => {
    const matcher = atRule(owner, "deny", i, () => ruleMatcher(rule, owner, "deny", paths));
    // Only a condition reads the detail; a function rule runs once per call.
    return {
      source: sourceOf(rule, matcher),
      matcher,
      perDetail: typeof rule === "string" ? conditioned.test(rule) : matcher.needsInput && matcher.needsSubject,
    };
  });
  const fileRules = rules.flatMap((rule) => {
    const parts = typeof rule === "string" ? conditioned.exec(rule) : null;
    if (parts === null || SHELL_TOOLS.has(parts[1]!) || parts[2]!.startsWith("domain:")) return [];
    const family = fileFamily(parts[1]!);
    if (family === undefined) return [];
    return [{ source: rule as string, family, path: compilePathRule(parts[2]!, pathSettings(paths)) }];
  });
  return (call, metadata) => {
    let details: string[] | undefined;
    const all = (): string[] => (details ??= toolDetails(call));
    const hit = matchers.find(({ matcher, perDetail }) => {
      if (!perDetail || all().length <= 1) return matcher.test(call.name, call, () => all()[0], metadata);
      return all().some((d) => matcher.test(call.name, call, () => d, metadata));
    })?.source;
    if (hit !== undefined || fileRules.length === 0 || !SHELL_TOOLS.has(call.name)) return hit;
    for (const file of shellFiles(all())) {
      const family = file.writes ? "write" : "read";
      const rule = fileRules.find(
        (r) => r.family === family && (!file.literal || r.path.matches(file.path, { subject: "Bash", input: call, metadata })),
      );
      if (rule !== undefined) return rule.source;
    }
    return undefined;
  };
};

/** Compile one rule; a registration error names the rule's list and place (`deny[1]`) instead of `match`. */
const atRule = <T>(owner: string, side: "allow" | "deny", index: number, compile: () => T): T => {
  try {
    return compile();
  } catch (error) {
    if (!(error instanceof RegistrationError) || error.field !== "match") throw error;
    const problem = error.message.slice(`hook "${error.hook}": match `.length);
    throw new RegistrationError(owner, `${side}[${index}]`, problem);
  }
};

/** Which kind of file access a path rule's tool stands for, if any: `Read(…)` reads, `Edit(…)`/`Write(…)` writes. */
const fileFamily = (tool: string): "read" | "write" | undefined =>
  coveredTools(tool).has("Write") || WRITE_TOOLS.has(tool)
    ? "write"
    : coveredTools(tool).has("Read") || READ_TOOLS.has(tool)
      ? "read"
      : undefined;

/** The files a shell call's redirections open, over every detail; one unreadable detail opens a file not known. */
const shellFiles = (details: readonly string[]): ShellFile[] =>
  details.flatMap(
    (d) =>
      analyseShell(d)?.files ?? [
        { path: d, literal: false, writes: true },
        { path: d, literal: false, writes: false },
      ],
  );

interface ShellAllow {
  readonly source: string;
  readonly tool: string;
  readonly pattern: ShellPattern;
}

/**
 * The allow side: the rule(s) that allow the whole call, joined, or `undefined` when nothing does.
 *
 * @example
 * const allowed = compileAllowRules(["Bash(git *)", "Bash(npm test)"], "policy")
 * allowed({ id: "1", name: "Bash", input: { command: "git status && npm test" } }) // "Bash(git *), Bash(npm test)"
 * allowed({ id: "2", name: "Bash", input: { command: "git status && rm -rf /" } }) // undefined
 */
export const compileAllowRules = (rules: readonly ToolRule[], owner: string, paths?: PathOptions): AllowTest => {
  const whole: { source: string; test: (call: ToolCall, metadata?: Readonly<Record<string, unknown>>) => boolean }[] = [];
  const shell: ShellAllow[] = [];
  /** Rules that allow writing a file, for the files shell calls write: a bare `Edit`/`Write` allows any. */
  const writes: {
    source: string;
    any: boolean;
    allows: (path: string, call: ToolCall, metadata?: Readonly<Record<string, unknown>>) => boolean;
  }[] = [];
  for (const [i, rule] of rules.entries()) {
    // validates every rule with the core's messages, naming the rule's place in the list
    const matcher = atRule(owner, "allow", i, () => ruleMatcher(rule, owner, "allow", paths));
    const source = sourceOf(rule, matcher);
    const parts = typeof rule === "string" ? conditioned.exec(rule) : null;
    if (parts === null || parts[2]!.trim() === "*") {
      // No condition here (a name, `Name(*)`, a RegExp, a compiled matcher or a function): the detail is not read.
      // A compiled matcher with a condition is a deny reading, which matches what it cannot read: it cannot allow.
      // Read from the compiled matcher, so a match object from untyped code that holds a condition is refused too.
      if (typeof rule === "object" && matcher.needsInput && matcher.needsSubject)
        throw new TypeError(
          `${owner}: allow rule "${matcher.source}" is a compiled matcher with a condition; give it as a string (with options.paths) so it is read as an allow`,
        );
      whole.push({ source, test: (call, metadata) => matcher.test(call.name, call, () => toolDetails(call)[0], metadata) });
      if (typeof rule === "string" && fileFamily((parts?.[1] ?? rule).trim()) === "write")
        writes.push({ source, any: true, allows: () => true });
      continue;
    }
    const tool = parts[1]!;
    const pattern = parts[2]!;
    if (SHELL_TOOLS.has(tool)) shell.push({ source, tool, pattern: compileShellPattern(pattern) });
    else if (pattern.startsWith("domain:")) {
      const condition = compileCondition(tool, pattern);
      whole.push({
        source,
        test: (call) => {
          if (call.name !== tool) return false;
          const details = toolDetails(call);
          // The core's domain condition matches a URL it cannot parse (deny-safe); an allow must not.
          return details.length > 0 && details.every((d) => parsesAsUrl(d) && condition(d));
        },
      });
    } else {
      const path = compilePathRule(pattern, pathSettings(paths));
      const family = coveredTools(tool);
      if (fileFamily(tool) === "write")
        writes.push({
          source,
          any: false,
          allows: (file, call, metadata) => path.allows(file, { subject: "Write", input: call, metadata }),
        });
      whole.push({
        source,
        test: (call, metadata) => {
          if (!family.has(call.name)) return false;
          const details = toolDetails(call);
          return details.length > 0 && details.every((d) => path.allows(d, { subject: call.name, input: call, metadata }));
        },
      });
    }
  }
  const test: RuleTest = (call, metadata) => {
    const hit = whole.find((w) => w.test(call, metadata));
    if (hit !== undefined) return hit.source;
    const mine = shell.filter((s) => s.tool === call.name);
    if (mine.length === 0) return undefined;
    const commands = toolDetails(call);
    if (commands.length === 0) return undefined;
    const used = new Set<string>();
    for (const command of commands) {
      // Every command bash could run must be known and covered; a word computed at run time is
      // acceptable only to a rule that names nothing but the command (`git *`).
      const analysis = analyseShell(command);
      if (analysis === undefined || analysis.opaque) return undefined;
      let covered = 0;
      for (const c of analysis.calls) {
        if (c.role !== "command") continue;
        const by = mine.find((s) => s.pattern.test(c.text) && (c.literal || s.pattern.nameOnly));
        if (by === undefined) return undefined;
        used.add(by.source);
        covered++;
      }
      if (covered === 0) return undefined;
      // Every file it writes must be allowed too: a redirection can rewrite what an allowed program runs next.
      for (const file of analysis.files) {
        if (!file.writes) continue;
        const by = file.literal ? writes.find((w) => w.allows(file.path, call, metadata)) : writes.find((w) => w.any);
        if (by === undefined) return undefined;
        used.add(by.source);
      }
    }
    return [...used].join(", ");
  };
  // The same walk as the test's, stopping at the first thing not covered, to say it.
  const whyNot = (call: ToolCall, metadata?: Readonly<Record<string, unknown>>): string | undefined => {
    const mine = shell.filter((s) => s.tool === call.name);
    if (mine.length === 0) return undefined;
    for (const command of toolDetails(call)) {
      const analysis = analyseShell(command);
      if (analysis === undefined) return `the command ${JSON.stringify(command)} could not be read`;
      if (analysis.opaque)
        return `what ${JSON.stringify(command)} runs is not known before it runs${analysis.reason === undefined ? "" : ` (${analysis.reason})`}`;
      for (const c of analysis.calls) {
        if (c.role !== "command" || mine.some((s) => s.pattern.test(c.text) && (c.literal || s.pattern.nameOnly))) continue;
        return mine.some((s) => s.pattern.test(c.text))
          ? `the command ${JSON.stringify(c.text)} is not wholly known before it runs (a word that expands, or arguments handed on to a program it starts), which only a rule naming the program alone allows (${call.name}(${c.text.split(" ")[0]} *))`
          : `no allow rule covers the command ${JSON.stringify(c.text)}`;
      }
      for (const file of analysis.files)
        if (file.writes && !(file.literal ? writes.some((w) => w.allows(file.path, call, metadata)) : writes.some((w) => w.any)))
          return `no Edit or Write rule allows the file it writes, ${JSON.stringify(file.path)}`;
    }
    return undefined;
  };
  return Object.assign(test, { whyNot });
};

const parsesAsUrl = (detail: string): boolean =>
  hostOf(detail) !== undefined || (!detail.includes("://") && hostOf(`https://${detail}`) !== undefined);

const hostOf = (url: string): string | undefined => {
  try {
    const host = new URL(url).hostname;
    return host === "" ? undefined : host;
  } catch {
    return undefined;
  }
};
