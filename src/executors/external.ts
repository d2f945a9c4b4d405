/**
 * The shape every executor shares: given a way to ask the outside world ("run this event
 * JSON, tell me the answer"), build an ordinary Hook on the event's point and phase, so external
 * hooks sit in the same onion as in-process ones.
 *
 * Two shapes, one boundary. `externalHook` is one external hook: an onion layer like any other,
 * whose failures are typed `HookError`s that R6 decides (closed on gates by default). A
 * `claudeHookSet` is every hook Claude Code settings give one event, run Claude Code's way inside
 * ONE onion layer: all at once on the same input, every one to the end, decided together
 * (`combine.ts`), each failure decided by its own policy. `async` hooks run on a bounded
 * background queue and keep `stack.flush()` waiting through `ctx.waitUntil`.
 */
import { agentPoints, type AgentPoints } from "../agent/points.ts";
import { toolDurationMs } from "../agent/tool-duration.ts";
import type { ErrorEvent, SessionInfo, SessionStart, ToolResult } from "../agent/types.ts";
import { Continue, Transform, type HookAction } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import { describe, HookError } from "../core/errors.ts";
import type { FailMode, Hook } from "../core/hook.ts";
import type { Matcher, MatchSpec } from "../core/match/types.ts";
import { maxTimerMs, untilAbort, withDeadline } from "../core/signal.ts";
import type { InputOf, KindOf, OutputOf } from "../core/point.ts";
import { combine } from "./combine.ts";
import { ExecutorError } from "./errors.ts";
import { stopFailureType, toClaudeEvent, type PointData } from "./event-json.ts";
import { agentEvents, type AgentEvent, type EventSpec } from "./events.ts";
import type { HookAnswer } from "./hook-answer.ts";
import { stringifyEvent } from "./json.ts";
import { checkLimit } from "./limits.ts";
import { failureDecision, readDecision, type ExternalNotice, type HookDecision, type NoticeSink, type Notify } from "./protocol.ts";
import { BackgroundQueue } from "./queue.ts";
import { childEnv } from "./env.ts";
import { emptyTranscript, envFileVariables, hasContent, sessionEnvFile } from "./session-files.ts";

/** The agent point each Claude Code event the agent drives runs on. */
export type EventPoint = {
  SessionStart: "sessionStart";
  UserPromptSubmit: "userPrompt";
  PreToolUse: "toolCall";
  PostToolUse: "toolCall";
  PostToolUseFailure: "toolCall";
  Stop: "stop";
  SubagentStop: "subagentStop";
  PreCompact: "compaction";
  PostCompact: "compaction";
  StopFailure: "error";
  SessionEnd: "sessionEnd";
  Notification: "notification";
  PermissionRequest: "permissionRequest";
  SubagentStart: "subagentStart";
  PostToolBatch: "toolBatch";
};
/** The agent point a Claude Code event `E` runs on. */
export type PointOfEvent<E extends AgentEvent> = AgentPoints[EventPoint[E]];

/** A hook built by an executor for Claude Code event `E`, typed for that event's point. */
export type ExternalHook<E extends AgentEvent> = Hook<InputOf<PointOfEvent<E>>, OutputOf<PointOfEvent<E>>, KindOf<PointOfEvent<E>>>;

/** What every executor's hook sends: the event JSON's common fields and the hook's environment. */
export interface EventOptions {
  /** `cwd` in the event JSON (and the process's cwd); `ctx.metadata.cwd` wins. Default `process.cwd()`. */
  readonly cwd?: string;
  /**
   * `transcript_path` in the event JSON (a file, or a file per session id); `ctx.metadata.transcriptPath`
   * wins. Without either, hooks get an empty transcript file.
   */
  readonly transcriptPath?: string | ((sessionId: string) => string);
  /** `permission_mode` in the event JSON; `ctx.metadata.permissionMode` wins. Default `"default"`. */
  readonly permissionMode?: string;
  /** The turn's effort level, sent as `effort` and `CLAUDE_EFFORT` on tool events and stops; `ctx.metadata.effort` wins. */
  readonly effort?: string;
  /** SessionStart's `CLAUDE_ENV_FILE` for a session; default a private file per session (see `SessionInfo.env`). */
  readonly envFile?: (sessionId: string) => string;
  /** Largest event JSON sent, in bytes. Default 16 MiB. */
  readonly maxInputBytes?: number;
  /** Receives `systemMessage`, `defer`, ignored fields, failures let through and background results. */
  readonly onNotice?: NoticeSink;
}

