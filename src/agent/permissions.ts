/**
 * The reference agent's permission policy, Claude Code's model: a mode and allow, ask and deny
 * rules decide whether a tool call runs, is refused, or needs a person's permission. A call that
 * needs it goes through the `permissionRequest` gate (Claude Code's PermissionRequest) with the
 * "always allow" options a person would be offered (`permission_suggestions`); a hook's answer may
 * carry permission updates (`updatedPermissions`), which hold for the rest of the session.
 *
 * The policy is the innermost `toolCall` hook of the agent's own stack, so it sees the call as the
 * other hooks left it: a hook's explicit allow (PreToolUse's `allow`) skips the question but not
 * the ask and deny rules, and a call a person already approved is not asked about again.
 */
import { Continue, Reject, Transform } from "../core/action.ts";
import { contextKey, type HookContext } from "../core/context.ts";
import type { BeforeAction, Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { compileAllowRules, compileDenyRules, type RuleTest } from "../middleware/tool-rules.ts";
import type { ToolCall, ToolResult } from "./types.ts";

/**
 * Claude Code's permission modes the policy has a meaning for: `default` asks for every call no
 * rule allows (tools that only read excepted); `acceptEdits` also lets file edits run;
 * `dontAsk` refuses what would ask; `bypassPermissions` asks nothing (deny rules still refuse).
 */
export type PermissionMode = "default" | "acceptEdits" | "dontAsk" | "bypassPermissions";

/** The permission policy of `createAgent({ permissions })`: a mode and rules in Claude Code's syntax. */
export interface AgentPermissions {
  /** Default `"default"`; `"manual"` is read as `"default"`, as Claude Code reads it. */
  readonly mode?: PermissionMode | "manual";
  /** Calls these rules cover run without asking (`"Bash(npm test)"`, `"Bash(git status:*)"`, `"Edit(src/**)"`). */
  readonly allow?: readonly string[];
  /** Calls these rules match always ask, whatever the mode or a hook's allow. */
  readonly ask?: readonly string[];
  /** Calls these rules match are refused, whatever anyone says. */
  readonly deny?: readonly string[];
  /** Tools that run without asking because they only read; default Read, Glob, Grep, LS, NotebookRead, WebSearch, TodoWrite. */
  readonly readOnlyTools?: readonly string[];
  /** Tools that edit files, which `acceptEdits` lets run; default Edit, MultiEdit, Write, NotebookEdit. */
  readonly editTools?: readonly string[];
}

/**
 * One permission update, as Claude Code's `permission_suggestions` and `updatedPermissions` carry
 * it. Rules are `{ toolName, ruleContent? }`; `destination` is `session`, `localSettings`,
 * `projectSettings` or `userSettings`.
 */
export type PermissionUpdate =
  | {
      readonly type: "addRules" | "replaceRules" | "removeRules";
      readonly rules: readonly { readonly toolName: string; readonly ruleContent?: string }[];
      readonly behavior: "allow" | "deny" | "ask";
      readonly destination: string;
    }
  | { readonly type: "setMode"; readonly mode: string; readonly destination: string }
  | { readonly type: "addDirectories" | "removeDirectories"; readonly directories: readonly string[]; readonly destination: string };

/**
 * What the hooks before the policy decided about a call, for the policy (`ctx.local`): `allowed`
 * (a hook's explicit allow: the question is skipped, ask rules still ask) or `approved` (a person
 * or a permission request hook said yes: only deny rules still refuse).
 *
 * @example
 * ctx.local(permissionGrant, "allowed") // a PreToolUse hook answered `permissionDecision: "allow"`
 */
export const permissionGrant = contextKey<"allowed" | "approved">("agent.permissionGrant");

const defaultReadOnly = ["Read", "Glob", "Grep", "LS", "NotebookRead", "WebSearch", "TodoWrite"];
const defaultEdit = ["Edit", "MultiEdit", "Write", "NotebookEdit"];
const modes: readonly string[] = ["default", "acceptEdits", "dontAsk", "bypassPermissions"];
const behaviors = ["allow", "deny", "ask"] as const;
type Behavior = (typeof behaviors)[number];

/** A session's permissions: its mode and the rules permission updates added. */
interface SessionPermissions {
  mode: PermissionMode;
  readonly rules: Record<Behavior, string[]>;
  tests: Record<Behavior, RuleTest> | undefined;
}

/** What the policy decided about one call. */
export type PermissionVerdict =
  | { readonly decision: "allow" }
  | { readonly decision: "deny"; readonly reason: string }
  | { readonly decision: "ask"; readonly reason: string };

/** The rule text of `{ toolName, ruleContent? }`. */
const ruleText = (r: { readonly toolName: string; readonly ruleContent?: string }): string =>
  r.ruleContent === undefined || r.ruleContent === "" ? r.toolName : `${r.toolName}(${r.ruleContent})`;

const stringList = (name: string, value: unknown): readonly string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v !== ""))
    throw new TypeError(`createAgent: permissions.${name} must be a list of non-empty rule strings`);
  return value as string[];
};

