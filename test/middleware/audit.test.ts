import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Reject, Transform } from "../../src/core/index.ts";
import { createAgent, createAgentStack, createScriptedModel, type ToolCall } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { audit, type AuditDecision, type AuditRun } from "../../src/middleware/audit.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { countingRedactor } from "./counting-redactor.ts";
import { bashTool } from "../agent/helpers.ts";
import { scaled } from "../support/scale.ts";
import { settlesWithin } from "../support/timers.ts";

const collect = () => {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk) => (text += String(chunk)));
  return {
    stream,
    records: () =>
      text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditDecision | AuditRun),
  };
};
const call: ToolCall = { id: "c1", name: "Bash", input: { command: "rm -rf /" } };

describe("audit", () => {
  let dir: string;
  beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), "audit-"))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("stamps entries with the wall clock of the moment, even when it has moved away from the process's monotonic clock", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream })).use("toolCall", {
      name: "no-rm",
      before: () => Reject("no"),
    });
    // As after hours of a long process, or an NTP step: the wall clock a minute ahead.
    const wall = Date.now;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => wall() + 60_000);
    try {
      await stack.run("toolCall", call, () => ({ content: "ran" }));
      await stack.flush();
      // Within half the clocks' gap, however slowly a busy machine ran the lines above.
      for (const record of out.records()) expect(Math.abs(Date.parse(record.time) - Date.now())).toBeLessThan(30_000);
    } finally {
      spy.mockRestore();
    }
  });

  it("writes exactly one run line when a hook inside rejects, throws or times out, or the caller aborts", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream })).use("toolCall", {
      name: "inner",
      timeoutMs: 20,
      before: (c) => {
        if (c.name === "Reject") return Reject("no");
        if (c.name === "Throw") throw new TypeError("bug");
        if (c.name === "Slow") return new Promise<undefined>(() => {});
        return undefined;
      },
    });
    const runOf = (name: string, signal?: AbortSignal) =>
      stack.run("toolCall", { id: name, name, input: {} }, () => new Promise<never>(() => {}), {
        runId: name,
        ...(signal !== undefined ? { signal } : {}),
      });
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error("user cancelled")), 20);
    await Promise.all([runOf("Reject"), runOf("Throw"), runOf("Slow"), runOf("Abort", abort.signal)]);
    await stack.flush();
    const runs = out.records().filter((r): r is AuditRun => r.type === "run");
    expect(runs.map((r) => [r.runId, r.outcome]).sort()).toEqual([
      ["Abort", "Failed"],
      ["Reject", "Rejected"],
      ["Slow", "Rejected"],
      ["Throw", "Rejected"],
    ]);
    expect(runs.find((r) => r.runId === "Abort")!.error).toMatch(/RunAbortedError|aborted/);
  });

  it("writes each decision and how the run ended as JSON lines", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream }))
      .use("toolCall", { name: "tag", source: "tests", before: (c) => Transform({ ...c, input: { ...c.input, tagged: true } }) })
      .use("toolCall", { name: "no-rm", priority: 10, before: () => Reject("Destructive command blocked") });
    await stack.run("toolCall", call, () => ({ content: "never" }), { sessionId: "s1", runId: "r1" });
    await stack.flush();

    const [first, second, ...rest] = out.records();
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      type: "decision",
      sessionId: "s1",
      runId: "r1",
      point: "toolCall",
      subject: "Bash",
      hook: "no-rm",
      phase: "before",
      action: "Reject",
      reason: "Destructive command blocked",
    });
    expect((first as AuditDecision).ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse((first as AuditDecision).time)).toBeGreaterThan(Date.now() - 60_000);
    expect(second).toMatchObject({
      type: "run",
      point: "toolCall",
      outcome: "Rejected",
      by: "no-rm",
      reason: "Destructive command blocked",
    });
  });

  it("records the source, shadow decisions and fail modes of failures", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream }))
      .use("toolCall", { name: "shadowed", shadow: true, before: () => Reject("would block") })
      .use("toolCall", {
        name: "flaky",
        source: "settings.json#hooks.PreToolUse[0]",
        failMode: "open",
        before: () => {
          throw new Error("crash");
        },
      });
    await stack.run("toolCall", call, () => ({ content: "ok" }));
    await stack.flush();
    const decisions = out.records().filter((r): r is AuditDecision => r.type === "decision");
    expect(decisions.map((d) => [d.hook, d.action, d.shadow ?? false])).toEqual([
      ["shadowed", "Reject", true],
      ["flaky", "Failed", false],
    ]);
    expect(decisions[1]).toMatchObject({
      source: "settings.json#hooks.PreToolUse[0]",
      failMode: "open",
      reason: expect.stringContaining("crash"),
    });
  });

  it("scrubs PII and secrets from what it writes, even kinds that would block", async () => {
    const out = collect();
    const stack = withMiddleware(
      createAgentStack(),
      audit({ to: out.stream, redact: { strategies: { api_key: "block" } }, metadata: ["user"] }),
    ).use("toolCall", { name: "leaky", before: () => Reject("bob@example.com may not use AKIAIOSFODNN7EXAMPLE") });
    await stack.run("toolCall", call, () => ({ content: "" }), { metadata: { user: "bob@example.com", secret: "x" } });
    await stack.flush();
    const text = JSON.stringify(out.records());
    expect(text).not.toContain("bob@example.com");
    expect(text).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(text).toContain("[REDACTED:email] may not use [REDACTED:api_key]");
    expect(out.records()[1]).toMatchObject({ metadata: { user: "[REDACTED:email]" } });
    expect(text).not.toContain('"secret"');
  });

  it("scrubs the session id and the run id, which embeds it, as it scrubs the same email in metadata", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, metadata: ["user"] })).use("userPrompt", {
      name: "look",
      before: () => undefined,
    });
    const agent = createAgent({ model: createScriptedModel({ turns: ["ok"] }), stack });
    const turn = await agent.run("hi", { sessionId: "alice.smith@example.com", metadata: { user: "alice.smith@example.com" } });
    await stack.flush();
    expect(turn.runId).toContain("alice.smith@example.com");
    const records = out.records();
    expect(records.map((r) => r.type)).toEqual(["decision", "run"]);
    expect(JSON.stringify(records)).not.toContain("alice.smith@example.com");
    for (const r of records) {
      expect(r.sessionId).toMatch(/^\[email:sha256:[0-9a-f]{12}\]$/);
      expect(r.runId.startsWith(`${r.sessionId}#`)).toBe(true);
    }
    // Salted: hashing guessed addresses does not find it.
    expect(records[0]!.sessionId).not.toContain(createHash("sha256").update("alice.smith@example.com").digest("hex").slice(0, 12));
  });

  it("scrubs hook names and the rejecting hook's name, which may carry a credential, as it scrubs reasons", async () => {
    const out = collect();
    const name = "notify:sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream })).use("toolCall", { name, before: () => Reject("no") });
    await stack.run("toolCall", call, () => ({ content: "" }));
    await stack.flush();
    const [decision, run] = out.records() as [AuditDecision, AuditRun];
    expect(JSON.stringify(out.records())).not.toContain("sk_live_4eC39HqLyjWDarjtT1zdp7dc");
    expect(decision.hook).toBe("notify:[REDACTED:api_key]");
    expect(run.by).toBe("notify:[REDACTED:api_key]");
  });

  it("scrubs each hook name once per audit, however many decisions and runs name it", async () => {
    const out = collect();
    const { redactor, timesScrubbed } = countingRedactor();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, redact: redactor }))
      .use("toolCall", { name: "tag", priority: 5, before: (c) => Transform({ ...c, input: { ...c.input, tagged: true } }) })
      .use("toolCall", { name: "no-rm", priority: 10, before: () => Reject("Destructive command blocked") });
    for (const runId of ["r1", "r2"]) await stack.run("toolCall", call, () => ({ content: "never" }), { runId });
    await stack.flush();
    expect(out.records().filter((r) => r.type === "decision" && r.hook === "no-rm")).toHaveLength(2);
    expect(out.records().filter((r) => r.type === "run" && r.by === "no-rm")).toHaveLength(2);
    expect([timesScrubbed("tag"), timesScrubbed("no-rm")]).toEqual([1, 1]);
  });

  it("keeps sessions apart when their ids look like secrets: an id is hashed, not replaced by one placeholder for all", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream })).use("toolCall", { name: "no", before: () => Reject("no") });
    const ids = ["sk-sess-01J8ZXQ4M7K2VN3PHT6RB9WCFD7K2V", "sk-sess-01J8ZXR2P5T8YA4KDM7QC3WBEN8YA4"];
    for (const sessionId of ids) await stack.run("toolCall", { id: "c", name: "Bash", input: {} }, () => ({ content: "" }), { sessionId });
    await stack.flush();
    const seen = out.records().map((r) => r.sessionId as string);
    expect(new Set(seen).size).toBe(2);
    for (const id of ids) expect(JSON.stringify(out.records())).not.toContain(id);
  });

  it("scrubs metadata values that are objects or lists, not only strings", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, metadata: ["user", "contacts"] })).use("toolCall", {
      name: "no",
      before: () => Reject("no"),
    });
    const metadata = { user: { id: 7, email: "bob@example.com" }, contacts: ["ann@example.com", { ip: "10.1.2.3" }] };
    await stack.run("toolCall", call, () => ({ content: "" }), { metadata });
    await stack.flush();
    const text = JSON.stringify(out.records());
    expect(text).not.toContain("bob@example.com");
    expect(text).not.toContain("ann@example.com");
    expect(out.records()[1]).toMatchObject({
      metadata: {
        user: { id: 7, email: "[REDACTED:email]" },
        contacts: ["[REDACTED:email]", { ip: expect.not.stringContaining("10.1.2.3") }],
      },
    });
  });

  it("scrubs metadata keys and numbers too: an email may be a key, a card number a number", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, metadata: ["user"] })).use("toolCall", {
      name: "no",
      before: () => Reject("no"),
    });
    await stack.run("toolCall", call, () => ({ content: "" }), {
      metadata: { user: { "alice@example.com": "admin", card: 4111111111111111, id: 7 } },
    });
    await stack.flush();
    const text = JSON.stringify(out.records());
    expect(text).not.toContain("alice@example.com");
    expect(text).not.toContain("4111111111111111");
    expect(out.records()[1]).toMatchObject({ metadata: { user: { "[REDACTED:email]": "admin", id: 7 } } });
  });

  it("writes functions in metadata as a marker, so a toJSON cannot put back what was scrubbed", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, metadata: ["user", "hook"] })).use("toolCall", {
      name: "no",
      before: () => Reject("no"),
    });
    const user = { name: "x", toJSON: () => ({ email: "alice@example.com" }) };
    await stack.run("toolCall", call, () => ({ content: "" }), { metadata: { user, hook: () => "alice@example.com" } });
    await stack.flush();
    expect(JSON.stringify(out.records())).not.toContain("alice@example.com");
    expect(out.records()[1]).toMatchObject({ metadata: { user: { name: "x", toJSON: "[function]" }, hook: "[function]" } });
  });

  it("writes a metadata field it cannot read as a marker, and keeps the run's decisions and the other fields", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, metadata: ["user", "tenant", "contacts", "plan"] })).use(
      "toolCall",
      { name: "no", before: () => Reject("no") },
    );
    const contacts = ["ann@example.com", "bob@example.com"];
    Object.defineProperty(contacts, 1, {
      get: () => {
        throw new Error("gone");
      },
    });
    const metadata = {
      user: {
        id: 7,
        get email(): string {
          throw new Error("boom alice@example.com");
        },
      },
      get tenant(): string {
        throw new Error("no tenant");
      },
      contacts,
      plan: "pro",
    };
    await stack.run("toolCall", call, () => ({ content: "" }), { metadata });
    await stack.flush();
    expect(stack.stats.observerErrors).toBe(0);
    const records = out.records();
    expect(records.map((r) => r.type)).toEqual(["decision", "run"]);
    expect(records[1]).toMatchObject({
      outcome: "Rejected",
      by: "no",
      metadata: {
        user: { id: 7, email: "[unreadable]" },
        tenant: "[unreadable]",
        contacts: ["[REDACTED:email]", "[unreadable]"],
        plan: "pro",
      },
    });
    expect(JSON.stringify(records)).not.toContain("alice@example.com");
  });

  it("keeps the run's line when a metadata field it writes as is cannot be serialised (redact: false)", async () => {
    const out = collect();
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream, redact: false, metadata: ["user", "plan"] })).use("toolCall", {
      name: "no",
      before: () => Reject("no"),
    });
    await stack.run("toolCall", call, () => ({ content: "" }), {
      metadata: {
        user: {
          get email(): string {
            throw new Error("boom");
          },
        },
        plan: "pro",
      },
    });
    await stack.flush();
    expect(stack.stats.observerErrors).toBe(0);
    expect(out.records()[1]).toMatchObject({ type: "run", metadata: { user: "[unreadable]", plan: "pro" } });
  });

  it("never delays the chain: the run settles before a slow write, and flush waits for it", async () => {
    let written = "";
    // Each write finishes only when the test lets it: a run that waited for one would never settle.
    const held: (() => void)[] = [];
    let release = false;
    const slow = new Writable({
      write: (chunk, _enc, done) => {
        const finish = () => ((written += String(chunk)), done());
        if (release) finish();
        else held.push(finish);
      },
    });
    const stack = withMiddleware(createAgentStack(), audit({ to: slow })).use("toolCall", { name: "no", before: () => Reject("no") });
    const running = stack.run("toolCall", call, () => ({ content: "" }));
    expect(await settlesWithin(scaled(10_000), running)).toBe(true);
    expect(written).toBe("");
    let flushed = false;
    const flushing = stack.flush().then(() => (flushed = true));
    await new Promise((r) => setImmediate(r));
    expect(flushed).toBe(false); // flush waits for the held write
    release = true;
    for (const finish of held.splice(0)) finish();
    await flushing;
    expect(written.split("\n").filter(Boolean)).toHaveLength(2);
  });

  it("appends to a file, in order, and closes it", async () => {
    const path = join(dir, "audit.jsonl");
    const log = audit({ to: path });
    const stack = withMiddleware(createAgentStack(), log).use("toolCall", { name: "no", before: () => Reject("no") });
    for (let i = 0; i < 20; i++) void stack.run("toolCall", { ...call, id: `c${i}` }, () => ({ content: "" }), { runId: `r${i}` });
    await stack.flush();
    await log.close();
    const runs = (await readFile(path, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditRun)
      .filter((r) => r.type === "run");
    expect(runs.map((r) => r.runId)).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
  });

  it("counts a write failure as an observer error, and the agent goes on", async () => {
    const failures: string[] = [];
    const stack = withMiddleware(
      createAgentStack({ onFailure: (e) => void failures.push(e.message) }),
      audit({ to: join(dir, "missing", "dir", "audit.jsonl") }),
    ).use("toolCall", { name: "no", before: () => Reject("no") });
    const outcome = await stack.run("toolCall", call, () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    await stack.flush();
    expect(stack.stats.observerErrors).toBe(1);
    expect(failures[0]).toMatch(/audit.*ENOENT/s);
  });

  it("audits a whole agent turn through the reference loop", async () => {
    const out = collect();
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "rm -rf /" } }] }, "I could not."] });
    const stack = withMiddleware(createAgentStack(), audit({ to: out.stream })).use("toolCall", {
      name: "no-rm",
      match: "Bash(rm -rf*)",
      before: () => Reject("Destructive command blocked"),
    });
    const turn = await createAgent({ model, stack, tools: [bashTool()] }).run("wipe it");
    await stack.flush();
    expect(turn.status).toBe("completed");
    const records = out.records();
    expect(
      records.filter((r) => r.type === "decision").map((r) => `${r.point}/${(r as AuditDecision).hook}/${(r as AuditDecision).action}`),
    ).toEqual(["toolCall/no-rm/Reject"]);
    expect(records.every((r) => r.sessionId !== undefined)).toBe(true);
  });

  it("checks its options", () => {
    expect(() => audit({ to: "" })).toThrow(/to must/);
    expect(() => audit({ to: 42 as never })).toThrow(/to must/);
    expect(() => audit({ to: new PassThrough(), points: ["nope"] })).toThrow(/not an agent point/);
  });

  it("refuses points that are not a list of agent point names, naming the field", () => {
    expect(() => audit({ to: new PassThrough(), points: "toolCall" as never })).toThrow(
      new TypeError('audit: points must be a list of agent point names, got "toolCall"'),
    );
  });

  it("refuses metadata that is not a list of field names, naming the field", () => {
    expect(() => audit({ to: new PassThrough(), metadata: "tenant" as never })).toThrow(
      /audit: metadata must be a list of strings, got "tenant"/,
    );
    expect(() => audit({ to: new PassThrough(), metadata: ["user", 7] as never })).toThrow(
      /audit: metadata\[1\] must be a non-empty string, got 7/,
    );
  });

  it("refuses a redact option that is not a redactor, its options or false when it is made, naming the hook and the field", () => {
    expect(() => audit({ to: new PassThrough(), redact: "yes" as never })).toThrow(
      new TypeError('audit: redact must be a redactor, redactor options or false, got "yes"'),
    );
    expect(() => audit({ to: new PassThrough(), name: "a2", redact: true as never })).toThrow(
      new TypeError("a2: redact must be a redactor, redactor options or false, got true"),
    );
    expect(() => audit({ to: new PassThrough(), redact: null as never })).toThrow(/audit: redact must be .* got null/);
    for (const redact of [false, {}, { salt: "pepper" }, createRedactor()] as const)
      expect(() => audit({ to: new PassThrough(), redact })).not.toThrow();
  });
});
