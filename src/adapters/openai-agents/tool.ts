/**
 * `guardTool`: an Agents SDK function tool whose every invocation runs through the stack's
 * `toolCall` point, and whose approvals go through the SDK's own interruptions.
 *
 * - The `ToolCall` is `{ id: callId, name, input: the parsed arguments }`; the `ToolResult`'s
 *   content is what the tool returned. A `Transform` of the input reaches the tool (as JSON,
 *   parsed by the tool's own schema); a `Transform` of the result reaches the model.
 * - A refusal reaches the model as the SDK reports a refused call (a tool input guardrail's
 *   `rejectContent`): the tool does not run and its output is the message, "Tool call X was
 *   rejected by H: reason". For a tool with an `outputSchema`, as in the SDK, the message goes
 *   through the tool's `errorFunction`, and without one the run fails (`ToolCallError`).
 * - A tool's own failure is the SDK's: `tool()` turns an error into its `errorFunction`'s text,
 *   which hooks see as the result; an error it lets through is rethrown unchanged. A hook that
 *   renames the call fails it with `UnknownToolError`: a guarded tool runs only as itself.
 * - Approval: a hook that asks (`ctx.approve`, the `approval` middleware) with no decision yet
 *   makes `needsApproval` answer true, so the SDK pauses the run with an interruption
 *   (`result.interruptions`, `state.approve(item)` or `state.reject(item, { message })`,
 *   `RunState` serialized and restored). When the run resumes, the hook asks again and the SDK's
 *   decision answers it; a rejected call is not run, and the model reads the SDK's rejection
 *   message. The tool's own `needsApproval` is asked after the hooks, so a call a guard refuses
 *   never bothers a person. See parked.ts for how one run spans `needsApproval` and `invoke`.
 * - Text hooks add with `ctx.addContext` reaches the model after the tool's output.
 */
import { randomUUID } from "node:crypto";
import type { FunctionTool, RunContext, Tool, ToolInputGuardrailDefinition } from "@openai/agents";
import type { ApprovalDecision, ApprovalHandler, RunOptions } from "../../core/context.ts";
import { digestOf } from "../../core/approval-token.ts";
import { describe, describeGiven, RunAbortedError } from "../../core/errors.ts";
import { MemoryStore } from "../../core/memory-store.ts";
import { keyPart, type StateStore } from "../../core/state.ts";
import { neverAborted } from "../../core/signal.ts";
import type { Outcome } from "../../core/outcome.ts";
import { contentText } from "../../agent/content-text.ts";
import type { ToolCall, ToolResult } from "../../agent/types.ts";
import { rejectedResult, ToolCallError, UnknownToolError, type ToolCallStack } from "../../agent/wrap-tool.ts";
import { ApprovalAlreadyUsedError, ApprovalNotAskedError, ParkedCall, pendingApprovalReason, type Execute } from "./parked.ts";
import { stackArgument } from "../../agent/stack-argument.ts";
import { knownOptions } from "../../core/known-options.ts";

/** How long the claim of an approved call is kept: a paused run resumed later than this could run it again. */
const claimTtlMs = 30 * 24 * 60 * 60 * 1000;

/**
 * One tool call about to run, for per-call run options.
 *
 * @example
 * guardTool(stack, tool, { run: ({ runContext }) => ({ sessionId: runContext.context.sessionId }) })
 */
export interface ToolCallInfo {
  readonly call: ToolCall;
  readonly runContext: RunContext<unknown>;
}

/**
 * Options of `guardTool`: run options per call, and who answers a hook that asks for approval.
 *
 * @example
 * guardTool(stack, sendEmail, { run: { sessionId: "s1" }, approvals: "interrupt" })
 */
