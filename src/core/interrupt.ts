/**
 * Durable approvals: a run that asks for approval stops, instead of waiting, with a signed,
 * serializable pending approval, and is resumed later, in any process that shares the store,
 * exactly once.
 *
 * How it works. `ctx.approve` hands the request to `ask`, which records it in the store (under
 * a random id, with the run's input and options, for `ttlMs`) and returns it pending: the asking
 * hook gets a denial carrying it, rejects, and the run's outcome is `Interrupted` (a `Rejected`
 * with an `approval`). `resume(stack, token, decision, operation)` checks the token's signature
 * and expiry, claims it in the store with an atomic increment (the first claim wins; any later one,
 * from any process, is refused), and runs the point again from its start with an approver that
 * answers that hook, asking about that same input (by digest), with the decision. Hooks outside the
 * asking one run again; the decision is recorded in the trace as the asking hook's `approval`
 * decision. If the resumed run asks again (another hook, or the same hook about another input), it
 * pauses again, and its new token carries the decisions already taken, so they are not asked twice.
 */
import { randomUUID } from "node:crypto";
import { readAnswer } from "./approval-answer.ts";
import { digestOf, readToken, signToken, signValue, signingKeys, valueSigned, type TokenClaims } from "./approval-token.ts";
import {
  durableApprover,
  type ApprovalDecision,
  type DurableAnswer,
  type DurableApprover,
  type DurableAsk,
  type PendingApproval,
} from "./approval-types.ts";
import type { RunOptions } from "./context.ts";
import { AgentOnionError, describeGiven } from "./errors.ts";
import type { Outcome } from "./outcome.ts";
import type { StateStore } from "./state.ts";

/** Options of `durableApprovals`: where pending approvals are kept, the signing key, how long they wait. */
export interface DurableApprovalsOptions {
  /** Where pending approvals and claims are kept: a `RedisStore` to resume in another process, a `MemoryStore` within one. */
  readonly store: StateStore;
  /**
   * The HMAC-SHA256 key that signs tokens: a secret of at least 32 bytes, or a list of them (the
   * first signs, every one verifies, so a key can be rotated without refusing tokens in flight).
   */
  readonly key: string | Uint8Array | readonly (string | Uint8Array)[];
  /** How long an approval can be answered, in ms; default 24 hours. */
  readonly ttlMs?: number;
  /** The prefix of the keys used in the store; default `approvals`. */
  readonly prefix?: string;
  /** The clock, in ms since the epoch; default `Date.now`. */
  readonly now?: () => number;
}

/** A decision already taken for one question, replayed when the run asks it again. */
interface Replay {
  readonly id: string;
  readonly hook: string;
  readonly digest: string;
  readonly decision: ApprovalDecision;
}

/** What the store keeps for a pending approval. */
interface StoredApproval {
  readonly v: 1;
  readonly id: string;
  readonly point: string;
  readonly hook: string;
  readonly subject?: string;
  readonly reason?: string;
  readonly input: unknown;
  readonly digest: string;
  readonly runInput: unknown;
  readonly requestedAt: number;
  readonly expiresAt: number;
  readonly sessionId?: string;
  readonly runId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
  /** Decisions taken on earlier resumes of this run, replayed again on the next. */
  readonly prior: readonly Replay[];
}

/**
 * A claimed approval: the decision (read strictly; a malformed one is a denial) and what to run
 * again with it. Each token gives one, once.
 */
export interface ClaimedApproval {
  /** The approval as it was asked. */
  readonly approval: PendingApproval;
  /** The person's decision, as read: anything but a well-formed approve or edit is a `deny`. */
  readonly decision: ApprovalDecision;
  /** The point to run again, and the input the paused run started with. */
  readonly point: string;
  readonly input: unknown;
  /**
   * Options for that run: the paused run's session, run id, metadata and path, and an approver
   * (`approval`) that answers the asking hook with the decision, and asks anything else anew.
   */
  readonly options: RunOptions;
}

