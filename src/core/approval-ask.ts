/**
 * `ctx.approve`: asking whoever answers approvals, and reading the answer strictly.
 *
 * - The approver is the run's `approval` option, else the stack's; without one the answer is a
 *   denial that says no one could approve.
 * - An in-process handler gets a signal that aborts when the hook gives up: its own timeout, the
 *   run's deadline, the caller's abort, the run settling without it, or the `signal` the hook
 *   passed. No answer by then is a denial, and so is a throw: nothing an approver does lets a call
 *   through but a well-formed approve or edit (approval-answer.ts reads it).
 * - A durable approver (interrupt.ts) answers at once: with a decision claimed for this very
 *   question, or with a denial that carries a pending approval, which makes the run `Interrupted`
 *   when the asking hook's rejection ends it (see `interrupted`).
 * - An edit must keep the shape and the subject of what was asked about; then every gate hook
 *   outside the asking one is asked again about the edited input before the operation runs
 *   (`AskState.edited`, read by the dispatcher), and inner hooks see it as they would any input.
 * - Each answer is recorded as the asking hook's `approval` decision, when the run records.
 */
import { resolved } from "./deferred.ts";
import { now } from "./clock.ts";
import { editProblem, readAnswer } from "./approval-answer.ts";
import { problemOf, type ValueCheck } from "./value-check.ts";
import { isDurableApprover, type ApprovalDecision, type Approver, type DurableApprover, type PendingApproval } from "./approval-types.ts";
import type { HookInfo, RunOptions } from "./context.ts";
import { Rec, record, type Recorder } from "./decisions.ts";
import { describe } from "./errors.ts";
import type { Layer } from "./hook.ts";
import { deepFreeze } from "./readonly.ts";
import { RunSignal } from "./run-signal.ts";
import type { Rejected } from "./outcome.ts";

/** What a run remembers about its approvals. */
export interface AskState {
  /** The index of the innermost layer whose approval came back as an edit (-1: none): the layers outside it are asked again. */
  edited: number;
  /** The approval this run waits for, and the layer that asked. */
  interrupt: { readonly pending: PendingApproval; readonly layer: string } | undefined;
  /** True while gate hooks are asked again about an edited input. */
  rechecking: boolean;
}

/** What asking reads from its run (the run implements it). */
export interface AskingRun extends Recorder {
  readonly point: string;
  readonly subject: string | undefined;
  readonly sessionId: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
  readonly options: RunOptions | undefined;
  readonly runtime: { readonly approval: Approver | undefined; readonly freeze: boolean };
  readonly chain: {
    readonly point: { readonly subject?: ((input: any) => string | undefined) | undefined; readonly input?: ValueCheck | undefined };
  };
  /** The input of the call being made, and the one the run started with. */
  readonly input: unknown;
  readonly initial: unknown;
  readonly settled: boolean;
  asked: AskState | undefined;
  watchable(): RunSignal | undefined;
  hold(own: RunSignal): void;
  release(own: RunSignal): void;
}

/** What a hook passes to `ctx.approve`. */
export type ApprovalRequestOf = {
  readonly reason?: string;
  readonly hook: string;
  readonly input?: unknown;
  readonly signal?: AbortSignal;
};

/**
 * Ask for approval on behalf of the hook `info` (the operation's context has no layer), whose own
 * signal, if it has a timeout, is `own`.
 *
 * @example
 * const decision = await askApproval(run, { hook: "approval", reason: "Bash wants to run" }, layer.info, undefined)
 */
export const askApproval = async (
  run: AskingRun,
  request: ApprovalRequestOf,
  info: HookInfo,
  own: RunSignal | undefined,
): Promise<ApprovalDecision> => {
  // Read here, where it is used, not at the start of every run: few runs ask.
  const configured: unknown = run.options?.approval;
  if (configured !== undefined && typeof configured !== "function" && !isDurableApprover(configured))
    throw new TypeError(`stack.run("${run.point}"): approval must be a function or durableApprovals(), got ${typeof configured}`);
  const approver = (configured as Approver | undefined) ?? run.runtime.approval;
  const at = run.layers.findIndex((l) => l.info === info);
  const layer = at < 0 ? undefined : (run.layers[at] as Layer);
  const input = request.input ?? resolved(run.input);
  const started = run.rec === Rec.none ? 0 : now();
  let decision: ApprovalDecision;
  let resumed: string | undefined;
  if (approver === undefined) {
    decision = {
      decision: "deny",
      reason: `approval required by ${request.hook}${request.reason ? ` (${request.reason})` : ""}, but no approval handler is configured, so no one could approve`,
    };
  } else if (isDurableApprover(approver)) {
    const answer = await askDurable(run, approver, request, input, layer);
    decision = answer.decision;
    resumed = answer.resumed;
  } else {
    decision = await askHandler(run, approver, request, input, own);
  }
  if (decision.decision === "edit") {
    const problem =
      run.asked?.rechecking === true
        ? "an edit cannot be taken while the gate hooks check an edited input again"
        : (editProblem(input, decision.input, run.chain.point.subject) ?? problemOf(run.chain.point.input, decision.input));
    if (problem !== undefined)
      decision = {
        decision: "deny",
        reason: `the approver's edit was refused: ${problem}`,
        ...(decision.by !== undefined ? { by: decision.by } : {}),
      };
    else {
      decision = { ...decision, input: run.runtime.freeze ? deepFreeze(decision.input) : decision.input };
      if (at >= 0) {
        const state = stateOf(run);
        state.edited = Math.max(state.edited, at);
      }
    }
  }
  if (run.rec !== Rec.none && layer !== undefined && !run.settled) {
    const [action, why] = traceOf(decision, resumed);
    record(run, layer, "approval", action, started, why);
  }
  return decision;
};

