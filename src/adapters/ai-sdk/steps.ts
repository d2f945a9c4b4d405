/**
 * The AI SDK's steps as the stack's `step` point, inside a run `aiSdkRun` opened. A step of the
 * SDK is one provider call followed by the tools it asked for; the stack's step is run around the
 * provider call (its index is the number of steps completed before it, its messages the request
 * the provider gets, its result the answer with no tool results), so the guards of `guards()`
 * hold as in the reference loop: `stepLimit` refuses step `max`, `tokenBudget` counts each
 * answer's usage and refuses the step after the limit, `timeLimit` and `finishReasonStop` refuse
 * the next step.
 *
 * A refused step can end the SDK's loop in two ways. The stop condition (`run.stopWhen`), which
 * the SDK asks after each step with tool calls, opens the next step right there: if the step's
 * hooks refuse it, the SDK stops cleanly with the steps so far; if they let it through, the step
 * waits for the provider call that follows. Without it, the step opens at the provider call, and
 * a refusal fails that call with the guard's `GuardStopError`, which `generateText` throws.
 */
import type { Outcome as OutcomeType } from "../../core/outcome.ts";
import type { RunOptions } from "../../core/context.ts";
import { AgentOnionError, brandError } from "../../core/errors.ts";
import type { Operation } from "../../core/stack-types.ts";
import type { Message, ModelResponse, StepInput, StepResult, ToolCall } from "../../agent/types.ts";
import { isStopSignal } from "../../agent/stop-signal.ts";
import { joinSignals, type RunScope } from "../run-scope.ts";

/** The steps of each scoped run `aiSdkRun` opened on a stack with step hooks. */
export const stepsOfScope = new WeakMap<RunScope, SdkSteps>();

/**
 * What `aiSdkRun`'s steps need of a stack: running the `step` point.
 *
 * @example
 * const stack: StepStack = createAgentStack();
 */
export interface StepStack {
  /** Run the `step` point around one of the SDK's steps. */
  run(point: "step", input: StepInput, operation: Operation<StepInput, StepResult>, options?: RunOptions): Promise<OutcomeType<StepResult>>;
}

/**
 * A step the stop condition let through that no provider call took (the SDK stopped for another
 * condition of its `stopWhen`, or the run ended): its run fails with this.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof StepNotTakenError
 */
export class StepNotTakenError extends AgentOnionError {
  override name = "StepNotTakenError";
  constructor(readonly index: number) {
    super(`The AI SDK ended the run before step ${index} began`);
  }
}
brandError(StepNotTakenError);

/** The body of a step: the provider call, under the step's signal, to its (hooked) answer. */
type StepBody = (signal: AbortSignal) => Promise<ModelResponse>;

/** A step the stop condition opened, waiting for the provider call that takes it. */
interface OpenStep {
  readonly index: number;
  /** Resolves true when the step's hooks let it through, false when they settled it without it. */
  readonly admitted: Promise<boolean>;
  readonly outcome: Promise<OutcomeType<StepResult>>;
  take(body: StepBody): void;
  drop(): void;
}

/**
 * Which guard stopped the run, as a `RunResult`'s `stoppedBy` says it.
 *
 * @example
 * const stopped: StoppedBy = { reason: "step limit of 8 reached", by: "stepLimit", kind: "steps" };
 */
export interface StoppedBy {
  readonly reason: string;
  readonly by?: string;
  readonly kind?: string;
}

/** What a tool result part of an SDK step holds. */
interface SdkToolPart {
  readonly type: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly output?: unknown;
  readonly error?: unknown;
}

/**
 * The steps of one scoped run of the AI SDK.
 *
 * @example
 * const steps = new SdkSteps(stack, scope); const outcome = await steps.run(messages, (signal) => callProvider(signal))
 */
export class SdkSteps {
  /** Steps completed: the index of the next one. */
  private done = 0;
  /**
   * A step's provider call is under way: a provider call made meanwhile is part of that step. A
   * tool's own model is called after its step's provider call, so it is a step of its own unless
   * the tool opens its own `aiSdkRun`.
   */
  private busy = false;
  private open: OpenStep | undefined;
  /** The last step's request and answer, from which the next step's messages are told. */
  private last: { readonly messages: readonly Message[]; readonly response: ModelResponse } | undefined;
  /** Set when a step's hooks stopped the run. */
  stopped: StoppedBy | undefined;

  constructor(
    private readonly stack: StepStack,
    private readonly scope: RunScope,
  ) {}

