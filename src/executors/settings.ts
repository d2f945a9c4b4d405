/**
 * `fromClaudeSettings`: the `hooks` section of Claude Code settings (and of plugins), loaded
 * unchanged, as hooks on an agent stack, with Claude Code's semantics.
 *
 * The boundary between the two models is one rule: every handler one call loads for one event
 * becomes ONE hook in the onion (a `claudeHookSet`), which runs them Claude Code's way (all at
 * once on the same input, every one to its end, decided together: a block beats an ask, an ask
 * beats an allow); in-process hooks around it keep the onion's order. Two things differ from
 * Claude Code on purpose: rewrites resolve to the last one in settings order, and a rewritten
 * input is checked again by the event's hooks before the tool runs. Failures let the event go on,
 * as in Claude Code, unless `failMode: "closed"` is given (recommended for guards).
 *
 * What we cannot or would not run is reported in `unused` with the reason, never silently
 * dropped; a malformed entry throws naming file and pointer; an unknown field is a warning.
 */
import type { LanguageModel } from "../agent/model.ts";
import { agentPoints } from "../agent/points.ts";
import { createAgentStack, type AgentStack } from "../agent/stack.ts";
import type { ErrorEvent } from "../agent/types.ts";
import { RegistrationError } from "../core/errors.ts";
import type { FailMode, Hook } from "../core/hook.ts";
import { compileMatcher } from "../core/match/matcher.ts";
import { coveredTools } from "../core/match/tool-families.ts";
import type { Matcher, PathOptions } from "../core/match/types.ts";
import type { StackOptions } from "../core/stack-types.ts";
import { agentRunner } from "./agent-hook.ts";
import { commandRunner } from "./command.ts";
import { ExecutorError } from "./errors.ts";
import { stopFailureType } from "./event-json.ts";
import type { AgentPermissions } from "../agent/permissions.ts";
import { claudeHookEvents, isAgentEvent, isClaudeHookEvent, type AgentEvent, type EventSpec } from "./events.ts";
import { claudeHookSet, type EventOptions, type HookMember, type RunnerSpec } from "./external.ts";
import { httpHookLabel, httpRunner } from "./http.ts";
import { mcpToolRunner, type McpHookClient } from "./mcp-tool.ts";
import type { PluginSource } from "./plugin.ts";
import { promptRunner } from "./prompt.ts";
import { commandProgram, programProblem } from "./settings-check.ts";
import { anyGroupMatcher, claudeMatch, hookLabel, urlAllowed } from "./settings-rules.ts";
import { loadClaudeSettings, type HandlerEntry, type SettingsInput } from "./settings-load.ts";
import { SettingsError } from "./settings-schema.ts";
import type { AddressPolicy, Resolver } from "./ssrf.ts";
import { turnStops } from "./turn-stop.ts";
import { knownOptions } from "../core/known-options.ts";
import { nearestName, namesByNearness } from "../core/nearest-name.ts";
import { stackArgument } from "../agent/stack-argument.ts";

/**
 * The stop blocks in a row Claude Code honours: observed with its 2.1.328 binary, a Stop hook
 * may block at most 9 times in a row (its reference says 8); the stop after that goes ahead.
 *
 * @example
 * fromClaudeSettings(files, { stopCap: CLAUDE_STOP_BLOCK_CAP - 1 }) // one fewer than Claude Code
 */
export const CLAUDE_STOP_BLOCK_CAP = 9;

/** Options of `fromClaudeSettings`: trust, environment, limits and how handlers run. */
export interface ClaudeSettingsOptions extends Omit<EventOptions, "maxInputBytes"> {
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
  /**
   * What a hook that fails (cannot start, exits 1 without a JSON answer, times out, answers
   * something unreadable) does: `"open"` (default) lets the event go on, as Claude Code does;
   * `"closed"` refuses it with a reason naming the hook. Guards should use `"closed"`.
   */
  readonly failMode?: FailMode;
  /** Every loaded set's priority; default 100. */
  readonly priority?: number;
  /** `CLAUDE_PROJECT_DIR`; default the cwd. */
  readonly projectDir?: string;
  /**
   * What command hooks inherit from `process.env`: `"inherit"` (default, as Claude Code gives its
   * hooks) everything but `OTEL_*`; `"allowlist"` only PATH, HOME, LANG and the like plus
   * `allowedEnvVars`: the safer choice for hooks you did not write. Giving `allowedEnvVars`
   * alone means `"allowlist"`.
   */
  readonly environment?: "inherit" | "allowlist";
  /** Extra variables command hooks may inherit with `environment: "allowlist"`. */
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
  /** Between SIGTERM and SIGKILL for command hooks; default 1000 ms. */
  readonly killGraceMs?: number;
  /** Plugins whose `hooks/hooks.json` load with these settings, into the same sets (see `fromClaudePlugin`). */
  readonly plugins?: readonly PluginSource[];
  /** Connected MCP clients by server name, for `mcp_tool` hooks (a server not given fails like a disconnected one). */
  readonly mcpClients?: Readonly<Record<string, McpHookClient>>;
  /** Stop and SubagentStop blocks in a row honoured at most; default `CLAUDE_STOP_BLOCK_CAP` (9). */
  readonly stopCap?: number;
}

