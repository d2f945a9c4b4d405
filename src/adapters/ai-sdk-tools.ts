/**
 * `wrapAiSdkTools`: AI SDK tools whose `execute` runs through the stack's `toolCall` point.
 *
 * A rejection follows the AI SDK's own convention for a tool that did not run: `execute`
 * throws, the SDK records a `tool-error` and sends the model an error result (`error-text`)
 * whose text is the rejection ("Tool call X was rejected by H: reason"), so the model reads why
 * and the loop goes on; apps tell rejections apart by `error instanceof ToolCallError`. Pass
 * `rejected` to answer with a normal result instead. A tool's own error is rethrown unchanged,
 * so `tool-error` parts carry it. Without `approval: "ai-sdk"`, the SDK's tool-approval flow
 * (`needsApproval`) is untouched: it runs before `execute`, and a denied call never reaches the hooks.
 *
 * A streaming tool (`async *execute`, whose yields the SDK shows as preliminary results, the
 * last one being the output) stays one: each value it yields passes to the SDK as it comes,
 * unhooked, as progress; its last value is the output `after` hooks see, and what they settle on
 * is the output the SDK records and the model reads. When that differs from the last value (a
 * redaction, a `Transform`), the SDK gets it as one more value, which makes it the output; the
 * last value itself is not passed on if the tool ended before the SDK read it. A tool whose
 * `execute` is a plain function that returns an async iterable is run to its last value inside
 * the point: only that value reaches the SDK.
 *
 * With `approval: "ai-sdk"`, a hook that asks for approval (`ctx.approve`, the approval
 * middleware, a Claude Code hook answering `ask`) is asked through the SDK's own flow: the wrapped
 * tool's `needsApproval` runs the `toolCall` point, and when a hook asks, the SDK ends the step with
 * a `tool-approval-request`; the app answers with a `tool-approval-response` in the next call's
 * messages, and the hook gets that answer (see `ai-sdk/approvals.ts` for where a denial is read).
 * A call no hook asks about runs in the very run `needsApproval` started, so its hooks run once (a
 * streaming tool then runs to its last value, without preliminary results).
 *
 * - With an in-process approver (or none), the run waits at the asking hook for the answer, in
 *   this process: it completes once the approved tool ran, or ends in the hook's rejection with the
 *   person's reason. The client writes the conversation (chat apps send it from the browser), so
 *   an approval counts only as the answer to a question this process asked and still waits on,
 *   about the same tool and input, once: any other approval the SDK executes (never asked here,
 *   asked in another process or before a restart, answered already, given after the hook stopped
 *   waiting, or of another tool or input) is refused by a run whose asking hooks get the refusal
 *   as a denial and whose gate rejects it, so the trace and the audit log record it. A denial of
 *   that very call is recorded there by a run whose tool is never called.
 * - With durable approvals (`durableApprovals()`, the stack's approver or the run's), the run stops
 *   `Interrupted` at once and its token is linked to the tool call id in the approvals' store
 *   (`approvals.link`): the SDK's answer names only the call, and the link lets any process sharing
 *   the store find the run to resume. An approval resumes it with the real tool in the process the
 *   SDK executes it; a denial resumes it with the denial wherever it is read first. The store's
 *   claim makes each answer act once: a replayed one resumes nothing and records nothing (the SDK,
 *   executing an approved call again, reads a refusal saying it was already answered). An
 *   approval with no paused run linked to its call (never asked, or expired) is refused as above.
 * - A tool's own `needsApproval` is asked by a gate hook named "ai-sdk tool approval", innermost on
 *   the stack (added once, with `stack.use`, when a tool has one), in the run `needsApproval` starts:
 *   the hooks outside it run first (a guard's refusal is reported without asking anyone), then it
 *   asks like any hook. A denial ends the call's run `Rejected` by "ai-sdk tool approval" with the
 *   person's reason, which observers, the audit log and the trace see; the tool never runs. When
 *   one person's answer is known, every question of the call's run (the gate's and a hook's) gets it.
 */
