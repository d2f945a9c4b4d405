/**
 * The run an adapter's calls belong to when the framework runs its own loop (the AI SDK, an MCP
 * client): `aiSdkRun` runs the stack's `run` point around the framework's call and publishes the
 * run here, and every `modelCall` and `toolCall` the adapters run inside takes its id, session,
 * metadata, path and signal, so per-run limits count the calls of that run.
 *
 * The run travels by `AsyncLocalStorage` because the framework's call sits between the scope and
 * the adapters: nothing of ours is on its arguments. It is found lazily (`process.getBuiltinModule`,
 * else a global `AsyncLocalStorage` as edge runtimes give it), so this module loads everywhere and
 * only opening a run needs it. Nothing is stored until the first run opens: on Node 20 the first
 * `AsyncLocalStorage.run` makes later promises of the process slower, a cost only users of the
 * scope pay.
 */
import type { RunOptions } from "../core/context.ts";
import { neverAborted } from "../core/signal.ts";

/** The run options a scoped run gives every call inside it. */
export type ScopedRunOptions = Omit<RunOptions, "signal" | "timeoutMs" | "onContext">;

/**
 * One run opened around a framework's call: the options its calls take, and its signal.
 *
 * @example
 * const scope = new RunScope({ runId: "r1", sessionId: "s1" }, ctx.signal)
 */
export class RunScope {
  constructor(
    /** What every call inside takes as its run options: id, session, metadata, path, trace, store, approval. */
    readonly options: ScopedRunOptions & { readonly runId: string },
    /** Aborted when the run's caller aborts or its deadline passes. */
    readonly signal: AbortSignal,
  ) {}
}

interface Storage<T> {
  run<R>(store: T, fn: () => R): R;
  getStore(): T | undefined;
}

type StorageClass = new <T>() => Storage<T>;

const storageClass = (): StorageClass | undefined => {
  const host = globalThis as {
    readonly process?: { readonly getBuiltinModule?: (id: string) => unknown };
    readonly AsyncLocalStorage?: StorageClass;
  };
  try {
    const hooks = host.process?.getBuiltinModule?.("node:async_hooks") as { readonly AsyncLocalStorage?: StorageClass } | undefined;
    if (hooks?.AsyncLocalStorage !== undefined) return hooks.AsyncLocalStorage;
  } catch {
    // A runtime that has `process` but refuses the module: try the global below.
  }
  return host.AsyncLocalStorage;
};

let storage: Storage<RunScope> | undefined;

/**
 * The run the calling code runs in, if a scope opened one around it.
 *
 * @example
 * const scope = currentRun() // undefined outside aiSdkRun
 */
export const currentRun = (): RunScope | undefined => storage?.getStore();

/**
 * Run `fn` inside `scope`: every adapter call it makes, however deep in the framework, sees it.
 * Throws a `TypeError` naming `entry` on a runtime without `AsyncLocalStorage`.
 *
 * @example
 * await runInScope("aiSdkRun", scope, () => generateText({ model, prompt }))
 */
export const runInScope = <R>(entry: string, scope: RunScope, fn: () => R): R => {
  if (storage === undefined) {
    const Storage = storageClass();
    if (Storage === undefined)
      throw new TypeError(
        `${entry}: this runtime has no AsyncLocalStorage (node:async_hooks), which carries the run to the adapters; give the adapters a runId per request instead`,
      );
    storage = new Storage<RunScope>();
  }
  return storage.run(scope, fn);
};

/**
 * The run options of one adapter call: the adapter's own, with the scope's run over them.
 *
 * @example
 * stack.run("toolCall", call, op, { ...scopedOptions(options.run, currentRun()), signal })
 */
export const scopedOptions = (
  given: Omit<RunOptions, "signal"> | undefined,
  scope: RunScope | undefined,
): Omit<RunOptions, "signal"> | undefined => {
  if (scope === undefined) return given;
  if (given === undefined) return scope.options;
  const metadata = given.metadata === undefined ? scope.options.metadata : { ...given.metadata, ...scope.options.metadata };
  return { ...given, ...scope.options, ...(metadata === undefined ? {} : { metadata }) };
};