/** A handler that became a member of a hook set. */
export interface LoadedHook {
  /** Its own name, as notices and refusals name it. */
  readonly name: string;
  /** The name of the hook (set) it runs in, as the stack, traces and `explain` name it. */
  readonly hook: string;
  readonly event: AgentEvent;
  readonly point: string;
  readonly phase: EventSpec["phase"];
  readonly type: "command" | "http" | "prompt" | "agent" | "mcp_tool";
  readonly match: string | undefined;
  readonly source: string;
  /** The plugin it came from. */
  readonly plugin?: string;
}

/** A handler (or event) that is accepted but does not run, and why. */
export interface UnusedHandler {
  readonly event: string;
  readonly type: string;
  readonly source: string;
  readonly reason: string;
}

/** What `fromClaudeSettings` made: the stack, each hook with where it came from, and what it left out. */
export interface ClaudeSettingsResult {
  readonly stack: AgentStack;
  readonly hooks: readonly LoadedHook[];
  readonly unused: readonly UnusedHandler[];
  readonly duplicates: readonly { readonly source: string; readonly sameAs: string }[];
  /**
   * Setup problems found at load: a command whose program path does not exist or may not be
   * executed (D6), an MCP server not given, fields agent-onion does not read. Each is also
   * emitted as a process warning.
   */
  readonly warnings: readonly { readonly source: string; readonly message: string }[];
  /** `disableAllHooks` was in effect: nothing was loaded. */
  readonly disabled: boolean;
  /**
   * The files' permission rules and mode (`permissions.allow`, `.ask`, `.deny`, `.defaultMode`), for
   * `createAgent({ permissions })`, so the reference agent asks (and fires PermissionRequest) where
   * Claude Code would. Rules of untrusted project files are not included; a mode the agent has no
   * meaning for (`plan`, `auto`) is left out with a warning.
   */
  readonly permissions: AgentPermissions;
}

/** Both matchers, when both are there. */
const both = (a: Matcher | undefined, b: Matcher | undefined): Matcher | undefined =>
  a === undefined
    ? b
    : b === undefined
      ? a
      : Object.freeze({
          source: `${a.source} and ${b.source}`,
          all: false,
          needsInput: a.needsInput || b.needsInput,
          needsSubject: true,
          matchSubject: (s: string | undefined) => a.matchSubject(s) && b.matchSubject(s),
          test: (s: string | undefined, i: unknown, d: () => string | undefined, m?: Readonly<Record<string, unknown>>) =>
            a.test(s, i, d, m) && b.test(s, i, d, m),
        });

/** When a handler applies (its groups' matchers and its `if`), as a Matcher and as text; or why it never runs. */
const matchOf = (
  entry: HandlerEntry,
  spec: EventSpec,
  name: string,
  paths: PathOptions,
): { matcher?: Matcher | undefined; text?: string | undefined; single?: string | Matcher | undefined; never?: string } => {
  const { matcher, handler } = entry;
  const info = claudeHookEvents[entry.event as AgentEvent];
  // Every group's matcher, each checked at its own file and pointer, ORed (one group: just its own).
  const group = info.matcher === "none" ? undefined : anyGroupMatcher(entry.matchers, info.matcher === "narrow", name);
  if (handler.if !== undefined) {
    if (!info.tool) return { never: `"if" is only evaluated on tool events; Claude Code never runs this hook on ${entry.event}` };
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
    if (group && named !== null && !tools.some((t) => group.matchSubject(t)))
      return { never: `"if" names ${named[1]}, which the matcher ${JSON.stringify(matcher)} excludes` };
    // The `if` names the tool (or family) the groups let through. The set's own match is the groups'
    // matcher, or the condition compiled here with the project's paths (a string would be compiled
    // again without them); the member's matcher checks both.
    return { matcher: both(group, condition), text: handler.if, single: group ?? condition };
  }
  if (!group) return {};
  const single = spec.matcher === "error-type" || entry.matchers.length !== 1 ? undefined : claudeMatch(matcher!, false);
  return { matcher: group, text: matcher, single };
};