/** Options every executor accepts. */
export interface ExternalHookOptions<E extends AgentEvent = AgentEvent> extends EventOptions {
  /** The Claude Code event this hook answers; it fixes the point and phase (PreToolUse: toolCall before). */
  readonly event: E;
  readonly name?: string;
  readonly priority?: number;
  readonly match?: MatchSpec<InputOf<PointOfEvent<E>>>;
  /**
   * What a failure of this hook does (R6; default closed on gates). On events that cannot be
   * refused (SessionStart, SessionEnd, Notification...) a failure is always a notice.
   */
  readonly failMode?: FailMode;
  readonly shadow?: boolean;
  readonly disabled?: boolean;
  /** Where the hook came from (settings file and JSON path); shown in errors and traces. */
  readonly source?: string;
  /** Deadline in seconds, as in Claude Code settings. */
  readonly timeout?: number;
  /** Deadline in ms (wins over `timeout`). */
  readonly timeoutMs?: number;
  /** Run in the background: never blocks, its decisions are ignored and reported as notices. */
  readonly async?: boolean;
  /** The bounded queue for `async` runs; default one per hook (limit 100, concurrency 4). */
  readonly queue?: BackgroundQueue;
  /** PreToolUse: run this hook again on the call a hook inside it rewrote, before the tool runs (default true). */
  readonly recheck?: boolean;
}

/**
 * Every field of `ExternalHookOptions`: each hook factory adds its own to these and refuses any
 * other, so a misspelt option (`timout`) is a TypeError rather than a default in silence.
 *
 * @example
 * knownOptions("commandHook", options, { ...EXTERNAL_HOOK_FIELDS, command: true, args: true })
 */
export const EXTERNAL_HOOK_FIELDS = {
  event: true,
  name: true,
  priority: true,
  match: true,
  failMode: true,
  shadow: true,
  disabled: true,
  source: true,
  timeout: true,
  timeoutMs: true,
  async: true,
  queue: true,
  recheck: true,
  cwd: true,
  transcriptPath: true,
  permissionMode: true,
  effort: true,
  envFile: true,
  maxInputBytes: true,
  onNotice: true,
} as const satisfies { readonly [K in keyof Required<ExternalHookOptions>]: true };

/** What a runner is asked to do. */
export interface RunRequest {
  readonly json: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly cwd: string;
  readonly ctx: HookContext | undefined;
  /** What Claude Code puts in a hook's environment for this event: `CLAUDECODE`, `CLAUDE_CODE_SESSION_ID`, `CLAUDE_ENV_FILE`... */
  readonly env: Readonly<Record<string, string>>;
}

/** Ask the outside world: send the event JSON, return its answer, or throw an `ExecutorError`. */
export type Runner = (request: RunRequest) => Promise<HookAnswer>;

/** A runner with its name and deadline: what each executor builds, for a hook of its own or for a set. */
export interface RunnerSpec {
  readonly name: string;
  readonly run: Runner;
  readonly timeoutMs: number;
  /** How long past its deadline a runner may take to clean up (kill a process tree) before it is abandoned. */
  readonly backstopMs: number;
  /**
   * The environment its process inherits, before the event's own variables (a command hook's
   * allowlist, or all of ours). SessionStart's `CLAUDE_ENV_FILE` is read with it, so the file a
   * hook writes sees no more than the hook did. None: the runner starts no process.
   */
  readonly processEnv?: (() => Readonly<Record<string, string>>) | undefined;
}

const metaString = (ctx: HookContext, key: string): string | undefined =>
  typeof ctx.metadata[key] === "string" ? (ctx.metadata[key] as string) : undefined;

/**
 * A notice that warns (a hook that failed, or failed in the background, or work dropped) as a line
 * naming the hook and the event; undefined for the others.
 *
 * @example
 * hookWarningText({ kind: "hook-error", hook: "lint", event: "SessionStart", message: "exited 1" }) // 'hook "lint" (SessionStart): exited 1'
 */
