/**
 * What asking for approval exchanges: the request a hook makes (`ctx.approve`), the answer it
 * gets back, who answers (an in-process handler, or a durable store that pauses the run), and the
 * pending approval a paused run carries.
 */

/** A request for a person (or a policy service) to decide. */
export interface ApprovalRequest {
  readonly point: string;
  /** The hook that asks (as it named itself in `ctx.approve`). */
  readonly hook: string;
  readonly subject: string | undefined;
  /** What the approval is about: the input the asking hook received, unless it passed another. */
  readonly input: unknown;
  readonly reason?: string;
  /** Aborted when the hook gives up: its timeout, the run's deadline, the caller's abort, the run settling without it. */
  readonly signal: AbortSignal;
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
}

/**
 * The answer to an approval request. `edit` carries a replacement for the request's `input`, of
 * the same shape (a tool call stays a tool call of the same tool); `by` says who decided, for the
 * trace and the audit log. What `ctx.approve` returns is always one of these, read strictly: an
 * approver's answer that is anything else comes back as a `deny` saying why.
 */
export type ApprovalDecision =
  | { readonly decision: "approve"; readonly reason?: string; readonly by?: string }
  | {
      readonly decision: "deny";
      readonly reason: string;
      readonly by?: string;
      /** Set when nobody answered yet and the run pauses for this approval (durable approvals). */
      readonly pending?: PendingApproval;
    }
  | { readonly decision: "edit"; readonly input: unknown; readonly reason?: string; readonly by?: string };

/** What an approver may answer: approve, deny (with a reason), or edit (a replacement input of the same shape). */
export type ApprovalAnswer =
  | { readonly decision: "approve"; readonly reason?: string; readonly by?: string }
  | { readonly decision: "deny"; readonly reason?: string; readonly by?: string }
  | { readonly decision: "edit"; readonly input: unknown; readonly reason?: string; readonly by?: string };

/**
 * Answers approval requests in-process. Its answer is read with a schema at run time (untyped
 * code can return anything): anything but a well-formed approve, deny or edit is a denial, and so
 * is a throw, or no answer before `request.signal` aborts.
 */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalAnswer | PromiseLike<ApprovalAnswer>;

/**
 * An approval that waits for a person, serializable as JSON: show it, keep it, and pass its
 * `token` to `resume` with the person's decision, in this process or another sharing the store.
 */
export interface PendingApproval {
  /** Signed (HMAC) reference to this approval; the only thing `resume` needs besides the decision. */
  readonly token: string;
  readonly id: string;
  readonly point: string;
  /** The hook that asked. */
  readonly hook: string;
  readonly subject?: string;
  /** What the person approves: the input as the asking hook saw it. */
  readonly input: unknown;
  /** SHA-256 of `input` in canonical JSON (base64url), which the token signs. */
  readonly digest: string;
  readonly reason?: string;
  /** When it was asked, and until when it can be answered (ms since the epoch). */
  readonly requestedAt: number;
  readonly expiresAt: number;
  readonly sessionId?: string;
  readonly runId: string;
}

/** What a durable approver is asked by the engine for one `ctx.approve` call. */
export interface DurableAsk {
  readonly point: string;
  readonly hook: string;
  readonly subject: string | undefined;
  readonly input: unknown;
  readonly reason: string | undefined;
  /** The input the run started with, which a resumed run runs again. */
  readonly runInput: unknown;
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
}

/**
 * A durable approver's answer: a decision already taken (`resumed`: the approval a resumed run
 * claimed; absent when something answered without a person, such as a permission request hook),
 * or an approval now pending.
 */
export type DurableAnswer = { readonly decision: ApprovalDecision; readonly resumed?: string } | { readonly pending: PendingApproval };

/** Marks durable approvers (any copy of the library). */
export const durableApprover: unique symbol = Symbol.for("agent-onion.durable-approver") as never;

/**
 * An approver that pauses the run instead of waiting: what `durableApprovals()` makes. The
 * engine calls `ask`; applications use the object's `resume`, `claim` and `inspect`.
 */
export interface DurableApprover {
  readonly [durableApprover]: true;
  /** Answers one `ctx.approve`: a decision already claimed for it, or a new pending approval. */
  ask(request: DurableAsk): Promise<DurableAnswer>;
}

/** Who answers approval requests: an in-process handler, or a durable approver that pauses the run. */
export type Approver = ApprovalHandler | DurableApprover;

/**
 * True for a durable approver (`durableApprovals()`), false for a handler function or anything else.
 *
 * @example
 * isDurableApprover(durableApprovals({ store, key })) // true
 * isDurableApprover(() => ({ decision: "approve" }))   // false
 */
export const isDurableApprover = (value: unknown): value is DurableApprover => {
  try {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[durableApprover] === true;
  } catch {
    return false;
  }
};
