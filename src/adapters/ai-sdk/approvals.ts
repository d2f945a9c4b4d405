/**
 * Where the person's answer to the AI SDK's tool approval is read, per stack. `wrapAiSdkTools`
 * (with `approval: "ai-sdk"`) asks through the SDK's flow; the answer settles the call wherever it
 * shows up first:
 *
 * - an approval: in the `tool-approval-response` the SDK hands back to the wrapped tool (its
 *   `needsApproval`, asked again before executing an approved call, or `execute`);
 * - a denial: the SDK never calls the tool again for it, so it is read from what comes next: the
 *   `execution-denied` tool result in the prompt of the next provider call through
 *   `aiSdkMiddleware` on the same stack, or the `tool-approval-response` in the messages of the next
 *   call of any wrapped tool of that stack.
 *
 * A question a run waits on in this process (an in-process approver) is settled here by tool call
 * id, and only by an answer about exactly what it asked: the messages' call to that id must name
 * the same tool with the same input (by digest), or the answer is a denial. The client writes the
 * conversation (chat apps send it from the browser), so an approval is honoured only as the answer
 * to a question this process asked and still waits on, once; `wrapAiSdkTools` refuses any other.
 * Denials no run here waits on go to the readers the wrapped tool sets registered: with durable
 * approvals they resume the paused run with the denial (once, across processes, by the store's
 * claim); without, they record the denial by a run whose operation is never called.
 */
import { digestOf } from "../../core/approval-token.ts";
import { AgentOnionError } from "../../core/errors.ts";
import type { ApprovalAnswer } from "../../core/approval-types.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import type { ToolCall, ToolResult } from "../../agent/types.ts";

/** Who decided, in the trace and the audit log. */
export const sdkApprover = "ai-sdk tool approval";

/** The reason a denial without one gets. */
export const deniedWithoutReason = "denied through the AI SDK's tool approval";

/**
 * The person's answer to a call, from messages the SDK passes to a tool (`ModelMessage`s): the
 * `tool-approval-response` to the `tool-approval-request` for that call, read as an approval answer.
 *
 * @example
 * sdkAnswer(messages, "call-1") // { decision: "deny", by: "ai-sdk tool approval", reason: "not now" }
 */
export const sdkAnswer = (messages: readonly unknown[] | undefined, toolCallId: string): ApprovalAnswer | undefined => {
  const parts = (role: string): Record<string, unknown>[] =>
    (messages ?? []).flatMap((m) => {
      const message = m as { role?: unknown; content?: unknown };
      return message?.role === role && Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    });
  const ids = new Set(
    parts("assistant")
      .filter((p) => p?.type === "tool-approval-request" && p.toolCallId === toolCallId)
      .map((p) => p.approvalId),
  );
  if (ids.size === 0) return undefined;
  const response = parts("tool").find((p) => p?.type === "tool-approval-response" && ids.has(p.approvalId));
  if (response === undefined) return undefined;
  const reason = typeof response.reason === "string" && response.reason !== "" ? response.reason : undefined;
  // Only `approved: true` approves; the SDK does not execute denied calls, but a malformed answer is a denial too.
  return response.approved === true
    ? { decision: "approve", by: sdkApprover, ...(reason !== undefined ? { reason } : {}) }
    : { decision: "deny", by: sdkApprover, reason: reason ?? deniedWithoutReason };
};

/**
 * The assistant's call to `toolCallId` in messages the SDK passes to a tool (`tool-call` part), if any.
 *
 * @example
 * callIn(messages, "call-1") // { type: "tool-call", toolCallId: "call-1", toolName: "bash", input: { command: "ls" } }
 */
export const callIn = (messages: readonly unknown[] | undefined, toolCallId: string): Record<string, unknown> | undefined =>
  callsIn(messages ?? []).get(toolCallId);

/** What a waiting question asked about: the tool, the digest of the input the SDK gave it, and the conversation. */
export interface Question {
  readonly name: string;
  readonly digest: string;
  /** The conversation that was asked (the run's `sessionId`): only its messages answer the question. */
  readonly session: string | undefined;
  /** Called once, with the person's answer (or a denial saying why an answer was not about this question). */
  readonly answer: (answer: ApprovalAnswer) => void;
  /** Ends the question's run with `error`: it waited too long, or too many others wait. */
  readonly evict: (error: ApprovalEvictedError) => void;
}