import { Continue, Reject, Transform } from "../core/action.ts";
import { isDurableApprover, type ApprovalAnswer, type ApprovalDecision, type ApprovalRequest } from "../core/approval-types.ts";
import { ApprovalTokenError, type DurableApprovals } from "../core/interrupt.ts";
import { Priority } from "../core/priority.ts";
import type { RunOptions } from "../core/context.ts";
import { describeGiven, RunAbortedError } from "../core/errors.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { Outcome } from "../core/outcome.ts";
import { maxTimerMs, neverAborted } from "../core/signal.ts";
import { closeQuietly, nextOrAbort } from "../agent/stream/parts.ts";
import { rejectedResult, ToolCallError, UnknownToolError, type ToolCallStack } from "../agent/wrap-tool.ts";
import type { ToolCall, ToolResult } from "../agent/types.ts";
import { boxInput, isBoxedInput, unboxInput } from "../agent/tool-input.ts";
import {
  ApprovalEvictedError,
  askedCalls,
  Bounded,
  defaultWaiting,
  deniedIn,
  deniedWithoutReason,
  droppedApproval,
  inputDigest,
  noPausedApproval,
  notAnApproval,
  notAPersonsAnswer,
  notTheQuestion,
  sdkAnswer,
  sdkApprover,
  type AskedCalls,
  type Held,
  type SdkDenial,
} from "./ai-sdk/approvals.ts";
import { joinSignals } from "./run-scope.ts";

export { ApprovalEvictedError, type EvictedWhy, type WaitingLimits } from "./ai-sdk/approvals.ts";
import { stackArgument } from "../agent/stack-argument.ts";
import { knownOptions } from "../core/known-options.ts";
import { currentRun, scopedOptions, scopedSignal, warnUnscoped } from "./run-scope.ts";

/**
 * What the AI SDK passes to `execute` besides the input (the fields read here; the rest passes through).
 *
 * @example
 * await tools.bash.execute({ command: "ls" }, { toolCallId: "c1", messages: [], abortSignal })
 */
export interface AiSdkToolExecutionOptions {
  readonly toolCallId: string;
  readonly abortSignal?: AbortSignal | undefined;
}

type Execute = (input: unknown, options: AiSdkToolExecutionOptions) => unknown;

/** The operation of a call's run. */
type Operation = (call: DeepReadonly<ToolCall>, ctx: { readonly signal: AbortSignal }) => Promise<ToolResult>;

/** Run options the application gives for a call. */
type RunGiven = Omit<RunOptions, "signal"> | undefined;

/**
 * Options of `wrapAiSdkTools`: run options per call, and how a rejection answers.
 *
 * @example
 * wrapAiSdkTools(stack, tools, { run: { sessionId }, rejected: (reason) => ({ blocked: reason }) })
 */
export interface WrapAiSdkToolsOptions {
  /** Run options for every call (session, metadata...), or a function of the call. */
  readonly run?: Omit<RunOptions, "signal"> | ((call: ToolCall) => Omit<RunOptions, "signal">);
  /** Answer a rejected call with this output instead of throwing (the model reads it as a normal result). */
  readonly rejected?: (reason: string, by: string, call: DeepReadonly<ToolCall>) => unknown;
  /**
   * `"ai-sdk"`: ask a person through the SDK's tool approval (`needsApproval`, answered by a
   * `tool-approval-response`) whenever a hook asks for approval, and let the hooks see a tool's own
   * `needsApproval` (see the top of this file). With durable approvals as the approver, the asking run
   * pauses and is resumed wherever the answer comes back. Default: hooks ask the stack's approver.
   */
  readonly approval?: "ai-sdk";
  /**
   * With `approval: "ai-sdk"`: bounds on what waits in this process for answers through the SDK,
   * per stack (the last given applies): at most `max` questions waiting for a person, and as many
   * runs held for the SDK's `execute` (default 10 000 each), each for at most `ttlMs` (default 30
   * minutes). The oldest goes first; its run ends `Failed` with a `RunAbortedError` whose cause is
   * an `ApprovalEvictedError`, and an answer that comes later is refused.
   */
  readonly waiting?: { readonly max?: number; readonly ttlMs?: number };
}

/** What the SDK passes to `needsApproval` (and `execute`) besides the input: the fields read here. */
interface NeedsApprovalOptions {
  readonly toolCallId: string;
  readonly messages?: readonly unknown[];
}

