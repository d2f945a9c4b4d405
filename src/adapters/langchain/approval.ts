/**
 * Approvals through LangGraph's own interrupts: a hook that asks (`ctx.approve`, the `approval`
 * middleware) pauses the agent the way LangChain's `humanInTheLoopMiddleware` does, and the
 * person's answer comes back with `Command({ resume })`, in this process or another.
 *
 * - The question is an `interrupt` whose value is a LangChain `HITLRequest` (one action: the
 *   tool, its arguments, the hook's reason as description; approve, edit and reject allowed),
 *   so a UI made for LangChain's human-in-the-loop shows it as it is.
 * - Asking stops the call before anything else runs: the `toolCall` run is cancelled (its
 *   outcome is `Failed` with a `RunAbortedError` whose cause is an `ApprovalPendingError`) and the
 *   graph interrupt is thrown to LangGraph, which saves the paused state with its checkpointer.
 * - On `Command({ resume })` LangGraph runs the tool node again: the hooks run again, and the
 *   one that asked gets the person's answer instead of a new question. A `HITLResponse`
 *   (`{ decisions: [{ type: "approve" | "edit" | "reject", ... }] }`), one such decision, or an
 *   agent-onion `ApprovalDecision` are read; anything else is a denial that says so.
 * - Each answer is claimed once (`incr` on a key of the thread, the task and the question): a
 *   second resume of the same pause, in any process sharing the store, is refused with
 *   `ApprovalResumedError` before the tool runs.
 * - Each answer is also bound to its question: LangGraph hands a resume value to whichever
 *   interrupt is pending when the graph runs again, also after the thread's state was changed
 *   (`updateState`) to call the tool with other arguments. The digest of what was asked is kept
 *   when the call pauses, and an answer is honoured only when the resumed task asks about the same
 *   input; anything else is a denial that says why.
 * - The store is the application's (`store`, shared by its processes), else one of this process:
 *   answers are bound all the same, and only the process that asked can take them.
 */
import { digestOf } from "../../core/approval-token.ts";
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from "../../core/context.ts";
import { AgentOnionError, describe } from "../../core/errors.ts";
import { linkSignal, type LinkedController } from "../../core/signal.ts";
import { keyPart, type StateStore } from "../../core/state.ts";

/**
 * Why a call was cancelled while a person decides: the cause of its `RunAbortedError`.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error.cause instanceof ApprovalPendingError // the run paused for approval
 */
export class ApprovalPendingError extends AgentOnionError {
  override name = "ApprovalPendingError";
  constructor(readonly hook: string) {
    super(`paused for approval asked by ${hook}`);
  }
}

/**
 * A pause resumed a second time (in this process or another sharing the store): its answer was already used.
 *
 * @example
 * await agent.invoke(new Command({ resume }), config) // rejects with ApprovalResumedError when another process already resumed it
 */
export class ApprovalResumedError extends AgentOnionError {
  override name = "ApprovalResumedError";
  constructor(readonly key: string) {
    super(`this approval was already answered and used (resumed twice); the call does not run again`);
  }
}

/** What the middleware needs of LangGraph's runtime to pause: `interrupt`, and where the task stands. */
export interface InterruptRuntime {
  readonly interrupt?: ((value: unknown) => unknown) | undefined;
  readonly configurable?: { readonly thread_id?: unknown; readonly checkpoint_ns?: unknown; readonly [key: string]: unknown } | undefined;
}

/** The key under which the digest of the question a claim key answers is kept. */
const questionKey = (claimKey: string): string => claimKey.replace(/^langchain:resume:/, "langchain:asked:");