/** Why a question or held run was dropped: too old, too many waiting, or another took its call id. */
export type EvictedWhy = "expired" | "limit" | "replaced";

/**
 * Why a question (or a run held for the SDK's `execute`) was dropped from memory before its answer
 * came: it waited longer than `waiting.ttlMs` (`why: "expired"`), more than `waiting.max` waited
 * on the stack and it was the oldest (`why: "limit"`), or another question or run of the same tool
 * call id took its place (`why: "replaced"`: providers that number calls per response reuse ids). Its run ends `Failed` with a
 * `RunAbortedError` whose cause is this error; an answer that comes later is refused.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error.cause instanceof ApprovalEvictedError // the user walked away
 */
export class ApprovalEvictedError extends AgentOnionError {
  override name = "ApprovalEvictedError";
  constructor(
    readonly toolCallId: string,
    readonly why: EvictedWhy,
    limits: WaitingLimits,
  ) {
    super(
      `the question about tool call ${toolCallId} was dropped: ${
        why === "expired"
          ? `no answer within ${limits.ttlMs} ms (waiting.ttlMs)`
          : why === "replaced"
            ? "another question or run of the same tool call id took its place"
            : `more than ${limits.max} questions and held runs waited on this stack (waiting.max), and it was the oldest`
      }`,
    );
  }
}

/** Bounds on what waits in memory for answers through the SDK, per stack. */
export interface WaitingLimits {
  /** At most this many questions, and as many runs held for `execute`; the oldest goes first. */
  readonly max: number;
  /** Each is dropped after this many ms. */
  readonly ttlMs: number;
}

/** The bounds a stack's questions get unless `wrapAiSdkTools` is given others. */
export const defaultWaiting: WaitingLimits = Object.freeze({ max: 10_000, ttlMs: 30 * 60 * 1000 });

/**
 * A map whose entries each end after `ttlMs`, and whose oldest entry goes when it holds more than
 * `max`; `onEvict` hears of each entry dropped so.
 *
 * @example
 * const m = new Bounded<string>(() => ({ max: 2, ttlMs: 1000 }), (id, v, why) => console.log(id, why))
 */
export class Bounded<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly timer: ReturnType<typeof setTimeout> }>();
  constructor(
    private readonly limits: () => WaitingLimits = () => defaultWaiting,
    private readonly onEvict: (id: string, value: V, why: EvictedWhy) => void = () => {},
  ) {}

  /** How many entries wait. */
  get size(): number {
    return this.entries.size;
  }

  /** True when `id` waits. */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** The entry of `id`. */
  get(id: string): V | undefined {
    return this.entries.get(id)?.value;
  }

  /** The entries, oldest first. */
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const [id, e] of this.entries) yield [id, e.value];
  }

  /** Keep `value` under `id` (as the newest), dropping the oldest beyond the limit. */
  set(id: string, value: V): void {
    // What waited under the same id is ended, not forgotten: its run must settle.
    this.evict(id, "replaced");
    const { max, ttlMs } = this.limits();
    const timer = setTimeout(() => this.evict(id, "expired"), ttlMs);
    // A question nobody answers must not keep the process alive.
    timer.unref?.();
    this.entries.set(id, { value, timer });
    while (this.entries.size > max) this.evict(this.entries.keys().next().value as string, "limit");
  }

  /** Stop keeping `id`. */
  delete(id: string): boolean {
    const e = this.entries.get(id);
    if (e === undefined) return false;
    clearTimeout(e.timer);
    this.entries.delete(id);
    return true;
  }

  private evict(id: string, why: EvictedWhy): void {
    const e = this.entries.get(id);
    if (e === undefined || !this.delete(id)) return;
    this.onEvict(id, e.value, why);
  }
}

/**
 * The digest a question binds its answer to: of the call's input as the SDK gives it to the tool.
 *
 * @example
 * inputDigest({ command: "ls" }) === inputDigest({ command: "ls" }) // true
 */
export const inputDigest = (input: unknown): string => digestOf(input ?? null);