export const hookWarningText = (n: ExternalNotice): string | undefined =>
  n.kind === "background-failure" || n.kind === "dropped" || n.kind === "hook-error"
    ? `hook "${n.hook}" (${n.event}): ${n.message}`
    : undefined;

/** What was already said about ignored parts of answers: each once per process (a script's `metrics` comes with every call). */
const toldIgnored = new Set<string>();

const warnByDefault: NoticeSink = (n) => {
  const text = hookWarningText(n);
  if (text !== undefined) return void process.emitWarning(text, "AgentOnionHookWarning");
  if (n.kind !== "ignored") return;
  const said = `hook "${n.hook}" (${n.event}): ${n.message}`;
  if (toldIgnored.has(said) || toldIgnored.size >= 1000) return;
  toldIgnored.add(said);
  process.emitWarning(said, "AgentOnionHookWarning");
};

/** Where notices of hooks made without an `onNotice` go: a process warning, unless a host routes them. */
let defaultSink: NoticeSink = warnByDefault;

/**
 * Send the notices of external hooks made without an `onNotice` of their own to `sink` instead of
 * process warnings, until the returned function is called: for a host that reports them itself
 * (`claude-hook` puts them in Claude Code's systemMessage). One sink for the process: routes
 * nest, and each restore puts back the sink that was routed before it.
 *
 * @example
 * const restore = routeHookNotices((n) => notices.push(n)); try { await run() } finally { restore() }
 */
export const routeHookNotices = (sink: NoticeSink): (() => void) => {
  const previous = defaultSink;
  defaultSink = sink;
  return () => {
    defaultSink = previous;
  };
};

/** A notice function for one hook, never throwing (a throwing sink must not become a hook failure). */
const notifier =
  (own: NoticeSink | undefined, event: AgentEvent, hook: string, source: string | undefined): Notify =>
  (kind, message) => {
    try {
      (own ?? defaultSink)({ hook, event, kind, message, source });
    } catch {
      // a notice sink that throws is the sink's problem
    }
  };

/** `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS`, when it holds a positive number: Claude Code's explicit SessionEnd budget. */
const sessionEndOverrideMs = (): number | undefined => {
  const raw = process.env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS;
  const ms = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, maxTimerMs) : undefined;
};

/**
 * The time SessionEnd hooks share, in ms (reference, "SessionEnd"): 1.5 seconds, raised to the
 * longest per-hook timeout configured in settings, up to 60 seconds; or
 * `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` when it is set.
 *
 * @example
 * sessionEndBudgetMs(600_000) // 60000
 */
export const sessionEndBudgetMs = (longestTimeoutMs = 0): number =>
  sessionEndOverrideMs() ?? Math.min(Math.max(1500, longestTimeoutMs), 60_000);

/**
 * Claude Code's default timeout, in seconds, for a command, HTTP or MCP tool hook on `event`: 600,
 * but 30 on UserPromptSubmit, 10 on MessageDisplay and, on SessionEnd, the 1.5-second budget its hooks share.
 *
 * @example
 * claudeDefaultSeconds("SessionEnd") // 1.5
 */
export const claudeDefaultSeconds = (event: string): number =>
  event === "UserPromptSubmit" ? 30 : event === "MessageDisplay" ? 10 : event === "SessionEnd" ? sessionEndBudgetMs() / 1000 : 600;

/**
 * The deadline an executor applies, in ms: `timeoutMs`, else `timeout` seconds, else the default.
 * On SessionEnd it is at most the longest budget (60 s): a hook cannot hold the session's close longer.
 *
 * @example
 * resolveTimeoutMs({ timeout: 5 }, 600) // 5000
 */
export const resolveTimeoutMs = (
  options: { readonly timeout?: number; readonly timeoutMs?: number; readonly event?: string },
  defaultSeconds: number,
): number => {
  const ms = options.timeoutMs ?? (options.timeout !== undefined ? options.timeout * 1000 : defaultSeconds * 1000);
  if (!(Number.isFinite(ms) && ms > 0))
    throw new RangeError(`timeout must be a positive number, got ${String(options.timeoutMs ?? options.timeout)}`);
  return Math.min(ms, options.event === "SessionEnd" ? sessionEndBudgetMs(Infinity) : 2_000_000_000);
};

