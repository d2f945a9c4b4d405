/**
 * `aiSdkRun`: one `generateText`, `streamText` or agent call of the AI SDK as one run of the
 * stack, with the adapters made once at module level. The stack's `run` point runs around the
 * call; inside, every provider call (`aiSdkMiddleware`) and tool call (`wrapAiSdkTools`,
 * `wrapMcpClient`) takes the run's id, session, metadata, path and signal (see `run-scope.ts`),
 * so per-run limits count the calls of that run, and the stack's `step` point runs around each of
 * the SDK's steps (see `ai-sdk/steps.ts`), so `guards()` holds.
 *
 * A streamed call's run ends when its stream does (the SDK's `steps` settle: finished, failed, or
 * aborted through its `abortSignal`), not when `streamText` returns; the result is handed back at
 * once.
 */
import type { RunOptions } from "../core/context.ts";
import { Outcome } from "../core/outcome.ts";
import type { Operation } from "../core/stack-types.ts";
import { neverAborted } from "../core/signal.ts";
import { knownOptions } from "../core/known-options.ts";
import { stackArgument } from "../agent/stack-argument.ts";
import type { FinishReason, RunInput, RunResult, Usage } from "../agent/types.ts";
import { SdkSteps, stepsOfScope, type StepStack, type StoppedBy } from "./ai-sdk/steps.ts";
import { currentRun, joinSignals, RunScope, runInScope, type ScopedRunOptions } from "./run-scope.ts";

/**
 * What `aiSdkRun` needs of a stack: running `run` and `step`; `has` (every `HookStack` has it)
 * lets a stack without step hooks skip the step mapping.
 *
 * @example
 * const stack: AiSdkRunStack = createAgentStack()
 */
export type AiSdkRunStack = StepStack & {
  /** Runs the `run` point around the SDK's call. */
  run(point: "run", input: RunInput, operation: Operation<RunInput, RunResult>, options?: RunOptions): Promise<Outcome<RunResult>>;
  /** True when the stack has hooks on `point`; without it every step is run. */
  has?(point: "step"): boolean;
};

/**
 * Options of `aiSdkRun`: the run's options (`signal`, `sessionId`, `runId`, `metadata`, `path`,
 * `timeoutMs`, `trace`, `store`, `approval`) and the prompt `run` hooks see.
 *
 * @example
 * aiSdkRun(stack, { sessionId: "s1", timeoutMs: 60_000, signal: request.signal }, (run) => generateText({ model, prompt, abortSignal: run.signal }))
 */
export interface AiSdkRunOptions extends Omit<RunOptions, "onContext"> {
  /** The user's prompt, as `run` hooks see it in `RunInput.prompt` (default `""`). */
  readonly prompt?: string;
}

/**
 * The run `aiSdkRun` opened, handed to its function.
 *
 * @example
 * await aiSdkRun(stack, {}, (run) => generateText({ model, tools, prompt, abortSignal: run.signal, stopWhen: [stepCountIs(20), run.stopWhen] }))
 */
export interface AiSdkRun {
  /** The run's id: every call inside has it as `ctx.runId`. */
  readonly runId: string;
  readonly sessionId: string | undefined;
  /** Aborted when the caller's `signal` aborts or the run's deadline (`timeoutMs`) passes: pass it as the SDK's `abortSignal`. */
  readonly signal: AbortSignal;
  /**
   * A stop condition for the SDK's `stopWhen`: asked after each step with tool calls, it opens the
   * next step of the stack's `step` point, and stops the SDK cleanly (with the steps so far) when
   * the step's hooks refuse it. Without it, a refused step fails its provider call instead.
   */
  readonly stopWhen: (options: { readonly steps: readonly { readonly content?: readonly unknown[] }[] }) => Promise<boolean>;
  /** Set once a step's hooks stopped the run (a guard's limit): why, which hook, which kind of limit. */
  readonly stoppedBy: StoppedBy | undefined;
}