/** A member that fails every time with `message` (an MCP server that was not given: Claude Code's "not connected"). */
const failing = (name: string, message: string): RunnerSpec => ({
  name,
  timeoutMs: 1000,
  backstopMs: 0,
  run: () => Promise.reject(new ExecutorError("tool-error", message)),
});

/**
 * Build an agent stack from Claude Code settings: a parsed object, or layers (file paths or
 * `{ file, settings }`) in Claude Code's order, user first, then project, then local; and the
 * `plugins` given. See the module comment for how the hooks of one event run together. When a
 * tool event has hooks, a `step`, a `run` and an innermost `toolCall` hook
 * ("claude-settings:turn-stop") come with them, which end the turn its hooks asked to end
 * (`continue: false`, a prompt hook's `ok: false`) and refuse the run's other calls.
 *
 * @example
 * const { stack, unused } = fromClaudeSettings(claudeSettingsFiles(process.cwd()), { trustProjectSettings: true, failMode: "closed" })
 * for (const u of unused) console.warn(`not run: ${u.source}: ${u.reason}`)
 */
export const fromClaudeSettings = (input: SettingsInput, options: ClaudeSettingsOptions = {}): ClaudeSettingsResult =>
  loadSettings("fromClaudeSettings", input, options);

/** Every field of `ClaudeSettingsOptions`: a misspelt one is refused rather than dropped. */
const SETTINGS_OPTION_FIELDS = {
  trustProjectSettings: true,
  home: true,
  stack: true,
  stackOptions: true,
  failMode: true,
  priority: true,
  projectDir: true,
  environment: true,
  allowedEnvVars: true,
  http: true,
  model: true,
  withoutModel: true,
  killGraceMs: true,
  plugins: true,
  mcpClients: true,
  stopCap: true,
  cwd: true,
  transcriptPath: true,
  permissionMode: true,
  effort: true,
  envFile: true,
  onNotice: true,
} as const satisfies { readonly [K in keyof Required<ClaudeSettingsOptions>]: true };

/** Why an event name that is no Claude Code hook event does not run: the event meant, and every event, nearest first. */
const unknownEventReason = (event: string): string => {
  const events = namesByNearness(event, Object.keys(claudeHookEvents));
  const near = nearestName(event, events);
  return `${event} is not a Claude Code hook event${near === undefined ? "" : ` (did you mean ${near}?)`}; the events are, nearest first: ${events.join(", ")}`;
};