const modeOf = (value: unknown): PermissionMode | undefined =>
  value === "manual" ? "default" : typeof value === "string" && modes.includes(value) ? (value as PermissionMode) : undefined;

/** A session's agent permission policy: the hook that applies it, and what permission requests need from it. */
export interface PermissionPolicy {
  /** The innermost `toolCall` hook that applies the policy, named `agent:permissions`. */
  readonly hook: Hook<ToolCall, ToolResult, "gate">;
  /** The "always allow" options for a call, in Claude Code's shape. */
  suggest(call: DeepReadonly<ToolCall>): PermissionUpdate[];
  /** Apply a permission request's updates to the session; returns what could not be applied, and why. */
  apply(sessionId: string | undefined, updates: readonly unknown[]): string[];
  /** The session's current mode. */
  mode(sessionId: string | undefined): PermissionMode;
  /** Forget a closed session. */
  drop(sessionId: string | undefined): void;
  /** The policy's decision about a call in a session, before any question. */
  decide(sessionId: string | undefined, call: DeepReadonly<ToolCall>, grant?: "allowed" | "approved"): PermissionVerdict;
}

/**
 * Check `createAgent`'s `permissions` and build the policy; `exempt` are tools that never ask (sub-agents).
 *
 * @example
 * const policy = permissionPolicy({ allow: ["Bash(git status)"] }, [])
 * policy.decide("s1", { id: "1", name: "Bash", input: { command: "git status" } }) // { decision: "allow" }
 */
