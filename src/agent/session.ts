/**
 * Sessions: a conversation with its history. Opening one runs the `sessionStart` gate;
 * each prompt runs `userPrompt` (which may rewrite or refuse it) and then the `run` gate
 * around the loop; closing runs `sessionEnd`. Turns of a session run one after another.
 */
import type { PendingApproval } from "../core/approval-types.ts";
import type { RunOptions } from "../core/context.ts";
import { AgentOnionError, RunAbortedError, describe, type HookError } from "../core/errors.ts";
import { ApprovalTamperedError } from "../core/interrupt.ts";
import type { Rejected } from "../core/outcome.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { noop, sharedLink, stopListening, type LinkedController } from "../core/signal.ts";
import type { AgentSession, PromptOptions, ResumeOptions, SessionOptions, TurnResult, TurnState } from "./agent-types.ts";
import { promptOptions, resumeOptions } from "./call-options.ts";
import { compact } from "./compaction.ts";
import { notifier, rootEnv, type AgentConfig } from "./config.ts";
import { ContextQueue } from "./context-queue.ts";
import { contentText } from "./content-text.ts";
import { AgentRunError, decide } from "./decide.ts";
import type { LoopEnv, SessionShared } from "./env.ts";
import { keepSessionEnv } from "./session-env.ts";
import { finishPausedStep, promptInMessages, runLoop } from "./loop.ts";
import { noUsage } from "./model.ts";
import { toolSpec } from "./tool.ts";
import { transcriptFile, TranscriptWriter } from "./transcript.ts";
import { signTurnState, verifyTurnState, type UnsignedTurnState } from "./turn-state.ts";
import type { LoopPause, Message, Notification, RunInput, RunResult, SessionEnd, ToolCall, Usage, UserPrompt } from "./types.ts";

/**
 * The run id of one of a session's runs (`s1#3-1a2b3c4d`): the session, what the run is (a
 * turn's number, start, compact, notify, end), and a random part, since a session resumed with
 * the same id would otherwise reuse its ids and inherit run-scoped guard state (a callLimit).
 */
const runIdOf = (session: string, what: string | number): string => `${session}#${what}-${crypto.randomUUID().slice(0, 8)}`;

/**
 * A `sessionStart` hook refused the session.
 *
 * @example
 * await agent.session({ source: "resume" }).catch((e) => e instanceof SessionRejectedError && console.log(e.by, e.reason))
 */
export class SessionRejectedError extends AgentOnionError {
  override name = "SessionRejectedError";
  /** `cause`: the hook's error when it failed closed (threw, timed out) rather than said no. */
  constructor(
    readonly reason: string,
    readonly by: string,
    cause?: HookError,
  ) {
    super(`session rejected by ${by}: ${reason}`, cause === undefined ? undefined : { cause });
  }
}

/** A rejected turn's fields: who said no and why, and the hook's error when it failed closed instead. */
const rejected = ({ reason, by, cause }: Rejected) => ({
  status: "rejected" as const,
  reason,
  by,
  ...(cause !== undefined ? { cause } : {}),
});

/**
 * One signal that aborts when either does, and a `dispose` that unhooks it, for one turn. By hand
 * rather than `AbortSignal.any`: given a signal that is not Node's own (a polyfill's, another
 * realm's), which `stack.run` accepts, Node 20's `any` never sees it abort later, so the user's
 * cancel would be ignored. Always a signal of our own when there is one to follow: every run of
 * the turn listens to it (the run, its step, each of a step's parallel tool calls, sub-agents'),
 * and past ten listeners Node warns of a leak on a signal whose limit nobody raised.
 */
const either = (a: AbortSignal | undefined, b: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose: () => void } => {
  if (a === undefined && b === undefined) return { signal: undefined, dispose: noop };
  const link = sharedLink(a ?? b);
  const { controller } = link;
  if (a === undefined || b === undefined) return { signal: controller.signal, dispose: link.dispose };
  const follow = (): void => controller.abort(b.reason);
  if (b.aborted) follow();
  else b.addEventListener("abort", follow, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      link.dispose();
      stopListening(b, follow);
    },
  };
};