/**
 * A SessionEnd hook as an `around` that starts its own work, then lets the hooks inside it start
 * theirs (`next()`), and answers once its own work is done: the core waits for the inside before
 * the run settles. Claude Code runs all matching SessionEnd hooks in parallel, each within its own
 * timeout (which `resolveTimeoutMs` keeps inside the shared budget), so a hook that hangs must not
 * hold back, or eat the time of, a cleanup hook after it. Its own deadline times only its work.
 */
const sideBySide =
  (work: (input: unknown, ctx: HookContext) => Promise<HookAction>, failsClosed: boolean) =>
  async (ctx: HookContext, next: () => Promise<unknown>): Promise<HookAction> => {
    const own = work(ctx.input, ctx);
    const inside = next();
    try {
      return await own;
    } catch (error) {
      // Failing closed settles the run: the hooks inside would be cut short, so they finish first
      // (its timer allows for them, see externalHook). Failing open, the core waits for them itself.
      if (failsClosed) await inside.catch(() => undefined);
      throw error;
    }
  };

/** The event JSON and environment every hook of one event run receives. */
interface Prepared {
  readonly json: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** The session id an event belongs to: the run's, else SessionStart's own. */
const sessionOf = (data: PointData, ctx: HookContext): string =>
  ctx.sessionId ?? ((data.input as Partial<SessionStart> | null)?.sessionId || "");

/**
 * Where a run's transcript is: the run's own, the option's, else an empty file. A run outside an
 * agent loop (a bare `stack.run`) has no conversation, so an empty transcript is the truthful
 * answer, not a mistake worth a warning (docs/claude-code.md says so).
 */
const transcriptFor = (o: EventOptions, ctx: HookContext, session: string): string => {
  const given =
    metaString(ctx, "transcriptPath") ?? (typeof o.transcriptPath === "function" ? o.transcriptPath(session) : o.transcriptPath);
  if (given !== undefined) return given;
  return emptyTranscript(session || "no-session");
};

/** The tool's execution time the operation recorded, when it is a whole number of ms (a hook may have set anything). */
const durationOf = (ctx: HookContext): number | undefined => {
  const ms = ctx.local(toolDurationMs);
  return Number.isSafeInteger(ms) && (ms as number) >= 0 ? ms : undefined;
};

/**
 * Builds what hooks of one event receive, the same for each: the event JSON (with a transcript
 * path always) and the variables Claude Code sets.
 */
const preparer = (spec: EventSpec, o: EventOptions) => {
  return (data: PointData, ctx: HookContext): Prepared => {
    const cwd = metaString(ctx, "cwd") ?? o.cwd ?? process.cwd();
    const session = sessionOf(data, ctx);
    const effort = metaString(ctx, "effort") ?? o.effort;
    let json: string;
    try {
      json = stringifyEvent(
        toClaudeEvent(spec, data, {
          sessionId: ctx.sessionId ?? (spec.event === "SessionStart" ? session : undefined),
          cwd,
          path: ctx.path,
          transcriptPath: transcriptFor(o, ctx, session),
          permissionMode: metaString(ctx, "permissionMode") ?? o.permissionMode,
          effort,
          promptId: metaString(ctx, "promptId"),
          agentTranscriptPath: metaString(ctx, "agentTranscriptPath"),
          durationMs: spec.point === "toolCall" ? durationOf(ctx) : undefined,
        }),
        o.maxInputBytes,
      );
    } catch (error) {
      throw new ExecutorError("input", (error as Error).message, { cause: error });
    }
    const env: Record<string, string> = { CLAUDECODE: "1", CLAUDE_PID: String(process.pid) };
    if (session) env.CLAUDE_CODE_SESSION_ID = session;
    if (spec.effort && effort) env.CLAUDE_EFFORT = effort;
    if (spec.event === "SessionStart") env.CLAUDE_ENV_FILE = envFileOf(o, session);
    return { json, env, cwd };
  };
};

const envFileOf = (o: EventOptions, session: string): string => o.envFile?.(session) ?? sessionEnvFile(session || "no-session");

/**
 * What `CLAUDE_ENV_FILE` is read with: the variables every hook that could have written it was
 * given (with the same value), so that no hook reads through the file what it was not given;
 * the default allowlist when no hook said (none starts a process of its own).
 */
const envFileBase = (runners: readonly RunnerSpec[]): Record<string, string> => {
  const envs = runners.flatMap((r) => (r.processEnv ? [r.processEnv()] : []));
  if (envs.length === 0) return childEnv();
  const [first, ...rest] = envs;
  const base: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(first!))
    if (rest.every((e) => Object.hasOwn(e, name) && e[name] === value)) base[name] = value;
  return base;
};