/** `fromClaudeSettings`, its options checked in the name of the function the caller called. */
const loadSettings = (owner: string, input: SettingsInput, options: ClaudeSettingsOptions): ClaudeSettingsResult => {
  knownOptions(owner, options, SETTINGS_OPTION_FIELDS);
  if (options.stack !== undefined) stackArgument(owner, options.stack);
  if (options.withoutModel !== undefined && options.withoutModel !== "throw" && options.withoutModel !== "skip")
    throw new TypeError(
      `fromClaudeSettings: withoutModel must be "throw" or "skip", got ${JSON.stringify(options.withoutModel) ?? String(options.withoutModel)}`,
    );
  if (options.failMode !== undefined && options.failMode !== "open" && options.failMode !== "closed")
    throw new TypeError(
      `fromClaudeSettings: failMode must be "open" or "closed", got ${JSON.stringify(options.failMode) ?? String(options.failMode)}`,
    );
  if (options.environment !== undefined && options.environment !== "inherit" && options.environment !== "allowlist")
    throw new TypeError(
      `fromClaudeSettings: environment must be "inherit" or "allowlist", got ${JSON.stringify(options.environment) ?? String(options.environment)}`,
    );
  if (options.stopCap !== undefined && !(Number.isSafeInteger(options.stopCap) && options.stopCap >= 0))
    throw new TypeError(`fromClaudeSettings: stopCap must be a whole number from 0, got ${String(options.stopCap)}`);
  const loaded = loadClaudeSettings(input, {
    trustProjectSettings: options.trustProjectSettings,
    home: options.home,
    plugins: options.plugins,
  });
  let stack = options.stack ?? createAgentStack(options.stackOptions);
  const hooks: LoadedHook[] = [];
  const unused: UnusedHandler[] = [];
  // Hooks a project brought along are not run until trusted (D11); a guard that silently does not
  // run is worse than a loud one, so each untrusted file is also named in a warning (below).
  const untrustedFiles = new Map<string, number>();
  for (const e of loaded.untrusted) {
    unused.push({
      event: e.event,
      type: e.handler.type === "unknown" ? e.handler.declared : e.handler.type,
      source: e.source,
      reason: `${e.file} is a project's settings and is not trusted; review it, then pass trustProjectSettings: true`,
    });
    untrustedFiles.set(e.file, (untrustedFiles.get(e.file) ?? 0) + 1);
  }
  const warnings: { source: string; message: string }[] = [];
  /** Kept in the result and told to the process, so a setup problem is never only in a return value. */
  const warn = (source: string, message: string): void => {
    warnings.push({ source, message });
    process.emitWarning(`${source}: ${message}`, "AgentOnionSettingsWarning");
  };
  for (const [file, count] of untrustedFiles)
    warn(
      file,
      `${count} hook${count === 1 ? "" : "s"} of this project's settings will not run until it is trusted; review it, then pass trustProjectSettings: true`,
    );
  for (const n of loaded.notes) warn(n.source, n.message);
  const { allow, ask, deny, defaultMode, source: modeSource } = loaded.permissions;
  const agentModes = ["default", "acceptEdits", "dontAsk", "bypassPermissions", "manual"];
  if (defaultMode !== undefined && !agentModes.includes(defaultMode))
    warn(modeSource ?? "settings", `permissions.defaultMode "${defaultMode}" has no meaning in the agent; the default mode applies`);
  const permissions: AgentPermissions = {
    allow,
    ask,
    deny,
    ...(defaultMode !== undefined && agentModes.includes(defaultMode)
      ? { mode: defaultMode as NonNullable<AgentPermissions["mode"]> }
      : {}),
  };
  if (loaded.disabled) return { stack, hooks, unused, duplicates: loaded.duplicates, warnings, disabled: true, permissions };
  const cwd = options.cwd ?? process.cwd();
  const projectDir = options.projectDir ?? cwd;
  const environment = options.environment ?? (options.allowedEnvVars !== undefined ? "allowlist" : "inherit");
  const failMode = options.failMode ?? "open";
  const stops = turnStops();
  const byEvent = new Map<
    AgentEvent,
    { member: HookMember; loaded: LoadedHook; single: string | Matcher | undefined; plugin: string | undefined }[]
  >();
  const names = new Set<string>();

  for (const entry of loaded.entries) {
    const { event, handler } = entry;
    const skip = (reason: string) =>
      void unused.push({ event, type: handler.type === "unknown" ? handler.declared : handler.type, source: entry.source, reason });
    if (!isAgentEvent(event)) {
      if (isClaudeHookEvent(event))
        skip(`agent-onion does not drive ${event}: ${claudeHookEvents[event].unmapped ?? "it has no counterpart in an agent loop"}`);
      else {
        // Most often a misspelling: a guard that never runs must not be only a line in `unused`.
        const reason = unknownEventReason(event);
        skip(reason);
        warn(entry.source, reason);
      }
      continue;
    }
    if (handler.type === "unknown") {
      skip(`handler type "${handler.declared}" is not one agent-onion knows`);
      continue;
    }
    const spec = claudeHookEvents[event].spec!;
    if (!claudeHookEvents[event].types.has(handler.type)) {
      skip(`Claude Code does not run ${handler.type} hooks on ${event}`);
      continue;
    }
    if (handler.type === "http" && !urlAllowed(handler.url, loaded.allowedHttpHookUrls)) {
      skip(`the HTTP hook to ${refusedUrlLabel(handler.url)} is not in allowedHttpHookUrls`);
      continue;
    }

    const label = hookLabel(handler); // an HTTP hook's is a hash of its URL: made once
    const base = `${entry.plugin ? `${entry.plugin.name}:` : ""}${event}:${handler.type}:${label}`;
    let name = base;
    for (let n = 2; names.has(name); n++) name = `${base} #${n}`;
    const m = matchOf(entry, spec, name, { projectDir, cwd });
    if (m.never) {
      skip(m.never);
      continue;
    }
    if ((handler.type === "prompt" || handler.type === "agent") && options.model === undefined && options.withoutModel === "skip") {
      skip(`${handler.type} hooks need a model, and none was given`);
      continue;
    }
    names.add(name);
    const common = { event, name, ...(handler.timeout !== undefined ? { timeout: handler.timeout } : {}) } as const;
    const needModel = (): LanguageModel => {
      if (options.model) return options.model;
      throw new SettingsError(entry.file, entry.pointer, `${handler.type} hooks need a model: pass options.model to fromClaudeSettings`);
    };
    let runner: RunnerSpec;
    try {
      runner =
        handler.type === "command"
          ? commandRunner({
              ...common,
              command: handler.command,
              ...(handler.args ? { args: handler.args } : {}),
              ...(handler.shell ? { shell: handler.shell } : {}),
              environment,
              ...(options.allowedEnvVars ? { allowedEnvVars: options.allowedEnvVars } : {}),
              projectDir,
              ...(entry.plugin ? { pluginRoot: entry.plugin.root, pluginData: entry.plugin.data } : {}),
              ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
            })
          : handler.type === "http"
            ? httpRunner({
                ...common,
                url: handler.url,
                ...(handler.headers ? { headers: handler.headers } : {}),
                allowedEnvVars: (handler.allowedEnvVars ?? []).filter((v) => loaded.httpHookAllowedEnvVars?.includes(v) ?? true),
                ...(options.http?.allow ? { allow: options.http.allow } : {}),
                ...(options.http?.resolver ? { resolver: options.http.resolver } : {}),
              })
            : handler.type === "prompt"
              ? promptRunner({
                  ...common,
                  prompt: handler.prompt,
                  model: needModel(),
                  ...(handler.model ? { modelId: handler.model } : {}),
                })
              : handler.type === "agent"
                ? agentRunner({
                    ...common,
                    prompt: handler.prompt,
                    model: needModel(),
                    ...(handler.model ? { modelId: handler.model } : {}),
                  })
                : options.mcpClients?.[handler.server] !== undefined
                  ? mcpToolRunner({
                      ...common,
                      client: options.mcpClients[handler.server]!,
                      server: handler.server,
                      tool: handler.tool,
                      ...(handler.input ? { input: handler.input } : {}),
                    })
                  : failing(name, `the MCP server "${handler.server}" is not connected (give its client in mcpClients)`);
    } catch (error) {
      if (error instanceof SettingsError) throw error;
      throw new SettingsError(entry.file, entry.pointer, (error as Error).message);
    }
    if (handler.type === "mcp_tool" && options.mcpClients?.[handler.server] === undefined)
      warn(
        entry.source,
        `hook "${name}": the MCP server "${handler.server}" was not given in mcpClients; the hook fails ${failMode} when it runs`,
      );
    const member: HookMember = {
      ...runner,
      source: entry.source,
      matcher: m.matcher,
      failMode,
      async: handler.type === "command" && (handler.async === true || handler.asyncRewake === true),
      // A prompt hook's `ok: false` ends the turn on tool events unless continueOnBlock (agent hooks behave as if it were set).
      blockEndsTurn: handler.type === "prompt" && handler.continueOnBlock !== true && spec.point === "toolCall" && spec.phase !== "recover",
    };
    const loadedHook: LoadedHook = {
      name,
      hook: name,
      event,
      point: spec.point,
      phase: spec.phase,
      type: handler.type,
      match: m.text,
      source: entry.source,
      ...(entry.plugin ? { plugin: entry.plugin.name } : {}),
    };
    const list = byEvent.get(event) ?? [];
    list.push({ member, loaded: loadedHook, single: m.single, plugin: entry.plugin?.name });
    byEvent.set(event, list);
    if (handler.type === "command" && entry.plugin && [handler.command, ...(handler.args ?? [])].some((w) => w.includes("${user_config.")))
      warn(entry.source, `hook "${name}": \${user_config.*} is a plugin option agent-onion does not supply; it stays as written`);
    if (handler.type === "command") {
      const program = commandProgram(handler.command, handler.args, projectDir, cwd, entry.plugin?.root);
      const problem = program === undefined ? undefined : programProblem(program);
      if (problem !== undefined)
        warn(entry.source, `hook "${name}": its program ${program} ${problem}; the hook fails ${failMode} when it runs`);
    }
  }

  for (const [event, list] of byEvent) {
    const spec = claudeHookEvents[event].spec!;
    const plugins = new Set(list.map((l) => l.plugin));
    const base =
      list.length === 1
        ? list[0]!.member.name
        : plugins.size === 1 && list[0]!.plugin !== undefined
          ? `${list[0]!.plugin}:${event}`
          : `claude-settings:${event}`;
    const match =
      list.length === 1 && list[0]!.single !== undefined
        ? list[0]!.single
        : anyOf(
            spec,
            list.map((l) => l.member),
            list.map((l) => l.loaded.match ?? "*"),
          );
    const endsTurns = spec.onContinueFalse === "end-turn" || list.some((l) => l.member.blockEndsTurn);
    if (endsTurns) stops.watch();
    const set = (name: string) =>
      claudeHookSet({
        event,
        name,
        members: list.map((l) => l.member),
        ...(match !== undefined ? { match: match as never } : {}),
        source: list.map((l) => l.loaded.source).join(", "),
        ...(options.priority !== undefined ? { priority: options.priority } : {}),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        cwd,
        ...(options.transcriptPath !== undefined ? { transcriptPath: options.transcriptPath } : {}),
        ...(options.permissionMode !== undefined ? { permissionMode: options.permissionMode } : {}),
        ...(options.effort !== undefined ? { effort: options.effort } : {}),
        ...(options.envFile !== undefined ? { envFile: options.envFile } : {}),
        ...(endsTurns ? { endTurn: stops.endTurn } : {}),
        ...(event === "Stop" || event === "SubagentStop" ? { stopCap: options.stopCap ?? CLAUDE_STOP_BLOCK_CAP } : {}),
      });
    // A name another load already gave a hook on this point gets a number.
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base} #${n}`;
      try {
        stack = stack.use(spec.point, set(name) as Hook as never);
      } catch (error) {
        if (error instanceof RegistrationError && /already registered/.test(error.message) && n < 100) continue;
        throw error;
      }
      for (const l of list) hooks.push({ ...l.loaded, hook: name });
      break;
    }
  }
  if (stops.used()) stack = stack.use("step", stops.step).use("toolCall", stops.calls).use("run", stops.run);
  // Settings order, as they were read.
  const order = new Map(loaded.entries.map((e, i) => [e.source, i]));
  hooks.sort((a, b) => (order.get(a.source) ?? 0) - (order.get(b.source) ?? 0));
  return { stack, hooks, unused, duplicates: loaded.duplicates, warnings, disabled: false, permissions };
};

