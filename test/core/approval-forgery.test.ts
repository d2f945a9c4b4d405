/**
 * Durable approvals against answers that were never given: a decision acts only through the
 * signed token of the question it answers, on the input that question was about, once.
 */
import { describe, expect, it } from "vitest";
import {
  ApprovalReplayedError,
  ApprovalTamperedError,
  Continue,
  MemoryStore,
  Outcome,
  Reject,
  createStack,
  durableApprovals,
  gate,
  type HookContext,
} from "../../src/core/index.ts";

interface Call {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}
const points = { tool: gate<Call, { content: string }>({ name: "tool", subject: (c) => c.name }) };
const key = "a-test-key-of-at-least-32-bytes!!";
const call = (command: string): Call => ({ id: "c1", name: "Bash", input: { command } });

const asking = (name: string, priority: number) => ({
  name,
  priority,
  before: async (c: Call, ctx: HookContext<Call>) => {
    const d = await ctx.approve({ hook: name, reason: `${c.name} wants to run` });
    return d.decision === "approve" ? Continue : Reject(d.decision === "deny" ? d.reason : "edited");
  },
});

const setup = (signing = key, store = new MemoryStore()) => {
  const approvals = durableApprovals({ store, key: signing });
  const ran: string[] = [];
  const stack = createStack(points, { approval: approvals }).use("tool", asking("approval", 20));
  const op = (c: Call) => (ran.push(String(c.input.command)), { content: "ok" });
  return { store, approvals, stack, ran, op };
};

const paused = async (s: ReturnType<typeof setup>, command: string) => {
  const outcome = await s.stack.run("tool", call(command), s.op);
  if (!Outcome.isInterrupted(outcome)) throw new Error("not paused");
  return outcome.approval;
};

describe("durable approvals, against answers no person gave", () => {
  it("a claimed approval does not answer a run of another input: that run asks anew", async () => {
    const s = setup();
    const pending = await paused(s, "git push origin feature");
    const claimed = await s.approvals.claim(pending.token, { decision: "approve" });
    const other = await s.stack.run("tool", call("git push --force origin main"), s.op, claimed.options);
    expect(Outcome.isInterrupted(other)).toBe(true);
    expect(s.ran).toEqual([]);
  });

  it("a claimed approval of one hook does not answer another hook's question", async () => {
    const s = setup();
    const stack = s.stack.use("tool", asking("second", 30));
    const outcome = await stack.run("tool", call("deploy"), s.op);
    const pending = Outcome.isInterrupted(outcome) ? outcome.approval : undefined;
    expect(pending?.hook).toBe("approval");
    const resumed = await s.approvals.resume(stack, pending!.token, { decision: "approve" }, s.op);
    expect(Outcome.isInterrupted(resumed) && resumed.approval.hook).toBe("second");
    expect(s.ran).toEqual([]);
  });

  it("a denial cannot be turned into an approval: the token is spent by the first answer", async () => {
    const s = setup();
    const pending = await paused(s, "deploy");
    expect(await s.approvals.resume(s.stack, pending.token, { decision: "deny", reason: "no" }, s.op)).toMatchObject({ _tag: "Rejected" });
    await expect(s.approvals.resume(s.stack, pending.token, { decision: "approve" }, s.op)).rejects.toBeInstanceOf(ApprovalReplayedError);
    expect(s.ran).toEqual([]);
  });

  it("a record whose run input was changed in the store runs nothing approved: the asking hook asks about the new input anew", async () => {
    const s = setup();
    const pending = await paused(s, "git push origin feature");
    const scoped = s.store.scope("approvals");
    const record = await scoped.get<Record<string, unknown>>(`pending:${pending.id}`);
    await scoped.set(`pending:${pending.id}`, { ...record, runInput: call("git push --force origin main") });
    const resumed = await s.approvals.resume(s.stack, pending.token, { decision: "approve" }, s.op);
    expect(Outcome.isInterrupted(resumed)).toBe(true);
    expect(s.ran).toEqual([]);
  });

  it("a token whose signed question was changed in the store is refused before anything runs", async () => {
    const s = setup();
    const pending = await paused(s, "deploy");
    const scoped = s.store.scope("approvals");
    const record = await scoped.get<Record<string, unknown>>(`pending:${pending.id}`);
    await scoped.set(`pending:${pending.id}`, { ...record, hook: "another" });
    await expect(s.approvals.resume(s.stack, pending.token, { decision: "approve" }, s.op)).rejects.toBeInstanceOf(ApprovalTamperedError);
    expect(s.ran).toEqual([]);
  });

  it("a token made with another key over the same store is refused", async () => {
    const s = setup();
    const other = setup("another-key-of-at-least-32-bytes!!", s.store);
    const forged = await paused(other, "deploy");
    await expect(s.approvals.resume(s.stack, forged.token, { decision: "approve" }, s.op)).rejects.toBeInstanceOf(ApprovalTamperedError);
    expect(s.ran).toEqual([]);
  });
});