/**
 * SessionStart's `after`: the variables its hooks wrote to `CLAUDE_ENV_FILE`, evaluated by bash
 * with what those hooks were given (`envFileBase`), on the session's info (`env`, `envFile`) for
 * the tools that run commands later.
 */
const sessionEnvAfter =
  (o: EventOptions, notify: Notify, runners: readonly RunnerSpec[]) =>
  async (output: unknown, input: unknown, ctx: HookContext): Promise<HookAction> => {
    const session = sessionOf({ input }, ctx);
    const file = envFileOf(o, session);
    if (!hasContent(file)) return Continue;
    const info = output as SessionInfo;
    try {
      const env = await envFileVariables(file, envFileBase(runners), undefined, ctx.signal);
      return Transform({ ...info, env: { ...info.env, ...env }, envFile: file } satisfies SessionInfo);
    } catch (error) {
      notify("hook-error", `the variables written to CLAUDE_ENV_FILE could not be read: ${describe(error)}`);
      return Transform({ ...info, envFile: file } satisfies SessionInfo);
    }
  };

/** Run in the background: the answer becomes notices, never a decision. */
const inBackground = (queue: BackgroundQueue, runner: RunnerSpec, prepared: Prepared, ctx: HookContext, notify: Notify): void => {
  const done = queue.push(runner.name, async (cancelled) => {
    // A background run outlives the chain run, so it gets its own deadline, not the run's
    // signal; the queue's signal ends it early when the queue is cancelled at shutdown.
    const deadline = withDeadline(cancelled, runner.timeoutMs + runner.backstopMs);
    try {
      const answer = await runner.run({ ...prepared, signal: deadline.controller.signal, timeoutMs: runner.timeoutMs, ctx: undefined });
      if (answer.output?.systemMessage) notify("systemMessage", answer.output.systemMessage);
      const said = answer.block ?? answer.output?.hookSpecificOutput?.additionalContext ?? answer.text;
      if (said) notify("background-result", said);
    } catch (error) {
      if (cancelled.aborted) notify("cancelled", `cancelled: ${describe(cancelled.reason)}`);
      else notify("background-failure", describe(error));
    } finally {
      deadline.dispose();
    }
  });
  if (done) ctx.waitUntil(done);
  else notify("dropped", `background queue full (${queue.limit}); ${queue.dropped} dropped so far`);
};

/** Run a runner within its own deadline; a runner that does not settle by then is abandoned. */
const runWithin = async (runner: RunnerSpec, prepared: Prepared, signal: AbortSignal, ctx: HookContext): Promise<HookAnswer> => {
  const deadline = withDeadline(signal, runner.timeoutMs + runner.backstopMs);
  try {
    return await untilAbort(
      runner.run({ ...prepared, signal: deadline.controller.signal, timeoutMs: runner.timeoutMs, ctx }),
      deadline.controller.signal,
    );
  } catch (error) {
    if (error instanceof ExecutorError) throw error;
    if (signal.aborted) throw new ExecutorError("aborted", "the run was cancelled");
    if (deadline.controller.signal.aborted) throw new ExecutorError("timeout", `did not answer within ${runner.timeoutMs} ms`);
    throw new ExecutorError("network", describe(error), { cause: error });
  } finally {
    deadline.dispose();
  }
};

/** The tool's output withheld from the model because a hook that checks it failed closed (PostToolUse: the call already ran). */
const withheld = (call: { readonly name: string }, why: string): ToolResult => ({
  content: `${call.name} ran, but its output was withheld: ${why}`,
  isError: true,
});