/**
 * The signal of one adapter call: the framework's and the run's (its caller's abort, its deadline).
 *
 * @example
 * model.doGenerate({ ...params, abortSignal: scopedSignal(params.abortSignal, currentRun()) })
 */
export const scopedSignal = (signal: AbortSignal | undefined, scope: RunScope | undefined): AbortSignal | undefined =>
  scope === undefined ? signal : joinSignals(scope.signal, signal);

/**
 * One signal for two: aborted when either is; either alone when the other can never abort, and
 * undefined when neither can (a run is slower given the engine's never-aborted signal than none).
 *
 * @example
 * joinSignals(stepSignal, params.abortSignal)
 */
export const joinSignals = (outer: AbortSignal | undefined, inner: AbortSignal | undefined): AbortSignal | undefined => {
  if (inner === neverAborted) inner = undefined;
  if (outer === undefined || outer === neverAborted || outer === inner) return inner;
  return inner === undefined ? outer : AbortSignal.any([outer, inner]);
};

const warned = new WeakMap<object, Set<string>>();
/** The warnings given, by text: an application that makes a stack per request is told once. */
const said = new Set<string>();

/**
 * Warn once per stack and entry point (and once per process for the same words) when a call runs outside any scoped run while the stack has
 * hooks that only a run makes work: hooks on `run`, `step` or `stop` (guards, per-run limits'
 * bookkeeping) never run, and without a `runId` each call is a run of its own, so a per-run count
 * (`callLimit`, a `rateLimit` or `budget` with `scope: "run"`) counts one call.
 *
 * @example
 * warnUnscoped("aiSdkMiddleware", stack, run?.runId !== undefined)
 */
export const warnUnscoped = (entry: string, stack: object, hasRunId: boolean): void => {
  const seen = warned.get(stack);
  if (seen?.has(entry) === true) return;
  const { has, explain } = stack as { readonly has?: unknown; readonly explain?: unknown };
  const hasHooks = has as ((point: string) => boolean) | undefined;
  if (typeof hasHooks !== "function") return;
  const points = (["run", "step", "stop"] as const).filter((p) => hasHooks.call(stack, p));
  if (seen === undefined) warned.set(stack, new Set([entry]));
  else seen.add(entry);
  if (points.length === 0) return;
  const names = new Set<string>();
  const explainer =
    typeof explain === "function" ? (explain as (point: string, input: unknown) => readonly { readonly hook: string }[]) : undefined;
  for (const point of points) {
    try {
      for (const e of explainer?.call(stack, point, point === "step" ? { index: 0, messages: [] } : { prompt: "", messages: [] }) ?? [])
        names.add(e.hook);
    } catch {
      // A stack whose explain cannot read this input: the warning names the points only.
    }
  }
  const hooks = names.size === 0 ? "" : ` (${[...names].join(", ")})`;
  const counts = hasRunId
    ? ""
    : ', and each call outside a run is a run of its own, so a per-run limit (callLimit, a rateLimit or budget with scope "run") counts one call and never stops anything';
  const fix =
    entry === "wrapMcpClient"
      ? "Make the calls of one agent run inside aiSdkRun(stack, { sessionId }, () => ...), around the AI SDK call or any function that makes them"
      : "Wrap each generateText, streamText or agent call in aiSdkRun(stack, { sessionId }, (run) => ...)";
  const message = `${entry}: this stack has hooks on ${points.join(", ")}${hooks} that never run for calls outside aiSdkRun${counts}. ${fix}.`;
  if (said.has(message)) return;
  said.add(message);
  emitWarning(message);
};

const emitWarning = (message: string): void => {
  const proc = (globalThis as { readonly process?: { readonly emitWarning?: (m: string, o: object) => void } }).process;
  if (proc?.emitWarning !== undefined) proc.emitWarning(message, { type: "AgentOnionWarning", code: "AGENT_ONION_UNSCOPED_RUN" });
  else console.warn(message);
};