/** A LangChain human-in-the-loop request with one action (see `humanInTheLoopMiddleware`). */
export interface HitlRequest {
  readonly actionRequests: readonly { readonly name: string; readonly args: Record<string, unknown>; readonly description?: string }[];
  readonly reviewConfigs: readonly { readonly actionName: string; readonly allowedDecisions: readonly ("approve" | "edit" | "reject")[] }[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The input of an approval request, when it is a tool call (what the `approval` middleware asks about). */
const callOf = (input: unknown): { readonly id?: unknown; readonly name: string; readonly input: Record<string, unknown> } | undefined =>
  isRecord(input) && typeof input.name === "string" && isRecord(input.input)
    ? (input as { name: string; input: Record<string, unknown> })
    : undefined;

/**
 * The interrupt value for an approval request: a `HITLRequest` with one action.
 *
 * @example
 * hitlRequest({ point: "toolCall", hook: "approval", subject: "bash", input: { id: "c1", name: "bash", input: { command: "ls" } }, reason: "bash wants to run", signal })
 * // { actionRequests: [{ name: "bash", args: { command: "ls" }, description: "bash wants to run" }], reviewConfigs: [{ actionName: "bash", allowedDecisions: ["approve", "edit", "reject"] }] }
 */
export const hitlRequest = (request: ApprovalRequest): HitlRequest => {
  const call = callOf(request.input);
  const name = call?.name ?? request.subject ?? request.point;
  return {
    actionRequests: [
      { name, args: call?.input ?? { input: request.input }, description: request.reason ?? `${request.hook} asks for approval` },
    ],
    reviewConfigs: [{ actionName: name, allowedDecisions: ["approve", "edit", "reject"] }],
  };
};

/**
 * The person's answer (what `Command({ resume })` carried) as an `ApprovalDecision`; anything unreadable is a denial.
 *
 * @example
 * decisionOf({ decisions: [{ type: "reject", message: "not on main" }] }, request) // { decision: "deny", reason: "not on main" }
 */
export const decisionOf = (answer: unknown, request: ApprovalRequest): ApprovalDecision => {
  const decisions = isRecord(answer) ? answer.decisions : undefined;
  const d = Array.isArray(decisions) ? (decisions[0] as unknown) : answer;
  if (!isRecord(d)) return unreadable;
  if (d.decision === "approve" || d.decision === "deny" || d.decision === "edit") return d as unknown as ApprovalDecision;
  switch (d.type) {
    case "approve":
      return { decision: "approve" };
    case "reject":
      return { decision: "deny", reason: typeof d.message === "string" && d.message !== "" ? d.message : "rejected by the reviewer" };
    case "edit": {
      const action = d.editedAction;
      if (!isRecord(action)) return { decision: "deny", reason: "the reviewer's edit has no editedAction" };
      const call = callOf(request.input);
      if (call === undefined) return { decision: "edit", input: isRecord(action.args) ? action.args.input : undefined };
      return {
        decision: "edit",
        input: { id: call.id, name: typeof action.name === "string" ? action.name : call.name, input: action.args },
      };
    }
    default:
      return unreadable;
  }
};

const unreadable: ApprovalDecision = Object.freeze({
  decision: "deny",
  reason: 'the resume value is not a decision (expected { decisions: [{ type: "approve" | "edit" | "reject" }] })',
});

/**
 * One call's way to pause: an approval handler that interrupts, a signal that cancels the call
 * when it does, and the interrupt to throw to LangGraph afterwards.
 *
 * @example
 * const pause = new Pause(request.runtime, store, ttlMs, caller)
 * const outcome = await stack.run("toolCall", call, op, { signal: pause.signal, approval: pause.handler })
 * pause.dispose(); pause.throwIfPaused()
 */
export class Pause {
  declare private readonly runtime: InterruptRuntime;
  declare private readonly store: StateStore;
  declare private readonly shared: boolean;
  declare private readonly ttlMs: number;
  declare private readonly link: LinkedController;
  declare private asked: number;
  declare private paused: { readonly error: unknown } | undefined;
  /** The last answer this run of the task took had been claimed before: by which hook, under which key. */
  declare private reused: { readonly hook: string; readonly key: string } | undefined;
  /** The approval handler for the call's run options. */
  declare readonly handler: ApprovalHandler;

  constructor(runtime: InterruptRuntime, store: StateStore, ttlMs: number, caller: AbortSignal | undefined, shared = true) {
    this.runtime = runtime;
    this.store = store;
    this.shared = shared;
    this.ttlMs = ttlMs;
    this.link = linkSignal(caller);
    this.asked = 0;
    this.paused = undefined;
    this.reused = undefined;
    this.handler = this.ask.bind(this);
  }

  /** The call's signal: the caller's, and aborted when the call pauses. */
  get signal(): AbortSignal {
    return this.link.controller.signal;
  }

  private async ask(request: ApprovalRequest): Promise<ApprovalDecision> {
    const interrupt = this.runtime.interrupt;
    if (typeof interrupt !== "function")
      throw new TypeError("langchainMiddleware: LangGraph gave the tool call no interrupt (is this call running inside createAgent?)");
    const index = this.asked++;
    const key = this.claimKey(index);
    const asked = digestOf(request.input ?? null);
    // LangGraph runs a resumed task from its start and hands each earlier hook its answer again, so
    // an answer claimed before is no second use while a newer answer follows it in this run. Which
    // answer is the newest cannot be read from LangGraph (one given by interrupt id is already among
    // the earlier ones), so every answer is claimed and the last one taken must be a first claim
    // before the tool runs (see `refuseReuse`): a resume sent twice runs the call once.
    let answer: unknown;
    try {
      answer = interrupt(hitlRequest(request));
    } catch (error) {
      // Kept before LangGraph is told, so the answer can be checked against it wherever it comes back.
      try {
        await this.store.set(questionKey(key), asked, { ttlMs: this.ttlMs });
      } catch (failure) {
        return {
          decision: "deny",
          reason: `approval required by ${request.hook}, but the question could not be kept: ${describe(failure)}`,
        };
      }
      // No answer yet (LangGraph's GraphInterrupt), or no checkpointer to pause with: either way
      // LangGraph is told, once the call stopped; nothing more of it runs now.
      return this.stop(error, request.hook);
    }
    const store = this.store;
    const question = await store.get(questionKey(key));
    if (question !== asked)
      return {
        decision: "deny",
        reason:
          question === undefined
            ? this.shared
              ? "the resume value is not an approval of this call: no question about it was asked in this task (the thread's state changed since the question, or it was asked longer ago than the store keeps it)"
              : "the resume value is not an approval of this call: no question about it was asked in this task in this process (langchainMiddleware has no shared store, so only the process that asked can take the answer: give every process the same store; or the thread's state changed since the question)"
            : "the resume value is not an approval of this call: the call differs from the one the person was asked about",
      };
    this.reused = (await store.incr(key, 1, { ttlMs: this.ttlMs })) > 1 ? { hook: request.hook, key } : undefined;
    return decisionOf(answer, request);
  }

  /** Cancel the call; `error` is what the middleware throws to LangGraph once the call stopped. */
  private stop(error: unknown, hook: string): never {
    this.paused = { error };
    const pending = new ApprovalPendingError(hook);
    this.link.controller.abort(pending);
    throw pending;
  }

  /** The key that takes this answer once across every process sharing the store: the thread, the task, the question. */
  private claimKey(index: number): string {
    const conf = this.runtime.configurable;
    const part = (value: unknown): string => keyPart(typeof value === "string" ? value : "");
    return `langchain:resume:${part(conf?.thread_id)}:${part(conf?.checkpoint_ns)}:${index}`;
  }

  /**
   * Called as the tool is about to run: when the last answer this run took was claimed before (the
   * same resume sent again), the call stops with `ApprovalResumedError` instead of running twice.
   */
  refuseReuse(): void {
    if (this.reused !== undefined) this.stop(new ApprovalResumedError(this.reused.key), this.reused.hook);
  }

  /** Stop following the caller's signal. */
  dispose(): void {
    this.link.dispose();
  }

  /** Throw the interrupt to LangGraph if the call paused. */
  throwIfPaused(): void {
    if (this.paused !== undefined) throw this.paused.error;
  }
}