/**
 * A run `needsApproval` started that reached the tool, or that a person approved: it waits for the
 * SDK's `execute` to run it (`release` with `undefined`: the tool must not run).
 */
export interface Held {
  /** The call as the run began it: `execute` answers for it without copying the input again. */
  readonly call: ToolCall;
  /** The conversation whose call it is (the run's `sessionId`): only its `execute` takes it. */
  readonly session: string | undefined;
  /** Ends the held run with `error`: it waited too long for `execute`, or too many others wait. */
  readonly evict: (error: ApprovalEvictedError) => void;
  readonly release: (sdk: { readonly toolCallId: string; readonly abortSignal?: AbortSignal | undefined } | undefined) => void;
  readonly outcome: Promise<Outcome<DeepReadonly<ToolResult>>>;
}

/** A call the person denied, as the SDK's messages or the provider prompt show it. */
export interface SdkDenial {
  readonly toolCallId: string;
  /** True for an answer of this very call (the SDK acts on it now), false for one further back in the conversation. */
  readonly fresh: boolean;
  /** The tool's name, and the call's input, when the messages hold the call. */
  readonly toolName: string | undefined;
  readonly input: unknown;
  readonly answer: ApprovalAnswer & { readonly decision: "deny" };
}

/** Reads denials no run of this process waits on; what it returns is awaited by the reader of the prompt. */
export type DenialReader = (denials: readonly SdkDenial[]) => Promise<void> | undefined;

/** Tool calls by id, from assistant messages' `tool-call` parts. */
const callsIn = (messages: readonly unknown[]): Map<unknown, Record<string, unknown>> => {
  const calls = new Map<unknown, Record<string, unknown>>();
  for (const m of messages) {
    const message = m as { role?: unknown; content?: unknown };
    if (message?.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const p of message.content as Record<string, unknown>[]) if (p?.type === "tool-call") calls.set(p.toolCallId, p);
  }
  return calls;
};

const denial = (toolCallId: string, call: Record<string, unknown> | undefined, reason: unknown, fresh: boolean): SdkDenial => ({
  toolCallId,
  fresh,
  toolName: typeof call?.toolName === "string" ? call.toolName : undefined,
  input: call?.input,
  answer: { decision: "deny", by: sdkApprover, reason: typeof reason === "string" && reason !== "" ? reason : deniedWithoutReason },
});

/**
 * The denials in messages the SDK passes to a tool: each `tool-approval-response` that does not
 * approve, with the call its request names. Those in the last message, when it is a tool message,
 * are `fresh`: the answers the SDK acts on in this call (as its own `collectToolApprovals` reads them).
 *
 * @example
 * deniedIn(messages) // [{ toolCallId: "call-1", fresh: true, toolName: "bash", answer: { decision: "deny", by: "ai-sdk tool approval", reason: "frozen" } }]
 */
export const deniedIn = (messages: readonly unknown[] | undefined): SdkDenial[] => {
  if (messages === undefined || messages.length === 0) return [];
  const contentOf = (m: unknown, role: string): Record<string, unknown>[] => {
    const message = m as { role?: unknown; content?: unknown };
    return message?.role === role && Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
  };
  const last = messages.at(-1);
  const responses = messages.flatMap((m) =>
    contentOf(m, "tool")
      .filter((p) => p?.type === "tool-approval-response" && p.approved !== true)
      .map((p) => [p, m === last] as const),
  );
  if (responses.length === 0) return [];
  const requests = new Map<unknown, string>();
  for (const m of messages)
    for (const p of contentOf(m, "assistant"))
      if (p?.type === "tool-approval-request" && typeof p.toolCallId === "string") requests.set(p.approvalId, p.toolCallId);
  const calls = callsIn(messages);
  const out: SdkDenial[] = [];
  for (const [r, fresh] of responses) {
    const id = requests.get(r.approvalId);
    if (id !== undefined) out.push(denial(id, calls.get(id), r.reason, fresh));
  }
  return out;
};

/**
 * The questions waiting on one stack, by tool call id, and the readers of denials nobody here
 * waits on. A class: the middleware reads `active` on every provider call, and only walks the
 * prompt when something listens.
 *
 * @example
 * const asked = askedCalls(stack); asked.add("call-1", (answer) => console.log(answer.decision))
 * asked.answerFromPrompt(params.prompt) // "deny", if the prompt holds call-1's execution-denied result
 */
