import { describe, expect, it } from "vitest";
import {
  ApprovalExpiredError,
  ApprovalReplayedError,
  ApprovalTamperedError,
  Continue,
  MemoryStore,
  Outcome,
  Reject,
  Trace,
  Transform,
  UnknownApprovalError,
  createStack,
  durableApprovals,
  gate,
  type ApprovalDecision,
  type HookContext,
  type RunEvent,
  type StateStore,
} from "../../src/core/index.ts";

interface Call {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}
interface Result {
  readonly content: string;
}
const points = { tool: gate<Call, Result>({ name: "tool", subject: (c) => c.name, detail: (c) => String(c.input.command) }) };
const key = "a-test-key-of-at-least-32-bytes!!";
const call = (command = "deploy"): Call => ({ id: "c1", name: "Bash", input: { command } });

/** A hook that asks, and answers what it was told: approve continues, edit transforms, anything else rejects. */
const asking = (name: string, priority = 100) => ({
  name,
  priority,
  before: async (c: Call, ctx: HookContext<Call>) => {
    const d: ApprovalDecision = await ctx.approve({ hook: name, reason: `${c.name} wants to run` });
    if (d.decision === "approve") return Continue;
    if (d.decision === "edit") return Transform(d.input as Call);
    return Reject(d.reason);
  },
});

const setup = (options: { store?: StateStore; now?: () => number; ttlMs?: number } = {}) => {
  const store = options.store ?? new MemoryStore();
  const approvals = durableApprovals({
    store,
    key,
    ...(options.now ? { now: options.now } : {}),
    ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
  });
  const ran: Call[] = [];
  const events: RunEvent<Call, Result>[] = [];
  const stack = createStack(points, { approval: approvals })
    .use("tool", { name: "no-rm", priority: 10, match: "Bash(rm *)", before: () => Reject("no rm") })
    .use("tool", asking("approval", 20))
    .use("tool", { name: "watch", observe: (e) => void events.push(e) });
  const op = (c: Call) => (ran.push(c), { content: `ran ${String(c.input.command)}` });
  return { store, approvals, stack, ran, op, events };
};