  /**
   * Run `body` as the run's next step: its outcome, or undefined when a step is already under way
   * (the call is then part of it, and runs as a plain provider call).
   */
  run(messages: readonly Message[], body: StepBody): Promise<OutcomeType<StepResult>> | undefined {
    if (this.busy) return undefined;
    this.busy = true;
    const open = this.open;
    this.open = undefined;
    let outcome: Promise<OutcomeType<StepResult>>;
    if (open !== undefined) {
      open.take(body);
      outcome = open.outcome;
    } else {
      const index = this.done;
      outcome = this.stack.run("step", { index, messages }, (_input, ctx) => this.body(body, ctx.signal), this.options());
    }
    return outcome.then((o) => this.settled(o, messages));
  }

  /**
   * The stop condition: open the next step now, and stop the SDK (true) when its hooks refuse it.
   * `sdkSteps` are the SDK's steps so far (the last one's tool results become the next step's messages).
   */
  async shouldStop(sdkSteps: readonly { readonly content?: readonly unknown[] }[]): Promise<boolean> {
    if (this.stopped !== undefined) return true;
    if (this.busy || this.open !== undefined) return false;
    const messages = this.nextMessages(sdkSteps.at(-1)?.content ?? []);
    const open = this.opening(messages);
    this.open = open;
    if (await open.admitted) return false;
    if (this.open === open) this.open = undefined;
    const outcome = await open.outcome;
    this.noteStop(outcome);
    return true;
  }

  /** The run is ending: a step the stop condition let through that no call took fails as not taken, before the run settles. */
  async end(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    if (open === undefined) return;
    open.drop();
    await open.outcome;
  }

  private opening(messages: readonly Message[]): OpenStep {
    const index = this.done;
    let admit: (yes: boolean) => void = () => {};
    const admitted = new Promise<boolean>((resolve) => (admit = resolve));
    let take: (body: StepBody | undefined) => void = () => {};
    const taken = new Promise<StepBody | undefined>((resolve) => (take = resolve));
    const outcome = this.stack.run(
      "step",
      { index, messages },
      (_input, ctx) => {
        admit(true);
        return taken.then((body) => (body === undefined ? Promise.reject(new StepNotTakenError(index)) : this.body(body, ctx.signal)));
      },
      this.options(),
    );
    void outcome.then(() => admit(false));
    return { index, admitted, outcome, take: (body) => take(body), drop: () => take(undefined) };
  }

  private body(body: StepBody, signal: AbortSignal): Promise<StepResult> {
    return body(signal).then((response) => ({ response, toolResults: [] }));
  }

  private settled(outcome: OutcomeType<StepResult>, messages: readonly Message[]): OutcomeType<StepResult> {
    this.busy = false;
    if (outcome._tag === "Completed") {
      this.done++;
      this.last = { messages, response: outcome.value.response as ModelResponse };
    } else this.noteStop(outcome);
    return outcome;
  }

  private noteStop(outcome: OutcomeType<StepResult>): void {
    if (outcome._tag !== "Failed" || this.stopped !== undefined) return;
    const error = outcome.error as { readonly message?: unknown; readonly middleware?: unknown; readonly kind?: unknown } | undefined;
    if (!isStopSignal(outcome.error)) return;
    this.stopped = {
      reason: String(error?.message),
      ...(typeof error?.middleware === "string" ? { by: error.middleware } : {}),
      ...(typeof error?.kind === "string" ? { kind: error.kind } : {}),
    };
  }

  private nextMessages(content: readonly unknown[]): readonly Message[] {
    const last = this.last;
    if (last === undefined) return [];
    const { response } = last;
    const assistant: Message = {
      role: "assistant",
      content: response.text,
      ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls as readonly ToolCall[] } : {}),
    };
    const tools: Message[] = [];
    for (const part of content as readonly SdkToolPart[]) {
      if (part?.type !== "tool-result" && part?.type !== "tool-error") continue;
      const value = part.type === "tool-result" ? part.output : part.error instanceof Error ? part.error.message : part.error;
      tools.push({
        role: "tool",
        content: typeof value === "string" ? value : (JSON.stringify(value) ?? ""),
        toolCallId: String(part.toolCallId),
        toolName: String(part.toolName),
        ...(part.type === "tool-error" ? { isError: true } : {}),
      });
    }
    return [...last.messages, assistant, ...tools];
  }

  private options(): RunOptions {
    const signal = joinSignals(this.scope.signal, undefined);
    return signal === undefined ? this.scope.options : { ...this.scope.options, signal };
  }
}