export interface GuardToolOptions {
  /** Run options for every call (session, metadata...), or a function of the call and the SDK's run context. */
  readonly run?: Omit<RunOptions, "signal" | "approval"> | ((info: ToolCallInfo) => Omit<RunOptions, "signal" | "approval">);
  /**
   * Who answers a hook that asks: `"interrupt"` (default) pauses the run through the SDK's
   * interruptions and answers with the person's decision on resume; `"stack"` asks the stack's
   * own approval handler, in process, while the SDK waits.
   */
  readonly approvals?: "interrupt" | "stack";
}

/**
 * Where the questions asked are kept, by stack, when neither the call's run options nor the stack
 * name a store: this process only, as the stack's own default store is.
 */
const processQuestions = new WeakMap<object, StateStore>();

/**
 * The store that keeps what each question asked about: the call's run options' store, else the
 * stack's, else one of this process. An approval in the SDK's run state is honoured only for a
 * question found there, about the same input.
 */
const questionStore = (stack: ToolCallStack, given: { readonly store?: StateStore | undefined } | undefined): StateStore => {
  const configured = given?.store ?? (stack as { options?: { store?: StateStore } }).options?.store;
  if (configured !== undefined) return configured;
  let store = processQuestions.get(stack);
  if (store === undefined) processQuestions.set(stack, (store = new MemoryStore()));
  return store;
};

/** The key of the question asked about one call of one tool. */
const questionKey = (tool: string, callId: string): string => `openai-agents:asked:${keyPart(tool)}:${keyPart(callId)}`;

/** The stack's run id for each run of the SDK, by its run context. */
const runIds = new WeakMap<object, string>();

const runIdOf = (runContext: RunContext<unknown>): string => {
  let id = runIds.get(runContext);
  if (id === undefined) runIds.set(runContext, (id = `openai-agents-run-${randomUUID()}`));
  return id;
};

/** Marks a tool this adapter made, so that guarding it again does not run every call twice. */
const guarded = Symbol.for("agent-onion.openai-agents.guarded-tool");

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The SDK's arguments (a JSON string) as a `ToolCall` input; what is not a JSON object is kept as `{ arguments }`. */
const inputOf = (args: unknown): Record<string, unknown> => {
  // A copy (strict mode freezes what hooks see); the arguments came from JSON, so JSON copies them whole.
  if (isRecord(args)) return JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
  if (typeof args !== "string") return { arguments: args };
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : { arguments: args };
  } catch {
    return { arguments: args };
  }
};

/** The SDK's message for a call a person rejected, when it gave none. */
const notApproved = "Tool execution was not approved.";

/**
 * Wrap an Agents SDK tool so that every invocation runs through the stack's `toolCall` point.
 * Tools that are not function tools (hosted tools, computer, shell, apply-patch) are returned as they are.
 *
 * @example
 * import { Agent, run, tool } from "@openai/agents"
 * const agent = new Agent({ name: "mailer", tools: [guardTool(stack, tool({ name: "send_email", parameters, execute }))] })
 * const result = await run(agent, "email bob") // a refused call reaches the model as "Tool call send_email was rejected by ..."
 */
