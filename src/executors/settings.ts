/**
 * `fromClaudeSettings`: the `hooks` section of Claude Code settings, loaded unchanged, as hooks
 * on an agent stack. Each handler becomes a command, HTTP, prompt or agent hook on its event's
 * point, in layer order, with `matcher` read in Claude Code's grammar, `if` as our condition, and
 * its file and JSON pointer as `source`. What we cannot or would not run is reported in `unused`
 * with the reason, never silently dropped; a malformed entry throws naming file and pointer.
 */
import type { LanguageModel } from "../agent/model.ts";
import { createAgentStack, type AgentStack } from "../agent/stack.ts";
import type { ErrorEvent } from "../agent/types.ts";
import type { FailMode, Hook } from "../core/hook.ts";
import { compileMatcher } from "../core/match/matcher.ts";
import { coveredTools } from "../core/match/tool-families.ts";
import type { Matcher, PathOptions } from "../core/match/types.ts";
import type { StackOptions } from "../core/stack-types.ts";
import { agentHook } from "./agent-hook.ts";
import { commandHook } from "./command.ts";
import { stopFailureType } from "./event-json.ts";
import { allClaudeEvents, claudeEvents, isDrivenEvent, type ClaudeEvent, type EventSpec } from "./events.ts";
import type { ExternalHookOptions } from "./external.ts";
import { httpHook, httpHookLabel } from "./http.ts";
import { promptHook } from "./prompt.ts";
import type { NoticeSink } from "./protocol.ts";
import { commandProgram, programProblem } from "./settings-check.ts";
import { anyGroupMatcher, claudeMatch, hookLabel, supportedTypes, urlAllowed } from "./settings-rules.ts";
import { loadClaudeSettings, type HandlerEntry, type SettingsInput } from "./settings-load.ts";
import { SettingsError } from "./settings-schema.ts";
import type { AddressPolicy, Resolver } from "./ssrf.ts";
import { turnStops } from "./turn-stop.ts";

export interface ClaudeSettingsOptions {
  /**
   * Run the hooks of a project's own `.claude/settings.json` and `.claude/settings.local.json`
   * (they arrive with the repository, D11). Default false: they are validated, not run, and
   * reported in `unused`. The user's `~/.claude/settings.json` and other named files always load.
   */
  readonly trustProjectSettings?: boolean;
  /** The user's home directory, for telling user settings from project settings. Default `os.homedir()`. */
  readonly home?: string;
  /** Add the hooks to this stack; default a new `createAgentStack(stackOptions)`. */
  readonly stack?: AgentStack;
  readonly stackOptions?: StackOptions;
  /** Every loaded hook's fail mode. Default R6 (closed on gates); `"open"` reproduces Claude Code. */
  readonly failMode?: FailMode;
  /** Every loaded hook's priority; default 100. */
  readonly priority?: number;
  /** `cwd` of the event JSON and of command hooks; default `process.cwd()`. */
  readonly cwd?: string;
  /** `CLAUDE_PROJECT_DIR`; default the cwd. */
  readonly projectDir?: string;
  readonly transcriptPath?: string;
  readonly permissionMode?: string;
  /** Extra variables command hooks may inherit (besides PATH, HOME, LANG...). */
  readonly allowedEnvVars?: readonly string[];
  /** Which non-public addresses HTTP hooks may reach, and how names resolve. */
  readonly http?: { readonly allow?: AddressPolicy; readonly resolver?: Resolver };
  /** The provider for `prompt` and `agent` hooks (the handler's `model` field becomes the request's model id). */
  readonly model?: LanguageModel;
  /**
   * What to do with a `prompt` or `agent` hook when no `model` is given: `"throw"` (the default:
   * a guard that cannot run is a setup mistake) or `"skip"`, listing it in `unused` with the
   * reason, as the CLI's `try` and `explain` do.
   */
  readonly withoutModel?: "throw" | "skip";
  readonly onNotice?: NoticeSink;
  /** Between SIGTERM and SIGKILL for command hooks; default 1000 ms. */
  readonly killGraceMs?: number;
}

/** A handler that became a hook. */
export interface LoadedHook {
  readonly name: string;
  readonly event: ClaudeEvent;
  readonly point: string;
  readonly phase: EventSpec["phase"];
  readonly type: "command" | "http" | "prompt" | "agent";
  readonly match: string | undefined;
  readonly source: string;
}

/** A handler (or event) that is accepted but does not run, and why. */
export interface UnusedHandler {
  readonly event: string;
  readonly type: string;
  readonly source: string;
  readonly reason: string;
}

export interface ClaudeSettingsResult {
  readonly stack: AgentStack;
  readonly hooks: readonly LoadedHook[];
  readonly unused: readonly UnusedHandler[];
  readonly duplicates: readonly { readonly source: string; readonly sameAs: string }[];
  /**
   * Hooks loaded but likely to fail: a command whose program path does not exist or may not be
   * executed (D6). Each is also emitted as a process warning; the hook still fails closed when called.
   */
  readonly warnings: readonly { readonly source: string; readonly message: string }[];
  /** `disableAllHooks` was in effect: nothing was loaded. */
  readonly disabled: boolean;
}