/**
 * Build a Hook on `options.event`'s point and phase that asks `run` for each event. SessionEnd's is
 * an `around` on `sessionEnd`, so the SessionEnd hooks of a stack run side by side (see `sideBySide`).
 *
 * @example
 * const hook = externalHook({ event: "PreToolUse", name: "ask-service" }, 2000, async ({ json }) => ({ block: "no" }))
 */
export const externalHook = <E extends AgentEvent>(
  options: ExternalHookOptions<E>,
  timeoutMs: number,
  run: Runner,
  backstopMs = 1500,
  processEnv?: RunnerSpec["processEnv"],
): ExternalHook<E> => {
  const spec = agentEvents[options.event];
  if (!spec) throw new TypeError(`unknown Claude Code event ${JSON.stringify(options.event)}`);
  const name = options.name ?? `${options.event}:external`;
  // 0 would refuse every event, NaN or Infinity would remove the cap.
  checkLimit(name, "maxInputBytes", options.maxInputBytes, "count");
  const notify = notifier(options.onNotice, options.event, name, options.source);
  const prepare = preparer(spec, options);
  const runner: RunnerSpec = { name, run, timeoutMs, backstopMs, processEnv };
  const queue = options.async ? (options.queue ?? new BackgroundQueue()) : undefined;
  const kind = agentPoints[spec.point].kind;
  // An event that cannot be refused (SessionStart...) never fails closed: its failures are let through, and counted.
  const failMode: FailMode | undefined = spec.onClosedFailure === "notice" && kind === "gate" ? "open" : options.failMode;
  const closed = (failMode ?? (kind === "gate" ? "closed" : "open")) === "closed";

  const handle = async (phase: "before" | "after" | "recover", data: PointData, ctx: HookContext): Promise<HookAction> => {
    // Thrown errors become the core's HookError (hook, point, phase, source) and R6 applies.
    const fail = (error: unknown): ExecutorError =>
      error instanceof ExecutorError ? error : new ExecutorError("network", describe(error), { cause: error });
    if (spec.when !== undefined && !spec.when(data.input, data.output)) return Continue;
    const prepared = prepare(data, ctx);
    if (queue) {
      inBackground(queue, runner, prepared, ctx, notify);
      return Continue;
    }
    let answer: HookAnswer;
    try {
      answer = await run({ ...prepared, signal: ctx.signal, timeoutMs, ctx });
    } catch (error) {
      const e = fail(error);
      // What a partly readable answer said reaches the model whatever the policy decides.
      if (e.partial) for (const text of readDecision(spec, e.partial, { hook: name, notify }).context) ctx.addContext(text);
      if (phase === "after" && spec.onClosedFailure === "withhold" && closed && !options.shadow) {
        notify("hook-error", e.message);
        return Transform(withheld(data.input as { name: string }, `hook "${name}" failed: ${e.message}`));
      }
      throw e;
    }
    try {
      const decision = readDecision(spec, answer, { hook: name, source: options.source, notify });
      return await combine({ spec, decisions: [decision], data, ctx, notify: () => notify, name });
    } catch (error) {
      throw fail(error);
    }
  };

  const sessionEndClosed = spec.point === "sessionEnd" && failMode === "closed";
  const hook: Record<string, unknown> = {
    name,
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    ...(options.match !== undefined ? { match: options.match } : {}),
    ...(failMode !== undefined ? { failMode } : {}),
    ...(options.shadow !== undefined ? { shadow: options.shadow } : {}),
    ...(options.disabled !== undefined ? { disabled: options.disabled } : {}),
    ...(options.source !== undefined ? { source: options.source } : {}),
    ...(spec.event === "PreToolUse" && options.recheck !== false && !options.async ? { recheck: true } : {}),
    // The core's deadline is a backstop: the executor's own timeout fires first with a precise message.
    // A SessionEnd hook failing closed waits for the hooks inside it, each within the budget.
    timeoutMs: Math.min((sessionEndClosed ? Math.max(timeoutMs, sessionEndBudgetMs(Infinity)) : timeoutMs) + backstopMs, maxTimerMs),
  };
  attachPhases(hook, spec, (phase, data, ctx) => handle(phase, data, ctx), sessionEndClosed, options, notify, [runner]);
  return Object.freeze(hook) as unknown as ExternalHook<E>;
};