export const guardTool = <T extends Tool<any>>(stack: ToolCallStack, tool: T, options: GuardToolOptions = {}): T => {
  checkWrapped(stack, tool, options);
  if (tool.type !== "function") return tool;
  const original = tool as unknown as FunctionTool<unknown, any, unknown>;
  if ((original as unknown as Record<symbol, unknown>)[guarded] === stack) return tool;
  const name = original.name;
  const mode = options.approvals ?? "interrupt";
  // The runs waiting for `invoke`, by the SDK's run context and call id: a context the SDK drops takes its calls with it.
  const parked = new WeakMap<object, Map<string, ParkedCall>>();
  const park = (ctx: RunContext<unknown>, callId: string, call: ParkedCall): void => {
    let calls = parked.get(ctx);
    if (calls === undefined) parked.set(ctx, (calls = new Map()));
    calls.set(callId, call);
  };
  const unpark = (ctx: RunContext<unknown>, callId: string, call: ParkedCall): void => {
    const calls = parked.get(ctx);
    if (calls?.get(callId) === call) calls.delete(callId);
  };
  const parkedFor = (ctx: RunContext<unknown>, callId: string | undefined): ParkedCall | undefined =>
    callId === undefined ? undefined : parked.get(ctx)?.get(callId);

  const runOptions = (call: ToolCall, runContext: RunContext<unknown>) => {
    const given = typeof options.run === "function" ? options.run({ call, runContext }) : options.run;
    // The SDK's run (one `run()`, one run context) is the stack's run, so what counts per run counts its calls.
    return given?.runId !== undefined ? given : { ...given, runId: runIdOf(runContext) };
  };

  /** The SDK's decision about this call (true approved, false rejected), or undefined before anyone decided. */
  const decision = (ctx: RunContext<unknown>, callId: string): boolean | undefined => ctx.isToolApproved({ toolName: name, callId });

  /**
   * The approval handler of a run: the SDK's decision, else `onMissing`. `approved` hears when a
   * person's approval answered, so that the call is claimed as run (see `execute`).
   */
  const approver = (
    ctx: RunContext<unknown>,
    call: ToolCall,
    approved: () => void,
    onMissing: ApprovalHandler,
  ): ApprovalHandler | undefined =>
    mode === "stack"
      ? undefined
      : async (request) => {
          const callId = call.id;
          const decided = decision(ctx, callId);
          if (decided === true) {
            const refused = await notAsked(call, ctx);
            if (refused !== undefined) return { decision: "deny", reason: refused } satisfies ApprovalDecision;
            approved();
            return { decision: "approve", reason: "approved through the Agents SDK run state" } satisfies ApprovalDecision;
          }
          if (decided === false) return { decision: "deny", reason: ctx.getRejectionMessage(name, callId) ?? notApproved };
          return onMissing(request);
        };

  /**
   * Keep what the question about `call` asks (its input's digest) for as long as a claim is kept,
   * before the SDK pauses: the run state the answer comes back in is plain JSON that whoever holds
   * it can edit. Undefined when kept; else why it could not be (nobody could answer it).
   */
  const keepQuestion = async (call: ToolCall, ctx: RunContext<unknown>): Promise<string | undefined> => {
    try {
      await questionStore(stack, runOptions(call, ctx)).set(questionKey(name, call.id), digestOf(call.input), { ttlMs: claimTtlMs });
      return undefined;
    } catch (error) {
      return `${name} needs approval, but the question could not be kept for a person to answer: ${describe(error)}`;
    }
  };

  /**
   * Why the SDK's approval of `call` is not an approval, or undefined when it answers a question
   * asked about this very call (tool, call id and input): a call never asked about (a run state
   * edited or made up, or asked in a process that shares no store with this one), or whose
   * arguments changed since the question, is refused.
   */
  const notAsked = async (call: ToolCall, ctx: RunContext<unknown>): Promise<string | undefined> => {
    let asked: unknown;
    try {
      asked = await questionStore(stack, runOptions(call, ctx)).get(questionKey(name, call.id));
    } catch (error) {
      return `the approval of ${name} call ${call.id} could not be checked against the question asked: ${describe(error)}`;
    }
    // A decision for every call of the tool (`approve(item, { alwaysApprove: true })`) approves calls
    // never asked about, as the SDK means it; a call that was asked about still runs only as asked,
    // since that decision is plain data in a run state anyone holding it can write.
    if (asked === undefined && decision(ctx, `agent-onion-probe-${randomUUID()}`) === true) return undefined;
    if (asked === undefined)
      return (
        `the approval of ${name} call ${call.id} in the run state is not an approval: no question about this call was asked ` +
        "(the run state was changed, or the question was asked by a process that shares no store with this one, or over 30 days ago)"
      );
    if (asked !== digestOf(call.input))
      return `the approval of ${name} call ${call.id} in the run state is not an approval: the call's arguments differ from those the person was asked about`;
    return undefined;
  };

  const start = (
    call: ToolCall,
    ctx: RunContext<unknown>,
    operation: Execute,
    signal: AbortSignal | undefined,
    approval: ApprovalHandler | undefined,
    context: string[],
  ) =>
    stack.run("toolCall", call, operation, {
      ...runOptions(call, ctx),
      signal,
      onContext: (text) => void context.push(text),
      ...(approval !== undefined ? { approval } : {}),
    });

  const needsApproval = async (ctx: RunContext<unknown>, input: unknown, callId?: string): Promise<boolean> => {
    if (callId === undefined) return original.needsApproval(ctx, input as never, callId);
    parkedFor(ctx, callId)?.drop("the SDK asked about it again");
    const p: ParkedCall = new ParkedCall(name, { id: callId, name, input: inputOf(input) }, () => unpark(ctx, callId, p));
    const approval = approver(
      ctx,
      p.call,
      () => void (p.approved = true),
      async (request) => {
        const unkept = await keepQuestion(p.call, ctx);
        if (unkept !== undefined) return { decision: "deny", reason: unkept };
        p.ask(request, request.hook);
        return { decision: "deny", reason: pendingApprovalReason };
      },
    );
    park(ctx, callId, p);
    p.outcome = start(p.call, ctx, (c, hookCtx) => p.operation(c, hookCtx), undefined, approval, p.context);
    p.outcome.then(
      () => p.settled(),
      () => p.settled(),
    );
    const verdict = await p.verdict;
    if (verdict.ask) return true;
    // The hooks let the call through (or answered for it): now the tool's own policy, unless a person already decided
    // (the SDK asks again about an approved call when it resumes a restored run in the process that paused it).
    if (p.waiting && (await original.needsApproval(ctx, input as never, callId))) {
      if (decision(ctx, callId) !== true) {
        const unkept = await keepQuestion(p.call, ctx);
        if (unkept !== undefined) {
          p.drop(unkept);
          return false;
        }
        p.ask(undefined, "needsApproval");
        return true;
      }
      // Approved for the tool's own policy: `execute` checks the approval answers this call's question.
      p.approved = true;
    }
    if (original.inputGuardrails === undefined || original.inputGuardrails.length === 0) p.expectInvokeSoon();
    return false;
  };

  const invoke = async (ctx: RunContext<unknown>, input: string, details?: Parameters<FunctionTool["invoke"]>[2]): Promise<unknown> => {
    const callId = details?.toolCall?.callId;
    const p = parkedFor(ctx, callId);
    const waiting = p !== undefined && !p.claimed && p.outcome !== undefined ? p : undefined;
    // No run waits for this call: the SDK resumed an approved call (in another process, or without asking
    // again), or the tool is invoked directly. One starts now, and answers a hook that asks with the SDK's decision.
    const fresh = waiting === undefined ? { id: callId ?? `openai-agents-${++seq}`, name, input: inputOf(input) } : undefined;
    const asked = { approved: false };
    let claimed = false;
    const execute: Execute = async (c, hookCtx) => {
      // A call a person approved runs once, however often its paused state is resumed (a retry of this run is not a resume).
      const approved = waiting?.approved ?? (asked.approved || (callId !== undefined && decision(ctx, callId) === true));
      if (approved && !claimed && callId !== undefined) {
        // Hooks that asked were answered only after the same check; the tool's own policy was not asked through a hook.
        const refused = asked.approved ? undefined : await notAsked(waiting?.call ?? (fresh as ToolCall), ctx);
        if (refused !== undefined) throw new ApprovalNotAskedError(name, callId, refused);
        claimed = true;
        if ((await hookCtx.store.incr(`openai-agents:approved:${name}:${callId}`, 1, { ttlMs: claimTtlMs })) > 1)
          throw new ApprovalAlreadyUsedError(name, callId);
      }
      // This tool runs only as itself: a hook that renamed the call asked for a tool the SDK did not choose.
      if (c.name !== name) throw new UnknownToolError(c.name);
      // The model's own arguments unless a hook rewrote them (a rewrite is a new input object).
      const args = c.input === (waiting?.call ?? fresh)?.input ? input : JSON.stringify(c.input);
      // The tool stops when the run does (a hook's deadline) and when the SDK cancels it (its timeout, a failed sibling).
      const link = linkSignals(hookCtx.signal, details?.signal);
      try {
        return { content: await original.invoke(ctx, args, withSignal(details, link.signal)) };
      } finally {
        link.dispose();
      }
    };
    let outcome: Outcome<ToolResult>;
    let context: string[];
    if (waiting !== undefined) {
      context = waiting.context;
      waiting.claim(execute);
      outcome = await (waiting.outcome as Promise<Outcome<ToolResult>>);
    } else {
      const call = fresh as ToolCall;
      context = [];
      const approval = approver(
        ctx,
        call,
        () => void (asked.approved = true),
        () => ({
          decision: "deny",
          reason: `${name} needs approval, but the Agents SDK invoked it without asking (no needsApproval step), so no one could approve it`,
        }),
      );
      outcome = await start(call, ctx, execute, details?.signal, approval, context);
    }
    return answer(outcome, ctx, details, context, callId);
  };

  /** What the SDK receives for an outcome (see the top of this file). */
  const answer = async (
    outcome: Outcome<ToolResult>,
    ctx: RunContext<unknown>,
    details: Parameters<FunctionTool["invoke"]>[2],
    context: readonly string[],
    callId: string | undefined,
  ): Promise<unknown> => {
    if (outcome._tag === "Completed") return withContext(outcome.value.content, context, original.outputSchema !== undefined);
    if (outcome._tag === "Rejected") {
      const call: ToolCall = { id: callId ?? "", name, input: {} };
      const message = String(rejectedResult(call, outcome.reason, outcome.by).content);
      if (original.outputSchema === undefined) return withContext(message, context, false);
      if (typeof original.errorFunction !== "function") throw new ToolCallError({ content: message, isError: true });
      return original.errorFunction(ctx, new ToolCallError({ content: message, isError: true }), details);
    }
    const error = outcome.error;
    const signal = details?.signal;
    throw error instanceof RunAbortedError && !error.timedOut && signal?.aborted ? signal.reason : error;
  };

  const inputGuardrails = original.inputGuardrails?.map((g) => watched(g, parkedFor));
  const wrapped: FunctionTool<unknown, any, unknown> = {
    ...original,
    invoke,
    needsApproval,
    ...(inputGuardrails !== undefined ? { inputGuardrails } : {}),
  };
  Object.defineProperty(wrapped, guarded, { value: stack });
  return wrapped as unknown as T;
};