const stateOf = (run: AskingRun): AskState => (run.asked ??= { edited: -1, interrupt: undefined, rechecking: false });

/** The trace entry of an answer: the action it amounts to, and a reason naming who decided. */
const traceOf = (d: ApprovalDecision, resumed: string | undefined): ["Continue" | "Reject" | "Transform", string] => {
  const who = `${d.by !== undefined ? ` by ${d.by}` : ""}${resumed !== undefined ? ` (resumed approval ${resumed})` : ""}`;
  if (d.decision === "approve") return ["Continue", `approved${who}${d.reason ? `: ${d.reason}` : ""}`];
  if (d.decision === "edit") return ["Transform", `approved with an edit${who}${d.reason ? `: ${d.reason}` : ""}`];
  return ["Reject", d.pending !== undefined ? d.reason : `denied${who}: ${d.reason}`];
};

/** A durable approver: a decision claimed for this question, or a new pending approval (one per run). */
const askDurable = async (
  run: AskingRun,
  approver: DurableApprover,
  request: ApprovalRequestOf,
  input: unknown,
  layer: Layer | undefined,
): Promise<{ decision: ApprovalDecision; resumed?: string }> => {
  const waiting = run.asked?.interrupt;
  let answer;
  try {
    answer = await approver.ask({
      point: run.point,
      hook: request.hook,
      subject: run.subject,
      input,
      reason: request.reason,
      runInput: resolved(run.initial),
      sessionId: run.sessionId,
      runId: run.runId,
      metadata: run.metadata,
      path: run.path,
    });
  } catch (error) {
    // The store is down, or the input is no JSON: nobody can answer later, so this is a no now.
    return {
      decision: {
        decision: "deny",
        reason: `approval required by ${request.hook}, but it could not be kept for a person to answer: ${describe(error)}`,
      },
    };
  }
  if ("decision" in answer) return { decision: answer.decision, ...(answer.resumed !== undefined ? { resumed: answer.resumed } : {}) };
  // A run waits for one approval at a time: the first one asked stands.
  const pending = waiting?.pending ?? answer.pending;
  if (waiting === undefined && layer !== undefined) stateOf(run).interrupt = { pending, layer: layer.name };
  const until = new Date(pending.expiresAt).toISOString();
  return { decision: { decision: "deny", reason: `waiting for a person to approve (approval ${pending.id}, until ${until})`, pending } };
};

/** An in-process handler, read strictly, racing the hook's signal. */
const askHandler = async (
  run: AskingRun,
  handler: (request: never) => unknown,
  request: ApprovalRequestOf,
  input: unknown,
  own: RunSignal | undefined,
): Promise<ApprovalDecision> => {
  const wait = new ApproverSignal(run, own, request.signal);
  try {
    let answer: unknown;
    try {
      answer = await wait.race(() =>
        (handler as (r: unknown) => unknown)({
          point: run.point,
          hook: request.hook,
          subject: run.subject,
          input,
          signal: wait.signal.signal,
          sessionId: run.sessionId,
          runId: run.runId,
          metadata: run.metadata,
          path: run.path,
          ...(request.reason !== undefined ? { reason: request.reason } : {}),
        }),
      );
    } catch (error) {
      if (error === wait) return { decision: "deny", reason: `no answer before the hook gave up (${describe(wait.signal.signal.reason)})` };
      return { decision: "deny", reason: `the approver failed: ${describe(error)}` };
    }
    return await readAnswer(answer);
  } finally {
    wait.dispose();
  }
};

/**
 * The approver's signal: aborts when the hook's own signal does (its timeout, or the run's abort
 * it follows), when the run's does, when the signal the hook passed does, or when the run settles
 * while the approver has not answered (a hook outside answered without waiting).
 */
class ApproverSignal {
  readonly signal = new RunSignal();
  readonly #run: AskingRun;
  readonly #follows: RunSignal | undefined;
  readonly #given: AbortSignal | undefined;
  readonly #onGiven: () => void;

  constructor(run: AskingRun, own: RunSignal | undefined, given: AbortSignal | undefined) {
    this.#run = run;
    this.#follows = own ?? run.watchable();
    this.#follows?.watch(this.signal);
    run.hold(this.signal);
    this.#given = given;
    this.#onGiven = () => this.signal.abort(given?.reason);
    if (given?.aborted === true) this.#onGiven();
    else given?.addEventListener("abort", this.#onGiven, { once: true });
  }

  /** The handler's answer, or a throw of this object if the signal aborts first. */
  race(ask: () => unknown): Promise<unknown> {
    if (this.signal.aborted) return Promise.reject(this);
    return new Promise((resolve, reject) => {
      this.signal.watch({ abort: () => reject(this) });
      let answer: unknown;
      try {
        answer = ask();
      } catch (error) {
        reject(error);
        return;
      }
      Promise.resolve(answer).then(resolve, reject);
    });
  }

  dispose(): void {
    this.#follows?.unwatch(this.signal);
    this.#run.release(this.signal);
    this.#given?.removeEventListener("abort", this.#onGiven);
  }
}

/**
 * The run's outcome, as `Interrupted` when it waits for an approval: a rejection by the hook that
 * asked, that nothing else caused (not a failure). Any other outcome is returned as it is.
 *
 * @example
 * const outcome = interrupted(run, f.outcome)
 */
export const interrupted = <O>(run: { readonly asked: AskState | undefined }, outcome: O): O => {
  const waiting = run.asked?.interrupt;
  if (waiting === undefined) return outcome;
  const o = outcome as Partial<Rejected> & { _tag?: string };
  if (o._tag !== "Rejected" || o.by !== waiting.layer || o.cause !== undefined) return outcome;
  return { ...o, approval: waiting.pending } as O;
};