export const permissionPolicy = (options: AgentPermissions, exempt: readonly string[]): PermissionPolicy => {
  if (typeof options !== "object" || options === null) throw new TypeError("createAgent: permissions must be an object");
  const initial = options.mode === undefined ? "default" : modeOf(options.mode);
  if (initial === undefined)
    throw new TypeError(`createAgent: permissions.mode must be one of ${modes.join(", ")} or manual, got ${String(options.mode)}`);
  const owner = "createAgent: permissions";
  const given = { allow: stringList("allow", options.allow), ask: stringList("ask", options.ask), deny: stringList("deny", options.deny) };
  // Checked now, so a mistyped rule throws at createAgent, naming the option.
  const fixed = {
    allow: compileAllowRules(given.allow, owner),
    ask: compileDenyRules(given.ask, owner),
    deny: compileDenyRules(given.deny, owner),
  };
  const readOnly = new Set([
    ...(options.readOnlyTools === undefined ? defaultReadOnly : stringList("readOnlyTools", options.readOnlyTools)),
    ...exempt,
  ]);
  const edits = new Set(options.editTools === undefined ? defaultEdit : stringList("editTools", options.editTools));
  const sessions = new Map<string, SessionPermissions>();
  const of = (id: string | undefined): SessionPermissions => {
    const key = id ?? "";
    let s = sessions.get(key);
    if (s === undefined) sessions.set(key, (s = { mode: initial, rules: { allow: [], deny: [], ask: [] }, tests: undefined }));
    return s;
  };
  const added = (s: SessionPermissions): Record<Behavior, RuleTest> =>
    (s.tests ??= {
      allow: compileAllowRules(s.rules.allow, owner),
      ask: compileDenyRules(s.rules.ask, owner),
      deny: compileDenyRules(s.rules.deny, owner),
    });

  const decide = (sessionId: string | undefined, c: DeepReadonly<ToolCall>, grant?: "allowed" | "approved"): PermissionVerdict => {
    const call = c as ToolCall;
    const s = of(sessionId);
    const mine = added(s);
    const denied = fixed.deny(call) ?? mine.deny(call);
    if (denied !== undefined)
      return { decision: "deny", reason: `Permission to use ${call.name} was denied: it matches deny rule "${denied}"` };
    if (grant === "approved") return { decision: "allow" };
    const asked = fixed.ask(call) ?? mine.ask(call);
    if (asked !== undefined) return ask(s, call, `it matches ask rule "${asked}"`);
    if (grant === "allowed" || s.mode === "bypassPermissions") return { decision: "allow" };
    if (readOnly.has(call.name) || fixed.allow(call) !== undefined || mine.allow(call) !== undefined) return { decision: "allow" };
    if (s.mode === "acceptEdits" && edits.has(call.name)) return { decision: "allow" };
    return ask(s, call, "no rule allows it");
  };
  const ask = (s: SessionPermissions, call: ToolCall, why: string): PermissionVerdict =>
    s.mode === "dontAsk"
      ? { decision: "deny", reason: `Permission to use ${call.name} was denied: ${why}, and the permission mode is dontAsk` }
      : { decision: "ask", reason: `${call.name} needs permission: ${why}` };

  const suggest = (c: DeepReadonly<ToolCall>): PermissionUpdate[] => {
    const call = c as ToolCall;
    if (edits.has(call.name)) return [{ type: "setMode", mode: "acceptEdits", destination: "session" }];
    const command = call.input.command;
    const rule = typeof command === "string" && command !== "" ? { toolName: call.name, ruleContent: command } : { toolName: call.name };
    return [{ type: "addRules", rules: [rule], behavior: "allow", destination: "localSettings" }];
  };

  const apply = (sessionId: string | undefined, updates: readonly unknown[]): string[] => {
    const s = of(sessionId);
    const problems: string[] = [];
    for (const u of updates) {
      const update = u as Partial<Record<string, unknown>> | null;
      const type = update?.type;
      if (type === "setMode") {
        const mode = modeOf(update!.mode);
        if (mode === undefined) problems.push(`setMode to ${JSON.stringify(update!.mode)} is not a mode the agent has; ignored`);
        else s.mode = mode;
        continue;
      }
      if (type === "addRules" || type === "replaceRules" || type === "removeRules") {
        const behavior = update!.behavior as Behavior;
        const rules = update!.rules;
        if (
          !behaviors.includes(behavior) ||
          !Array.isArray(rules) ||
          !rules.every((r) => typeof (r as { toolName?: unknown })?.toolName === "string")
        ) {
          problems.push(`${type} needs rules [{ toolName, ruleContent? }] and a behavior allow, deny or ask; ignored`);
          continue;
        }
        const texts = (rules as { toolName: string; ruleContent?: string }[]).map(ruleText);
        try {
          // Compiled before it is kept: one unreadable rule must not break every later call.
          (behavior === "allow" ? compileAllowRules : compileDenyRules)(texts, owner);
        } catch (error) {
          problems.push(`${type}: ${(error as Error).message}; ignored`);
          continue;
        }
        const list = s.rules[behavior];
        if (type === "replaceRules") list.splice(0, list.length, ...texts);
        else if (type === "addRules") list.push(...texts.filter((t) => !list.includes(t)));
        else for (const t of texts) if (list.includes(t)) list.splice(list.indexOf(t), 1);
        s.tests = undefined;
        continue;
      }
      problems.push(`${typeof type === "string" ? type : "an update without a type"} has no counterpart in the agent; ignored`);
    }
    return problems;
  };

  const before = async (call: DeepReadonly<ToolCall>, ctx: HookContext<ToolCall>): Promise<BeforeAction<ToolCall, ToolResult, "gate">> => {
    const verdict = decide(ctx.sessionId, call, ctx.local(permissionGrant));
    if (verdict.decision === "allow") return Continue;
    if (verdict.decision === "deny") return Reject(verdict.reason);
    const answer = await ctx.approve({ hook: "agent:permissions", input: call, reason: verdict.reason });
    if (answer.decision === "approve") return Continue;
    if (answer.decision === "edit") {
      const edited = answer.input as ToolCall | undefined;
      if (edited === undefined || typeof edited !== "object" || edited.name !== call.name)
        return Reject(`the answer to the permission request for ${call.name} is not a call of ${call.name}; refused`);
      // The edit is what a person approved: only deny rules still count.
      const again = decide(ctx.sessionId, edited, "approved");
      return again.decision === "deny" ? Reject(again.reason) : Transform(edited);
    }
    return Reject(answer.reason ?? `Permission to use ${call.name} was denied`);
  };

  return {
    hook: { name: "agent:permissions", priority: Priority.innermost, before },
    suggest,
    apply,
    mode: (id) => of(id).mode,
    drop: (id) => void sessions.delete(id ?? ""),
    decide,
  };
};
