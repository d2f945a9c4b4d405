/**
 * A tool call paused for a person's decision, as the application keeps it between the run that
 * asked and the run that resumes: plain JSON, signed with the application's key (HMAC-SHA256), so
 * a decision can only be applied to the session, call and input the person was shown.
 *
 * What is paused is Claude Code's own state: a PreToolUse answer of `defer` ends the turn with the
 * call kept in the session's transcript (`stop_reason: "tool_deferred"`), and `resume` of that
 * session fires PreToolUse for the same call again. This record says which call, why it was asked,
 * and until when an answer is taken.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { ApprovalDecision } from "../../core/context.ts";
import { AgentOnionError, brandError, describeGiven } from "../../core/errors.ts";

/**
 * What `ClaudePausedApproval.kind` holds: a record of this adapter, not some other JSON.
 *
 * @example
 * JSON.parse(saved).kind === pausedKind // a paused approval of this adapter
 */
export const pausedKind = "agent-onion.claude-agent-sdk.paused-approval";

/**
 * One approval request that paused the call: the hook that asked and what it said.
 *
 * @example
 * paused.asks.map((a: PausedAsk) => `${a.hook}: ${a.reason ?? ""}`) // ["approval: deploy to production?"]
 */
export interface PausedAsk {
  readonly hook: string;
  readonly reason?: string;
}

/**
 * A tool call waiting for a person's decision; JSON to store, show and send back to `resume`.
 *
 * @example
 * const paused = guard.paused(result) // after a result with stop_reason "tool_deferred"
 * await db.save(paused.toolUse.id, JSON.stringify(paused))
 */
export interface ClaudePausedApproval {
  readonly kind: typeof pausedKind;
  readonly version: 1;
  /** The Claude Code session to resume. */
  readonly sessionId: string;
  /** The call: its id and tool, and its input as the hook that asked saw it (what the person decides about). */
  readonly toolUse: { readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> };
  /** SHA-256 of the input as the model wrote it: a resume applies the decision only to that input. */
  readonly inputDigest: string;
  /** Who asked and why, in the order they asked. */
  readonly asks: readonly PausedAsk[];
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms after which `resume` refuses it. */
  readonly expiresAt: number;
  /** HMAC-SHA256 of the fields above under the application's key, base64url. */
  readonly signature: string;
}

/**
 * Why a paused approval or a decision was refused.
 *
 * @example
 * const problem: ClaudeApprovalProblem = (error as ClaudeApprovalError).problem // "replayed"
 */
export type ClaudeApprovalProblem = "malformed" | "tampered" | "expired" | "replayed" | "decision";

/**
 * A paused approval that cannot be resumed: not one of ours (`malformed`), changed or signed with
 * another key (`tampered`), past its `expiresAt` (`expired`), already resumed once (`replayed`),
 * or a decision that is not a well-formed approve, deny or edit (`decision`).
 *
 * @example
 * try { guard.resume(query, paused, decision) } catch (e) { if (e instanceof ClaudeApprovalError && e.problem === "replayed") ... }
 */
export class ClaudeApprovalError extends AgentOnionError {
  override name = "ClaudeApprovalError";
  constructor(
    readonly problem: ClaudeApprovalProblem,
    message: string,
  ) {
    super(message);
  }
}
brandError(ClaudeApprovalError);

/** JSON with object keys sorted, so one value always signs the same way. */
export const stableJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v === undefined ? null : v)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
};

type Unsigned = Omit<ClaudePausedApproval, "signature">;

const signatureOf = (key: Uint8Array, p: Unsigned): string =>
  createHmac("sha256", key)
    .update(stableJson([p.kind, p.version, p.sessionId, p.toolUse, p.inputDigest, p.asks, p.createdAt, p.expiresAt]))
    .digest("base64url");

/**
 * Sign a paused approval.
 *
 * @example
 * signPaused(key, { kind: pausedKind, version: 1, sessionId, toolUse, asks, createdAt, expiresAt }).signature // "q3…"
 */