let seq = 0;

/** A tool input guardrail that tells the parked call how it went: the SDK invokes the tool after the last one allowed it. */
const watched = (
  guardrail: ToolInputGuardrailDefinition<unknown>,
  parkedFor: (ctx: RunContext<unknown>, callId: string | undefined) => ParkedCall | undefined,
): ToolInputGuardrailDefinition<unknown> => ({
  ...guardrail,
  run: async (data) => {
    const p = parkedFor(data.context, data.toolCall.callId);
    p?.holdOn();
    let output: Awaited<ReturnType<typeof guardrail.run>>;
    try {
      output = await guardrail.run(data);
    } catch (error) {
      p?.drop(`its input guardrail ${guardrail.name} failed`);
      throw error;
    }
    const behavior = output?.behavior?.type ?? "allow";
    if (behavior !== "allow") p?.drop(`its input guardrail ${guardrail.name} answered ${behavior}`);
    else p?.expectInvokeSoon();
    return output;
  },
});

/** A signal that aborts with the first of two; `dispose` removes the listeners it added. */
const linkSignals = (a: AbortSignal, b: AbortSignal | undefined): { readonly signal: AbortSignal; dispose(): void } => {
  if (b === undefined || b === a || a === neverAborted) return { signal: b ?? a, dispose: () => {} };
  if (a.aborted) return { signal: a, dispose: () => {} };
  if (b.aborted) return { signal: b, dispose: () => {} };
  const controller = new AbortController();
  const onA = (): void => controller.abort(a.reason);
  const onB = (): void => controller.abort(b.reason);
  a.addEventListener("abort", onA, { once: true });
  b.addEventListener("abort", onB, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      a.removeEventListener("abort", onA);
      b.removeEventListener("abort", onB);
    },
  };
};

