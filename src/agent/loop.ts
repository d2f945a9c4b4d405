/**
 * The reference loop: the operation of the `run` point. Each iteration is a `step` run
 * (observe) around one model call and that call's tool calls; when the model answers without
 * tool calls the stop gate decides, and a block feeds the reasons back, capped per R13.
 */
import type { RunOptions } from "../core/context.ts";
import { OutcomeRejectedError } from "../core/outcome.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { sharedLink, throwIfAborted } from "../core/signal.ts";
import { compact } from "./compaction.ts";
import { contentText } from "./content-text.ts";
import { AgentRunError, OutputLimitError, decide } from "./decide.ts";
import type { LoopEnv } from "./env.ts";
import { addUsage, noUsage } from "./model.ts";
import { callModel } from "./model-step.ts";
import { askStop, feedback } from "./stop.ts";
import { isStopSignal, type StopSignal } from "./stop-signal.ts";
import { callTool, callTools, type ToolExchange } from "./tool-step.ts";
import { toolSpec } from "./tool.ts";
import type {
  LoopPause,
  Message,
  ModelRequest,
  ModelResponse,
  RunInput,
  RunResult,
  StepInput,
  StepResult,
  ToolCall,
  ToolSpec,
  Usage,
} from "./types.ts";

/**
 * The assistant message for a response.
 *
 * @example
 * assistantMessage({ text: "Hi", toolCalls: [], finishReason: "stop", usage }) // { role: "assistant", content: "Hi" }
 */
export const assistantMessage = (response: DeepReadonly<ModelResponse>): Message => ({
  role: "assistant",
  content: response.text,
  ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls as readonly ToolCall[] } : {}),
});

/**
 * The tool message that hands a result to the model (content as text, JSON for anything else).
 *
 * @example
 * toolMessage({ call, result: { content: { files: 2 } } }).content // '{"files":2}'
 */
export const toolMessage = ({ call, result }: DeepReadonly<ToolExchange>): Message => ({
  role: "tool",
  content: contentText(result.content),
  toolCallId: call.id,
  toolName: call.name,
  ...(result.isError === true ? { isError: true } : {}),
});

/**
 * The loop's environment for one run of a step's operation: its model call and tool calls follow
 * `signal`, the operation's own, which aborts when the turn's does and when the step's run gives up
 * on it (a timed `step` hook that timed out and failed closed), so that what it started is told.
 * A signal of our own, without Node's listener limit: each of a step's parallel tool calls listens.
 */
const stepEnv = (env: LoopEnv, signal: AbortSignal): { env: LoopEnv; dispose: () => void } => {
  const link = sharedLink(signal);
  const own = link.controller.signal;
  return { env: { ...env, signal: own, run: { ...env.run, signal: own } }, dispose: link.dispose };
};

/** One step's operation: build the request, call the model, run its tool calls. */
const runStep = async (
  env: LoopEnv,
  input: DeepReadonly<StepInput>,
  system: string | undefined,
  tools: readonly ToolSpec[],
  offered: ReadonlySet<string>,
  carried: Message[],
): Promise<StepResult> => {
  // Context added by `step` hooks reaches this very request, and the history with it (only this
  // attempt's, when an `around` hook runs the step again).
  const extra = env.pending.drain();
  carried.splice(0, carried.length, ...extra);
  if (extra.length > 0) env.transcript?.context(extra);
  const request: ModelRequest = {
    model: env.model.id,
    messages: [
      ...(system !== undefined ? [{ role: "system" as const, content: system }] : []),
      ...(input.messages as readonly Message[]),
      ...extra,
    ],
    ...(tools.length > 0 ? { tools } : {}),
    ...(env.settings.maxOutputTokens !== undefined ? { maxOutputTokens: env.settings.maxOutputTokens } : {}),
    ...(env.settings.temperature !== undefined ? { temperature: env.settings.temperature } : {}),
  };
  const response = await callModel(env, request, input.index);
  // On disk before any hook of its tool calls runs, as Claude Code writes it.
  env.transcript?.assistant(response, request.model);
  throwIfAborted(env.signal);
  const toolResults = response.toolCalls.length > 0 ? await callTools(env, offered, response.toolCalls) : [];
  return { response, toolResults };
};

