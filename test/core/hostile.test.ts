import { describe, expect, it } from "vitest";
import { Continue, createStack, gate, Reject, Trace, type HookError } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";

describe("hostile input and answers", () => {
  it("settles with an Outcome for a 10 000-deep input in strict mode", async () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 10_000; i++) deep = (deep.next = {}) as Record<string, unknown>;
    const stack = newStack({ strict: true }).use("tool", { name: "h", before: () => Continue });
    const outcome = await stack.run("tool", call("Read", root), () => ({ content: "ok" }));
    expect(outcome._tag).toBe("Completed");
  });

  it("refuses a run timeoutMs that a timer cannot honour, with a TypeError", async () => {
    for (const timeoutMs of [Infinity, -1, 0, Number.NaN, 2 ** 31])
      await expect(newStack().run("tool", call(), () => ({ content: "" }), { timeoutMs })).rejects.toThrow(
        /timeoutMs must be a positive number/,
      );
    expect(() => gate({ name: "p", timeoutMs: 2 ** 31 })).toThrow(/timeoutMs/);
  });

  it("rejects a run on an unknown point through the promise, not a throw", async () => {
    let pending: Promise<unknown> | undefined;
    expect(() => {
      pending = newStack().run("nope" as never, call() as never, (() => ({ content: "" })) as never);
    }).not.toThrow();
    await expect(pending).rejects.toThrow(/"nope" is not a point/);
  });

  it("rejects a run whose signal is not an AbortSignal with a TypeError through the promise, with or without hooks", async () => {
    for (const stack of [newStack(), newStack().use("tool", { name: "h", before: () => Continue })]) {
      for (const signal of [{}, null, "stop", { aborted: false }]) {
        let pending: Promise<unknown> | undefined;
        expect(() => {
          pending = stack.run("tool", call(), () => ({ content: "" }), { signal: signal as never });
        }).not.toThrow();
        await expect(pending).rejects.toThrow(TypeError);
        await expect(pending).rejects.toThrow(/signal must be an AbortSignal/);
      }
    }
  });

  it("rejects a run whose options throw when read through the promise, not a throw, with or without hooks", async () => {
    const options = new Proxy(
      {},
      {
        get: () => {
          throw new Error("options refused");
        },
      },
    );
    for (const stack of [newStack(), newStack().use("tool", { name: "h", before: () => Continue })]) {
      let pending: Promise<unknown> | undefined;
      expect(() => {
        pending = stack.run("tool", call(), () => ({ content: "" }), options);
      }).not.toThrow();
      await expect(pending).rejects.toThrow("options refused");
    }
  });

  it("rejects a run whose onContext is not a function with a TypeError, not a Failed outcome", async () => {
    await expect(newStack().run("tool", call(), () => ({ content: "" }), { onContext: 5 as never })).rejects.toThrow(
      /onContext must be a function, got number/,
    );
    // null was a harmless "no listener" before the check, and still is.
    await expect(
      newStack().run("tool", call(), (_c, ctx) => (ctx.addContext("x"), { content: "" }), { onContext: null as never }),
    ).resolves.toMatchObject({ _tag: "Completed" });
  });

  it("explains an input its point's subject function throws on, as run does: a hook that needs the subject applies if it fails closed", () => {
    const stack = newStack()
      .use("tool", { name: "any", before: () => Continue })
      .use("tool", { name: "bash-only", match: "Bash", before: () => Continue })
      .use("tool", { name: "bash-open", match: "Bash", failMode: "open", before: () => Continue });
    const lines = stack.explain("tool", null as never);
    expect(lines.map((l) => [l.hook, l.matches])).toEqual([
      ["any", true],
      ["bash-only", true],
      ["bash-open", false],
    ]);
  });

  describe("a subject function that throws on the input", () => {
    const failures: HookError[] = [];
    const ran: string[] = [];
    const stack = newStack({ onFailure: (e) => void failures.push(e) })
      .use("tool", { name: "audit", before: () => void ran.push("audit") })
      .use("tool", { name: "deny-rm", match: "Bash(rm *)", before: () => Reject("no rm") })
      .use("tool", { name: "read-note", match: "Read", failMode: "open", before: () => void ran.push("read-note") });

    it("applies a hook that fails closed, its condition unchecked: a deny rule still sees the call", async () => {
      failures.length = 0;
      ran.length = 0;
      const outcome = await stack.run("tool", null as never, () => ({ content: "ran" }));
      expect(outcome).toMatchObject({ _tag: "Rejected", reason: "no rm", by: "deny-rm" });
      expect(ran).toEqual(["audit"]);
    });

    it("reports the failed match of every hook that needed the subject, on every run, and leaves out those that fail open", async () => {
      for (let i = 0; i < 2; i++) {
        failures.length = 0;
        await stack.run("tool", null as never, () => ({ content: "ran" }));
        expect(failures.map((e) => [e.hook, e.phase, e.kind])).toEqual([
          ["deny-rm", "match", "threw"],
          ["read-note", "match", "threw"],
        ]);
        expect(failures[0]?.message).toMatch(/the subject of point "tool" could not be computed: .*null/);
      }
      expect(stack.stats.failOpen).toBeGreaterThanOrEqual(2);
    });

    it("records the failed matches in the trace", async () => {
      const trace = new Trace();
      await stack.run("tool", null as never, () => ({ content: "ran" }), { trace });
      expect(trace.entries.filter((e) => e.phase === "match").map((e) => [e.hook, e.action, e.failMode])).toEqual([
        ["deny-rm", "Failed", "closed"],
        ["read-note", "Failed", "open"],
      ]);
    });

    it("calls a function matcher with no subject, as before, and leaves a hook that only observes out, counted as an observer's failure", async () => {
      let subjectCalls = 0;
      const point = gate<{ name: string } | null, { content: string }>({
        name: "tool",
        subject: (c) => (subjectCalls++, (c as { name: string }).name),
      });
      const seen: string[] = [];
      const errors: HookError[] = [];
      const s = createStack({ tool: point }, { onFailure: (e) => void errors.push(e) })
        .use("tool", { name: "fn", match: (subject) => subject === undefined, before: () => void seen.push("fn") })
        .use("tool", { name: "fn-no", match: (_s, input) => input !== null, before: () => Reject("never") })
        .use("tool", { name: "watch-bash", match: "Bash", observe: () => void seen.push("watch-bash") })
        .use("tool", { name: "off", match: "Bash", disabled: true, before: () => Reject("disabled") });
      expect(await s.run("tool", null, () => ({ content: "ran" }))).toMatchObject({ _tag: "Completed" });
      await s.flush();
      await new Promise((r) => setImmediate(r));
      expect(seen).toEqual(["fn"]);
      expect(subjectCalls).toBe(1); // its error is kept, not asked for again
      expect(errors.map((e) => [e.hook, e.phase])).toEqual([["watch-bash", "observe"]]);
      expect(s.stats.observerErrors).toBe(1);
    });

    it("leaves a point without subject-dependent hooks as it was: the subject is simply unknown", async () => {
      failures.length = 0;
      const plain = newStack({ onFailure: (e) => void failures.push(e) }).use("tool", { name: "any", before: () => Continue });
      expect(await plain.run("tool", null as never, () => ({ content: "ran" }))).toMatchObject({ _tag: "Completed" });
      expect(failures).toEqual([]);
    });
  });

  it("treats an answer whose _tag getter throws as an invalid action, sync or async", async () => {
    const hostile = () => ({
      get _tag(): string {
        throw new Error("gotcha");
      },
    });
    for (const before of [hostile, async () => hostile()]) {
      const stack = newStack().use("tool", { name: "evil", before: before as never });
      const outcome = await stack.run("tool", call(), () => ({ content: "" }));
      expect(outcome._tag === "Rejected" && outcome.cause?.kind).toBe("invalid-action");
    }
  });

  it("survives a revoked Proxy thrown by a hook", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const stack = newStack().use("tool", {
      name: "evil",
      before: async () => {
        throw proxy;
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag === "Rejected" && outcome.reason).toContain("[unprintable value]");
  });

  describe("a revoked Proxy returned as an answer", () => {
    const revoked = (): unknown => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    };
    const phases = ["before", "after", "around"] as const;

    it.each(phases)(
      "is an invalid action of its hook in %s: a Rejected naming it, and the layer outside is ended with it",
      async (phase) => {
        const ended: string[] = [];
        const stack = newStack()
          .use("tool", { name: "outer", priority: 1, before: () => Continue, onSettled: (o) => void ended.push(o._tag) })
          .use("tool", { name: "evil", priority: 2, [phase]: () => revoked() });
        const outcome = await stack.run("tool", call(), () => ({ content: "ok" }));
        expect(outcome._tag === "Rejected" && outcome.by).toBe("evil");
        expect(outcome._tag === "Rejected" && outcome.cause?.kind).toBe("invalid-action");
        expect(ended).toEqual(["Rejected"]);
      },
    );

    it.each(phases)("never rejects stack.run in %s after an asynchronous step, and fails open when told to", async (phase) => {
      const ended: string[] = [];
      const stack = newStack()
        .use("tool", { name: "outer", priority: 1, before: async () => Continue, onSettled: (o) => void ended.push(o._tag) })
        .use("tool", { name: "evil", priority: 2, failMode: "open", [phase]: () => revoked() });
      const outcome = await stack.run("tool", call(), async () => ({ content: "ok" }));
      expect(outcome).toEqual({ _tag: "Completed", value: { content: "ok" } });
      expect(ended).toEqual(["Completed"]);
      expect(stack.stats.failOpen).toBe(1);
    });
  });

  it("settles, ends the layers inside and tells observers when an around hook answers a Failed whose error is a revoked Proxy", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const log: string[] = [];
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (_ctx, next) => {
          void next();
          await sleep(1);
          return { _tag: "Failed", error: proxy } as never;
        },
      })
      .use("tool", { name: "inner", priority: 2, before: () => Continue, onSettled: (o) => void log.push(`inner ${o._tag}`) })
      .use("tool", { name: "watch", observe: (e) => void log.push(`observed ${e.outcome._tag}`) });
    const outcome = await stack.run("tool", call(), () => sleep(20).then(() => ({ content: "late" })));
    expect(outcome._tag).toBe("Failed");
    await stack.flush();
    expect(log).toEqual(["inner Failed", "observed Failed"]);
  });

  it("records a thrown Proxy that claims a failure kind and traps its prototype, with a trace", async () => {
    const liar = new Proxy(
      {},
      {
        get: (_t, key) => (key === "hookFailureKind" ? "reject-on-observe" : undefined),
        getPrototypeOf: () => {
          throw new Error("trap");
        },
      },
    );
    const trace = new Trace();
    const stack = newStack().use("tool", {
      name: "liar",
      before: () => {
        throw liar;
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }), { trace });
    expect(outcome._tag === "Rejected" && outcome.by).toBe("liar");
    expect(trace.entries.map((e) => e.action)).toContain("Failed");
  });

  it("reads the reasons of a Rejected an around hook built into reasons of its own, or fails the hook", async () => {
    const built = (reasons: unknown) =>
      newStack({ onFailure: () => {} }).use("tool", {
        name: "maker",
        around: () => ({ _tag: "Rejected", reason: "no", by: "maker", reasons }) as never,
      });
    const outcome = await built([{ reason: 1, by: "a", extra: "dropped" }]).run("tool", call(), () => ({ content: "" }));
    expect(outcome).toEqual({ _tag: "Rejected", reason: "no", by: "maker", reasons: [{ reason: "1", by: "a" }] });
    expect(Object.isFrozen(outcome._tag === "Rejected" && outcome.reasons)).toBe(true);
    const liar = new Proxy([], {
      get: () => {
        throw new Error("trap");
      },
    });
    const failed = await built(liar).run("tool", call(), () => ({ content: "" }));
    expect(failed._tag === "Rejected" && failed.cause?.kind).toBe("invalid-action");
  });

  it("keeps terminal escapes and bidi overrides out of failure reasons", async () => {
    const stack = newStack().use("tool", {
      name: "noisy",
      before: () => {
        throw new Error("\u001b]52;c;ZXZpbA==\u0007boom\u001b[2J\u202e");
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag === "Rejected" && outcome.reason).toBe('hook "noisy" failed in before on tool: threw: boom');
  });

  it("counts an answer that arrives after the hook's deadline as a timeout, even if the timer fires late", async () => {
    const stack = createStack({ p: gate<number, number>({ name: "p" }) }).use("p", {
      name: "slow",
      timeoutMs: 15,
      before: async () => {
        await sleep(40);
        return Continue;
      },
    });
    const pending = stack.run("p", 1, (n) => n);
    const until = performance.now() + 100;
    await sleep(5);
    while (performance.now() < until) {
      /* block the event loop: the timer cannot fire */
    }
    const outcome = await pending;
    expect(outcome._tag === "Rejected" && outcome.cause?.kind).toBe("timeout");
  });
});

describe("answers read once", () => {
  it("reads a Transform's value once, so a getter that throws on the second read cannot crash the run", async () => {
    let reads = 0;
    const sly = {
      _tag: "Transform",
      get value() {
        if (++reads > 1) throw new Error("second read");
        return { name: "Edit", input: {} };
      },
    };
    const stack = newStack().use("tool", { name: "sly", before: async () => sly as never });
    const outcome = await stack.run("tool", call(), (c) => ({ content: c.name }));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "Edit" } });
  });
});