/**
 * The stop condition of whichever run the SDK's loop runs in (`run.stopWhen` of the current
 * `aiSdkRun`), for an agent made once at module level, whose `stopWhen` is fixed when it is made;
 * outside any run it never stops anything.
 *
 * @example
 * const agent = new ToolLoopAgent({ model, tools, stopWhen: [stepCountIs(20), aiSdkStopWhen] })
 * const result = await aiSdkRun(stack, { sessionId }, (run) => agent.generate({ prompt, abortSignal: run.signal }))
 */
export const aiSdkStopWhen = (options: { readonly steps: readonly { readonly content?: readonly unknown[] }[] }): Promise<boolean> => {
  const steps = stepsOfScope.get(currentRun() as RunScope);
  return steps === undefined ? Promise.resolve(false) : steps.shouldStop(options.steps);
};

/**
 * Run `fn` (a `generateText`, `streamText` or agent call) as one run of `stack`.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware: aiSdkMiddleware(stack) })
 * const tools = wrapAiSdkTools(stack, { weather })
 * const { text } = await aiSdkRun(stack, { sessionId }, (run) =>
 *   generateText({ model, tools, prompt, abortSignal: run.signal, stopWhen: [stepCountIs(20), run.stopWhen] }),
 * )
 */
export const aiSdkRun = <T>(
  stack: AiSdkRunStack,
  options: AiSdkRunOptions,
  fn: (run: AiSdkRun) => T | PromiseLike<T>,
): Promise<Awaited<T>> => {
  try {
    stackArgument("aiSdkRun", stack);
    knownOptions("aiSdkRun", options, {
      prompt: true,
      signal: true,
      sessionId: true,
      runId: true,
      metadata: true,
      path: true,
      timeoutMs: true,
      trace: true,
      store: true,
      approval: true,
    });
    if (typeof fn !== "function") throw new TypeError("aiSdkRun: fn must be a function that makes the AI SDK call");
    if (options.prompt !== undefined && typeof options.prompt !== "string") throw new TypeError("aiSdkRun: prompt must be a string");
  } catch (error) {
    return Promise.reject(error);
  }
  const { prompt = "", ...given } = options;
  // A run opened inside another (a tool that runs its own agent) is its own run, with the outer
  // run's session, metadata and trace unless given, its path when none is given, and its signal.
  const runOptions = nested(given, currentRun());
  const withSteps = stack.has?.("step") !== false;
  let called = false;
  let produced: Awaited<T> | undefined;
  let handOut: (value: Awaited<T>) => void = () => {};
  const handedOut = new Promise<Awaited<T>>((resolve) => (handOut = resolve));

  const operation: Operation<RunInput, RunResult> = async (_input, ctx) => {
    const scoped: ScopedRunOptions & { runId: string } = {
      runId: ctx.runId,
      ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      metadata: ctx.metadata,
      path: ctx.path,
      ...(options.trace !== undefined ? { trace: options.trace } : {}),
      ...(options.store !== undefined ? { store: options.store } : {}),
      ...(options.approval !== undefined ? { approval: options.approval } : {}),
    };
    const scope = new RunScope(scoped, ctx.signal);
    const steps = withSteps ? new SdkSteps(stack, scope) : undefined;
    if (steps !== undefined) stepsOfScope.set(scope, steps);
    const run: AiSdkRun = {
      runId: ctx.runId,
      sessionId: ctx.sessionId,
      // A run nothing can abort still hands out a signal of its own: the engine's shared one would
      // collect the listeners the SDK adds to it.
      signal: ctx.signal === neverAborted ? new AbortController().signal : ctx.signal,
      stopWhen: ({ steps: sdkSteps }) => (steps === undefined ? Promise.resolve(false) : steps.shouldStop(sdkSteps)),
      get stoppedBy() {
        return steps?.stopped;
      },
    };
    try {
      called = true;
      const result = (await runInScope("aiSdkRun", scope, () => fn(run))) as Awaited<T>;
      produced = result;
      if (typeof Response === "function" && result instanceof Response) {
        // Made from a stream inside fn, it would let the run end now while the SDK streams on outside it.
        void result.body?.cancel().catch(() => undefined);
        throw new TypeError(
          "aiSdkRun: fn returned a Response, which would end the run before its stream does; return the SDK's result from fn and make the Response from what aiSdkRun returns: (await aiSdkRun(stack, options, (run) => streamText({ ... }))).toUIMessageStreamResponse()",
        );
      }
      if (!isStreamResult(result)) return runResult(result, steps?.stopped);
      // A stream: the caller reads it now, and the run goes on until it ends.
      handOut(result);
      // The run ends as the SDK reports the stream: `steps` rejecting (no output, an abort) fails it
      // with the SDK's error, as a call that throws does; a provider error the SDK recorded as a step ends it with that step.
      const recorded = await result.steps;
      return runResult(
        { steps: recorded, text: await settledOr(result.text), totalUsage: await settledOr(result.totalUsage) },
        steps?.stopped,
      );
    } finally {
      await steps?.end();
    }
  };

  const outcome = stack.run("run", { prompt, messages: [] }, operation, runOptions);
  const settled = outcome.then((o): Awaited<T> => {
    Outcome.getOrThrow(o);
    if (!called) throw new TypeError("aiSdkRun: a run hook answered in place of the AI SDK call, which aiSdkRun cannot return");
    return produced as Awaited<T>;
  });
  // A stream is handed back as it starts; how its run ends is then the run's (hooks, observers, traces).
  return Promise.race([handedOut, settled]).finally(() => void settled.catch(() => undefined));
};