/** The `match` for a handler, or the reason it can never run. */
const matchFor = (
  entry: HandlerEntry,
  spec: EventSpec,
  name: string,
  paths: PathOptions,
): { match?: ExternalHookOptions["match"]; text?: string | undefined; never?: string } => {
  const { matcher, handler } = entry;
  // Every group's matcher, each checked at its own file and pointer, ORed (one group: just its own).
  const group = spec.matcher === "none" ? undefined : anyGroupMatcher(entry.matchers, spec.matcher === "error-type", name);
  if (handler.if !== undefined) {
    if (!spec.tool) return { never: `"if" is only evaluated on tool events; Claude Code never runs this hook on ${spec.event}` };
    // `if` is a permission rule, which our own match grammar reads as a condition, with paths read from the project.
    let condition: Matcher;
    try {
      condition = compileMatcher(handler.if, name, { paths });
    } catch (error) {
      throw new SettingsError(entry.file, `${entry.pointer}/if`, (error as Error).message);
    }
    const named = /^([A-Za-z0-9_-]+)(\(|$)/.exec(handler.if);
    // A path rule covers its family (`Edit(…)` also runs for Write): the group must exclude every tool it covers.
    const tools = named === null ? [] : named[2] === "(" ? [...coveredTools(named[1]!)] : [named[1]!];
    if (group && named !== null && !tools.some((t) => group.matchSubject(t))) return { never: `"if" names ${named[1]}, which the matcher ${JSON.stringify(matcher)} excludes` };
    return { match: condition, text: handler.if };
  }
  if (!group) return {};
  if (spec.matcher === "error-type") return { match: (_s, input) => group.matchSubject(stopFailureType(input as ErrorEvent)), text: matcher };
  // One group: its pattern, as written; several: whatever one of them matches.
  return { match: entry.matchers.length === 1 ? claudeMatch(matcher!, false) : (subject) => group.matchSubject(subject), text: matcher };
};

/**
 * Build an agent stack from Claude Code settings: a parsed object, or layers (file paths or
 * `{ file, settings }`) in Claude Code's order, user first, then project, then local. When a
 * PreToolUse or PostToolUse hook is loaded, a `step`, a `run` and an innermost `toolCall` hook
 * ("claude-settings:turn-stop") come with it, which end the turn its hooks asked to end
 * (`continue: false`, a prompt hook's `ok: false`) and refuse the run's other calls (see turn-stop.ts).
 *
 * @example
 * const { stack, unused } = fromClaudeSettings(claudeSettingsFiles(process.cwd()), { trustProjectSettings: true })
 * for (const u of unused) console.warn(`not run: ${u.source}: ${u.reason}`)
 */
export const fromClaudeSettings = (input: SettingsInput, options: ClaudeSettingsOptions = {}): ClaudeSettingsResult => {
  if (options.withoutModel !== undefined && options.withoutModel !== "throw" && options.withoutModel !== "skip")
    throw new TypeError(`fromClaudeSettings: withoutModel must be "throw" or "skip", got ${JSON.stringify(options.withoutModel) ?? String(options.withoutModel)}`);
  const loaded = loadClaudeSettings(input, { trustProjectSettings: options.trustProjectSettings, home: options.home });
  let stack = options.stack ?? createAgentStack(options.stackOptions);
  const hooks: LoadedHook[] = [];
  const unused: UnusedHandler[] = [];
  // Hooks a project brought along are not run until trusted (D11); a guard that silently does not
  // run is worse than a loud one, so each untrusted file is also named in a warning (below).
  const untrustedFiles = new Map<string, number>();
  for (const e of loaded.untrusted) {
    unused.push({ event: e.event, type: e.handler.type, source: e.source, reason: `${e.file} is a project's settings and is not trusted; review it, then pass trustProjectSettings: true` });
    untrustedFiles.set(e.file, (untrustedFiles.get(e.file) ?? 0) + 1);
  }
  const warnings: { source: string; message: string }[] = [];
  /** Kept in the result and told to the process, so a setup problem is never only in a return value. */
  const warn = (source: string, message: string): void => {
    warnings.push({ source, message });
    process.emitWarning(`${source}: ${message}`, "AgentOnionSettingsWarning");
  };
  for (const [file, count] of untrustedFiles)
    warn(file, `${count} hook${count === 1 ? "" : "s"} of this project's settings will not run until it is trusted; review it, then pass trustProjectSettings: true`);
  if (loaded.disabled) return { stack, hooks, unused, duplicates: loaded.duplicates, warnings, disabled: true };
  const names = new Map<string, Set<string>>();
  const cwd = options.cwd ?? process.cwd();
  const stops = turnStops();

  for (const entry of loaded.entries) {
    const { event, handler } = entry;
    const skip = (reason: string) => void unused.push({ event, type: handler.type, source: entry.source, reason });
    if (!isDrivenEvent(event)) {
      skip(allClaudeEvents.has(event) ? `agent-onion does not drive ${event}` : `${event} is not a Claude Code hook event`);
      continue;
    }
    const spec = claudeEvents[event];
    if (handler.type === "mcp_tool") { skip("mcp_tool hooks are not supported"); continue; }
    if (!supportedTypes(event).has(handler.type)) { skip(`Claude Code does not run ${handler.type} hooks on ${event}`); continue; }
    if (handler.type === "http" && !urlAllowed(handler.url, loaded.allowedHttpHookUrls)) { skip(`the HTTP hook to ${refusedUrlLabel(handler.url)} is not in allowedHttpHookUrls`); continue; }

    const used = names.get(spec.point) ?? new Set<string>();
    names.set(spec.point, used);
    const label = hookLabel(handler); // an HTTP hook's is a hash of its URL: made once
    let name = `${event}:${handler.type}:${label}`;
    for (let n = 2; used.has(name); n++) name = `${event}:${handler.type}:${label} #${n}`;
    const m = matchFor(entry, spec, name, { projectDir: options.projectDir ?? cwd, cwd });
    if (m.never) { skip(m.never); continue; }
    if ((handler.type === "prompt" || handler.type === "agent") && options.model === undefined && options.withoutModel === "skip") {
      skip(`${handler.type} hooks need a model, and none was given`);
      continue;
    }
    used.add(name);

    const common = {
      event, name, source: entry.source, cwd,
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      ...(m.match !== undefined ? { match: m.match } : {}),
      ...(handler.timeout !== undefined ? { timeout: handler.timeout } : {}),
      ...(options.failMode ? { failMode: options.failMode } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
      ...(options.transcriptPath ? { transcriptPath: options.transcriptPath } : {}),
      ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
    } as const;
    const needModel = (): LanguageModel => {
      if (options.model) return options.model;
      throw new SettingsError(entry.file, entry.pointer, `${handler.type} hooks need a model: pass options.model to fromClaudeSettings`);
    };
    try {
      const hook =
        handler.type === "command" ? commandHook({
          ...common, command: handler.command, async: handler.async === true || handler.asyncRewake === true,
          ...(handler.args ? { args: handler.args } : {}),
          ...(handler.shell ? { shell: handler.shell } : {}),
          ...(options.allowedEnvVars ? { allowedEnvVars: options.allowedEnvVars } : {}),
          projectDir: options.projectDir ?? cwd,
          ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
        }) :
        handler.type === "http" ? httpHook({
          ...common, url: handler.url, ...(handler.headers ? { headers: handler.headers } : {}),
          allowedEnvVars: (handler.allowedEnvVars ?? []).filter((v) => loaded.httpHookAllowedEnvVars?.includes(v) ?? true),
          ...(options.http?.allow ? { allow: options.http.allow } : {}),
          ...(options.http?.resolver ? { resolver: options.http.resolver } : {}),
        }) :
        handler.type === "prompt" ? promptHook({ ...common, prompt: handler.prompt, model: needModel(), ...(handler.model ? { modelId: handler.model } : {}) }) :
        agentHook({ ...common, prompt: handler.prompt, model: needModel(), ...(handler.model ? { modelId: handler.model } : {}) });
      const endsTurns = spec.point === "toolCall" && spec.phase !== "recover";
      stack = stack.use(spec.point, (endsTurns ? stops.watch(hook as Hook, name, handler.type === "prompt" && handler.continueOnBlock !== true) : hook) as never);
    } catch (error) {
      if (error instanceof SettingsError) throw error;
      throw new SettingsError(entry.file, entry.pointer, (error as Error).message);
    }
    hooks.push({ name, event, point: spec.point, phase: spec.phase, type: handler.type, match: m.text, source: entry.source });
    if (handler.type === "command") {
      const program = commandProgram(handler.command, handler.args, options.projectDir ?? cwd, cwd);
      const problem = program === undefined ? undefined : programProblem(program);
      if (problem !== undefined) {
        const message = `hook "${name}": its program ${program} ${problem}; the hook will fail closed when it runs`;
        warn(entry.source, message);
      }
    }
  }
  if (stops.used()) stack = stack.use("step", stops.step).use("toolCall", stops.calls).use("run", stops.run);
  return { stack, hooks, unused, duplicates: loaded.duplicates, warnings, disabled: false };
};

/** A refused HTTP hook named as `httpHook` names one: its path or query may hold a webhook's credential, and `unused` is printed. */
const refusedUrlLabel = (raw: string): string => {
  try {
    return httpHookLabel(new URL(raw));
  } catch {
    return "a URL that does not parse";
  }
};
