/**
 * The shape every executor shares: given a way to ask the outside world ("run this event
 * JSON, tell me the answer"), build an ordinary Hook on the event's point and phase, so an
 * external hook sits in the same onion as in-process ones. Failures are thrown as typed
 * `HookError`s and R6 decides; `async` hooks run on a bounded background queue and keep
 * `stack.flush()` waiting through `ctx.waitUntil`.
 */
import type { AgentPoints } from "../agent/points.ts";
import { Continue, type HookAction } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import type { FailMode, Hook } from "../core/hook.ts";
import type { MatchSpec } from "../core/match/types.ts";
import { maxTimerMs, withDeadline } from "../core/signal.ts";
import type { InputOf, KindOf, OutputOf } from "../core/point.ts";
import type { HookAnswer } from "./answer.ts";
import { ExecutorError } from "./errors.ts";
import { toClaudeEvent, type PointData } from "./event-json.ts";
import { claudeEvents, type ClaudeEvent } from "./events.ts";
import { stringifyEvent } from "./json.ts";
import { checkLimit } from "./limits.ts";
import { applyAnswer, type ExternalNotice, type NoticeSink } from "./protocol.ts";
import { BackgroundQueue } from "./queue.ts";

type EventPoint = {
  SessionStart: "sessionStart"; UserPromptSubmit: "userPrompt"; PreToolUse: "toolCall"; PostToolUse: "toolCall";
  PostToolUseFailure: "toolCall"; Stop: "stop"; SubagentStop: "subagentStop"; PreCompact: "compaction";
  PostCompact: "compaction"; StopFailure: "error"; SessionEnd: "sessionEnd"; Notification: "notification";
};
type P<E extends ClaudeEvent> = AgentPoints[EventPoint[E]];

/** A hook built by an executor for Claude Code event `E`, typed for that event's point. */
export type ExternalHook<E extends ClaudeEvent> = Hook<InputOf<P<E>>, OutputOf<P<E>>, KindOf<P<E>>>;

/** Options every executor accepts. */
export interface ExternalHookOptions<E extends ClaudeEvent = ClaudeEvent> {
  /** The Claude Code event this hook answers; it fixes the point and phase (PreToolUse: toolCall before). */
  readonly event: E;
  readonly name?: string;
  readonly priority?: number;
  readonly match?: MatchSpec<InputOf<P<E>>>;
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
  /** Receives `systemMessage`, `defer`, ignored fields and background results. */
  readonly onNotice?: NoticeSink;
  /** `cwd` in the event JSON (and the process's cwd); `ctx.metadata.cwd` wins. Default `process.cwd()`. */
  readonly cwd?: string;
  /** `transcript_path` in the event JSON; `ctx.metadata.transcriptPath` wins. */
  readonly transcriptPath?: string;
  /** `permission_mode` in the event JSON; `ctx.metadata.permissionMode` wins. Default `"default"`. */
  readonly permissionMode?: string;
  /** Largest event JSON sent, in bytes. Default 16 MiB. */
  readonly maxInputBytes?: number;
}

/** Ask the outside world: send the event JSON, return its answer, or throw an `ExecutorError`. */
export type Runner = (request: {
  readonly json: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly cwd: string;
  readonly ctx: HookContext | undefined;
}) => Promise<HookAnswer>;

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
  n.kind === "background-failure" || n.kind === "dropped" || n.kind === "hook-error" ? `hook "${n.hook}" (${n.event}): ${n.message}` : undefined;

const warnByDefault: NoticeSink = (n) => {
  const text = hookWarningText(n);
  if (text !== undefined) process.emitWarning(text, "AgentOnionHookWarning");
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
export const sessionEndBudgetMs = (longestTimeoutMs = 0): number => sessionEndOverrideMs() ?? Math.min(Math.max(1500, longestTimeoutMs), 60_000);

/**
 * Claude Code's default timeout, in seconds, for a command or HTTP hook on `event`: 600, but 30 on
 * UserPromptSubmit and, on SessionEnd, the 1.5-second budget its hooks share.
 *
 * @example
 * claudeDefaultSeconds("SessionEnd") // 1.5
 */
export const claudeDefaultSeconds = (event: string): number => (event === "UserPromptSubmit" ? 30 : event === "SessionEnd" ? sessionEndBudgetMs() / 1000 : 600);

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
  if (!(Number.isFinite(ms) && ms > 0)) throw new RangeError(`timeout must be a positive number, got ${String(options.timeoutMs ?? options.timeout)}`);
  return Math.min(ms, options.event === "SessionEnd" ? sessionEndBudgetMs(Infinity) : 2_000_000_000);
};

/**
 * A SessionEnd hook as an `around` that starts its own work, then lets the hooks inside it start
 * theirs (`next()`), and answers once its own work is done: the core waits for the inside before
 * the run settles. Claude Code runs all matching SessionEnd hooks in parallel, each within its own
 * timeout (which `resolveTimeoutMs` keeps inside the shared budget), so a hook that hangs must not
 * hold back, or eat the time of, a cleanup hook after it. Its own deadline times only its work.
 */