export class AskedCalls {
  /** The bounds on `waiting` and `held` (set by `wrapAiSdkTools`' `waiting` option; the last given applies). */
  limits: WaitingLimits = defaultWaiting;
  private readonly waiting = new Bounded<Question>(
    () => this.limits,
    (id, question, why) => {
      // A question replaced by another of the same id ends, but the id is the newer one's now.
      if (why !== "replaced") this.dropped(id, why);
      question.evict(new ApprovalEvictedError(id, why, this.limits));
    },
  );
  /**
   * Runs `needsApproval` started that wait for the SDK's `execute`, by tool call id: per stack, so
   * that tools wrapped anew for each request find the run an earlier request's tools started.
   */
  readonly held = new Bounded<Held>(
    () => this.limits,
    (id, held, why) => {
      if (why !== "replaced") this.dropped(id, why);
      held.evict(new ApprovalEvictedError(id, why, this.limits));
    },
  );
  /** Calls whose question or held run was dropped, and why (bounded as `handled`): a later answer is refused saying so. */
  private readonly evicted = new Map<string, string>();
  /**
   * Readers, held weakly: a wrapped tool set's tools hold its reader, so it reads for as long as any
   * of them is in use, and goes with them (apps may wrap their tools per request).
   */
  private readonly readers: WeakRef<DenialReader>[] = [];
  private readonly registered = new WeakSet<DenialReader>();
  /** The person's answers this process knows, by tool call id, while a run for that call goes on (the gate reads them). */
  readonly known = new Map<string, ApprovalAnswer>();
  /** Calls whose tool's own `needsApproval` said true, while the run `needsApproval` started asks about them. */
  readonly asking = new Set<string>();
  /** Calls whose denial this process acted on (settled a question, or gave it to a reader that took it), oldest first. */
  private readonly handled = new Set<string>();

  /** How many questions wait. */
  get size(): number {
    return this.waiting.size;
  }

  /** True when a question waits, or a wrapped tool set reads denials: the prompt is worth reading. */
  get active(): boolean {
    return this.waiting.size > 0 || this.readers.length > 0;
  }

  /** Wait for the answer to the question about `toolCallId`; its `answer` is called once, with it. */
  add(toolCallId: string, question: Question): void {
    this.waiting.set(toolCallId, question);
  }

  /** Stop waiting (the hook gave up, or the answer came). */
  delete(toolCallId: string): void {
    this.waiting.delete(toolCallId);
  }

  /** Why the question about `toolCallId` was dropped before its answer came, if it was. */
  droppedWhy(toolCallId: string): string | undefined {
    return this.evicted.get(toolCallId);
  }

  private dropped(id: string, why: EvictedWhy): void {
    this.evicted.set(id, new ApprovalEvictedError(id, why, this.limits).message);
    if (this.evicted.size > maxHandled) this.evicted.delete(this.evicted.keys().next().value as string);
    this.take(id);
  }

  /** Give denials no question here waits on to `reader` (a wrapped tool set's; it picks its own tools), while it lives. */
  read(reader: DenialReader): void {
    if (this.registered.has(reader)) return;
    this.registered.add(reader);
    this.readers.push(new WeakRef(reader));
  }

  /**
   * True the first time it is asked about a call: whoever reads a denial takes it before acting on
   * it, so one denial seen by the middleware and by a tool (or twice in the history) is acted on once here.
   */
  take(toolCallId: string): boolean {
    if (this.handled.has(toolCallId)) return false;
    this.handled.add(toolCallId);
    // Bounded: a long-lived process forgets the oldest (a durable claim still refuses a second resume).
    if (this.handled.size > maxHandled) this.handled.delete(this.handled.values().next().value as string);
    return true;
  }