/** The match of a set of several hooks: any of theirs (named after their patterns, for `explain`). */
const anyOf = (spec: EventSpec, members: readonly HookMember[], texts: readonly string[]) => {
  if (members.some((m) => m.matcher === undefined)) return undefined;
  const point = agentPoints[spec.point] as { subject?: (i: unknown) => string | undefined; detail?: (i: unknown) => string | undefined };
  const subjectOf = spec.matcher === "error-type" ? (i: unknown) => stopFailureType(i as ErrorEvent) : (i: unknown) => point.subject?.(i);
  const fn = (_subject: string | undefined, input: unknown): boolean => {
    const subject = subjectOf(input);
    return members.some((m) => m.matcher!.test(subject, input, () => point.detail?.(input)));
  };
  Object.defineProperty(fn, "name", { value: [...new Set(texts)].join(" | ") });
  return fn;
};

/**
 * Load one Claude Code plugin's hooks (`hooks/hooks.json` in `dir`, and any its
 * `.claude-plugin/plugin.json` names) onto an agent stack, each with `CLAUDE_PLUGIN_ROOT` set to
 * `dir` for its hooks alone. Options are `fromClaudeSettings`'s; to have settings and plugins
 * decide together, as Claude Code does, load them in one call with its `plugins` option.
 *
 * @example
 * const { stack } = fromClaudePlugin("./plugins/hookify", { failMode: "closed", cwd: process.cwd() })
 */
export const fromClaudePlugin = (dir: PluginSource, options: ClaudeSettingsOptions = {}): ClaudeSettingsResult =>
  loadSettings("fromClaudePlugin", [], { ...options, plugins: [dir, ...(options.plugins ?? [])] });

/** A refused HTTP hook named as `httpHook` names one: its path or query may hold a webhook's credential, and `unused` is printed. */
const refusedUrlLabel = (raw: string): string => {
  try {
    return httpHookLabel(new URL(raw));
  } catch {
    return "a URL that does not parse";
  }
};