const sideBySide = (work: (input: unknown, ctx: HookContext) => Promise<HookAction>, failsClosed: boolean) =>
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

/**
 * Build a Hook on `options.event`'s point and phase that asks `run` for each event. SessionEnd's is
 * an `around` on `sessionEnd`, so the SessionEnd hooks of a stack run side by side (see `sideBySide`).
 *
 * @example
 * const hook = externalHook({ event: "PreToolUse", name: "ask-service" }, 2000, async ({ json }) => ({ block: "no" }))
 */
export const externalHook = <E extends ClaudeEvent>(
  options: ExternalHookOptions<E>,
  timeoutMs: number,
  run: Runner,
  backstopMs = 1500,
): ExternalHook<E> => {
  const spec = claudeEvents[options.event];
  if (!spec) throw new TypeError(`unknown Claude Code event ${JSON.stringify(options.event)}`);
  const name = options.name ?? `${options.event}:external`;
  // 0 would refuse every event, NaN or Infinity would remove the cap.
  checkLimit(name, "maxInputBytes", options.maxInputBytes, "count");
  const own = options.onNotice;
  const queue = options.async ? (options.queue ?? new BackgroundQueue()) : undefined;
  const notify = (kind: ExternalNotice["kind"], message: string): void => {
    try {
      (own ?? defaultSink)({ hook: name, event: options.event, kind, message, source: options.source });
    } catch {
      // a throwing notice sink must not turn into a hook failure
    }
  };

  const handle = async (phase: "before" | "after" | "recover", data: PointData, ctx: HookContext): Promise<HookAction> => {
    // Thrown errors become the core's HookError (hook, point, phase, source) and R6 applies.
    const fail = (error: unknown): ExecutorError =>
      error instanceof ExecutorError ? error : new ExecutorError("network", describe(error), { cause: error });
    const cwd = metaString(ctx, "cwd") ?? options.cwd ?? process.cwd();
    let json: string;
    try {
      json = stringifyEvent(
        toClaudeEvent(spec, data, {
          sessionId: ctx.sessionId, cwd, path: ctx.path,
          transcriptPath: metaString(ctx, "transcriptPath") ?? options.transcriptPath,
          permissionMode: metaString(ctx, "permissionMode") ?? options.permissionMode,
        }),
        options.maxInputBytes,
      );
    } catch (error) {
      throw fail(new ExecutorError("input", (error as Error).message, { cause: error }));
    }
    if (queue) {
      const done = queue.push(name, async (cancelled) => {
        // A background run outlives the chain run, so it gets its own deadline, not the run's
        // signal; the queue's signal ends it early when the queue is cancelled at shutdown.
        const deadline = withDeadline(cancelled, timeoutMs + backstopMs);
        try {
          const answer = await run({ json, signal: deadline.controller.signal, timeoutMs, cwd, ctx: undefined });
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
      return Continue;
    }
    let answer: HookAnswer;
    try {
      answer = await run({ json, signal: ctx.signal, timeoutMs, cwd, ctx });
    } catch (error) {
      throw fail(error);
    }
    try {
      return await applyAnswer(spec, answer, data, ctx, { hook: name, phase, notify });
    } catch (error) {
      throw fail(error);
    }
  };

  const sessionEndClosed = spec.point === "sessionEnd" && options.failMode === "closed";
  const hook: Record<string, unknown> = {
    name,
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    ...(options.match !== undefined ? { match: options.match } : {}),
    ...(options.failMode !== undefined ? { failMode: options.failMode } : {}),
    ...(options.shadow !== undefined ? { shadow: options.shadow } : {}),
    ...(options.disabled !== undefined ? { disabled: options.disabled } : {}),
    ...(options.source !== undefined ? { source: options.source } : {}),
    // The core's deadline is a backstop: the executor's own timeout fires first with a precise message.
    // A SessionEnd hook failing closed waits for the hooks inside it, each within the budget.
    timeoutMs: Math.min((sessionEndClosed ? Math.max(timeoutMs, sessionEndBudgetMs(Infinity)) : timeoutMs) + backstopMs, maxTimerMs),
  };
  if (spec.point === "sessionEnd") hook.around = sideBySide((input, ctx) => handle("before", { input }, ctx), sessionEndClosed);
  else if (spec.phase === "before") hook.before = (input: unknown, ctx: HookContext) => handle("before", { input }, ctx);
  else if (spec.phase === "after") hook.after = (output: unknown, input: unknown, ctx: HookContext) => handle("after", { input, output }, ctx);
  else hook.recover = async (error: unknown, input: unknown, ctx: HookContext) => {
    await handle("recover", { input, error }, ctx);
    return Continue; // a failed call stays failed; what the hook said went to the model as context
  };
  return Object.freeze(hook) as unknown as ExternalHook<E>;
};
