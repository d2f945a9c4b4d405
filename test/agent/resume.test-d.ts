import { describe, expectTypeOf, it } from "vitest";
import type { TurnStateTamperedError, Agent, AgentSession, TurnResult, TurnState } from "../../src/agent/index.ts";
import { type ApprovalTamperedError, MemoryStore, durableApprovals, type PendingApproval } from "../../src/core/index.ts";

declare const agent: Agent;
declare const session: AgentSession;
declare const turn: TurnResult;
const approvals = durableApprovals({ store: new MemoryStore(), key: "k".repeat(32) });

describe("resume types", () => {
  it("an interrupted turn carries its approvals and its state", () => {
    expectTypeOf(turn.status).toEqualTypeOf<"completed" | "rejected" | "failed" | "aborted" | "interrupted">();
    expectTypeOf(turn.approvals).toEqualTypeOf<readonly PendingApproval[] | undefined>();
    expectTypeOf(turn.state).toEqualTypeOf<TurnState | undefined>();
  });

  it("resume takes the state, decisions by approval id, and the approvals that issued them", () => {
    if (turn.state !== undefined) {
      expectTypeOf(agent.resume(turn.state, { a1: { decision: "approve" } }, { approvals })).resolves.toEqualTypeOf<TurnResult>();
      expectTypeOf(session.resume(turn.state, {}, { approvals, metadata: { tenant: "t1" } })).resolves.toEqualTypeOf<TurnResult>();
      // @ts-expect-error the approvals are required
      void agent.resume(turn.state, {}, {});
      // @ts-expect-error a session id is the state's, not the caller's
      void agent.resume(turn.state, {}, { approvals, sessionId: "other" });
    }
    // @ts-expect-error a state is a TurnState, not any object
    void agent.resume({ v: 2 }, {}, { approvals });
  });

  it("a state carries its signature, and its refusal is a token refusal", () => {
    expectTypeOf<TurnState["signature"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TurnStateTamperedError>().toExtend<ApprovalTamperedError>();
    expectTypeOf(approvals.sign("p", {})).toEqualTypeOf<string>();
    if (turn.state !== undefined)
      // @ts-expect-error approvals must sign and check states: an object with claim and inspect alone is not enough
      void agent.resume(turn.state, {}, { approvals: { claim: approvals.claim, inspect: approvals.inspect } });
  });
});
