import { describe, expect, it } from "vitest";
import { ClaudeApprovalError, decisionFor, tokenOf } from "../../../src/adapters/claude-agent-sdk/paused.ts";
import { ApprovalTamperedError, durableApprovals } from "../../../src/core/interrupt.ts";
import { MemoryStore } from "../../../src/core/memory-store.ts";

const key = "a-test-key-that-is-long-enough-for-hmac-sha256";
const call = { id: "toolu_1", name: "Bash", input: { command: "git push", description: "push" } };
const asked = async () => {
  const approvals = durableApprovals({ store: new MemoryStore(), key });
  const answer = await approvals.ask({
    point: "toolCall",
    hook: "approval",
    subject: "Bash",
    input: call,
    reason: "push to main?",
    runInput: call,
    sessionId: "9d7c3a52-0000-4000-8000-000000000001",
    runId: "r1",
    metadata: {},
    path: [],
  });
  if (!("pending" in answer)) throw new Error("expected a pending approval");
  return { approvals, pending: JSON.parse(JSON.stringify(answer.pending)) };
};

const problemOf = async (f: () => unknown): Promise<string | undefined> => {
  try {
    await f();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ClaudeApprovalError);
    return (error as ClaudeApprovalError).problem;
  }
};

describe("the token of a paused approval", () => {
  it("is the token given, or the token of a pending approval as it was kept", async () => {
    const { approvals, pending } = await asked();
    expect(tokenOf(approvals, pending.token)).toBe(pending.token);
    expect(tokenOf(approvals, pending)).toBe(pending.token);
    expect(tokenOf(approvals, { ...pending, input: { ...call, input: { description: "push", command: "git push" } } })).toBe(pending.token);
  });

  it.each([
    ["its input", (p: any) => ({ ...p, input: { ...call, input: { command: "git push --force" } } })],
    ["its tool", (p: any) => ({ ...p, input: { ...call, name: "Write" } })],
    ["its digest", (p: any) => ({ ...p, digest: "other" })],
    ["its id", (p: any) => ({ ...p, id: "00000000-0000-4000-8000-000000000000" })],
  ])("is refused as tampered when %s was changed where it was kept", async (_what, change) => {
    const { approvals, pending } = await asked();
    expect(() => tokenOf(approvals, change(pending))).toThrow(ApprovalTamperedError);
  });

  it.each([[null], [42], [{}], [{ token: 42 }], [{ kind: "agent-onion.claude-agent-sdk.paused-approval", signature: "x" }]])(
    "is refused as malformed for %j",
    async (value) => {
      const { approvals } = await asked();
      expect(await problemOf(() => tokenOf(approvals, value))).toBe("malformed");
    },
  );
});

describe("a person's decision", () => {
  it.each([
    [{ decision: "approve" }, { decision: "approve" }],
    [
      { decision: "approve", reason: "ok", by: "alice" },
      { decision: "approve", reason: "ok", by: "alice" },
    ],
    [
      { decision: "deny", reason: "not now", by: "bob" },
      { decision: "deny", reason: "not now", by: "bob" },
    ],
    [{ decision: "deny" }, { decision: "deny", reason: "denied by the approver" }],
    [
      { decision: "edit", input: { command: "ls" }, by: "carol" },
      { decision: "edit", input: { ...call, input: { command: "ls" } }, by: "carol" },
    ],
  ])("takes %j", async (given, taken) => {
    expect(await decisionFor(given, call)).toEqual(taken);
  });

  it.each([
    true,
    "approve",
    null,
    {},
    { decision: "reject" },
    { decision: "Approve" },
    { decision: "approve", reason: 1 },
    { decision: "approve", input: { command: "ls" } },
    { decision: "deny", reason: "no", extra: true },
    { decision: "edit" },
    { decision: "edit", input: "rm -rf /" },
    { decision: "edit", input: ["rm"] },
  ])("refuses %j before anything is claimed", async (given) => {
    expect(await problemOf(() => decisionFor(given, call))).toBe("decision");
  });
});
