/**
 * `toolPolicy`: allow and deny lists for tool calls, globally and per role, in the matcher
 * grammar of the core. The decision is a lattice, not last-writer-wins: a deny rule
 * anywhere beats every allow rule, and no hook can turn a deny into an allow. The policy checks
 * at `Priority.guard`, so a denied call is refused before anything else runs, and, as a `recheck`
 * gate, again right before the tool when a hook further in changed the input after it approved:
 * a hook that rewrites `git status` into `rm -rf /` is still refused, by the same hook.
 */
import { Continue, Reject } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import { pathSettings } from "../core/match/path-rule.ts";
import type { PathOptions } from "../core/match/types.ts";
import { Priority } from "../core/priority.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import type { ToolCall, ToolResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { nearestName } from "../core/nearest-name.ts";
import { choiceOption, functionOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";
import { compileAllowRules, compileDenyRules, ruleNamesTool, type AllowTest, type RuleTest, type ToolRule } from "./tool-rules.ts";

/** A rule of `toolPolicy` (re-exported from `tool-rules.ts`). */
export type { ToolRule } from "./tool-rules.ts";

/** Allow and deny rules. */
export interface ToolRules {
  readonly allow?: readonly ToolRule[];
  readonly deny?: readonly ToolRule[];
}

/**
 * Options of `toolPolicy`: global rules, rules per role, and what happens when none matches.
 *
 * @example
 * toolPolicy({ allow: ["Read"], roles: { admin: { allow: ["Deploy"] } }, roleKey: "roles" })
 */
export interface ToolPolicyOptions extends ToolRules {
  /** Extra rules for callers holding a role; a caller's roles are read from `ctx.metadata[roleKey]`. */
  readonly roles?: Readonly<Record<string, ToolRules>>;
  /** The metadata field with the caller's roles: a string or a list of strings (default `"roles"`). */
  readonly roleKey?: string;
  /**
   * What happens to a call that no rule matches: `"deny"` by default when an `allow` list is
   * given (globally or for any role), else `"allow"`. Role allow lists add to the global one.
   */
  readonly default?: "allow" | "deny";
  /** Check again right before the tool when a hook inside changed the input after the policy approved it (default true). */
  readonly recheck?: boolean;
  /**
   * Told once per tool name (for the first 1,024 names) when a call goes to a tool that no rule
   * names and the default decides, so a tool nobody wrote a rule for (a new MCP server's, say)
   * is seen. Default: a process warning.
   */
  readonly onUnknownTool?: (notice: UnknownTool) => void;
  /**
   * How path rules read paths: the working directory of calls (the run's `metadata.cwd` wins), the
   * project directory relative rules are read against, symbolic links, case (see `PathOptions`).
   */
  readonly paths?: PathOptions;
  readonly name?: string;
  /** Default `Priority.guard`. */
  readonly priority?: number;
}

/** A call to a tool that no rule names, and what the default made of it. */
export interface UnknownTool {
  readonly policy: string;
  readonly tool: string;
  readonly decision: "allow" | "deny";
  /** A tool name a rule gives that is near this one (`bash` for `Bash`): likely the rule meant this tool. */
  readonly similar?: string;
}

/** How many distinct unknown tool names a policy remembers: a flood of made-up names cannot grow it. */
const maxUnknownNames = 1024;

const warnUnknownTool = (n: UnknownTool): void => {
  process.emitWarning(
    `${n.policy}: no rule names tool "${n.tool}"; the default (${n.decision}) applies${
      n.similar === undefined ? "" : `; a rule names "${n.similar}": tool names match exactly, case included`
    }`,
    "AgentOnionPolicyWarning",
  );
};

interface CompiledRules {
  readonly allow: AllowTest;
  readonly deny: RuleTest;
  readonly hasAllow: boolean;
}

/**
 * Allow and deny tools by name and argument, globally and per role; blocked calls are rejected
 * with a reason that names the rule, which the model reads as the tool's answer.
 *
 * @example
 * withMiddleware(createAgentStack(), toolPolicy({
 *   allow: ["Read", "Grep", "Bash(git *)"],
 *   deny: ["Bash(git push*)"],
 *   roles: { admin: { allow: ["Deploy"] }, intern: { deny: ["Bash"] } },
 * }))
 * // { name: "Bash", input: { command: "git push" } } -> Reject('Tool "Bash" is blocked by policy: it matches deny rule "Bash(git push*)"')
 */
export const toolPolicy = (options: ToolPolicyOptions): Middleware => {
  knownOptions("toolPolicy", options, {
    allow: true,
    deny: true,
    roles: true,
    roleKey: true,
    default: true,
    recheck: true,
    onUnknownTool: true,
    paths: true,
    name: true,
    priority: true,
  });
  const name = nameOption("toolPolicy", options.name);
  const at = placement(name, options.priority, Priority.guard);
  const roleKey = options.roleKey ?? "roles";
  const paths = options.paths;
  if (paths !== undefined)
    knownOptions(`${name}: paths`, paths, {
      cwd: true,
      projectDir: true,
      home: true,
      symlinks: true,
      caseInsensitive: true,
      searchContents: true,
    });
  try {
    if (paths !== undefined) pathSettings(paths);
  } catch (error) {
    throw new TypeError(`${name}: ${(error as Error).message}`);
  }
  const compile = (rules: ToolRules | undefined, where: string): CompiledRules => {
    if (rules !== undefined && (typeof rules !== "object" || rules === null))
      throw new TypeError(`${name}: ${where} must be an object { allow?, deny? }`);
    if (rules !== undefined && rules !== options) knownOptions(`${name}: ${where}`, rules, { allow: true, deny: true });
    for (const side of ["allow", "deny"] as const)
      if (rules?.[side] !== undefined && !Array.isArray(rules[side]))
        throw new TypeError(`${name}: ${where}.${side} must be a list of rules`);
    return {
      allow: compileAllowRules(rules?.allow ?? [], name, paths),
      deny: compileDenyRules(rules?.deny ?? [], name, paths),
      hasAllow: rules?.allow !== undefined,
    };
  };
  const global = compile(options, "options");
  const roles = new Map(Object.entries(options.roles ?? {}).map(([role, rules]) => [role, compile(rules, `roles.${role}`)]));
  const fallback =
    options.default === undefined
      ? global.hasAllow || [...roles.values()].some((r) => r.hasAllow)
        ? "deny"
        : "allow"
      : choiceOption(name, "default", options.default, ["allow", "deny"]);
  const onUnknown = functionOption(name, "onUnknownTool", options.onUnknownTool) ?? warnUnknownTool;
  // A tool is known when some rule names it (by its name part; a function rule may name any).
  const everyRule = [options, ...Object.values(options.roles ?? {})].flatMap((r) => [...(r?.allow ?? []), ...(r?.deny ?? [])]);
  const namers = everyRule.map((rule) => ruleNamesTool(rule, name));
  const known = (tool: string): boolean => namers.some((names) => names(tool));
  // The tool names string rules give (`Bash` of `Bash(git *)`, each name of `Edit|Write`), to point out a near miss.
  const ruleNames = [
    ...new Set(everyRule.flatMap((rule) => (typeof rule === "string" ? (rule.split("(")[0] ?? "").split("|").map((n) => n.trim()) : []))),
  ].filter((n) => /^[\w.-]+$/.test(n));
  const unknown = new Set<string>();
  // Tools found named, so the rules are not searched again on every call that falls to the default.
  const named = new Set<string>();
  const seeUnknown = (tool: string): void => {
    if (unknown.has(tool) || named.has(tool) || unknown.size >= maxUnknownNames) return;
    if (known(tool)) {
      if (named.size < maxUnknownNames) named.add(tool);
      return;
    }
    unknown.add(tool);
    try {
      const similar = nearestName(tool, ruleNames);
      onUnknown({ policy: name, tool, decision: fallback, ...(similar === undefined || similar === tool ? {} : { similar }) });
    } catch {
      // a throwing notice must not change the decision
    }
  };

  const decide = (call: DeepReadonly<ToolCall>, ctx: HookContext<ToolCall>): Reject | typeof Continue => {
    const blocked = (why: string): Reject => Reject(`Tool "${call.name}" is blocked by policy: ${why}`);
    const held = ctx.metadata[roleKey];
    if (held !== undefined && typeof held !== "string" && !(Array.isArray(held) && held.every((r) => typeof r === "string")))
      return blocked(`metadata.${roleKey} must be a string or a list of strings, so the caller's roles are unknown`);
    const mine = held === undefined ? [] : typeof held === "string" ? [held] : (held as readonly string[]);
    const c = call as ToolCall;
    const meta = ctx.metadata;
    const denied = global.deny(c, meta);
    if (denied !== undefined) return blocked(`it matches deny rule "${denied}"`);
    for (const role of mine) {
      const rule = roles.get(role)?.deny(c, meta);
      if (rule !== undefined) return blocked(`it matches deny rule "${rule}" of role "${role}"`);
    }
    if (global.allow(c, meta) !== undefined) return Continue;
    for (const role of mine) if (roles.get(role)?.allow(c, meta) !== undefined) return Continue;
    seeUnknown(String(c.name));
    if (fallback === "allow") return Continue;
    // Roles are named only where the policy has some: "the caller has no roles" would puzzle a policy without any.
    const who = roles.size === 0 ? "" : mine.length === 0 ? " (the caller has no roles)" : ` (roles: ${mine.join(", ")})`;
    const why = [global, ...mine.flatMap((r) => roles.get(r) ?? [])].map((r) => r.allow.whyNot(c, meta)).find((w) => w !== undefined);
    return blocked(`it matches no allow rule${who}${why === undefined ? "" : `: ${why}`}`);
  };

  const hook: Hook<ToolCall, ToolResult, "gate"> = { name, ...at, before: decide, ...(options.recheck !== false ? { recheck: true } : {}) };
  return { name, hooks: { toolCall: hook } };
};