/**
 * The session's signal, followed through a signal of our own without a listener limit while any
 * prompt waits or runs: every queued prompt listens to it until its turn ends, and a dozen of them
 * on the user's own signal would make Node warn of a leak on a signal whose limit we do not raise.
 * The user's signal has one listener of ours while prompts are in flight, and none between them.
 */
class SessionSignal {
  private link: LinkedController | undefined;
  private users = 0;

  constructor(private readonly parent: AbortSignal | undefined) {}

  /** The signal a prompt follows, until it calls `release`. */
  acquire(): AbortSignal | undefined {
    if (this.parent === undefined) return undefined;
    this.users++;
    if (this.link === undefined) {
      this.link = sharedLink(this.parent);
    }
    return this.link.controller.signal;
  }

  release(): void {
    if (this.parent === undefined || --this.users > 0) return;
    this.link?.dispose();
    this.link = undefined;
  }
}

/**
 * Check what `resume` was given, before anything is claimed; the calls that wait, with their approvals.
 *
 * @example
 * const waiting = checkResume(turn.state, { [turn.approvals[0].id]: { decision: "approve" } }, { approvals }, session.id)
 */
export const checkResume = (
  state: TurnState,
  decisions: Readonly<Record<string, unknown>>,
  options: ResumeOptions,
  sessionId: string,
): readonly { readonly call: ToolCall; readonly approval: PendingApproval }[] => {
  const calls = (state as Partial<TurnState> | undefined)?.pause?.step?.calls;
  if (
    typeof state !== "object" ||
    state === null ||
    state.v !== 1 ||
    !Array.isArray(calls) ||
    typeof state.runId !== "string" ||
    typeof state.prompt !== "string" ||
    !Array.isArray(state.history)
  )
    throw new TypeError("resume: state must be the `state` of an interrupted turn (TurnState, version 1)");
  if (typeof options?.approvals?.claim !== "function" || typeof options.approvals.inspect !== "function")
    throw new TypeError("resume: options.approvals must be the durableApprovals() that issued the tokens");
  // Signed as a whole: nothing of it is taken as it came back (its history, results, calls, ids).
  verifyTurnState(options.approvals, state);
  if (state.sessionId !== sessionId)
    throw new TypeError(`resume: the state belongs to session ${String(state.sessionId)}, not ${sessionId}`);
  if (typeof decisions !== "object" || decisions === null || Array.isArray(decisions))
    throw new TypeError("resume: decisions must be an object of decisions by approval id");
  const waiting = calls.flatMap((c) => (c.approval !== undefined ? [{ call: c.call, approval: c.approval }] : []));
  if (waiting.length === 0) throw new TypeError("resume: the state has no call waiting for approval");
  const ids = new Set(waiting.map((w) => w.approval.id));
  for (const id of ids)
    if (!Object.hasOwn(decisions, id)) throw new TypeError(`resume: no decision for approval ${id} (decisions are keyed by approval id)`);
  for (const id of Object.keys(decisions)) if (!ids.has(id)) throw new TypeError(`resume: approval ${id} is not one this turn waits for`);
  return waiting;
};

/**
 * True once `earlier` (the turns before a prompt) settles; false as soon as `signal` aborts, if it
 * does first. Either way its listener is gone when this settles.
 */
const untilTurn = (earlier: Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> => {
  if (signal === undefined) return earlier.then(() => true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const cancel = (): void => resolve(false);
    signal.addEventListener("abort", cancel, { once: true });
    void earlier.finally(() => {
      stopListening(signal, cancel);
      resolve(true);
    });
  });
};

/** The session's transcript, when the agent keeps them and the caller did not name one of their own. */
const openTranscript = (
  config: AgentConfig,
  id: string,
  metadata: Readonly<Record<string, unknown>>,
  notify: (n: Notification) => Promise<void>,
) => {
  if (config.transcript === undefined || metadata.transcriptPath !== undefined) return undefined;
  let told = false;
  const onError = (error: unknown): void => {
    if (told) return;
    told = true;
    void notify({ type: "warning", message: `the transcript of session ${id} could not be written: ${describe(error)}` }).catch(noop);
  };
  const cwd = typeof metadata.cwd === "string" ? metadata.cwd : process.cwd();
  return TranscriptWriter.open(
    transcriptFile(config.transcript.dir, id),
    { sessionId: id, cwd, onError, temporary: !config.transcript.keep },
    config.transcript.isDefault,
  );
};

