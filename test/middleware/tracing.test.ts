import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { Reject, Transform } from "../../src/core/index.ts";
import { createAgent, createAgentStack, createScriptedModel, type ModelRequest } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { countingRedactor } from "./counting-redactor.ts";
import { tracing } from "../../src/middleware/tracing.ts";
import { bashTool } from "../agent/helpers.ts";
import { tracerHarness } from "./otel.ts";

const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("tracing, read back through the OpenTelemetry SDK", () => {
  it("ends a point's span even when the outcome cannot be read as usual (a response without usage)", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer }));
    const request: ModelRequest = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] };
    await stack.run("modelCall", request, () => ({ text: "hi", toolCalls: [], finishReason: "stop" }) as never);
    await stack.flush();
    expect(spans().map((s) => s.name)).toEqual(["chat gpt-4o"]);
  });

  it("makes a span for every point of a turn, nested run > step > modelCall/toolCall, named per the GenAI conventions", async () => {
    const { tracer, spans } = tracerHarness();
    const model = createScriptedModel({
      id: "gpt-4o",
      turns: [{ toolCalls: [{ name: "Bash", input: { command: "cat secret.txt" }, id: "c1" }] }, "Done."],
    });
    const stack = withMiddleware(createAgentStack(), tracing({ tracer }));
    await createAgent({ model, stack, tools: [bashTool()], name: "coder" }).run("go", { sessionId: "s1" });
    await stack.flush();

    const all = spans();
    const names = all.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "sessionStart",
        "userPrompt",
        "invoke_agent coder",
        "step",
        "chat gpt-4o",
        "execute_tool Bash",
        "stop",
        "sessionEnd",
      ]),
    );
    const byName = (n: string) => all.filter((s) => s.name === n);
    const run = byName("invoke_agent coder")[0]!;
    const steps = byName("step");
    expect(steps).toHaveLength(2);
    for (const step of steps) expect(parentOf(step)).toBe(run.spanContext().spanId);
    for (const chat of byName("chat gpt-4o")) expect(steps.map((s) => s.spanContext().spanId)).toContain(parentOf(chat));
    expect(parentOf(byName("execute_tool Bash")[0]!)).toBe(steps[0]!.spanContext().spanId);
    expect(new Set(all.map((s) => s.spanContext().traceId)).size).toBeGreaterThanOrEqual(1);
    expect(run.spanContext().traceId).toBe(byName("execute_tool Bash")[0]!.spanContext().traceId);

    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "coder",
      "gen_ai.conversation.id": "s1",
      "gen_ai.response.finish_reasons": ["stop"],
    });
    const chat = byName("chat gpt-4o")[0]!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.response.model": "gpt-4o",
    });
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toEqual(expect.any(Number));
    expect(byName("execute_tool Bash")[0]!.attributes).toEqual({
      "agent_onion.point": "toolCall",
      "agent_onion.subject": "Bash",
      "agent_onion.outcome": "completed",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.type": "function",
    });
    expect(JSON.stringify(all.map((s) => s.attributes))).not.toContain("secret.txt");
  });

  it("puts every child span inside its parent's time, turn after turn", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer }));
    for (let turn = 0; turn < 50; turn++) {
      const model = createScriptedModel({
        id: "gpt-4o",
        turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }, "Done."],
      });
      await createAgent({ model, stack, tools: [bashTool()], name: "coder" }).run("go", { sessionId: `s${turn}` });
    }
    await stack.flush();
    const all = spans();
    const byId = new Map(all.map((s) => [s.spanContext().spanId, s]));
    const outside = all.filter((child) => {
      const parent = byId.get(parentOf(child) ?? "");
      return parent !== undefined && (ms(child.startTime) < ms(parent.startTime) || ms(child.endTime) > ms(parent.endTime));
    });
    expect(all.length).toBeGreaterThan(300);
    expect(outside.map((s) => s.name)).toEqual([]);
  });

  it("adds one child span per hook decision, inside the point's span, with what the hook did", async () => {
    const { tracer, spans } = tracerHarness();
    let tagTook = Number.POSITIVE_INFINITY;
    const stack = withMiddleware(createAgentStack(), tracing({ tracer }))
      .use("toolCall", {
        name: "tag",
        source: "tests",
        before: async (c) => {
          const entered = performance.now();
          await new Promise((r) => setTimeout(r, 5));
          tagTook = performance.now() - entered;
          return Transform(c);
        },
      })
      .use("toolCall", {
        name: "flaky",
        failMode: "open",
        after: () => {
          throw new Error("crash");
        },
      })
      .use("toolCall", { name: "shadow-no", shadow: true, before: () => Reject("would block") });
    await stack.run("toolCall", { id: "c1", name: "Read", input: {} }, () => ({ content: "ok" }));
    await stack.flush();

    const point = spans().find((s) => s.name === "execute_tool Read")!;
    const hooks = spans().filter((s) => parentOf(s) === point.spanContext().spanId);
    expect(hooks.map((s) => s.name).sort()).toEqual(["hook flaky", "hook shadow-no", "hook tag"]);
    const tag = hooks.find((s) => s.name === "hook tag")!;
    expect(tag.attributes).toEqual({
      "hook.name": "tag",
      "hook.point": "toolCall",
      "hook.phase": "before",
      "hook.action": "Transform",
      "hook.outcome": "transform",
      "hook.source": "tests",
    });
    // The engine times the hook from before its call to after it settled: at least what the hook itself saw.
    expect(ms(tag.duration)).toBeGreaterThanOrEqual(tagTook - 0.01);
    // Stamped from one reading of the clocks, hook spans lie within their point's span on a loaded machine too.
    for (const h of hooks) {
      expect(ms(h.startTime)).toBeGreaterThanOrEqual(ms(point.startTime) - 0.01);
      expect(ms(h.endTime)).toBeLessThanOrEqual(ms(point.endTime) + 0.01);
    }
    const flaky = hooks.find((s) => s.name === "hook flaky")!;
    expect(flaky.attributes).toMatchObject({ "hook.outcome": "error", "hook.failure_mode": "open", "hook.failure_mode_allowed": true });
    expect(flaky.status.code).toBe(SpanStatusCode.ERROR);
    expect(hooks.find((s) => s.name === "hook shadow-no")!.attributes).toMatchObject({ "hook.outcome": "deny", "hook.shadow": true });
  });

  it("keeps hook spans inside the point's span when the wall clock has moved away from the process's monotonic clock", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer })).use("toolCall", {
      name: "slow",
      before: async (c) => (await new Promise((r) => setTimeout(r, 5)), Transform(c)),
    });
    // As after hours of a long process, or an NTP step: the wall clock a minute ahead.
    const wall = Date.now;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => wall() + 60_000);
    try {
      await stack.run("toolCall", { id: "c1", name: "Read", input: {} }, () => ({ content: "ok" }));
      await stack.flush();
    } finally {
      spy.mockRestore();
    }
    const point = spans().find((s) => s.name === "execute_tool Read")!;
    const hook = spans().find((s) => s.name === "hook slow")!;
    expect(ms(hook.startTime)).toBeGreaterThanOrEqual(ms(point.startTime) - 2);
    expect(ms(hook.endTime)).toBeLessThanOrEqual(ms(point.endTime) + 2);
  });

  it("marks a refused tool call as an error of type OutcomeRejectedError, with who refused and why, and a failure with its error's class", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer })).use("toolCall", {
      name: "no",
      match: "Bash",
      before: () => Reject("bob@example.com may not"),
    });
    await stack.run("toolCall", { id: "1", name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.run("toolCall", { id: "2", name: "Read", input: {} }, () => {
      throw new RangeError("disk on fire");
    });
    await stack.flush();
    const [rejected, failed] = [spans().find((s) => s.name === "execute_tool Bash")!, spans().find((s) => s.name === "execute_tool Read")!];
    expect(rejected.attributes).toMatchObject({
      "agent_onion.outcome": "rejected",
      "agent_onion.rejected_by": "no",
      "agent_onion.reason": "[REDACTED:email] may not",
      "error.type": "OutcomeRejectedError",
    });
    expect(rejected.status).toEqual({ code: SpanStatusCode.ERROR, message: "[REDACTED:email] may not" });
    expect(failed.attributes).toMatchObject({ "agent_onion.outcome": "failed", "error.type": "RangeError" });
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: "disk on fire" });
  });

  it("scrubs hook names in hook spans and the rejecting hook's name on the point's span, as it scrubs reasons", async () => {
    const { tracer, spans } = tracerHarness();
    const name = "notify:sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    const stack = withMiddleware(createAgentStack(), tracing({ tracer })).use("toolCall", { name, before: () => Reject("no") });
    await stack.run("toolCall", { id: "1", name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.flush();
    expect(JSON.stringify(spans().map((s) => [s.name, s.attributes, s.status]))).not.toContain("sk_live_4eC39HqLyjWDarjtT1zdp7dc");
    expect(spans().find((s) => s.name === "execute_tool Bash")!.attributes["agent_onion.rejected_by"]).toBe("notify:[REDACTED:api_key]");
    expect(spans().find((s) => s.name === "hook notify:[REDACTED:api_key]")!.attributes["hook.name"]).toBe("notify:[REDACTED:api_key]");
  });

  it("scrubs each hook name once per tracing, however many hook spans and rejections name it", async () => {
    const { tracer, spans } = tracerHarness();
    const { redactor, timesScrubbed } = countingRedactor();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer, redact: redactor }))
      .use("toolCall", { name: "tag", priority: 5, before: (c) => Transform({ ...c, input: { ...c.input, tagged: true } }) })
      .use("toolCall", { name: "no-rm", priority: 10, before: () => Reject("Destructive command blocked") });
    for (const id of ["1", "2"]) await stack.run("toolCall", { id, name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.flush();
    expect(spans().filter((s) => s.name === "hook no-rm")).toHaveLength(2);
    expect(spans().filter((s) => s.attributes["agent_onion.rejected_by"] === "no-rm")).toHaveLength(2);
    expect([timesScrubbed("tag"), timesScrubbed("no-rm")]).toEqual([1, 1]);
  });

  it("writes hook names as they are when told not to scrub", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer, redact: false })).use("toolCall", {
      name: "notify:sk_live_4eC39HqLyjWDarjtT1zdp7dc",
      before: () => Reject("no"),
    });
    await stack.run("toolCall", { id: "1", name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.flush();
    expect(spans().map((s) => s.name)).toContain("hook notify:sk_live_4eC39HqLyjWDarjtT1zdp7dc");
  });

  it("hashes the conversation id when told to redact, salted and stable within one tracing, as audit does", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer, redact: {} }));
    const agent = createAgent({ model: createScriptedModel({ turns: ["one", "two"] }), stack });
    for (const prompt of ["a", "b"]) await agent.run(prompt, { sessionId: "alice.smith@example.com" });
    await stack.flush();
    expect(JSON.stringify(spans().map((s) => [s.name, s.attributes]))).not.toContain("alice.smith@example.com");
    const ids = spans()
      .filter((s) => s.name === "invoke_agent agent")
      .map((s) => s.attributes["gen_ai.conversation.id"]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^\[email:sha256:[0-9a-f]{12}\]$/);
    expect(ids[1]).toBe(ids[0]);
    // Salted: hashing guessed addresses does not find it.
    expect(ids[0]).not.toContain(createHash("sha256").update("alice.smith@example.com").digest("hex").slice(0, 12));
  });

  it("hashes the conversation id with the caller's salt, so pseudonyms hold across processes", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer, redact: { salt: "pepper" } }));
    await createAgent({ model: createScriptedModel({ turns: ["ok"] }), stack }).run("hi", { sessionId: "alice.smith@example.com" });
    await stack.flush();
    const expected = createHash("sha256").update("pepper").update("alice.smith@example.com").digest("hex").slice(0, 12);
    expect(spans().find((s) => s.name === "invoke_agent agent")!.attributes["gen_ai.conversation.id"]).toBe(`[email:sha256:${expected}]`);
  });

  it("keeps the conversation id as it is, for correlation, unless told to redact", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer }));
    await createAgent({ model: createScriptedModel({ turns: ["ok"] }), stack }).run("hi", { sessionId: "alice.smith@example.com" });
    await stack.flush();
    expect(spans().find((s) => s.name === "invoke_agent agent")!.attributes["gen_ai.conversation.id"]).toBe("alice.smith@example.com");
  });

  it("ends a point's span when its run times out, with the run's error and time, though the operation answers later", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer }));
    let answered: Promise<unknown> = Promise.resolve();
    let answeredAt = Number.POSITIVE_INFINITY;
    const late = () =>
      (answered = new Promise((resolve) =>
        setTimeout(() => {
          answeredAt = performance.timeOrigin + performance.now();
          resolve({ content: "deployed" });
        }, 150),
      ));
    const outcome = await stack.run("toolCall", { id: "1", name: "Deploy", input: {} }, late as never, { timeoutMs: 30 });
    await stack.flush();
    expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError" } });
    expect(spans().map((s) => s.name)).toEqual(["execute_tool Deploy"]);
    const span = spans()[0]!;
    expect(span.attributes).toMatchObject({ "agent_onion.outcome": "failed", "error.type": "RunAbortedError" });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    await answered;
    // The span ended with the run, not when the operation answered later.
    expect(ms(span.endTime)).toBeLessThan(answeredAt);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(spans()).toHaveLength(1);
    expect(spans()[0]!.attributes["error.type"]).toBe("RunAbortedError");
  });

  it("ends a point's span and its hooks' parent when the caller aborts a run whose operation never settles", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer })).use("modelCall", {
      name: "guard",
      before: async () => undefined,
    });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 20);
    const request: ModelRequest = { model: "gpt-4o", messages: [] };
    const outcome = await stack.run("modelCall", request, () => new Promise<never>(() => {}), { signal: abort.signal });
    await stack.flush();
    expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError" } });
    const chat = spans().find((s) => s.name === "chat gpt-4o");
    expect(chat?.attributes).toMatchObject({ "agent_onion.outcome": "failed", "error.type": "RunAbortedError" });
    expect(parentOf(spans().find((s) => s.name === "hook guard")!)).toBe(chat!.spanContext().spanId);
  });

  it("makes no hook span for a synchronous Continue the engine did not time, so a run costs the same whatever its number of pass-through hooks", async () => {
    const { tracer, spans } = tracerHarness();
    let stack = withMiddleware(createAgentStack(), tracing({ tracer }));
    for (let i = 0; i < 20; i++) stack = stack.use("toolCall", { name: `pass-${i}`, before: () => undefined, after: () => undefined });
    stack = stack
      .use("toolCall", { name: "waits", before: async () => undefined })
      .use("toolCall", { name: "edits", before: (c) => Transform(c) });
    await stack.run("toolCall", { id: "1", name: "Read", input: {} }, () => ({ content: "" }));
    await stack.flush();
    expect(
      spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["execute_tool Read", "hook edits", "hook waits"]);
  });

  it("keeps concurrent runs of one point apart", async () => {
    const { tracer, spans } = tracerHarness();
    // Run "a" is slow and its hook's answer differs, so its hook span is recognisable by what it
    // did, not only by a duration a loaded machine could stretch for the others too.
    let aTook = Number.POSITIVE_INFINITY;
    const stack = withMiddleware(createAgentStack(), tracing({ tracer })).use("toolCall", {
      name: "slow",
      before: async (c) => {
        const entered = performance.now();
        await new Promise((r) => setTimeout(r, c.id === "a" ? 20 : 1));
        if (c.id !== "a") return undefined;
        aTook = performance.now() - entered;
        return Transform(c);
      },
    });
    await Promise.all(["a", "b", "c"].map((id) => stack.run("toolCall", { id, name: "T", input: {} }, () => ({ content: id }))));
    await stack.flush();
    const points = spans().filter((s) => s.name === "execute_tool T");
    expect(points).toHaveLength(3);
    for (const p of points) {
      const children = spans().filter((s) => parentOf(s) === p.spanContext().spanId);
      expect(children.map((c) => c.name)).toEqual(["hook slow"]);
      const isA = p.attributes["gen_ai.tool.call.id"] === "a";
      expect(children[0]!.attributes["hook.action"]).toBe(isA ? "Transform" : "Continue");
      if (isA) expect(ms(children[0]!.duration)).toBeGreaterThanOrEqual(aTook - 0.01);
    }
  });

  it("keeps concurrent runs apart when they share one input object", async () => {
    const { tracer, spans } = tracerHarness();
    const call = { id: "same", name: "T", input: {} };
    // The slow run's hook ends only after the fast run has ended, however fast timers fire here.
    let fastEnded!: () => void;
    const fastDone = new Promise<void>((resolve) => (fastEnded = resolve));
    const stack = withMiddleware(createAgentStack(), tracing({ tracer })).use("toolCall", {
      name: "slow",
      before: async (_c, ctx) => void (ctx.metadata.slow === true ? await fastDone : undefined),
    });
    const slowRun = stack.run("toolCall", call, () => ({ content: "ok" }), { metadata: { slow: true } });
    await stack.run("toolCall", call, () => ({ content: "ok" }), { metadata: { slow: false } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    fastEnded();
    await slowRun;
    await stack.flush();
    const points = spans().filter((s) => s.name === "execute_tool T");
    expect(points).toHaveLength(2);
    // Each point's span holds one hook span, its own run's, which ended inside it: the slow run's
    // hook span, had it gone under the fast run's span, would have ended 20 ms or more after that
    // span (spans anchor their clocks apart: a fraction of a ms is noise).
    for (const point of points) {
      const hooks = spans().filter((s) => parentOf(s) === point.spanContext().spanId);
      expect(hooks).toHaveLength(1);
      expect(ms(hooks[0]!.endTime)).toBeLessThan(ms(point.endTime) + 5);
    }
  });

  it("never refuses a call when tracing itself breaks", async () => {
    const broken = {
      startSpan: () => {
        throw new Error("exporter exploded");
      },
    } as never;
    const stack = withMiddleware(createAgentStack(), tracing({ tracer: broken }));
    const outcome = await stack.run("toolCall", { id: "1", name: "T", input: {} }, () => ({ content: "fine" }));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "fine" } });
    expect(stack.stats.failOpen).toBe(1);
  });

  it("can leave hook spans out, and checks its options", async () => {
    const { tracer, spans } = tracerHarness();
    const stack = withMiddleware(createAgentStack(), tracing({ tracer, hookSpans: false })).use("modelCall", {
      name: "x",
      before: () => undefined,
    });
    const request: ModelRequest = { model: "m", messages: [] };
    await stack.run("modelCall", request, () => ({
      text: "",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 0, outputTokens: 0 },
    }));
    await stack.flush();
    expect(spans().map((s) => s.name)).toEqual(["chat m"]);
    expect(() => tracing({ priority: Number.NaN })).toThrow(/priority/);
  });

  it("refuses points that are not a list of agent point names when it is made, naming the hook and the field", () => {
    expect(() => tracing({ points: "modelCall" as never })).toThrow(
      new TypeError('tracing: points must be a list of agent point names, got "modelCall"'),
    );
    expect(() => tracing({ points: ["nope"] })).toThrow(/tracing: "nope" is not an agent point/);
  });

  it("refuses a provider or a tracer it could not use when it is made, naming the hook and the field", () => {
    expect(() => tracing({ provider: 5 as never })).toThrow(
      new TypeError("tracing: provider must be a provider name or a function of the model id, got 5"),
    );
    expect(() => tracing({ name: "t2", tracer: {} as never })).toThrow(
      new TypeError("t2: tracer must be an OpenTelemetry Tracer (with startSpan), got [object Object]"),
    );
    expect(() => tracing({ tracer: tracerHarness().tracer, provider: "openai" })).not.toThrow();
  });

  it("refuses a redact option that is not a redactor, its options or false when it is made, naming the hook and the field", () => {
    expect(() => tracing({ redact: "yes" as never })).toThrow(
      new TypeError('tracing: redact must be a redactor, redactor options or false, got "yes"'),
    );
    expect(() => tracing({ name: "t2", redact: true as never })).toThrow(
      new TypeError("t2: redact must be a redactor, redactor options or false, got true"),
    );
    expect(() => tracing({ redact: null as never })).toThrow(/tracing: redact must be .* got null/);
    for (const redact of [false, {}, { salt: "pepper" }, createRedactor()] as const) expect(() => tracing({ redact })).not.toThrow();
  });
});