  /**
   * Answer each waiting question of `session` the messages a tool was given answer
   * (`tool-approval-response`). An approval counts only when the messages' call to that id names
   * the tool and the input asked about: the SDK executes the call as the messages hold it, and the
   * client writes them. Questions of other conversations are not theirs to answer: they go on waiting.
   */
  answerFrom(messages: readonly unknown[] | undefined, session: () => string | undefined): void {
    if (this.waiting.size === 0 || messages === undefined) return;
    let conversation: { readonly id: string | undefined } | undefined;
    for (const [id, question] of [...this.waiting]) {
      const answer = sdkAnswer(messages, id);
      if (answer === undefined) continue;
      conversation ??= sessionOf(session);
      // An approval only from the conversation that was asked; a denial also from messages of none named.
      if (conversation === undefined) continue;
      if (conversation.id !== question.session && (answer.decision === "approve" || conversation.id !== undefined)) continue;
      const mismatch = answer.decision === "approve" ? mismatchOf(question, callIn(messages, id)) : undefined;
      this.settle(id, mismatch === undefined ? answer : { decision: "deny", by: sdkApprover, reason: mismatch });
    }
  }

  /**
   * Deny each waiting question whose call the provider prompt shows as denied: the SDK turns a
   * denial into an `execution-denied` tool result, with the person's reason, in the next provider
   * call. Denials in the prompt's last tool messages (those of this call's answers) that no question
   * waits on go to the readers; what they do is awaited (it never rejects).
   */
  answerFromPrompt(
    prompt: readonly { readonly role: string; readonly content: unknown }[],
    session: () => string | undefined,
  ): Promise<void> | undefined {
    if (!this.active) return undefined;
    const others: [string, unknown][] = [];
    let conversation: { readonly id: string | undefined } | undefined;
    // A denial is this prompt's to give only when the prompt is of the conversation that was asked,
    // or of none the application named (a model wrapped without a `sessionId`: it cannot tell, and a
    // denial never lets a call run).
    const ours = (id: string): boolean => {
      const question = this.waiting.get(id);
      if (question === undefined) return false;
      conversation ??= sessionOf(session);
      return conversation !== undefined && (conversation.id === undefined || conversation.id === question.session);
    };
    // Walking back from the end: the tool messages after the last assistant message are this call's answers.
    let fresh = true;
    for (let i = prompt.length - 1; i >= 0; i--) {
      const message = prompt[i] as (typeof prompt)[number];
      if (message.role === "assistant") fresh = false;
      if (message.role !== "tool" || !Array.isArray(message.content)) continue;
      if (!fresh && this.waiting.size === 0) break;
      for (const part of message.content as Record<string, unknown>[]) {
        if (part?.type !== "tool-result" || typeof part.toolCallId !== "string") continue;
        const output = part.output as { type?: unknown; reason?: unknown } | undefined;
        if (output?.type !== "execution-denied") continue;
        if (ours(part.toolCallId)) this.settle(part.toolCallId, denial(part.toolCallId, undefined, output.reason, fresh).answer);
        else if (fresh && this.readers.length > 0) others.push([part.toolCallId, output.reason]);
      }
    }
    if (others.length === 0) return undefined;
    const calls = callsIn(prompt);
    return this.give(others.map(([id, reason]) => denial(id, calls.get(id), reason, true)));
  }

  /** Hand denials no question here waits on to the readers; settles when they are done, never rejects. */
  give(denials: readonly SdkDenial[]): Promise<void> | undefined {
    if (this.readers.length === 0 || denials.length === 0) return undefined;
    const work: Promise<void>[] = [];
    for (const ref of [...this.readers]) {
      const reader = ref.deref();
      if (reader === undefined) {
        this.readers.splice(this.readers.indexOf(ref), 1);
        continue;
      }
      let done: Promise<void> | undefined;
      try {
        done = reader(denials);
      } catch {
        // A reader that fails (the app's run options threw) must not fail the provider call or the tool reading.
        continue;
      }
      if (done !== undefined) work.push(done);
    }
    return work.length === 0 ? undefined : Promise.allSettled(work).then(() => undefined);
  }

  private settle(id: string, answer: ApprovalAnswer): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    this.take(id);
    waiting?.answer(answer);
  }
}

/** The conversation `session` names; undefined when the application's run options throw (no question is then answered). */
const sessionOf = (session: () => string | undefined): { readonly id: string | undefined } | undefined => {
  try {
    return { id: session() };
  } catch {
    return undefined;
  }
};