/**
 * Open a session: runs the `sessionStart` gate.
 *
 * @example
 * const session = await openSession(config, { source: "startup" })
 */
export const openSession = async (config: AgentConfig, options: SessionOptions = {}): Promise<AgentSession> => {
  if (typeof options !== "object" || options === null) throw new TypeError("agent.session: options must be an object");
  // Checked here, where the mistake is made, not by every later prompt.
  if (options.messages !== undefined && !Array.isArray(options.messages))
    throw new TypeError(
      `agent.session: messages must be an array of messages, got ${options.messages === null ? "null" : typeof options.messages}`,
    );
  const id = options.sessionId ?? crypto.randomUUID();
  // Context from `sessionStart` hooks waits for the first model request of the session.
  const pending = new ContextQueue(config.settings.contextRole);
  const given = { ...config.options.metadata, ...options.metadata };
  const transcript = openTranscript(
    config,
    id,
    given,
    notifier(config, { signal: options.signal, sessionId: id, metadata: given, path: [config.name], runId: runIdOf(id, "notify") }),
  );
  const base: RunOptions = {
    signal: options.signal,
    sessionId: id,
    metadata: transcript === undefined ? given : { ...given, transcriptPath: transcript.path },
    path: [config.name],
    trace: config.options.trace,
    onContext: pending.push,
  };
  const messages = options.messages ?? [];
  // A resumed conversation in a new transcript: hooks read it whole.
  if (transcript?.fresh === true && messages.length > 0) transcript.history(messages, config.options.model.id);
  const source = options.source ?? (messages.length > 0 ? "resume" : "startup");
  const opened = await config.stack.run("sessionStart", { sessionId: id, source }, (s) => ({ sessionId: s.sessionId }), {
    ...base,
    runId: runIdOf(id, "start"),
  });
  // A session that never opened has nothing to keep where nothing is kept.
  if (opened._tag !== "Completed" && config.transcript?.keep === false) transcript?.remove();
  if (opened._tag === "Rejected") throw new SessionRejectedError(opened.reason, opened.by, opened.cause);
  if (opened._tag === "Failed") throw opened.error;
  const shared: SessionShared = { env: undefined, envFile: undefined };
  keepSessionEnv(shared, opened);
  return new Session(config, id, base, pending, messages, shared, transcript);
};

class Session implements AgentSession {
  closed = false;
  private closing: Promise<void> | undefined;
  private turns = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly signal: SessionSignal;
  /** Prompts asked and not yet settled: the session is idle (for `idle_prompt`) only at none. */
  private waiting = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  /** The last prompt's id: what runs between prompts (a compaction, the close) carry, as Claude Code's do. */
  private lastPromptId: string | undefined;

  constructor(
    private readonly config: AgentConfig,
    readonly id: string,
    private readonly base: RunOptions,
    private readonly pending: ContextQueue,
    public messages: readonly Message[],
    private readonly shared: SessionShared,
    private readonly transcript: TranscriptWriter | undefined,
  ) {
    this.signal = new SessionSignal(base.signal);
  }

  get transcriptPath(): string | undefined {
    return this.transcript?.path;
  }

  get env(): Readonly<Record<string, string>> | undefined {
    return this.shared.env;
  }