/**
 * The `run` input the loop gets: a `run` hook that rewrote `prompt` but left `messages` as they
 * were has its prompt sent, as the last user message (the loop reads only `messages`).
 *
 * @example
 * stack.run("run", built, (given) => runLoop(env, promptInMessages(given, built)), env.run)
 */
export const promptInMessages = (given: DeepReadonly<RunInput>, built: RunInput): DeepReadonly<RunInput> => {
  if (given.prompt === built.prompt || given.messages !== built.messages) return given;
  const last = given.messages.length - 1;
  return { ...given, messages: given.messages.map((m, i) => (i === last && m.role === "user" ? { ...m, content: given.prompt } : m)) };
};

/** Where a loop starts: from scratch, or after a paused step whose tool calls have all been answered. */
export interface LoopStart {
  readonly messages: readonly Message[];
  readonly steps: number;
  readonly usage: Usage;
  readonly blocks: number;
  readonly text: string;
}

/**
 * The `toolBatch` gate, once a step's tool calls have all resolved and before the next model call
 * (Claude Code's PostToolBatch): what its hooks add reaches that call; a refusal ends the run
 * there, with its reasons. Undefined: go on.
 */
const afterBatch = async (env: LoopEnv, calls: StepResult["toolResults"]): Promise<NonNullable<RunResult["stoppedBy"]> | undefined> => {
  const outcome = await env.stack.run("toolBatch", { calls }, () => undefined, env.run);
  if (outcome._tag === "Completed") return undefined;
  if (outcome._tag === "Failed") throw outcome.error;
  const reason = (outcome.reasons ?? [{ reason: outcome.reason, by: outcome.by }]).map((r) => r.reason).join("\n");
  await env.notify({ type: "info", message: `${env.path.join("/")} stopped after its tool calls: ${reason}` });
  return { reason, by: outcome.by, kind: "hook" };
};

/**
 * Finish the step a run paused on: each call that waited runs again with its claimed decision
 * (`approvals` by approval id: the approver that answers it), the others keep their results. A
 * call that asks again pauses the run again, on the same step.
 *
 * @example
 * const next = await finishPausedStep(env, input, pause, approversById)
 */
export const finishPausedStep = async (
  env: LoopEnv,
  input: DeepReadonly<RunInput>,
  pause: LoopPause,
  approvals: ReadonlyMap<string, { readonly call: ToolCall; readonly approval: NonNullable<RunOptions["approval"]> }>,
): Promise<RunResult | LoopStart> => {
  const offered = new Set(((input.tools as readonly ToolSpec[] | undefined) ?? env.tools.map(toolSpec)).map((t) => t.name));
  const calls = await Promise.all(
    pause.step.calls.map(async (c) => {
      if (c.approval === undefined) return c as ToolExchange;
      const answer = approvals.get(c.approval.id);
      if (answer === undefined) throw new TypeError(`resume: no decision for approval ${c.approval.id}`);
      return { call: answer.call, ...(await callTool(env, offered, answer.call, answer.approval)) };
    }),
  );
  const { response, carried } = pause.step;
  if (calls.some((c) => c.approval !== undefined)) {
    return {
      text: "",
      steps: pause.steps,
      usage: pause.usage,
      finishReason: "interrupted",
      messages: pause.messages,
      paused: { ...pause, step: { ...pause.step, calls: calls.map(pausedCall) } },
    };
  }
  // The calls that waited have their results now: the transcript gets them, in the model's order.
  for (const c of pause.step.calls)
    if (c.approval !== undefined) {
      const done = calls.find((x) => x.call.id === c.call.id);
      if (done !== undefined) env.transcript?.toolResult(done.call, done.result);
    }
  const messages = [...pause.messages, ...carried, assistantMessage(response), ...calls.map(toolMessage)];
  // The batch is whole now: its gate runs, as it would have when the step ended.
  const stopped = await afterBatch(env, calls);
  if (stopped !== undefined) {
    const said: Message = { role: env.settings.contextRole, content: stopped.reason };
    env.transcript?.context([said]);
    return {
      text: response.text,
      steps: pause.steps,
      usage: pause.usage,
      finishReason: "stopped-by-guard",
      messages: [...messages, said],
      stoppedBy: stopped,
    };
  }
  return { messages, steps: pause.steps, usage: pause.usage, blocks: pause.blocks, text: response.text };
};

