/**
 * A paused turn's state, signed: the application keeps it between the turn that paused and the
 * one that resumes, so it comes back as untrusted JSON. It is signed (HMAC-SHA256) with the durable
 * approvals' key, the one that signs their tokens, and a state that was changed (its history, a
 * waiting call's input or tool, a result of a call that already ran, an id) or signed under
 * another key is refused before anything is claimed or any hook runs.
 */
import { ApprovalTamperedError } from "../core/interrupt.ts";
import type { TurnState } from "./agent-types.ts";

/** What a paused turn's state is signed for: a signature of anything else is never taken for one. */
const purpose = "agent-onion.turn-state";

/** The approvals that sign and check states: `durableApprovals()`. */
export interface StateSigner {
  sign(purpose: string, value: unknown): string;
  checkSignature(purpose: string, value: unknown, signature: unknown): boolean;
}

/** A turn's state before it is signed. */
export type UnsignedTurnState = Omit<TurnState, "signature">;

/**
 * A paused turn's state was refused: changed since it was signed, signed under another key, not
 * signed at all, or of a turn whose approvals cannot sign (an approver that is not `durableApprovals()`).
 * Nothing was claimed and no hook ran.
 *
 * @example
 * await agent.resume(changed, decisions, { approvals }).catch((e) => e instanceof TurnStateTamperedError) // true
 */
export class TurnStateTamperedError extends ApprovalTamperedError {
  override name = "TurnStateTamperedError";
  constructor(why: string) {
    super(undefined, `the paused turn's state ${why}`);
    this.message = `turn state refused: the paused turn's state ${why}`;
  }
}

const canSign = (v: unknown): v is StateSigner =>
  typeof (v as Partial<StateSigner> | null)?.sign === "function" &&
  typeof (v as Partial<StateSigner> | null)?.checkSignature === "function";

/**
 * The state, signed by `signer` when it can sign (`durableApprovals()`); without a signature
 * otherwise, which `verifyTurnState` refuses.
 *
 * @example
 * const state = signTurnState(approvals, { v: 1, agent, sessionId, runId, prompt, history, metadata, pause, spent })
 */
export const signTurnState = (signer: unknown, state: UnsignedTurnState): TurnState =>
  canSign(signer) ? { ...state, signature: signer.sign(purpose, state) } : (state as TurnState);

/**
 * Check that `state` is as `signer` signed it; throws `TurnStateTamperedError` when it is not.
 *
 * @example
 * verifyTurnState(approvals, JSON.parse(saved)) // the same state, or a throw
 */
export const verifyTurnState = (signer: unknown, state: TurnState): void => {
  if (!canSign(signer))
    throw new TypeError(
      "resume: options.approvals must be the durableApprovals() that issued the tokens (it checks the state's signature)",
    );
  const { signature, ...unsigned } = state as TurnState & { signature?: unknown };
  if (signature === undefined) throw new TurnStateTamperedError("is not signed (a durableApprovals() signs the states it pauses)");
  if (!signer.checkSignature(purpose, unsigned, signature))
    throw new TurnStateTamperedError("does not match its signature: it was changed, or signed with another key");
};