/** Why an approval whose messages hold `call` is not about `question`, or undefined when it is. */
const mismatchOf = (question: Question, call: Record<string, unknown> | undefined): string | undefined => {
  const not = "the approval in the conversation is not an approval of what the person was asked about";
  if (call === undefined) return `${not}: the conversation holds no call with this id`;
  if (call.toolName !== question.name)
    return `${not}: it is for the tool ${JSON.stringify(call.toolName)}, the question was about ${JSON.stringify(question.name)}`;
  let digest: string | undefined;
  try {
    digest = inputDigest(call.input);
  } catch {
    // An input that cannot be read as JSON is not the one that was asked about.
  }
  return digest === question.digest ? undefined : `${not}: the call's input differs from the input the question was about`;
};

/**
 * Why `execute` refuses a call whose messages approve it, when no question of this process waits
 * on that approval: in-process approvals are honoured only as answers to this process's questions.
 *
 * @example
 * notAnApproval("bash", "call-1") // "the approval of bash call call-1 in the conversation is not an approval: ..."
 */
export const notAnApproval = (name: string, toolCallId: string): string =>
  `the approval of ${name} call ${toolCallId} in the conversation is not an approval: no question of this process waits for it ` +
  "(it was never asked here, was asked before a restart or in another process, was already answered, its asking hook stopped " +
  "waiting, or the call's tool or input changed since)";

/**
 * Why `execute` refuses a call whose messages approve it after its question was dropped from memory.
 *
 * @example
 * droppedApproval("bash", "call-1", "the question about tool call call-1 was dropped: ...")
 */
export const droppedApproval = (name: string, toolCallId: string, why: string): string =>
  `the approval of ${name} call ${toolCallId} in the conversation is not an approval: its question was dropped before the answer came (${why})`;

/**
 * The reason a denial is recorded with when no question of this process waits for it (without
 * durable approvals): nothing ties it to a question a person was asked, so the record does not say a
 * person denied the call. It still refuses the call: a denial never lets anything run.
 *
 * @example
 * notAPersonsAnswer("bash", "call-1", "frozen") // "the denial of bash call call-1 in the conversation is not a person's answer ..."
 */
export const notAPersonsAnswer = (name: string, toolCallId: string, reason: string | undefined): string =>
  `the denial of ${name} call ${toolCallId} in the conversation is not a person's answer to a question of this process ` +
  "(none waits for it: it was never asked here, or was asked in another process, before a restart or in another conversation); " +
  `the call does not run${reason !== undefined && reason !== deniedWithoutReason ? ` (the conversation's reason: ${JSON.stringify(reason)})` : ""}`;

/**
 * Why `execute` refuses a call approved with durable approvals whose paused run asked about another
 * tool or input than the call the SDK executes (the conversation's tool call was changed).
 *
 * @example
 * notTheQuestion("bash", "call-1") // "the approval of bash call call-1 in the conversation is not an approval of what ..."
 */
export const notTheQuestion = (name: string, toolCallId: string): string =>
  `the approval of ${name} call ${toolCallId} in the conversation is not an approval of what the person was asked about: ` +
  "the call's tool or input differs from the call that was paused";

/**
 * Why `execute` refuses a call approved with durable approvals when no paused run is linked to it.
 *
 * @example
 * noPausedApproval("bash", "call-1") // "the approval of bash call call-1 in the conversation is not an approval: ..."
 */
export const noPausedApproval = (name: string, toolCallId: string): string =>
  `the approval of ${name} call ${toolCallId} in the conversation is not an approval: no paused approval is linked to this call ` +
  "(it was never asked, or its pending approval expired)";

/** How many handled calls a process remembers per stack. */
const maxHandled = 10_000;

const byStack = new WeakMap<object, AskedCalls>();

/**
 * The questions waiting on `stack` (made on first use): what `wrapAiSdkTools` and
 * `aiSdkMiddleware` given the same stack share.
 *
 * @example
 * askedCalls(stack).size // 0 while no hook waits for a person's answer through the SDK
 */
export const askedCalls = (stack: object): AskedCalls => {
  let asked = byStack.get(stack);
  if (asked === undefined) byStack.set(stack, (asked = new AskedCalls()));
  return asked;
};