/** Anything with a `run` like a stack's (`createStack`, `createAgentStack`). */
export interface ResumableStack {
  /** Runs a point, as `HookStack.run` does. */
  run(point: any, input: any, operation: any, options?: RunOptions): Promise<Outcome<any>>;
}

/** Why a token was refused. */
export type ApprovalTokenProblem = "tampered" | "expired" | "replayed" | "unknown";

/**
 * A token `resume` (or `claim`, `inspect`) refused; `kind` says why, and so does the subclass.
 *
 * @example
 * try { await approvals.resume(stack, token, decision, run) } catch (e) { if (e instanceof ApprovalTokenError) reply(409, e.kind) }
 */
export class ApprovalTokenError extends AgentOnionError {
  override name = "ApprovalTokenError";
  constructor(
    readonly kind: ApprovalTokenProblem,
    /** The approval's id, when the token could be read. */
    readonly approvalId: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The token was not signed with this key, was changed, or is not a token at all.
 *
 * @example
 * await approvals.claim(token.replace(/.$/, "x"), { decision: "approve" }) // throws ApprovalTamperedError
 */
export class ApprovalTamperedError extends ApprovalTokenError {
  override name = "ApprovalTamperedError";
  constructor(approvalId: string | undefined, why: string) {
    super("tampered", approvalId, `approval token refused: ${why}`);
  }
}

/**
 * The approval can no longer be answered: its time ran out.
 *
 * @example
 * e instanceof ApprovalExpiredError && new Date(e.expiresAt).toISOString()
 */
export class ApprovalExpiredError extends ApprovalTokenError {
  override name = "ApprovalExpiredError";
  constructor(
    approvalId: string,
    readonly expiresAt: number,
  ) {
    super("expired", approvalId, `approval ${approvalId} expired at ${new Date(expiresAt).toISOString()}`);
  }
}

/**
 * The approval was already answered: its token was claimed before, here or in another process.
 *
 * @example
 * await approvals.claim(token, { decision: "approve" }); await approvals.claim(token, { decision: "approve" }) // the second throws ApprovalReplayedError
 */
export class ApprovalReplayedError extends ApprovalTokenError {
  override name = "ApprovalReplayedError";
  constructor(approvalId: string) {
    super("replayed", approvalId, `approval ${approvalId} was already answered; a token resumes a run once`);
  }
}

/**
 * The token is signed with this key but its store holds no such approval (another store, or a flushed one).
 *
 * @example
 * e instanceof UnknownApprovalError && e.approvalId
 */
export class UnknownApprovalError extends ApprovalTokenError {
  override name = "UnknownApprovalError";
  constructor(approvalId: string) {
    super("unknown", approvalId, `approval ${approvalId} is not in this store (another store, or its record was lost)`);
  }
}

const dayMs = 24 * 60 * 60 * 1000;
/** A claim is remembered this long past the approval's expiry, for clocks of processes that disagree a little. */
const claimGraceMs = 60_000;

/**
 * Durable approvals over a state store: configure it as a stack's (or a run's) `approval`, and an
 * approval request pauses the run instead of waiting.
 *
 * @example
 * const approvals = durableApprovals({ store: new RedisStore({ url }), key: process.env.APPROVAL_KEY! })
 * const stack = withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash" }))
 * const outcome = await stack.run("toolCall", call, runTool)
 * if (Outcome.isInterrupted(outcome)) await inbox.save(outcome.approval)   // show it to a person
 * // later, anywhere:
 * const resumed = await approvals.resume(stack, token, { decision: "approve", by: "alice" }, runTool)
 */
export class DurableApprovals implements DurableApprover {
  readonly #store: StateStore;
  readonly #keys: readonly Uint8Array[];
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #replays: readonly Replay[];

  constructor(options: DurableApprovalsOptions) {
    const clone = cloning;
    cloning = undefined;
    if (clone !== undefined) {
      // A view made by `answering`: the same store, keys and clock, more decisions to replay.
      this.#store = clone.from.#store;
      this.#keys = clone.from.#keys;
      this.#ttlMs = clone.from.#ttlMs;
      this.#now = clone.from.#now;
      this.#replays = clone.replays;
      return;
    }
    if (typeof options !== "object" || options === null)
      throw new TypeError(`durableApprovals: options must be an object { store, key }, got ${describeGiven(options)}`);
    const { store, ttlMs = dayMs, prefix = "approvals", now = Date.now } = options;
    for (const method of ["get", "set", "delete", "incr", "scope"] as const)
      if (typeof (store as Partial<StateStore> | undefined)?.[method] !== "function")
        throw new TypeError(`durableApprovals: store must be a StateStore (MemoryStore, RedisStore), got ${describeGiven(store)}`);
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
      throw new TypeError(`durableApprovals: ttlMs must be a positive integer of ms, got ${String(ttlMs)}`);
    if (typeof prefix !== "string" || prefix === "")
      throw new TypeError(`durableApprovals: prefix must be a non-empty string, got ${describeGiven(prefix)}`);
    if (typeof now !== "function") throw new TypeError(`durableApprovals: now must be a function, got ${describeGiven(now)}`);
    this.#store = store.scope(prefix);
    this.#keys = signingKeys(options.key);
    this.#ttlMs = ttlMs;
    this.#now = now;
    this.#replays = [];
  }

  /**
   * A view of these approvals that answers with decisions already claimed: asked by the same hook
   * about the same input (by digest), it gives the decision; anything else is asked anew (and
   * pauses the run again). `claim` puts one in `options.approval`.
   *
   * @example
   * const claimed = await approvals.claim(token, { decision: "approve" })
   * await stack.run(claimed.point, claimed.input, runTool, { ...claimed.options, approval: approvals.answering(claimed) })
   */
  answering(...claimed: readonly ClaimedApproval[]): DurableApprovals {
    const replays = [...this.#replays];
    for (const c of claimed) replays.push(...(replaysOf.get(c) ?? []));
    cloning = { from: this, replays };
    return new DurableApprovals(undefined as never);
  }

  /** Marks it as a durable approver for the engine. */
  get [durableApprover](): true {
    return true;
  }

  /**
   * What the engine calls for `ctx.approve`: the decision, if one was claimed for this very
   * question, or a new pending approval, recorded in the store and signed.
   *
   * @example
   * const answer = await approvals.ask({ point: "toolCall", hook: "approval", subject: "Bash", input: call, reason: undefined, runInput: call, sessionId: undefined, runId: "r1", metadata: {}, path: [] })
   */
  async ask(request: DurableAsk): Promise<DurableAnswer> {
    const digest = digestOf(request.input);
    for (const r of this.#replays) if (r.hook === request.hook && r.digest === digest) return { decision: r.decision, resumed: r.id };
    const id = randomUUID();
    const requestedAt = this.#now();
    const expiresAt = requestedAt + this.#ttlMs;
    const token = signToken({ id, point: request.point, hook: request.hook, digest, iat: requestedAt, exp: expiresAt }, this.#keys);
    const record: StoredApproval = {
      v: 1,
      id,
      point: request.point,
      hook: request.hook,
      ...(request.subject !== undefined ? { subject: request.subject } : {}),
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
      input: request.input,
      digest,
      runInput: request.runInput,
      requestedAt,
      expiresAt,
      ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
      runId: request.runId,
      metadata: request.metadata,
      path: request.path,
      prior: this.#replays,
    };
    await this.#store.set(pendingKey(id), record, { ttlMs: this.#ttlMs });
    return { pending: pendingOf(record, token) };
  }

  /**
   * Remember a pending approval's token under a key of the application's own (the id a framework
   * gave the call), for as long as the approval can be answered, so that whoever receives the
   * person's answer by that key alone (another process, after a restart) finds the token to
   * `resume`. A second link under the same key replaces the first.
   *
   * @example
   * await approvals.link(`ai-sdk:${toolCallId}`, outcome.approval.token)
   */
  async link(ref: string, token: string): Promise<void> {
    if (typeof ref !== "string" || ref === "")
      throw new TypeError(`approvals.link: ref must be a non-empty string, got ${describeGiven(ref)}`);
    const claims = this.verify(token);
    await this.#store.set(linkKey(ref), token, { ttlMs: Math.max(1, claims.exp - this.#now()) });
  }

  /**
   * The token `link` remembered under `ref`, or undefined (never linked, or expired). The token is
   * checked as any other when it is claimed or resumed.
   *
   * @example
   * const token = await approvals.linked(`ai-sdk:${toolCallId}`)
   * if (token !== undefined) await approvals.resume(stack, token, { decision: "deny", reason: "no" }, runTool)
   */
  async linked(ref: string): Promise<string | undefined> {
    const token = await this.#store.get(linkKey(ref));
    return typeof token === "string" ? token : undefined;
  }

  /**
   * Sign data the application keeps beside its pending approvals (a paused turn's state) with these
   * approvals' key, for `purpose`; `checkSignature` tells whether it came back unchanged.
   *
   * @example
   * const signature = approvals.sign("my-app.draft", draft)
   */
  sign(purpose: string, value: unknown): string {
    return signValue(purpose, value, this.#keys);
  }

  /**
   * True when `signature` is what `sign(purpose, value)` gives under one of these approvals' keys
   * (a rotated-out key still verifies while it is in the list).
   *
   * @example
   * approvals.checkSignature("my-app.draft", draft, signature) // false once draft changed
   */
  checkSignature(purpose: string, value: unknown, signature: unknown): boolean {
    return valueSigned(purpose, value, signature, this.#keys);
  }

  /**
   * Check a token's signature and expiry without touching the store; its claims if it holds.
   *
   * @example
   * approvals.verify(token).exp // when it expires
   */
  verify(token: string): TokenClaims {
    const read = readToken(token, this.#keys);
    if (!read.ok)
      throw new ApprovalTamperedError(
        undefined,
        read.problem === "signature"
          ? "its signature does not match (another key signed it, or it was changed)"
          : "it is not an approval token",
      );
    const claims = read.claims;
    if (this.#now() >= claims.exp) throw new ApprovalExpiredError(claims.id, claims.exp);
    return claims;
  }

  /**
   * The pending approval a token stands for, read from the store, without claiming it (to show it again).
   *
   * @example
   * const pending = await approvals.inspect(token) // { id, point, hook, input, reason, expiresAt, ... }
   */
  async inspect(token: string): Promise<PendingApproval> {
    const claims = this.verify(token);
    const record = await this.#record(claims);
    return pendingOf(record, token);
  }

  /**
   * Claim a token with the person's decision, exactly once: the first claim, from any process
   * sharing the store, wins; any other is refused with `ApprovalReplayedError`. Refuses tampered
   * (`ApprovalTamperedError`), expired (`ApprovalExpiredError`) and unknown (`UnknownApprovalError`)
   * tokens without consuming them. The decision is read strictly: a malformed one is a denial.
   *
   * @example
   * const claimed = await approvals.claim(token, { decision: "edit", input: { ...call, input: { command: "ls" } } })
   * const outcome = await stack.run(claimed.point, claimed.input, runTool, claimed.options)
   */
  async claim(token: string, decision: unknown): Promise<ClaimedApproval> {
    const claims = this.verify(token);
    const record = await this.#record(claims);
    const claimTtl = Math.max(1, claims.exp - this.#now()) + claimGraceMs;
    if ((await this.#store.incr(claimKey(claims.id), 1, { ttlMs: claimTtl })) !== 1) throw new ApprovalReplayedError(claims.id);
    // Claimed: the record is no longer needed (a failed delete only leaves it to expire).
    await this.#store.delete(pendingKey(claims.id)).catch(() => undefined);
    const parsed = await readAnswer(decision);
    const claimed: ClaimedApproval = {
      approval: pendingOf(record, token),
      decision: parsed,
      point: record.point,
      input: record.runInput,
      options: {
        runId: record.runId,
        metadata: record.metadata,
        path: record.path,
        ...(record.sessionId !== undefined ? { sessionId: record.sessionId } : {}),
      },
    };
    replaysOf.set(claimed, [...(record.prior ?? []), { id: record.id, hook: record.hook, digest: record.digest, decision: parsed }]);
    return Object.freeze({ ...claimed, options: { ...claimed.options, approval: this.answering(claimed) } });
  }

  /**
   * Claim a token and run its point again with the decision: the run continues where it paused
   * (hooks outside the asking one run again; the asking hook gets the decision). Its outcome may
   * be `Interrupted` again when another approval is needed.
   *
   * @example
   * const outcome = await approvals.resume(stack, token, { decision: "approve", by: "alice" }, (call, ctx) => runTool(call, ctx.signal))
   */
  async resume<O = unknown>(
    stack: ResumableStack,
    token: string,
    decision: unknown,
    operation: (input: any, ctx: any) => unknown,
    options: RunOptions = {},
  ): Promise<Outcome<O>> {
    if (typeof stack?.run !== "function")
      throw new TypeError(`approvals.resume: stack must be a stack with run, got ${describeGiven(stack)}`);
    if (typeof operation !== "function")
      throw new TypeError(`approvals.resume: operation must be a function, got ${describeGiven(operation)}`);
    const claimed = await this.claim(token, decision);
    return stack.run(claimed.point, claimed.input, operation, {
      ...claimed.options,
      ...options,
      metadata: { ...claimed.options.metadata, ...options.metadata },
      approval: claimed.options.approval,
    }) as Promise<Outcome<O>>;
  }

  /** The stored record a verified token names, or why there is none. */
  async #record(claims: TokenClaims): Promise<StoredApproval> {
    const record = await this.#store.get<StoredApproval>(pendingKey(claims.id));
    if (record === undefined) {
      if ((await this.#store.get(claimKey(claims.id))) !== undefined) throw new ApprovalReplayedError(claims.id);
      throw new UnknownApprovalError(claims.id);
    }
    if (record.digest !== claims.digest || record.point !== claims.point || record.hook !== claims.hook)
      throw new ApprovalTamperedError(claims.id, "the store's record does not match what the token signs");
    return record;
  }
}

/** Set by `answering` for the constructor it calls next: the approvals a view copies, and its decisions. */
let cloning: { readonly from: DurableApprovals; readonly replays: readonly Replay[] } | undefined;

/** The decisions a claim replays: kept beside the frozen object, out of its serializable fields. */
const replaysOf = new WeakMap<ClaimedApproval, readonly Replay[]>();

const pendingKey = (id: string): string => `pending:${id}`;
const claimKey = (id: string): string => `claimed:${id}`;
const linkKey = (ref: string): string => `link:${ref}`;

const pendingOf = (r: StoredApproval, token: string): PendingApproval => ({
  token,
  id: r.id,
  point: r.point,
  hook: r.hook,
  ...(r.subject !== undefined ? { subject: r.subject } : {}),
  input: r.input,
  digest: r.digest,
  ...(r.reason !== undefined ? { reason: r.reason } : {}),
  requestedAt: r.requestedAt,
  expiresAt: r.expiresAt,
  ...(r.sessionId !== undefined ? { sessionId: r.sessionId } : {}),
  runId: r.runId,
});

/**
 * Durable approvals over `options.store`, signed with `options.key`.
 *
 * @example
 * const approvals = durableApprovals({ store: new RedisStore({ url: "redis://127.0.0.1:6379" }), key: process.env.APPROVAL_KEY!, ttlMs: 3_600_000 })
 * const stack = createAgentStack({ approval: approvals })
 */
export const durableApprovals = (options: DurableApprovalsOptions): DurableApprovals => new DurableApprovals(options);