/** A call as a pause keeps it: its result, or the approval it waits for (no placeholder result). */
const pausedCall = ({ call, result, approval }: ToolExchange): LoopPause["step"]["calls"][number] =>
  approval !== undefined ? { call, approval } : { call, result };

/**
 * Run the loop for one `run` input, from its start or from `start` (a resumed run).
 *
 * @example
 * const outcome = await stack.run("run", input, (i) => runLoop(env, i), env.run)
 */
export const runLoop = async (env: LoopEnv, input: DeepReadonly<RunInput>, start?: LoopStart): Promise<RunResult> => {
  const system = input.system;
  const tools: readonly ToolSpec[] = (input.tools as readonly ToolSpec[] | undefined) ?? env.tools.map(toolSpec);
  const offered = new Set(tools.map((t) => t.name));
  let messages = start?.messages ?? (input.messages as readonly Message[]);
  let usage: Usage = start?.usage ?? noUsage;
  let steps = start?.steps ?? 0;
  let blocks = start?.blocks ?? 0;
  let text = start?.text ?? "";
  const result = (finishReason: RunResult["finishReason"]): RunResult => ({ text, steps, usage, finishReason, messages });
  // A stop block's feedback, for the next step: joins the conversation only if a step is left to
  // read it (else the next turn would send it and its own prompt as two user messages in a row).
  let unread: Message | undefined;
  // Answers of this run cut at the output limit, in a row: the `error` point's attempt.
  let cut = 0;

  for (;;) {
    if (steps >= env.settings.maxSteps) {
      await env.notify({ type: "warning", message: `${env.path.join("/")} stopped after ${steps} steps (maxSteps)` });
      return result("max-steps");
    }
    if (unread !== undefined) {
      messages = [...messages, unread];
      env.transcript?.feedback(unread.content);
    }
    unread = undefined;
    throwIfAborted(env.signal);
    const drained = env.pending.drain();
    if (drained.length > 0) env.transcript?.context(drained);
    messages = await compact(env, [...messages, ...drained], system, "auto");
    const mark = env.pending.mark();
    const step: StepInput = { index: steps, messages };
    // What the step's hooks added for its request: refilled by every run of the step (runStep).
    const carried: Message[] = [];
    // The step's operation, last started: a hook that fails closed after it (a step hook's `after`)
    // rejects a step whose model call and tools already ran, and one that gives up on it while it
    // runs (a timed hook's timeout) rejects a step whose tools may have run.
    let running: Promise<StepResult> | undefined;
    // An `around` hook running the step again starts it from `mark`, with its hooks' context.
    const operation = env.pending.restartable(mark, ({ input, signal }: { input: DeepReadonly<StepInput>; signal: AbortSignal }) => {
      const own = stepEnv(env, signal);
      running = runStep(own.env, input, system, tools, offered, carried).finally(own.dispose);
      return running;
    });
    const runOnce = () => {
      running = undefined;
      return env.stack.run("step", step, (input, ctx) => operation({ input, signal: ctx.signal }), env.run);
    };
    /**
     * What the rejected step ran, if its model answered: its response and tool results. A step given
     * up on is waited for; its signal aborted, so what it still runs settles at once (a tool call
     * abandoned mid-way gives the model an error result). One that failed before its model answered
     * ran no tool, and may run again.
     */
    const ranBefore = async (): Promise<StepResult | undefined> => (running === undefined ? undefined : running.catch(() => undefined));
    // A step that ran goes into the conversation, the count and the usage, whatever hooks said after.
    const record = ({ response, toolResults }: StepResult): void => {
      steps++;
      usage = addUsage(usage, response.usage);
      // The turn's tally (its tokens are counted in callModel): reported even if the turn fails.
      if (env.stopPoint === "stop") env.spent.steps++;
      text = response.text;
      messages = [...messages, ...carried, assistantMessage(response), ...toolResults.map(toolMessage)];
    };
    let outcome = await runOnce();
    let done: StepResult | undefined;
    // On an observation point a Rejected outcome comes from a hook that failed closed: a loop
    // failure like any other, so the `error` point decides (as for a compaction hook).
    for (let attempt = 1; outcome._tag === "Rejected"; attempt++) {
      // Typed, with the hook's error as its cause, as Outcome.getOrThrow gives it.
      const error = new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);
      // The step ran before or while the hook failed (in `after`, or a timeout while the tools
      // ran): its tools' side effects happened, so it is recorded first and never run again.
      // `retry` then means "go on with the next step" (or the stop gate, for an answer without
      // tool calls); `recover` ends the run with the hook's answer after the step's messages;
      // `fail` fails the turn, which counts the step.
      done = await ranBefore();
      if (done !== undefined) record(done);
      const deciding = env.pending.mark();
      const decision = await decide(env, { where: "loop", error, attempt });
      // Recovering ends the run with the hook's value as the answer, as a recovered `run` failure does.
      if (decision.action === "recover") {
        text = contentText(decision.value);
        return { ...result("stop"), messages: [...messages, { role: "assistant", content: text }] };
      }
      if (decision.action !== "retry") throw new AgentRunError("loop", error);
      if (done !== undefined) break;
      // The step runs again from the start: its hooks add their context again (the error hook's stays).
      env.pending.rewindKeeping(mark, deciding);
      outcome = await runOnce();
    }
    if (outcome._tag === "Failed") {
      // A guard's stop signal ends the run cleanly, with its reason, instead of failing it.
      if (isStopSignal(outcome.error)) {
        const signal = outcome.error as StopSignal & { readonly middleware?: unknown; readonly kind?: unknown };
        await env.notify({ type: "info", message: `${env.path.join("/")} stopped: ${signal.message}` });
        return {
          ...result("stopped-by-guard"),
          stoppedBy: {
            reason: signal.message,
            ...(typeof signal.middleware === "string" ? { by: signal.middleware } : {}),
            ...(typeof signal.kind === "string" ? { kind: signal.kind } : {}),
          },
        };
      }
      throw outcome.error;
    }
    // Counted once it ran: a step a guard stopped before it began is not a step.
    if (outcome._tag === "Completed") {
      done = outcome.value;
      record(done);
    }
    // Set above, or by a rejected step that had run and that the error hook let the loop go on from.
    const { response, toolResults } = done as StepResult;
    // A call waits for a person (durable approvals): the turn stops here, and resumes from here.
    if (toolResults.some((r) => r.approval !== undefined)) {
      const paused: LoopPause = {
        messages: step.messages,
        step: { index: step.index, response, carried: [...carried], calls: toolResults.map(pausedCall) },
        steps,
        usage,
        blocks,
      };
      return { text: "", steps, usage, finishReason: "interrupted", messages: step.messages, paused };
    }
    if (response.toolCalls.length > 0) {
      const stopped = await afterBatch(env, toolResults);
      if (stopped === undefined) continue;
      // It stays in the conversation: the model reads it when the conversation goes on.
      const said: Message = { role: env.settings.contextRole, content: stopped.reason };
      messages = [...messages, said];
      env.transcript?.context([said]);
      return { ...result("stopped-by-guard"), stoppedBy: stopped };
    }

    // An answer cut at the output limit is a model failure of the turn, as in Claude Code (StopFailure
    // `max_output_tokens`, not Stop): the `error` point may retry (the model goes on from what it
    // wrote) or recover with an answer; otherwise the turn ends there, with finish reason `length`.
    if (response.finishReason === "length" && env.stopPoint === "stop") {
      const decision = await decide(env, { where: "model", error: new OutputLimitError(response.text), attempt: ++cut });
      if (decision.action === "retry") {
        unread = { role: "user", content: "Your answer was cut off at the output token limit. Go on from where it stopped." };
        continue;
      }
      if (decision.action === "recover") {
        text = contentText(decision.value);
        return { ...result("stop"), messages: [...messages, { role: "assistant", content: text }] };
      }
      return result("length");
    }
    const verdict = await askStop(env, { reason: response.finishReason, lastMessage: response.text, blockedCount: blocks });
    if (verdict.stop) return result(response.finishReason as RunResult["finishReason"]);
    if (blocks >= env.settings.maxStopBlocks) {
      await env.notify({
        type: "warning",
        message: `stop was blocked ${blocks} times in a row; stopping anyway (maxStopBlocks ${env.settings.maxStopBlocks})`,
      });
      return result("stop-rejected-cap");
    }
    blocks++;
    unread = { role: "user", content: feedback(verdict.reasons) };
  }
};