/** What the operation of a run a person denied fails with, should a hook let the call through anyway. */
const notExecuted = (reason: string | undefined): Error =>
  new Error(`the AI SDK does not execute this call: the person denied it${reason !== undefined ? ` (${reason})` : ""}`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Wrap every tool of an AI SDK tool set so that its `execute` runs through the stack's
 * `toolCall` point (tools without `execute` are returned as they are).
 *
 * @example
 * const tools = wrapAiSdkTools(stack, { bash: tool({ inputSchema: z.object({ command: z.string() }), execute: runBash }) })
 * await generateText({ model, tools, prompt: "clean up", stopWhen: stepCountIs(5) }) // a rejected call reaches the model as a tool error
 */
export const wrapAiSdkTools = <T extends Record<string, object>>(
  stack: ToolCallStack,
  tools: T,
  options: WrapAiSdkToolsOptions = {},
): T => {
  checkWrapped(stack, tools, options);
  knownOptions("wrapAiSdkTools", options, { run: true, rejected: true, approval: true, waiting: true });
  const executes = new Map<string, Execute>();
  for (const [name, t] of Object.entries(tools)) {
    const execute = (t as { execute?: unknown }).execute;
    if (typeof execute === "function") executes.set(name, (execute as Execute).bind(t));
  }

  const throughSdk = options.approval === "ai-sdk";
  // Questions waiting for the person, shared with `aiSdkMiddleware` on the same stack (it reads denials).
  const asked = throughSdk ? askedCalls(stack) : undefined;
  if (asked !== undefined && options.waiting !== undefined) asked.limits = { ...defaultWaiting, ...waitingOption(options.waiting) };
  // Runs started by `needsApproval`, by tool call id, until `execute` takes them (per stack: tools may be wrapped per request).
  const held = asked?.held ?? new Bounded<Held>();
  // The person's answers known while a call's run goes on, and the calls whose own rule asks: read by the gate.
  const known = asked?.known ?? new Map<string, ApprovalAnswer>();
  // Tools with a `needsApproval` of their own run through the stack with the gate innermost.
  const owns = new Set(Object.entries(tools).flatMap(([name, t]) => (ownRule(t) !== undefined && executes.has(name) ? [name] : [])));
  const gated = asked !== undefined && owns.size > 0 ? gatedStack(stack, asked) : undefined;
  const stackOf = (name: string): ToolCallStack => (gated !== undefined && owns.has(name) ? gated : stack);

  /**
   * Settle the waiting questions of this conversation (`session`, read only when an answer names a
   * waiting question) the SDK's messages answer, and hand the denials nobody here waits on to the readers.
   */
  const answered = (messages: readonly unknown[] | undefined, session: () => string | undefined): Promise<void> | undefined => {
    if (asked === undefined || messages === undefined || messages.length === 0) return undefined;
    if (asked.size > 0) asked.answerFrom(messages, session);
    // Naming the reader here makes every wrapped tool hold it: it reads for as long as they are in use.
    asked.read(readDenials);
    return asked.give(deniedIn(messages));
  };

  /** The call hooks see, its run options, and the person's answer, once the SDK asked them. */
  const begin = (name: string, input: unknown, sdk: NeedsApprovalOptions) => {
    const call: ToolCall = {
      id: sdk.toolCallId,
      name,
      // A copy: strict mode freezes what hooks see, and the SDK keeps the input in its results.
      input: isRecord(input) ? structuredClone(input) : boxInput(structuredClone(input)),
    };
    const own = typeof options.run === "function" ? options.run(call) : options.run;
    // Inside `aiSdkRun`, the call belongs to its run (see `run-scope.ts`).
    const scope = currentRun();
    if (scope === undefined) warnUnscoped("wrapAiSdkTools", stack, own?.runId !== undefined);
    const given = scopedOptions(own, scope);
    const person = throughSdk ? sdkAnswer(sdk.messages, sdk.toolCallId) : undefined;
    return { call, given, person, durable: throughSdk ? durableOf(stack, given) : undefined };
  };

  /**
   * Run `call` on `target` while `person`'s answer is known to the gate. Without durable approvals
   * the person's answer also answers any hook that asks (they answered the SDK's question about this call).
   */
  const runKnowing = (
    target: ToolCallStack,
    call: ToolCall,
    operation: Operation,
    given: RunGiven,
    person: ApprovalAnswer | undefined,
    durable: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Outcome<DeepReadonly<ToolResult>>> => {
    if (person === undefined) return target.run("toolCall", call, operation, { ...given, signal });
    known.set(call.id, person);
    return target
      .run("toolCall", call, operation, { ...given, ...(durable ? {} : { approval: () => person }), signal })
      .finally(() => known.delete(call.id));
  };

  /**
   * Resume the durable approval linked to a call with the person's answer: the paused run goes on
   * (hooks outside the asker again, the asker with the answer). A token refused (already resumed,
   * here or elsewhere; expired; unknown) resumes nothing: a `Rejected` that no run recorded.
   */
  const resume = async (
    durable: DurableApprovals,
    name: string,
    id: string,
    token: string,
    person: ApprovalAnswer,
    operation: Operation,
    given: RunGiven,
    signal: AbortSignal | undefined,
  ): Promise<Outcome<DeepReadonly<ToolResult>>> => {
    // Paused by the gate: it asks again, and the resumed approval answers it (the trace records that).
    // Paused by a hook outside it: that hook gets the resumed approval, and the gate the same answer.
    let byGate = false;
    try {
      byGate = durable.verify(token).hook === sdkApprover;
    } catch {
      // `resume` refuses the token below.
    }
    const questions = asked as AskedCalls;
    if (byGate) questions.asking.add(id);
    else known.set(id, person);
    try {
      return await durable.resume<DeepReadonly<ToolResult>>(stackOf(name), token, person, operation, { ...given, signal });
    } catch (error) {
      if (error instanceof ApprovalTokenError) return Outcome.rejected(error.message, sdkApprover);
      throw error;
    } finally {
      if (byGate) questions.asking.delete(id);
      else known.delete(id);
    }
  };

  /**
   * Refuse a call the SDK executes on an answer that is not an approval (see `notAnApproval`): a run
   * whose hooks that ask get the refusal as a denial, and whose gate rejects it if none asked, so the
   * trace, the audit log and observers record it; the tool never runs.
   */
  const refuse = (
    call: ToolCall,
    given: RunGiven,
    reason: string,
    signal: AbortSignal | undefined,
  ): Promise<Outcome<DeepReadonly<ToolResult>>> => {
    const gate = asked !== undefined ? gatedStack(stack, asked) : undefined;
    const operation: Operation = () => Promise.reject(new Error(reason));
    return runKnowing(gate ?? stack, call, operation, given, { decision: "deny", by: sdkApprover, reason }, false, signal);
  };

  /** Start the tool a hook left the call naming, with the run's signal. */
  const execute = (c: DeepReadonly<ToolCall>, signal: AbortSignal, sdk: AiSdkToolExecutionOptions, boxed: boolean): unknown => {
    // A hook may have renamed the call: run the tool of the new name, as `executeTool` does.
    const run = executes.get(c.name);
    if (run === undefined) throw new UnknownToolError(c.name);
    // An input that was not an object goes back as the value, also when a hook (a redaction) rewrote its box.
    const args = unboxInput(c.input, boxed);
    return run(args, { ...sdk, abortSignal: signal === neverAborted ? sdk.abortSignal : signal });
  };

  /** What `execute` answers for the outcome: the output, or the error the SDK records as a `tool-error`. */
  const answer = (outcome: Outcome<DeepReadonly<ToolResult>>, call: ToolCall, sdk: AiSdkToolExecutionOptions): unknown => {
    if (outcome._tag === "Completed") {
      if (outcome.value.isError === true) throw new ToolCallError(outcome.value as ToolResult);
      return outcome.value.content;
    }
    if (outcome._tag === "Rejected") {
      if (options.rejected !== undefined) return options.rejected(outcome.reason, outcome.by, call);
      throw new ToolCallError(rejectedResult(call, outcome.reason, outcome.by));
    }
    const error = outcome.error;
    throw error instanceof RunAbortedError && !error.timedOut && sdk.abortSignal?.aborted ? sdk.abortSignal.reason : error;
  };

  const runTool = async (name: string, input: unknown, sdk: AiSdkToolExecutionOptions): Promise<unknown> => {
    // Made when first needed: a held run of a call no conversation was named for is taken without it.
    let begun: ReturnType<typeof begin> | undefined;
    const begin1 = () => (begun ??= begin(name, input, sdk));
    await answered((sdk as NeedsApprovalOptions).messages, () => begin1().given?.sessionId);
    const waiting = held.get(sdk.toolCallId);
    // A held run is this call's only when it is of this conversation (another's is left alone) and
    // of this tool (the question checked the input too).
    if (waiting !== undefined && (waiting.session === undefined || waiting.session === begin1().given?.sessionId)) {
      held.delete(sdk.toolCallId);
      if (waiting.call.name === name) {
        waiting.release(sdk);
        return answer(await waiting.outcome, waiting.call, sdk);
      }
      waiting.release(undefined);
    }
    const { call, given, person, durable } = begin1();
    const signal = scopedSignal(sdk.abortSignal, currentRun());
    if (person === undefined) {
      const operation: Operation = async (c, ctx) => ({ content: await lastValue(execute(c, ctx.signal, sdk, isBoxedInput(call.input))) });
      return answer(await runKnowing(stackOf(name), call, operation, given, undefined, false, signal), call, sdk);
    }
    // An answer in the messages is the person's only as the answer to a question asked: with durable
    // approvals, the paused run linked to this call (its signed token decides); without, a run of
    // this process waiting for it, which would have been held above. Anything else is refused.
    const token = durable !== undefined ? await durable.linked(linkOf(call.id)) : undefined;
    if (durable === undefined || token === undefined) {
      const dropped = asked?.droppedWhy(call.id);
      const reason =
        durable !== undefined
          ? noPausedApproval(name, call.id)
          : dropped !== undefined
            ? droppedApproval(name, call.id, dropped)
            : notAnApproval(name, call.id);
      return answer(await refuse(call, given, reason, signal), call, sdk);
    }
    // The resumed run is the paused one, with its own input; the SDK reports it under the call it
    // executes, so that call must be the one asked about: another tool or input is refused, claiming nothing.
    if ((await durable.linked(boundLinkOf(call.id, name, input, given?.sessionId))) !== token)
      return answer(await refuse(call, given, notTheQuestion(name, call.id), signal), call, sdk);
    const operation: Operation = async (c, ctx) => ({ content: await lastValue(execute(c, ctx.signal, sdk, isBoxedInput(call.input))) });
    return answer(await resume(durable, name, call.id, token, person, operation, given, signal), call, sdk);
  };

  /**
   * Denials no run of this process waits on (the question was asked elsewhere, or before a
   * restart), for this tool set's tools. With durable approvals, the paused run is resumed with the
   * denial (the store's claim makes that happen once, whichever process reads it first). Without,
   * a denial of this very call (not one further back in the conversation) is recorded by a run whose
   * operation is never called: the hook that asks, or the gate, gets the denial and rejects.
   */
  const readDenials = (denials: readonly SdkDenial[]): Promise<void> | undefined => {
    const work: Promise<unknown>[] = [];
    for (const d of denials) {
      const name = d.toolName;
      if (name === undefined || !executes.has(name)) continue;
      let begun: ReturnType<typeof begin>;
      try {
        begun = begin(name, d.input ?? {}, { toolCallId: d.toolCallId });
      } catch {
        continue; // the app's run options threw for this call: nothing to record it with
      }
      const { call, given, durable } = begun;
      if (durable === undefined && (!d.fresh || d.input === undefined)) continue;
      if (!(asked as AskedCalls).take(d.toolCallId)) continue;
      const operation: Operation = () => Promise.reject(notExecuted(d.answer.reason));
      const settled =
        durable !== undefined
          ? durable
              .linked(linkOf(d.toolCallId))
              .then((token) =>
                token === undefined ? undefined : resume(durable, name, d.toolCallId, token, d.answer, operation, given, undefined),
              )
          : // Nothing ties this denial to a question a person was asked: the record says so, and the call does not run.
            runKnowing(
              stackOf(name),
              call,
              operation,
              given,
              { decision: "deny", by: sdkApprover, reason: notAPersonsAnswer(name, d.toolCallId, d.answer.reason) },
              false,
              undefined,
            );
      // A store that cannot be read leaves the approval to expire: the call never runs either way.
      work.push(settled.catch(() => undefined));
    }
    return work.length === 0 ? undefined : Promise.all(work).then(() => undefined);
  };

  /**
   * Start the call's run in `needsApproval`. When a hook asks (or the gate, for the tool's own
   * rule), the SDK asks the person (true): with an in-process approver the run waits at that hook
   * for the answer through the SDK; with durable approvals it stops `Interrupted` at once, and its
   * token is linked to the tool call id in the approvals' store, where whoever gets the answer finds
   * it. A run that reaches the tool waits there for `execute` (false); one that settles otherwise (a
   * guard's refusal) is reported by `execute` as it is.
   */
  const needsApproval = async (name: string, own: unknown, input: unknown, sdk: NeedsApprovalOptions): Promise<boolean> => {
    const id = sdk.toolCallId;
    await answered(sdk.messages, () => begin(name, input, sdk).given?.sessionId);
    // The SDK asks again before executing an approved call (it executes it only on true): the run
    // waiting for that answer got it and waits for `execute`; without one here (the question was
    // asked in another process, or before a restart), `execute` runs or resumes the call with the answer.
    if (held.has(id) || sdkAnswer(sdk.messages, id) !== undefined) return true;
    const ownSays =
      own === true || (typeof own === "function" && (await (own as (i: unknown, o: unknown) => unknown)(input, sdk)) === true);
    const target = stackOf(name);
    // No gate (a stack without `use`): the tool's own rule asks first, and the hooks run in `execute`.
    if (ownSays && target === stack) return true;
    const { call, given, durable } = begin(name, input, sdk);
    const session = given?.sessionId;
    // Aborted when the question, or the run held for `execute`, is dropped from memory (`waiting`).
    const evictor = new AbortController();
    const evict = (error: ApprovalEvictedError): void => evictor.abort(error);
    const runSignal = joinSignals(scopedSignal(undefined, currentRun()), evictor.signal);
    let reached!: (how: "reached" | "asked") => void;
    const reaching = new Promise<"reached" | "asked">((resolve) => (reached = resolve));
    let release!: (sdk: AiSdkToolExecutionOptions | undefined) => void;
    const released = new Promise<AiSdkToolExecutionOptions | undefined>((resolve) => (release = resolve));
    // The person's answer, once given: a second hook asking in the same run gets it too.
    let person: ApprovalAnswer | undefined;
    let outcome!: Promise<Outcome<DeepReadonly<ToolResult>>>;
    const ask = (request: ApprovalRequest): ApprovalAnswer | Promise<ApprovalAnswer> => {
      if (person !== undefined) return person;
      reached("asked");
      const questions = asked as AskedCalls;
      return new Promise<ApprovalAnswer>((resolve) => {
        const gaveUp = (): void => {
          questions.delete(id);
          // An answer that comes later is not acted on: this run already ended with the hook's refusal.
          questions.take(id);
          resolve({ decision: "deny", reason: "the hook stopped waiting for the person's answer through the AI SDK" });
        };
        if (request.signal.aborted) return gaveUp();
        request.signal.addEventListener("abort", gaveUp, { once: true });
        questions.add(id, {
          name,
          session,
          evict,
          // What the answer must be about: this tool, this input (the SDK executes the call as the messages hold it).
          digest: inputDigest(input),
          answer: (answer) => {
            request.signal.removeEventListener("abort", gaveUp);
            person = answer;
            // Approved: the run goes on and waits for the SDK's `execute`. Denied: the SDK never executes it.
            if (answer.decision === "approve") held.set(id, { call, session, evict, release, outcome });
            else release(undefined);
            resolve(answer);
          },
        });
      });
    };
    if (ownSays) (asked as AskedCalls).asking.add(id);
    outcome = target
      .run(
        "toolCall",
        call,
        async (c, ctx) => {
          reached("reached");
          const options = await untilAborted(released, ctx.signal);
          if (options === undefined) throw notExecuted(person?.reason);
          return { content: await lastValue(execute(c, ctx.signal, options, isBoxedInput(call.input))) };
        },
        // Inside `aiSdkRun`, the run's signal: its deadline and abort reach a run held for `execute`.
        durable !== undefined ? { ...given, signal: runSignal } : { ...given, signal: runSignal, approval: ask },
      )
      .finally(() => (asked as AskedCalls).asking.delete(id));
    const first = await Promise.race([reaching, outcome.then(() => "settled" as const)]);
    if (first === "asked") return true;
    if (first === "settled" && durable !== undefined) {
      const settled = await outcome;
      if (Outcome.isInterrupted(settled)) {
        try {
          await durable.link(linkOf(id), settled.approval.token);
          await durable.link(boundLinkOf(id, name, input, session), settled.approval.token);
          return true;
        } catch {
          // Not linked, nobody could find it with the answer: `execute` reports the paused run as the refusal it is.
        }
      }
    }
    held.set(id, { call, session, evict, release, outcome });
    return false;
  };

  /** A streaming tool through the point: its values pass on as they come, the output as the hooks left it (see the top). */
  async function* streamTool(name: string, input: unknown, sdk: AiSdkToolExecutionOptions): AsyncGenerator<unknown, void, void> {
    // A call a person answered never streams (see the wrapped `execute`): no answer to pass on here.
    const { call, given: run } = begin(name, input, sdk);
    const values: unknown[] = [];
    let wake: (() => void) | undefined;
    let outcome: Outcome<DeepReadonly<ToolResult>> | undefined;
    // Whether the tool's own last value is the last of `values` (it ended, and nothing was read since).
    let ended = false;
    // The run's signal: the caller's, and the reader leaving.
    const stop = new AbortController();
    const caller = scopedSignal(sdk.abortSignal, currentRun());
    const follow = (): void => stop.abort(caller?.reason);
    if (caller?.aborted === true) follow();
    else caller?.addEventListener("abort", follow, { once: true });
    const settle = (o: Outcome<DeepReadonly<ToolResult>>): void => {
      caller?.removeEventListener("abort", follow);
      outcome = o;
      wake?.();
    };
    void stack
      .run(
        "toolCall",
        call,
        async (c, ctx) => {
          const result = execute(c, ctx.signal, sdk, isBoxedInput(call.input));
          if (!isAsyncIterable(result)) return { content: await result };
          const iterator = result[Symbol.asyncIterator]();
          let last: unknown;
          let done = false;
          try {
            for (;;) {
              const r = await nextOrAbort(iterator, ctx.signal);
              if (r.done === true) break;
              last = r.value;
              if (outcome !== undefined) continue; // the run is over: what comes now is dropped (R7)
              values.push(last);
              wake?.();
            }
            done = true;
            ended = outcome === undefined && values.length > 0;
          } finally {
            if (!done) closeQuietly(iterator);
          }
          return { content: last };
        },
        { ...run, signal: stop.signal },
      )
      .then(settle, (error: unknown) => settle(Outcome.failed(error)));
    let shown = false;
    let lastShown: unknown;
    try {
      for (;;) {
        // Once the tool ended, its last value waits for the hooks, who decide the output.
        if (outcome !== undefined && ended) {
          values.pop();
          ended = false;
        }
        if (values.length > (ended ? 1 : 0)) {
          lastShown = values.shift();
          shown = true;
          yield lastShown;
          continue;
        }
        if (outcome !== undefined) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      const output = answer(outcome, call, sdk);
      // The SDK takes the last value as the output: say it again only if it is not that already.
      if (shown ? output !== lastShown : output !== undefined) yield output;
    } finally {
      caller?.removeEventListener("abort", follow);
      if (outcome === undefined) stop.abort(new Error("the reader stopped reading the tool's results"));
    }
  }

  const wrapped: Record<string, object> = {};
  for (const [name, t] of Object.entries(tools)) {
    if (!executes.has(name)) wrapped[name] = t;
    else {
      // A streaming tool whose run `needsApproval` holds runs to its last value in that run.
      const run = isAsyncGeneratorFunction((t as { execute: unknown }).execute)
        ? (input: unknown, sdk: AiSdkToolExecutionOptions) => {
            const messages = (sdk as NeedsApprovalOptions).messages;
            // A call a person answered runs (or resumes) to its last value, as one `needsApproval` held does.
            return throughSdk && (held.has(sdk.toolCallId) || sdkAnswer(messages, sdk.toolCallId) !== undefined)
              ? runTool(name, input, sdk)
              : (void answered(messages, () => begin(name, input, sdk).given?.sessionId), streamTool(name, input, sdk));
          }
        : (input: unknown, sdk: AiSdkToolExecutionOptions) => runTool(name, input, sdk);
      const own = ownRule(t);
      wrapped[name] = throughSdk
        ? { ...t, execute: run, needsApproval: (input: unknown, sdk: NeedsApprovalOptions) => needsApproval(name, own, input, sdk) }
        : { ...t, execute: run };
    }
  }
  if (asked !== undefined) asked.read(readDenials);
  return wrapped as T;
};

/** The `waiting` option, checked: positive whole numbers of entries and ms. */
const waitingOption = (given: unknown): Partial<{ max: number; ttlMs: number }> => {
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new TypeError(`wrapAiSdkTools: waiting must be { max?, ttlMs }, got ${describeGiven(given)}`);
  knownOptions("wrapAiSdkTools waiting", given, { max: true, ttlMs: true });
  const out: { max?: number; ttlMs?: number } = {};
  for (const key of ["max", "ttlMs"] as const) {
    const value: unknown = (given as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || (key === "ttlMs" && value > maxTimerMs))
      throw new TypeError(
        `wrapAiSdkTools: waiting.${key} must be a whole number from 1${key === "ttlMs" ? ` to ${maxTimerMs}` : ""}, got ${describeGiven(value)}`,
      );
    out[key] = value;
  }
  return out;
};

/** The stack with the gate that asks a tool's own question, innermost: one per stack, made on first use. */
const gatedStack = (stack: ToolCallStack, asked: AskedCalls): ToolCallStack | undefined => {
  if (gatedStacks.has(stack)) return gatedStacks.get(stack);
  const use = (stack as { use?: unknown }).use;
  const gated =
    typeof use === "function"
      ? ((use as (point: string, hook: object) => ToolCallStack).call(stack, "toolCall", {
          name: sdkApprover,
          priority: Priority.innermost,
          // The tool's own question, asked like any hook's: the person's answer when it is known here, else `ctx.approve`.
          before: async (c: ToolCall, ctx: { approve: (r: { hook: string; reason?: string }) => Promise<ApprovalDecision> }) => {
            const d =
              asked.known.get(c.id) ??
              (asked.asking.has(c.id) ? await ctx.approve({ hook: sdkApprover, reason: `${c.name} asks for approval` }) : undefined);
            if (d === undefined || d.decision === "approve") return Continue;
            return d.decision === "deny" ? Reject(d.reason ?? deniedWithoutReason) : Transform(d.input);
          },
        }) as ToolCallStack)
      : undefined;
  gatedStacks.set(stack, gated);
  return gated;
};

const gatedStacks = new WeakMap<object, ToolCallStack | undefined>();

/** True for an `async function*`: a tool that streams, which the wrapped tool must be too (the SDK asks the function's result). */
const isAsyncGeneratorFunction = (fn: unknown): boolean => Object.prototype.toString.call(fn) === "[object AsyncGeneratorFunction]";

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";

/** A tool's own `needsApproval`, unless it can never say yes (absent or `false`). */
const ownRule = (t: object): unknown => {
  const own = (t as { needsApproval?: unknown }).needsApproval;
  return own === undefined || own === false ? undefined : own;
};

/**
 * The key a call's durable approval is linked under: the tool call id, which the SDK's answer names.
 * Providers give each call a fresh random id (`call_…`, `toolu_…`); two conversations sharing one
 * store and one id (a scripted model's `call-0`) would share the link.
 */
const linkOf = (toolCallId: string): string => `ai-sdk:${toolCallId}`;

/**
 * The key the same token is linked under for the call as the SDK gave it (tool and input, by
 * digest) and conversation: an approval whose call names another tool or input, or that comes
 * from another conversation (run option `sessionId`), finds no token there.
 */
const boundLinkOf = (toolCallId: string, name: string, input: unknown, session: string | undefined): string =>
  `ai-sdk:${toolCallId}:${inputDigest({ name, input, session: session ?? null })}`;

/** The durable approvals the call's run asks (its own run option, else the stack's), if that is what it asks. */
const durableOf = (stack: ToolCallStack, given: RunGiven): DurableApprovals | undefined => {
  const approver: unknown = given?.approval ?? (stack as { options?: { approval?: unknown } }).options?.approval;
  if (!isDurableApprover(approver)) return undefined;
  const d = approver as Partial<DurableApprovals>;
  return typeof d.resume === "function" && typeof d.link === "function" && typeof d.linked === "function"
    ? (approver as DurableApprovals)
    : undefined;
};

/**
 * Refuse a stack without `run`, a tool set that is not an object of tools, an `execute` that is
 * given but not a function, or a `rejected` that is not one, when wrapping: otherwise the mistake
 * would surface as a raw TypeError here or on the first call.
 */
const checkWrapped = (stack: unknown, tools: unknown, options: WrapAiSdkToolsOptions): void => {
  stackArgument("wrapAiSdkTools", stack);
  if (Array.isArray(tools)) throw new TypeError("wrapAiSdkTools: tools must be an object of AI SDK tools by name, got a list");
  if (typeof tools !== "object" || tools === null)
    throw new TypeError(`wrapAiSdkTools: tools must be an object of AI SDK tools by name, got ${describeGiven(tools)}`);
  for (const [name, t] of Object.entries(tools)) {
    if (typeof t !== "object" || t === null)
      throw new TypeError(`wrapAiSdkTools "${name}": the tool must be an object, got ${describeGiven(t)}`);
    const execute: unknown = (t as { execute?: unknown }).execute;
    if (execute !== undefined && typeof execute !== "function")
      throw new TypeError(`wrapAiSdkTools "${name}": execute must be a function when given, got ${describeGiven(execute)}`);
  }
  const rejected: unknown = options?.rejected;
  if (rejected !== undefined && typeof rejected !== "function")
    throw new TypeError(`wrapAiSdkTools: rejected must be a function when given, got ${describeGiven(rejected)}`);
  const approval: unknown = options?.approval;
  if (approval !== undefined && approval !== "ai-sdk")
    throw new TypeError(`wrapAiSdkTools: approval must be "ai-sdk" when given, got ${describeGiven(approval)}`);
};

/** `promise`, or a rejection with the signal's reason once it aborts (a held run given up on). */
const untilAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> => {
  if (signal === neverAborted) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
};

/** The last value of an async iterable `execute` returned, or the awaited value of any other. */
const lastValue = async (result: unknown): Promise<unknown> => {
  if (!isAsyncIterable(result)) return result;
  let last: unknown;
  for await (const value of result) last = value;
  return last;
};