export const signPaused = (key: Uint8Array, p: Unsigned): ClaudePausedApproval => ({ ...p, signature: signatureOf(key, p) });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The record's shape, field by field; the first field that does not fit, or undefined. */
const shapeProblem = (v: unknown): string | undefined => {
  if (!isObject(v)) return `a paused approval must be an object, got ${describeGiven(v)}`;
  if (v.kind !== pausedKind) return `kind must be "${pausedKind}", got ${describeGiven(v.kind)}`;
  if (v.version !== 1) return `version must be 1, got ${describeGiven(v.version)}`;
  if (typeof v.sessionId !== "string" || v.sessionId === "")
    return `sessionId must be a non-empty string, got ${describeGiven(v.sessionId)}`;
  const use = v.toolUse;
  if (!isObject(use) || typeof use.id !== "string" || typeof use.name !== "string" || !isObject(use.input))
    return `toolUse must be { id: string, name: string, input: object }, got ${describeGiven(use)}`;
  if (typeof v.inputDigest !== "string") return `inputDigest must be a string, got ${describeGiven(v.inputDigest)}`;
  if (
    !Array.isArray(v.asks) ||
    !v.asks.every((a) => isObject(a) && typeof a.hook === "string" && (a.reason === undefined || typeof a.reason === "string"))
  )
    return `asks must be a list of { hook: string, reason?: string }, got ${describeGiven(v.asks)}`;
  for (const field of ["createdAt", "expiresAt"] as const)
    if (typeof v[field] !== "number" || !Number.isFinite(v[field]))
      return `${field} must be a number (epoch ms), got ${describeGiven(v[field])}`;
  if (typeof v.signature !== "string") return `signature must be a string, got ${describeGiven(v.signature)}`;
  return undefined;
};

/**
 * Check a paused approval that came back from outside: its shape, its signature under `key`, and
 * its expiry at `now`. Returns it typed; throws `ClaudeApprovalError` otherwise.
 *
 * @example
 * const paused = verifyPaused(key, JSON.parse(fromDb), Date.now())
 */
export const verifyPaused = (key: Uint8Array, value: unknown, now: number): ClaudePausedApproval => {
  const problem = shapeProblem(value);
  if (problem !== undefined)
    throw new ClaudeApprovalError("malformed", `not a paused approval of agent-onion's Claude Agent SDK adapter: ${problem}`);
  const p = value as ClaudePausedApproval;
  const expected = Buffer.from(signatureOf(key, p));
  const given = Buffer.from(p.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw new ClaudeApprovalError(
      "tampered",
      `the paused approval of ${p.toolUse.name} call ${p.toolUse.id} does not carry a valid signature: it was changed, or signed with another key`,
    );
  if (now > p.expiresAt)
    throw new ClaudeApprovalError(
      "expired",
      `the paused approval of ${p.toolUse.name} call ${p.toolUse.id} expired at ${new Date(p.expiresAt).toISOString()}`,
    );
  return p;
};

/**
 * A person's decision, checked: approve, deny with a reason, or edit with a new input object for
 * the same tool. Anything else throws `ClaudeApprovalError` ("decision"), before anything resumes.
 *
 * @example
 * checkDecision({ decision: "edit", input: { command: "ls" } }, "Bash") // the same decision
 */
export const checkDecision = (decision: unknown, tool: string): ApprovalDecision => {
  const bad = (why: string): never => {
    throw new ClaudeApprovalError(
      "decision",
      `the decision for ${tool} ${why}; give { decision: "approve" }, { decision: "deny", reason } or { decision: "edit", input }`,
    );
  };
  if (!isObject(decision)) return bad(`must be an object, got ${describeGiven(decision)}`);
  const reason = decision.reason;
  if (reason !== undefined && typeof reason !== "string") return bad(`has a reason that is not a string (${describeGiven(reason)})`);
  switch (decision.decision) {
    case "approve":
      return reason === undefined ? { decision: "approve" } : { decision: "approve", reason };
    case "deny":
      return { decision: "deny", reason: reason === undefined || reason === "" ? "denied" : reason };
    case "edit": {
      const input = decision.input;
      if (!isObject(input)) return bad(`is an edit whose input is not an object (${describeGiven(input)})`);
      return { decision: "edit", input, ...(reason !== undefined ? { reason } : {}) };
    }
    default:
      return bad(`has decision ${describeGiven(decision.decision)}`);
  }
};

/**
 * The application's key as bytes: at least 32 of them (a string is read as UTF-8).
 *
 * @example
 * keyBytes(process.env.APPROVAL_KEY!, "claudeAgentGuard") // Uint8Array(32+)
 */
export const keyBytes = (secret: unknown, owner: string): Uint8Array => {
  const bytes = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret instanceof Uint8Array ? secret : undefined;
  if (bytes === undefined) throw new TypeError(`${owner}: pause.secret must be a string or a Uint8Array, got ${describeGiven(secret)}`);
  if (bytes.length < 32)
    throw new TypeError(`${owner}: pause.secret must hold at least 32 bytes (a random key, e.g. randomBytes(32)), got ${bytes.length}`);
  return bytes;
};