/** Put `handle` on the phase of the hook that answers `spec`'s event (and SessionStart's env file on its `after`). */
const attachPhases = (
  hook: Record<string, unknown>,
  spec: EventSpec,
  handle: (phase: "before" | "after" | "recover", data: PointData, ctx: HookContext) => Promise<HookAction>,
  sessionEndClosed: boolean,
  o: EventOptions,
  notify: Notify,
  runners: readonly RunnerSpec[],
): void => {
  if (spec.point === "sessionEnd") hook.around = sideBySide((input, ctx) => handle("before", { input }, ctx), sessionEndClosed);
  else if (spec.phase === "before") hook.before = (input: unknown, ctx: HookContext) => handle("before", { input }, ctx);
  else if (spec.phase === "after")
    hook.after = (output: unknown, input: unknown, ctx: HookContext) => handle("after", { input, output }, ctx);
  else
    hook.recover = async (error: unknown, input: unknown, ctx: HookContext) => {
      await handle("recover", { input, error }, ctx);
      return Continue; // a failed call stays failed; what the hook said went to the model as context
    };
  if (spec.event === "SessionStart") hook.after = sessionEnvAfter(o, notify, runners);
};

/** One hook of a set: what to run, when it applies, and what its failure means. */
export interface HookMember extends RunnerSpec {
  readonly source?: string | undefined;
  /** When it applies (its group's `matcher` and its own `if`); none: always. */
  readonly matcher?: Matcher | undefined;
  /** What its failure does: `open` lets the event go on (Claude Code's way), `closed` refuses it. */
  readonly failMode: FailMode;
  /** Run in the background: its answer is only reported. */
  readonly async?: boolean | undefined;
  readonly queue?: BackgroundQueue | undefined;
  /** Its block also ends the turn (a prompt hook without `continueOnBlock` on a tool event). */
  readonly blockEndsTurn?: boolean | undefined;
}

/** Options of `claudeHookSet`. */
export interface HookSetOptions<E extends AgentEvent = AgentEvent> extends EventOptions {
  readonly event: E;
  readonly name: string;
  readonly members: readonly HookMember[];
  readonly priority?: number;
  readonly match?: MatchSpec<InputOf<PointOfEvent<E>>>;
  readonly source?: string;
  readonly disabled?: boolean;
  readonly shadow?: boolean;
  /** End the turn the run belongs to, after this event (`continue: false`); without it a tool call asking that is refused. */
  readonly endTurn?: (ctx: HookContext, by: string, reason: string) => void;
  /** Stop and SubagentStop: blocks in a row honoured at most (Claude Code's cap); past it the stop goes ahead. */
  readonly stopCap?: number;
}

/** A member's failure as the core types a hook's: its name, the point and phase, the kind, how long it ran. */
const memberFailure = (m: HookMember, spec: EventSpec, phase: "before" | "after" | "recover", error: unknown, ms: number): HookError =>
  new HookError(
    m.name,
    spec.point,
    phase,
    error instanceof ExecutorError ? error.hookFailureKind : "threw",
    Math.round(ms),
    error,
    m.source,
  );

/** The subject and detail a member's matcher tests, as the point defines them (StopFailure: Claude Code's error type). */
const subjectOf = (spec: EventSpec) => {
  const point = agentPoints[spec.point] as { subject?: (i: unknown) => string | undefined; detail?: (i: unknown) => string | undefined };
  const subject = spec.matcher === "error-type" ? (i: unknown) => stopFailureType(i as ErrorEvent) : point.subject;
  return { subject: (i: unknown) => subject?.(i), detail: (i: unknown) => point.detail?.(i) };
};

/**
 * Every hook Claude Code settings give one event, as ONE layer of the onion that runs them
 * Claude Code's way: each matching hook runs at once on the same event JSON and to its end (one
 * that blocks does not stop an audit logger beside it), then `combine` decides for all of them.
 * A hook that fails is decided by its own `failMode`; what it said that could be read is kept.
 *
 * @example
 * stack.use("toolCall", claudeHookSet({ event: "PreToolUse", name: "claude-settings:PreToolUse", members: [guard, audit] }))
 */
