import { describe, expectTypeOf, it } from "vitest";
import {
  MemoryStore,
  Outcome,
  createStack,
  durableApprovals,
  gate,
  type ApprovalDecision,
  type ApprovalHandler,
  type Interrupted,
  type PendingApproval,
  type Rejected,
} from "../../src/core/index.ts";

interface Call {
  name: string;
  input: Record<string, unknown>;
}
interface Result {
  content: string;
}
const points = { tool: gate<Call, Result>({ name: "tool", subject: (c) => c.name }) };
declare const outcome: Outcome<Result>;

describe("approval types", () => {
  it("keeps exhaustive matches over Completed | Rejected | Failed compiling: Interrupted is a Rejected", () => {
    const label = (o: Outcome<Result>): string => {
      switch (o._tag) {
        case "Completed":
          return o.value.content;
        case "Rejected":
          return o.reason;
        case "Failed":
          return "failed";
        default: {
          const never: never = o;
          return never;
        }
      }
    };
    expectTypeOf(label).returns.toEqualTypeOf<string>();
    expectTypeOf(Outcome.match(outcome, { Completed: () => 1, Rejected: () => 2, Failed: () => 3 })).toEqualTypeOf<number>();
    expectTypeOf<Interrupted>().toMatchTypeOf<Rejected>();
  });

  it("narrows to Interrupted, with the pending approval, through Outcome.isInterrupted", () => {
    if (Outcome.isInterrupted(outcome)) {
      expectTypeOf(outcome.approval).toEqualTypeOf<PendingApproval>();
      expectTypeOf(outcome.approval.token).toEqualTypeOf<string>();
      expectTypeOf(outcome._tag).toEqualTypeOf<"Rejected">();
    }
    // @ts-expect-error a plain Rejected has no approval
    void (outcome as Rejected).approval;
  });

  it("types an approval handler's answers: approve, deny, edit with an input", () => {
    const approve: ApprovalHandler = () => ({ decision: "approve" });
    const later: ApprovalHandler = async () => ({ decision: "deny", reason: "no" });
    const edit: ApprovalHandler = (r) => ({ decision: "edit", input: r.input, by: "alice" });
    // @ts-expect-error a boolean is no answer
    const yes: ApprovalHandler = () => true;
    // @ts-expect-error neither is a string
    const text: ApprovalHandler = () => "approve";
    // @ts-expect-error an edit carries its input
    const shapeless: ApprovalHandler = () => ({ decision: "edit" });
    // @ts-expect-error "reject" is not a decision
    const reject: ApprovalHandler = () => ({ decision: "reject" });
    void [approve, later, edit, yes, text, shapeless, reject];
  });

  it("accepts a handler or durable approvals as the stack's and the run's approver, and nothing else", () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key: "k".repeat(32) });
    const stack = createStack(points, { approval: approvals });
    createStack(points, { approval: () => ({ decision: "approve" }) });
    // @ts-expect-error a string is no approver
    createStack(points, { approval: "yes" });
    void stack.run("tool", { name: "Bash", input: {} }, () => ({ content: "" }), { approval: approvals });
  });

  it("gives hooks a decision whose deny may carry a pending approval", () => {
    createStack(points).use("tool", {
      name: "asks",
      before: async (_call, ctx) => {
        const d = await ctx.approve({ hook: "asks" });
        expectTypeOf(d).toEqualTypeOf<ApprovalDecision>();
        if (d.decision === "deny") expectTypeOf(d.pending).toEqualTypeOf<PendingApproval | undefined>();
        // @ts-expect-error only a deny carries pending
        if (d.decision === "approve") void d.pending;
        return undefined;
      },
    });
  });

  it("types resume and claim", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key: "k".repeat(32) });
    const stack = createStack(points);
    const resumed = await approvals.resume<Result>(stack, "token", { decision: "approve" }, (c: Call) => ({ content: c.name }));
    expectTypeOf(resumed).toEqualTypeOf<Outcome<Result>>();
    const claimed = await approvals.claim("token", { decision: "approve" });
    expectTypeOf(claimed.decision).toEqualTypeOf<ApprovalDecision>();
    expectTypeOf(claimed.approval).toEqualTypeOf<PendingApproval>();
  });

  it("types link and linked: a string key and a token in, the token (or undefined) back", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key: "k".repeat(32) });
    expectTypeOf(approvals.link("call-1", "token")).toEqualTypeOf<Promise<void>>();
    expectTypeOf(await approvals.linked("call-1")).toEqualTypeOf<string | undefined>();
    // @ts-expect-error the key is a string
    void approvals.link(1, "token");
    // @ts-expect-error a token, not a pending approval
    void approvals.link("call-1", {} as PendingApproval);
  });
});