/** The invocation details with the run's signal, so a hook's deadline or the caller's abort stops the tool. */
const withSignal = (details: Parameters<FunctionTool["invoke"]>[2], signal: AbortSignal): Parameters<FunctionTool["invoke"]>[2] => {
  if (details === undefined) return { signal };
  if (details.signal === signal) return details;
  // Symbol-keyed fields (the SDK's own markers) are kept: the copy keeps every own property.
  return Object.create(Object.getPrototypeOf(details) as object, {
    ...Object.getOwnPropertyDescriptors(details),
    signal: { value: signal, enumerable: true, writable: true, configurable: true },
  }) as typeof details;
};

/** The tool's output with hook-added context after it, for the model to read; an output the schema describes is left alone. */
const withContext = (content: unknown, context: readonly string[], structured: boolean): unknown => {
  if (context.length === 0 || structured) return content;
  return [contentText(content), ...context].join("\n\n");
};

/**
 * Refuse a stack without `run`, a tool that is not an object with a `type`, or options of the
 * wrong kind, when wrapping: otherwise each call would fail later with a raw TypeError.
 */
const checkWrapped = (stack: unknown, tool: unknown, options: GuardToolOptions): void => {
  stackArgument("guardTool", stack);
  if (typeof tool !== "object" || tool === null || typeof (tool as { type?: unknown }).type !== "string")
    throw new TypeError(`guardTool: tool must be an Agents SDK tool (tool({ ... })), got ${describeGiven(tool)}`);
  if ((tool as { type: string }).type === "function") {
    const { name, invoke, needsApproval } = tool as Partial<FunctionTool>;
    if (typeof name !== "string" || name === "")
      throw new TypeError(`guardTool: tool.name must be a non-empty string, got ${describeGiven(name)}`);
    if (typeof invoke !== "function") throw new TypeError(`guardTool "${name}": invoke must be a function, got ${describeGiven(invoke)}`);
    if (typeof needsApproval !== "function")
      throw new TypeError(`guardTool "${name}": needsApproval must be a function, got ${describeGiven(needsApproval)}`);
  }
  checkToolOptions("guardTool: ", options);
};

/**
 * Refuse options of `guardTool` of the wrong kind; `where` starts the message ("guardTool: ", "guardAgent: tools.").
 *
 * @example
 * checkToolOptions("guardTool: ", { approvals: "later" }) // throws TypeError: guardTool: approvals must be "interrupt" or "stack", got "later"
 */
export const checkToolOptions = (where: string, options: GuardToolOptions): void => {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${where}options must be an object when given, got ${describeGiven(options)}`);
  knownOptions(where.replace(/(: |\.)$/, ""), options, { run: true, approvals: true });
  const run: unknown = options.run;
  if (run !== undefined && (typeof run !== "object" || run === null) && typeof run !== "function")
    throw new TypeError(`${where}run must be run options or a function of the call, got ${describeGiven(run)}`);
  if (options.approvals !== undefined && options.approvals !== "interrupt" && options.approvals !== "stack")
    throw new TypeError(`${where}approvals must be "interrupt" or "stack", got ${describeGiven(options.approvals)}`);
};