describe("a run that asks, with durable approvals", () => {
  it("stops Interrupted: a Rejected by the asking hook carrying a serializable pending approval; nothing ran", async () => {
    const { stack, ran, op } = setup();
    const outcome = await stack.run("tool", call(), op, { sessionId: "s1", runId: "r1" });
    expect(Outcome.isInterrupted(outcome)).toBe(true);
    if (!Outcome.isInterrupted(outcome)) return;
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      by: "approval",
      reason: expect.stringMatching(/^waiting for a person to approve \(approval [0-9a-f-]{36}, until .*Z\)$/),
    });
    expect(outcome.approval).toMatchObject({
      point: "tool",
      hook: "approval",
      subject: "Bash",
      input: call(),
      reason: "Bash wants to run",
      sessionId: "s1",
      runId: "r1",
    });
    expect(outcome.approval.expiresAt - outcome.approval.requestedAt).toBe(24 * 60 * 60 * 1000);
    expect(JSON.parse(JSON.stringify(outcome.approval))).toEqual(outcome.approval);
    expect(outcome.approval.token).toMatch(/^ao1\.[\w-]+\.[\w-]+$/);
    expect(ran).toEqual([]);
  });

  it("resumes once with the person's decision: the call runs, and a second resume is refused", async () => {
    const { stack, ran, op, approvals } = setup();
    const first = await stack.run("tool", call(), op);
    const token = Outcome.isInterrupted(first) ? first.approval.token : "";
    const trace = new Trace();
    const resumed = await approvals.resume(stack, token, { decision: "approve", by: "alice" }, op, { trace });
    expect(resumed).toEqual({ _tag: "Completed", value: { content: "ran deploy" } });
    expect(ran.map((c) => c.input.command)).toEqual(["deploy"]);
    const id = Outcome.isInterrupted(first) ? first.approval.id : "";
    expect(trace.entries.find((e) => e.phase === "approval")).toMatchObject({
      hook: "approval",
      action: "Continue",
      reason: `approved by alice (resumed approval ${id})`,
    });
    await expect(approvals.resume(stack, token, { decision: "approve" }, op)).rejects.toBeInstanceOf(ApprovalReplayedError);
    expect(ran).toHaveLength(1);
  });

  it("keeps the paused run's session, run id and metadata when it resumes", async () => {
    const { stack, op, approvals } = setup();
    const seen: unknown[] = [];
    const watched = stack.use("tool", {
      name: "who",
      priority: 0,
      before: (_c, ctx) => void seen.push([ctx.sessionId, ctx.runId, ctx.metadata.user]),
    });
    const first = await watched.run("tool", call(), op, { sessionId: "s1", runId: "r1", metadata: { user: "bob" } });
    await approvals.resume(watched, Outcome.isInterrupted(first) ? first.approval.token : "", { decision: "approve" }, op);
    expect(seen).toEqual([
      ["s1", "r1", "bob"],
      ["s1", "r1", "bob"],
    ]);
  });

  it("denies on resume with the person's reason, and reads a malformed decision as a denial", async () => {
    const { stack, ran, op, approvals } = setup();
    const token = async () => {
      const o = await stack.run("tool", call(), op);
      return Outcome.isInterrupted(o) ? o.approval.token : "";
    };
    expect(await approvals.resume(stack, await token(), { decision: "deny", reason: "not today" }, op)).toMatchObject({
      _tag: "Rejected",
      reason: "not today",
    });
    for (const decision of [false, "approve", { decision: "reject" }, {}, { decision: "approve", extra: 1 }]) {
      const outcome = await approvals.resume(stack, await token(), decision, op);
      expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringMatching(/the approver's answer is not an approval/) });
    }
    expect(ran).toEqual([]);
  });

  it("runs an edit after every guard checked it, and refuses one a guard blocks", async () => {
    const { stack, ran, op, approvals } = setup();
    const token = async () => {
      const o = await stack.run("tool", call(), op);
      return Outcome.isInterrupted(o) ? o.approval.token : "";
    };
    const edited = await approvals.resume(stack, await token(), { decision: "edit", input: call("deploy --dry-run") }, op);
    expect(edited).toEqual({ _tag: "Completed", value: { content: "ran deploy --dry-run" } });
    const blocked = await approvals.resume(stack, await token(), { decision: "edit", input: call("rm -rf /") }, op);
    expect(blocked).toMatchObject({ _tag: "Rejected", by: "no-rm", reason: "no rm" });
    const renamed = await approvals.resume(stack, await token(), { decision: "edit", input: { ...call(), name: "Write" } }, op);
    expect(renamed).toMatchObject({ _tag: "Rejected", reason: expect.stringMatching(/edit was refused/) });
    expect(ran.map((c) => c.input.command)).toEqual(["deploy --dry-run"]);
  });

  it("pauses again for a second hook that asks, and does not ask the first one twice", async () => {
    const { approvals, op, ran } = setup();
    const asked: string[] = [];
    const stack = createStack(points, { approval: approvals })
      .use("tool", {
        ...asking("lead", 10),
        before: async (c: Call, ctx: HookContext<Call>) => (asked.push("lead"), asking("lead").before(c, ctx)),
      })
      .use("tool", {
        ...asking("security", 20),
        before: async (c: Call, ctx: HookContext<Call>) => (asked.push("security"), asking("security").before(c, ctx)),
      });
    const first = await stack.run("tool", call(), op);
    expect(first).toMatchObject({ by: "lead", approval: { hook: "lead" } });
    const second = await approvals.resume(stack, Outcome.isInterrupted(first) ? first.approval.token : "", { decision: "approve" }, op);
    expect(second).toMatchObject({ by: "security", approval: { hook: "security" } });
    const third = await approvals.resume(stack, Outcome.isInterrupted(second) ? second.approval.token : "", { decision: "approve" }, op);
    expect(third._tag).toBe("Completed");
    expect(ran).toHaveLength(1);
    // The lead's question went to the store once; on later runs its decision was replayed.
    expect(asked).toEqual(["lead", "lead", "security", "lead", "security"]);
  });

  it("gives observers the Interrupted outcome, and the trace the asking hook's approval decision", async () => {
    const { stack, op, events } = setup();
    const trace = new Trace();
    const outcome = await stack.run("tool", call(), op, { trace });
    await stack.flush();
    expect(Outcome.isInterrupted(events[0]!.outcome)).toBe(true);
    const id = Outcome.isInterrupted(outcome) ? outcome.approval.id : "";
    expect(trace.entries.map((e) => [e.hook, e.phase, e.action])).toEqual([
      ["approval", "approval", "Reject"],
      ["approval", "before", "Reject"],
    ]);
    expect(trace.entries[0]?.reason).toContain(`approval ${id}`);
  });

  it("is a denial that says so, not an interrupt, when the store cannot keep the approval", async () => {
    const broken: StateStore = Object.assign(Object.create(new MemoryStore()) as StateStore, {
      set: () => Promise.reject(new Error("redis down")),
      scope() {
        return broken;
      },
    });
    const { stack, op } = setup({ store: broken });
    const outcome = await stack.run("tool", call(), op);
    expect(Outcome.isInterrupted(outcome)).toBe(false);
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/could not be kept for a person to answer: .*redis down/),
    });
  });
});

