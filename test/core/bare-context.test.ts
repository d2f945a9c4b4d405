import { describe, expect, it } from "vitest";
import { MemoryStore, Trace, type HookContext } from "../../src/core/index.ts";
import { call, newStack } from "./helpers.ts";

/** What an operation can read from its context, as plain data. */
const readAll = async <I>(ctx: HookContext<I>) => {
  await ctx.state().set("seen", 1);
  return {
    point: ctx.point,
    kind: ctx.kind,
    subject: ctx.subject,
    aborted: ctx.signal.aborted,
    sessionId: ctx.sessionId,
    runId: ctx.runId,
    callIdShape: /^call-\d+-[0-9a-f]{8}-\d+$/.test(ctx.callId),
    metadata: ctx.metadata,
    path: ctx.path,
    input: ctx.input,
    hook: ctx.hook.name,
    sessionState: await ctx.store.scope("session:s1").get("seen"),
  };
};

describe("the context of a run with nothing around its operation", () => {
  const options = { sessionId: "s1", runId: "run-given", metadata: { user: "ada" }, path: ["root"] };

  it("reads the same as the full context a run with a signal gets", async () => {
    let bare: unknown;
    let full: unknown;
    const input = call("Read");
    await newStack().run("tool", input, async (_c, ctx) => ((bare = await readAll(ctx)), { content: "" }), options);
    // A caller signal makes the run guarded, which always builds the full RunContext.
    const signal = new AbortController().signal;
    await newStack().run("tool", input, async (_c, ctx) => ((full = await readAll(ctx)), { content: "" }), { ...options, signal });
    expect(bare).toEqual(full);
    expect(bare).toMatchObject({
      point: "tool",
      kind: "gate",
      subject: undefined,
      aborted: false,
      sessionId: "s1",
      runId: "run-given",
      callIdShape: true,
      metadata: { user: "ada" },
      path: ["root"],
      input,
      hook: "?",
      sessionState: 1,
    });
  });

  it("uses the caller's store, and records nothing in the caller's trace", async () => {
    const store = new MemoryStore();
    const trace = new Trace();
    await newStack().run("tool", call(), async (_c, ctx) => (await ctx.state("global").set("k", "v"), { content: "" }), { store, trace });
    expect(await store.get("k")).toBe("v");
    expect(trace.entries).toEqual([]);
  });

  it("makes a run id on first use when the caller gave none, the same one each time", async () => {
    const ids = await newStack().run("tool", call(), (_c, ctx) => ({ content: `${ctx.runId} ${ctx.runId}` }));
    const [first, second] = (ids as { value: { content: string } }).value.content.split(" ");
    expect(first).toMatch(/^run-\d+-[0-9a-f]{8}-\d+$/);
    expect(second).toBe(first);
  });

  it("passes addContext to the caller's onContext, attributed to no hook", async () => {
    const seen: [string, string][] = [];
    await newStack().run("tool", call(), (_c, ctx) => (ctx.addContext("note"), { content: "" }), {
      onContext: (text, hook) => void seen.push([text, hook]),
    });
    expect(seen).toEqual([["note", "?"]]);
  });

  it("asks the stack's approval handler, and denies with a reason without one", async () => {
    const asked = newStack({ approval: async (r) => ({ decision: "approve", reason: `ok ${r.hook} on ${r.point}` }) });
    const allowed = await asked.run("tool", call(), async (_c, ctx) => ({ content: (await ctx.approve({ hook: "op" })).reason ?? "" }));
    expect(allowed).toEqual({ _tag: "Completed", value: { content: "ok op on tool" } });
    const denied = await newStack().run("tool", call(), async (_c, ctx) => ({ content: (await ctx.approve({ hook: "op" })).decision }));
    expect(denied).toEqual({ _tag: "Completed", value: { content: "deny" } });
  });

  it("keeps flush() waiting for work the operation handed to waitUntil", async () => {
    let done = false;
    const stack = newStack();
    await stack.run("tool", call(), (_c, ctx) => {
      ctx.waitUntil(new Promise<void>((resolve) => setTimeout(() => ((done = true), resolve()), 20)));
      return { content: "" };
    });
    expect(done).toBe(false);
    await stack.flush();
    expect(done).toBe(true);
  });

  it("settles with the operation's value, a synchronous one too, or with Failed when it throws", async () => {
    const stack = newStack();
    await expect(stack.run("tool", call(), () => ({ content: "sync" }))).resolves.toEqual({
      _tag: "Completed",
      value: { content: "sync" },
    });
    const boom = new Error("boom");
    await expect(
      stack.run("tool", call(), () => {
        throw boom;
      }),
    ).resolves.toEqual({ _tag: "Failed", error: boom });
    await expect(
      stack.run("tool", call(), async () => {
        throw boom;
      }),
    ).resolves.toEqual({ _tag: "Failed", error: boom });
  });
});