  /** After a turn, with no prompt waiting: tell the user the agent waits for them, once, if they stay away (Claude Code's `idle_prompt`). */
  private settled(): void {
    if (--this.waiting > 0 || this.closed || this.config.settings.idleNotificationMs === false) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (!this.closed && this.waiting === 0)
        void this.notify({ type: "idle_prompt", message: `${this.config.name} is waiting for your input` }).catch(noop);
    }, this.config.settings.idleNotificationMs);
    this.idle.unref?.();
  }

  prompt(text: string, options: PromptOptions = {}): Promise<TurnResult> {
    if (this.closed) return Promise.reject(new Error(`session ${this.id} is closed`));
    if (typeof text !== "string") return Promise.reject(new TypeError("prompt: text must be a string"));
    try {
      promptOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    // The turn number keeps it readable; the random part keeps it unique when a session is resumed
    // with the same id (the count starts again), since run-scoped guard state is kept under it for days.
    return this.enqueue(runIdOf(this.id, ++this.turns), options, (runId, signal) => this.turnBody(runId, text, options, signal));
  }

  resume(state: TurnState, decisions: Readonly<Record<string, unknown>>, options: ResumeOptions): Promise<TurnResult> {
    if (this.closed) return Promise.reject(new Error(`session ${this.id} is closed`));
    let waiting: readonly { readonly call: ToolCall; readonly approval: PendingApproval }[];
    try {
      resumeOptions("session.resume", options);
      waiting = checkResume(state, decisions, options, this.id);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(state.runId, options, (runId, signal) => this.resumeBody(runId, state, waiting, decisions, options, signal));
  }

  /** Queue a turn after the session's earlier ones, following the session's and the caller's signals. */
  private enqueue(
    runId: string,
    options: PromptOptions,
    body: (runId: string, signal: AbortSignal | undefined) => Promise<TurnResult>,
  ): Promise<TurnResult> {
    clearTimeout(this.idle);
    this.waiting++;
    let combined: ReturnType<typeof either>;
    try {
      combined = either(this.signal.acquire(), options.signal);
    } catch (error) {
      this.signal.release();
      this.settled();
      return Promise.reject(error); // a signal that cannot be listened to: this prompt fails, not the caller's code
    }
    const earlier = this.tail;
    // A prompt cancelled while an earlier turn still runs ends then, not when that turn does; no
    // hook runs for it. The next prompt still waits for the earlier turn.
    const turn = untilTurn(earlier, combined.signal)
      .then((ready) => {
        if (ready) return this.turn(runId, body, combined);
        combined.dispose();
        const reason: unknown = combined.signal?.reason;
        return {
          status: "aborted",
          runId,
          text: "",
          steps: 0,
          usage: noUsage,
          error: new RunAbortedError("userPrompt", reason, false),
        } satisfies TurnResult;
      })
      .finally(() => {
        this.signal.release();
        this.settled();
      });
    // Settled once both are, holding no value: a chain of results (`Promise.all` keeps each turn's
    // and the one before it) would keep every finished turn reachable for the session's life.
    this.tail = Promise.all([earlier, turn.catch(noop)]).then(noop);
    return turn;
  }

  private async turn(
    runId: string,
    body: (runId: string, signal: AbortSignal | undefined) => Promise<TurnResult>,
    combined: ReturnType<typeof either>,
  ): Promise<TurnResult> {
    // A turn that does not complete leaves the conversation as it was: its hooks' context is
    // dropped, and context from before it (a `sessionStart` hook's) waits for the next request again.
    const mark = this.pending.mark();
    let completed = false;
    try {
      const result = await body(runId, combined.signal);
      completed = result.status === "completed";
      if (result.status === "failed")
        await this.notify({ type: "error", message: `${this.config.name} failed: ${describe(result.error)}` });
      return result;
    } finally {
      if (completed) this.pending.settle();
      else this.pending.rewind(mark);
      combined.dispose();
    }
  }

  private async turnBody(runId: string, text: string, options: PromptOptions, signal: AbortSignal | undefined): Promise<TurnResult> {
    const promptId = crypto.randomUUID();
    this.lastPromptId = promptId;
    const run: RunOptions = {
      ...this.base,
      signal,
      runId,
      metadata: { ...this.base.metadata, ...this.permissionMode(), promptId, ...options.metadata },
    };
    const empty = { runId, text: "", steps: 0, usage: noUsage };
    const accepted = await this.config.stack.run("userPrompt", { text }, (p) => p as UserPrompt, run);
    if (accepted._tag === "Rejected") return { ...empty, ...rejected(accepted) };
    if (accepted._tag === "Failed") return { ...empty, status: signal?.aborted ? "aborted" : "failed", error: accepted.error };
    const prompt = accepted.value.text;
    this.transcript?.prompt(prompt, promptId);
    const env = rootEnv(this.config, run, this.pending, signal, options.onPart ?? this.config.options.onPart, this.shared, this.transcript);
    const input = this.runInput(env, prompt, this.messages);
    const history = this.messages;
    const stateOf = (pause: LoopPause): UnsignedTurnState => ({
      v: 1,
      agent: this.config.name,
      sessionId: this.id,
      runId,
      prompt,
      history,
      metadata: run.metadata ?? {},
      pause,
      spent: { ...env.spent },
    });
    return this.runTurn(runId, run, env, input, signal, (i) => runLoop(env, promptInMessages(i, input)), stateOf);
  }

  /** A paused turn, resumed: its waiting calls' tokens claimed, its `run` point run again from the paused step. */
  private async resumeBody(
    runId: string,
    state: TurnState,
    waiting: readonly { readonly call: ToolCall; readonly approval: PendingApproval }[],
    decisions: Readonly<Record<string, unknown>>,
    options: ResumeOptions,
    signal: AbortSignal | undefined,
  ): Promise<TurnResult> {
    // Every token is checked (signature, expiry, store) before any is claimed: a refused one consumes none.
    for (const { approval } of waiting) await options.approvals.inspect(approval.token);
    const answers = new Map<string, { readonly call: ToolCall; readonly approval: NonNullable<RunOptions["approval"]> }>();
    for (const { call, approval } of waiting) {
      const claimed = await options.approvals.claim(approval.token, decisions[approval.id]);
      const asked = claimed.input as Partial<ToolCall> | undefined;
      // What runs is what the store kept for the signed token; the state only says where it goes.
      if (claimed.point !== "toolCall" || asked?.id !== call.id || asked.name !== call.name)
        throw new ApprovalTamperedError(
          approval.id,
          `the turn state's call ${call.id} is not the call approval ${approval.id} was asked about`,
        );
      answers.set(approval.id, {
        call: claimed.input as ToolCall,
        approval: claimed.options.approval as NonNullable<RunOptions["approval"]>,
      });
    }
    // The paused turn's metadata (its prompt's), under this session's (a transcript of this process) and the caller's.
    const run: RunOptions = { ...this.base, signal, runId, metadata: { ...state.metadata, ...this.base.metadata, ...options.metadata } };
    const env = rootEnv(this.config, run, this.pending, signal, options.onPart ?? this.config.options.onPart, this.shared, this.transcript);
    env.spent.steps = state.spent.steps;
    env.spent.usage = state.spent.usage;
    const input = this.runInput(env, state.prompt, state.history);
    // The paused step's calls run once, even if a `run` hook runs the loop again.
    let finishing: ReturnType<typeof finishPausedStep> | undefined;
    const operation = async (i: DeepReadonly<RunInput>): Promise<RunResult> => {
      finishing ??= finishPausedStep(env, i, state.pause, answers);
      const start = await finishing;
      return "finishReason" in start ? start : runLoop(env, promptInMessages(i, input), start);
    };
    const { signature: _, ...before } = state;
    const stateOf = (pause: LoopPause): UnsignedTurnState => ({ ...before, metadata: run.metadata ?? {}, pause, spent: { ...env.spent } });
    return this.runTurn(runId, run, env, input, signal, operation, stateOf);
  }

  /** The `run` point's input for a prompt after `history`. */
  private runInput(env: LoopEnv, prompt: string, history: readonly Message[]): RunInput {
    return {
      prompt,
      messages: [...history, { role: "user", content: prompt }],
      tools: env.tools.map(toolSpec),
      ...(this.config.options.system !== undefined ? { system: this.config.options.system } : {}),
    };
  }

  /** Run the `run` point around `loop`, deciding about failures, and say how the turn ended. */
  private async runTurn(
    runId: string,
    run: RunOptions,
    env: LoopEnv,
    input: RunInput,
    signal: AbortSignal | undefined,
    loop: (input: DeepReadonly<RunInput>) => Promise<RunResult>,
    stateOf: (pause: LoopPause) => UnsignedTurnState,
  ): Promise<TurnResult> {
    const empty = { runId, text: "", steps: 0, usage: noUsage };
    // A retried run starts from here: what its attempt took from the queue (a sessionStart or
    // userPrompt hook's context) waits again, and what its own hooks added goes (they add it again).
    const beforeRun = this.pending.mark();
    for (let attempt = 1; ; attempt++) {
      // So does an attempt an `around` hook starts again: it gets what the first one took.
      const outcome = await this.config.stack.run("run", input, this.pending.restartable(beforeRun, loop), run);
      if (outcome._tag === "Completed" && outcome.value.paused !== undefined)
        return this.interrupted(runId, outcome.value, outcome.value.paused, env.spent, stateOf);
      if (outcome._tag === "Completed") return this.completed(runId, outcome.value, env.spent);
      // Not completed: still what the turn spent (steps, and tokens, sub-agents included).
      const spent = { ...empty, steps: env.spent.steps, usage: env.spent.usage };
      if (outcome._tag === "Rejected") return { ...spent, ...rejected(outcome) };
      const error = outcome.error;
      if (signal?.aborted) return { ...spent, status: "aborted", error };
      // Failures already decided by the `error` point (model, tool) end the turn; others are asked about now.
      if (error instanceof AgentRunError) return { ...spent, status: "failed", error: error.cause };
      const deciding = this.pending.mark();
      const decision = await decide(env, { where: "loop", error, attempt });
      if (decision.action === "retry") {
        this.pending.rewindKeeping(beforeRun, deciding);
        continue;
      }
      if (decision.action === "recover") {
        const answer = contentText(decision.value);
        return this.completed(
          runId,
          {
            text: answer,
            steps: 0,
            usage: noUsage,
            finishReason: "stop",
            messages: [...input.messages, { role: "assistant", content: answer }],
          },
          env.spent,
        );
      }
      return { ...spent, status: "failed", error };
    }
  }

  /** A turn paused for approvals: the session's conversation stays as it was until the turn is resumed and completes. */
  private interrupted(
    runId: string,
    result: RunResult,
    pause: LoopPause,
    spent: { readonly steps: number; readonly usage: Usage },
    stateOf: (pause: LoopPause) => UnsignedTurnState,
  ): TurnResult {
    const approvals = pause.step.calls.flatMap((c) => (c.approval !== undefined ? [c.approval] : []));
    // Plain JSON, as it will be stored: nothing of this process (a getter, a class instance) rides
    // along; signed as such, with the key of the approvals that paused it.
    const state = signTurnState(this.config.stack.options.approval, JSON.parse(JSON.stringify(stateOf(pause))) as UnsignedTurnState);
    return {
      status: "interrupted",
      runId,
      text: "",
      finishReason: "interrupted",
      steps: spent.steps,
      usage: spent.usage,
      result,
      approvals,
      state,
    };
  }

  /** Steps and usage are the turn's: every attempt, and every model call, sub-agents' included (see LoopEnv.spent). */
  private completed(runId: string, result: RunResult, spent: { readonly steps: number; readonly usage: Usage }): TurnResult {
    this.messages = result.messages;
    return {
      status: "completed",
      runId,
      text: result.text,
      finishReason: result.finishReason,
      steps: spent.steps,
      usage: spent.usage,
      result,
    };
  }

  /** The session's permission mode as hooks read it (`permission_mode`), when the agent has a permission policy. */
  private permissionMode(): { permissionMode?: string } {
    const policy = this.config.permissions;
    return policy === undefined ? {} : { permissionMode: policy.mode(this.id) };
  }

  /** The options of a run of the session outside its turns. */
  private between(what: string): RunOptions {
    const metadata = this.lastPromptId === undefined ? this.base.metadata : { ...this.base.metadata, promptId: this.lastPromptId };
    return { ...this.base, runId: runIdOf(this.id, what), metadata };
  }

  compact(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`session ${this.id} is closed`));
    const work = this.tail.then(async () => {
      const run = this.between("compact");
      const env = rootEnv(this.config, run, this.pending, this.base.signal, undefined, this.shared, this.transcript);
      this.messages = await compact(env, this.messages, this.config.options.system, "manual");
    });
    this.tail = work.catch(() => undefined);
    return work;
  }

  notify(notification: Notification): Promise<void> {
    return notifier(this.config, this.between("notify"))(notification);
  }

  /** Every call resolves once `sessionEnd` has run, a second one included (it does not run it twice). */
  close(reason: SessionEnd["reason"] = "other"): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      clearTimeout(this.idle);
      await this.tail;
      await this.config.stack.run("sessionEnd", { sessionId: this.id, reason }, () => undefined, {
        ...this.between("end"),
        signal: undefined,
      });
      if (this.config.transcript?.keep === false) this.transcript?.remove();
      this.config.permissions?.drop(this.id);
    })();
    return this.closing;
  }
}