describe("tokens resume refuses", () => {
  const interrupted = async (options: Parameters<typeof setup>[0] = {}) => {
    const s = setup(options);
    const o = await s.stack.run("tool", call(), s.op);
    return { ...s, token: Outcome.isInterrupted(o) ? o.approval.token : "", id: Outcome.isInterrupted(o) ? o.approval.id : "" };
  };

  it("tampered: a changed payload, a changed signature, another key's, or no token at all, without consuming it", async () => {
    const { approvals, stack, op, token } = await interrupted();
    const [v, payload, sig] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const forged = `${v}.${Buffer.from(JSON.stringify({ ...claims, exp: Date.now() + 1e12 })).toString("base64url")}.${sig}`;
    const other = await (async () => {
      const s = setup();
      const o = await s.stack.run("tool", call(), s.op);
      return Outcome.isInterrupted(o) ? o.approval.token : "";
    })();
    const foreign = durableApprovals({ store: new MemoryStore(), key: "another-key-of-at-least-32-bytes!" });
    for (const bad of [forged, `${v}.${payload}.${sig.slice(0, -4)}AAAA`, "not a token", ""]) {
      const error = await approvals.resume(stack, bad, { decision: "approve" }, op).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApprovalTamperedError);
      expect((error as ApprovalTamperedError).kind).toBe("tampered");
    }
    await expect(foreign.claim(token, { decision: "approve" })).rejects.toBeInstanceOf(ApprovalTamperedError);
    // Signed with the same key, but its record is in another store.
    await expect(approvals.claim(other, { decision: "approve" })).rejects.toBeInstanceOf(UnknownApprovalError);
    // None of this consumed the real token.
    expect((await approvals.resume(stack, token, { decision: "approve" }, op))._tag).toBe("Completed");
  });

  it("expired, by the signed expiry, without consuming it (a clock set back resumes it)", async () => {
    let now = 1_000_000;
    const { approvals, stack, op, token, id } = await interrupted({ now: () => now, ttlMs: 60_000 });
    now += 60_000;
    const error = await approvals.resume(stack, token, { decision: "approve" }, op).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalExpiredError);
    expect(error).toMatchObject({ kind: "expired", approvalId: id, expiresAt: 1_060_000 });
    now -= 1;
    expect((await approvals.resume(stack, token, { decision: "approve" }, op))._tag).toBe("Completed");
  });

  it("replayed, also when the record is gone after the first claim", async () => {
    const { approvals, token } = await interrupted();
    await approvals.claim(token, { decision: "approve" });
    const again = await approvals.claim(token, { decision: "approve" }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ApprovalReplayedError);
    await expect(approvals.inspect(token)).rejects.toBeInstanceOf(ApprovalReplayedError);
  });

  it("gives exactly one of many concurrent claims of one token", async () => {
    const { approvals, token } = await interrupted();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => approvals.claim(token, { decision: "approve" })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(
      results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof ApprovalReplayedError),
    ).toBe(true);
  });

  it("shows a pending approval again without claiming it", async () => {
    const { approvals, token, id } = await interrupted();
    expect(await approvals.inspect(token)).toMatchObject({ id, token, hook: "approval", input: call() });
    expect((await approvals.claim(token, { decision: "approve" })).decision).toEqual({ decision: "approve" });
  });
});

describe("a pending approval linked under a key of the application's own", () => {
  it("is found by that key until it expires, and refuses a token it did not sign or an empty key", async () => {
    let clock = 1_000;
    const { approvals, stack, op } = setup({ now: () => clock, ttlMs: 60_000 });
    const first = await stack.run("tool", call(), op);
    if (!Outcome.isInterrupted(first)) throw new Error("not interrupted");
    expect(await approvals.linked("call-1")).toBeUndefined();
    await approvals.link("call-1", first.approval.token);
    expect(await approvals.linked("call-1")).toBe(first.approval.token);
    expect(await approvals.linked("call-2")).toBeUndefined();
    await expect(approvals.link("call-1", `${first.approval.token}x`)).rejects.toBeInstanceOf(ApprovalTamperedError);
    await expect(approvals.link("", first.approval.token)).rejects.toThrow(/ref must be a non-empty string/);
    clock += 60_000;
    await expect(approvals.link("call-3", first.approval.token)).rejects.toBeInstanceOf(ApprovalExpiredError);
  });

  it("keeps the link only as long as the approval can be answered", async () => {
    const store = new MemoryStore();
    const { approvals, stack, op } = setup({ store, ttlMs: 40 });
    const first = await stack.run("tool", call(), op);
    if (!Outcome.isInterrupted(first)) throw new Error("not interrupted");
    await approvals.link("call-1", first.approval.token);
    await new Promise((r) => setTimeout(r, 80));
    expect(await approvals.linked("call-1")).toBeUndefined();
  });
});

describe("durableApprovals options", () => {
  it("are checked when made", () => {
    const store = new MemoryStore();
    expect(() => durableApprovals({ store, key: "short" })).toThrow(/at least 32 bytes/);
    expect(() => durableApprovals({ store: {} as StateStore, key })).toThrow(/store must be a StateStore/);
    expect(() => durableApprovals({ store, key, ttlMs: 0 })).toThrow(/ttlMs must be a positive integer/);
    expect(() => durableApprovals({ store, key, prefix: "" })).toThrow(/prefix/);
  });
});