/** The options of a run opened inside `outer`: what it does not give, it takes from the outer run. */
const nested = (given: Omit<RunOptions, "onContext">, outer: RunScope | undefined): RunOptions => {
  if (outer === undefined) return given;
  const { sessionId, metadata, path, trace } = outer.options;
  return {
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(path !== undefined ? { path } : {}),
    ...(trace !== undefined ? { trace } : {}),
    ...given,
    metadata: { ...metadata, ...given.metadata },
    signal: joinSignals(outer.signal, given.signal),
  };
};

/** The SDK's promises of a stream, read once it ended: undefined for one that failed. */
const settledOr = <V>(value: PromiseLike<V> | undefined): Promise<V | undefined> =>
  Promise.resolve(value).then(
    (v) => v,
    () => undefined,
  );

/** A `streamText` result (its `steps` a promise), told apart without reading the getters that tee its stream. */
interface SdkStreamResult {
  readonly steps: PromiseLike<readonly SdkStep[]>;
  readonly text?: PromiseLike<string>;
  readonly totalUsage?: PromiseLike<SdkUsage>;
}

interface SdkUsage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
}

interface SdkStep {
  readonly text?: string;
  readonly finishReason?: string;
  readonly usage?: SdkUsage;
}

const isStreamResult = (value: unknown): value is SdkStreamResult =>
  typeof value === "object" && value !== null && typeof (value as { steps?: { then?: unknown } }).steps?.then === "function";

const finishReasons: ReadonlySet<string> = new Set(["stop", "length", "tool-calls", "content-filter", "error", "other"]);

/** The run's result as `run` hooks and observers see it, read from what the SDK returned. */
const runResult = (value: unknown, stoppedBy: StoppedBy | undefined): RunResult => {
  const sdk = (typeof value === "object" && value !== null ? value : {}) as {
    readonly steps?: unknown;
    readonly text?: unknown;
    readonly totalUsage?: SdkUsage;
    readonly usage?: SdkUsage;
  };
  const steps = Array.isArray(sdk.steps) ? (sdk.steps as readonly SdkStep[]) : [];
  const last = steps.at(-1);
  const usage: Usage = {
    inputTokens: count(sdk.totalUsage?.inputTokens ?? sdk.usage?.inputTokens),
    outputTokens: count(sdk.totalUsage?.outputTokens ?? sdk.usage?.outputTokens),
  };
  const reason =
    typeof last?.finishReason === "string" && finishReasons.has(last.finishReason) ? (last.finishReason as FinishReason) : "other";
  return {
    text: typeof sdk.text === "string" ? sdk.text : (last?.text ?? ""),
    steps: steps.length,
    usage,
    finishReason: stoppedBy !== undefined ? "stopped-by-guard" : reason,
    ...(stoppedBy !== undefined ? { stoppedBy } : {}),
    messages: [],
  };
};

const count = (n: unknown): number => (typeof n === "number" && Number.isFinite(n) ? n : 0);