export const claudeHookSet = <E extends AgentEvent>(options: HookSetOptions<E>): ExternalHook<E> => {
  const spec = agentEvents[options.event];
  if (!spec) throw new TypeError(`unknown Claude Code event ${JSON.stringify(options.event)}`);
  if (options.members.length === 0) throw new TypeError(`claudeHookSet "${options.name}": members must not be empty`);
  checkLimit(options.name, "maxInputBytes", options.maxInputBytes, "count");
  const notifyFor = (hook: string, source?: string): Notify => notifier(options.onNotice, options.event, hook, source);
  const notify = notifyFor(options.name, options.source);
  const prepare = preparer(spec, options);
  const { subject, detail } = subjectOf(spec);
  const applies = (m: HookMember, input: unknown): boolean =>
    m.matcher === undefined || m.matcher.test(subject(input), input, () => detail(input));

  /** One round: every matching hook on the same input, at once; the background ones are only started. */
  const round = async (
    data: PointData,
    ctx: HookContext,
    gateOnly: boolean,
    phase: "before" | "after" | "recover",
  ): Promise<HookDecision[]> => {
    if (spec.when !== undefined && !spec.when(data.input, data.output)) return [];
    const matched = options.members.filter((m) => applies(m, data.input) && !(gateOnly && m.async));
    if (matched.length === 0) return [];
    const prepared = prepare(data, ctx);
    const decisions = matched.map(async (m): Promise<HookDecision | undefined> => {
      const say = notifyFor(m.name, m.source);
      if (m.async) {
        inBackground(m.queue ?? new BackgroundQueue(), m, prepared, ctx, say);
        return undefined;
      }
      const started = performance.now();
      try {
        const answer = await runWithin(m, prepared, ctx.signal, ctx);
        return readDecision(spec, answer, { hook: m.name, source: m.source, notify: say, blockEndsTurn: m.blockEndsTurn === true });
      } catch (error) {
        // Counted as the stack counts its own hooks' failures, whichever way the policy decides it.
        ctx.reportFailure(memberFailure(m, spec, phase, error, performance.now() - started), m.failMode !== "closed");
        return failureDecision(spec, m.name, error, m.failMode === "closed", say, m.source);
      }
    });
    return (await Promise.all(decisions)).filter((d): d is HookDecision => d !== undefined);
  };

  const handle = async (phase: "before" | "after" | "recover", data: PointData, ctx: HookContext): Promise<HookAction> => {
    const decisions = await round(data, ctx, false, phase);
    if (decisions.length === 0) return Continue;
    return combine({
      spec,
      decisions,
      data,
      ctx,
      notify: notifyFor,
      name: options.name,
      endTurn: options.endTurn ? (by, reason) => options.endTurn!(ctx, by, reason) : undefined,
      recheck: phase === "before" ? (input) => round({ input }, ctx, true, phase) : undefined,
      stopCap: options.stopCap,
    });
  };

  const slowest = Math.max(...options.members.map((m) => m.timeoutMs + m.backstopMs));
  const kind = agentPoints[spec.point].kind;
  const hook: Record<string, unknown> = {
    name: options.name,
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    ...(options.match !== undefined ? { match: options.match } : {}),
    // Each hook's failure is decided inside, by its own policy; this one covers the set's own machinery.
    failMode: spec.onClosedFailure === "notice" || kind === "observe" ? "open" : "closed",
    ...(options.shadow !== undefined ? { shadow: options.shadow } : {}),
    ...(options.disabled !== undefined ? { disabled: options.disabled } : {}),
    ...(options.source !== undefined ? { source: options.source } : {}),
    ...(spec.event === "PreToolUse" ? { recheck: true } : {}),
    // A round, a recheck of a rewrite, and one of an approver's edit, at most.
    timeoutMs: Math.min(3 * slowest + 1500, maxTimerMs),
  };
  attachPhases(hook, spec, handle, false, options, notify, options.members);
  return Object.freeze(hook) as unknown as ExternalHook<E>;
};
