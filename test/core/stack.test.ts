import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  Continue,
  MemoryStore,
  Priority,
  RegistrationError,
  Reject,
  Replace,
  Trace,
  Transform,
  createStack,
  gate,
} from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";
import { settlesWithin } from "../support/timers.ts";

describe("registration", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["a non-function hook", { name: "bad", before: "nope" }, /hook "bad": before must be a function/],
    [
      "a NaN priority",
      { name: "bad", priority: Number.NaN, before: () => Continue },
      /hook "bad": priority must be a finite number, got NaN/,
    ],
    ["an infinite priority", { name: "bad", priority: Infinity, before: () => Continue }, /hook "bad": priority must be a finite number/],
    ["a missing name", { before: () => Continue }, /name must be a non-empty string/],
    ["no phase function", { name: "empty" }, /hook "empty": .* needs at least one function/],
    ["a negative timeout", { name: "bad", timeoutMs: -1, before: () => Continue }, /hook "bad": timeoutMs must be a positive/],
    ["an unknown fail mode", { name: "bad", failMode: "maybe", before: () => Continue }, /hook "bad": failMode must be "open" or "closed"/],
    ["an unknown field", { name: "bad", befor: () => Continue }, /hook "bad": befor is not a hook field/],
    ["an invalid matcher", { name: "bad", match: 42, before: () => Continue }, /hook "bad": match/],
    [
      "a middleware given to use",
      { name: "toolPolicy", hooks: { tool: { name: "toolPolicy", before: () => Continue } } },
      /hook "toolPolicy": hooks looks like a middleware, not a hook: add it with withMiddleware\(stack, middleware\)/,
    ],
  ];
  for (const [what, spec, message] of cases)
    it(`throws a TypeError at registration for ${what}`, () => {
      expect(() => newStack().use("tool", spec as never)).toThrow(TypeError);
      expect(() => newStack().use("tool", spec as never)).toThrow(message);
    });

  it("says a plain function given as a hook needs a name and a phase", () => {
    const noRm = () => Reject("no");
    expect(() => newStack().use("tool", noRm as never)).toThrow(
      /hook "noRm": spec on point "tool" must be a hook object, got a function: give it a name and a phase, e\.g\. \{ name: "noRm", before: fn \}/,
    );
  });

  it("refuses a misspelt stack option, naming the one meant and listing them", () => {
    expect(() => createStack({}, { freze: false } as never)).toThrow(
      /createStack: unknown option "freze" \(did you mean "freeze"\?\); its options are store, approval, freeze, strict, timeHooks, observerQueue, maxDepth, onFailure/,
    );
    expect(() => createStack({}, null as never)).toThrow(/createStack: options must be an object, got null/);
  });

  describe("a spec whose reads throw", () => {
    const boom = (what: string) => () => {
      throw new Error(what);
    };
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const getter = (field: string, rest: Record<string, unknown> = {}) =>
      Object.defineProperty({ name: "sly", before: () => Continue, ...rest }, field, { get: boom(field), enumerable: true });
    const cases: [string, unknown, RegExp][] = [
      ["its name", getter("name"), /hook "\?": name could not be read: it threw name/],
      ["a phase", getter("before"), /hook "sly": before could not be read: it threw before/],
      ["its match", getter("match"), /hook "sly": match could not be read: it threw match/],
      ["its order", getter("order"), /hook "sly": order could not be read: it threw order/],
      [
        "a list in its order",
        { name: "sly", before: () => Continue, order: Object.defineProperty({}, "before", { get: boom("list"), enumerable: true }) },
        /hook "sly": order could not be read: it threw list/,
      ],
      [
        "a match object's part",
        { name: "sly", before: () => Continue, match: { all: new Proxy([], { get: boom("part") }) } },
        /hook "sly": match could not be read: it threw part/,
      ],
      ["everything (a revoked Proxy)", proxy, /hook "\?": name could not be read/],
    ];
    it.each(cases)("is a RegistrationError naming the hook and the field when %s throws", (_what, spec, message) => {
      expect(() => newStack().use("tool", spec as never)).toThrow(RegistrationError);
      expect(() => newStack().use("tool", spec as never)).toThrow(message);
    });

    it("registers what it read once, even from a getter that answers differently each time", async () => {
      let reads = 0;
      const shifty = {
        name: "shifty",
        get before() {
          return ++reads === 1 ? () => Continue : "not a function";
        },
      };
      const stack = newStack().use(["tool", "watch"], shifty as never);
      expect((await stack.run("tool", call(), () => ({ content: "ok" })))._tag).toBe("Completed");
      expect(reads).toBe(1);
    });

    it("still reads a hook's functions from its class", async () => {
      class Audit {
        readonly name = "audit";
        before() {
          return Continue;
        }
      }
      expect(
        (
          await newStack()
            .use("tool", new Audit() as never)
            .run("tool", call(), () => ({ content: "ok" }))
        )._tag,
      ).toBe("Completed");
    });
  });

  it("throws for a duplicate name on the same point", () => {
    const stack = newStack().use("tool", { name: "dup", before: () => Continue });
    expect(() => stack.use("tool", { name: "dup", before: () => Continue })).toThrow(/hook "dup": name is already registered/);
  });

  it("throws for an unknown point, naming the hook", () => {
    expect(() => newStack().use("nope" as never, { name: "h", before: () => Continue })).toThrow(RegistrationError);
    expect(() => newStack().use("nope" as never, { name: "h", before: () => Continue })).toThrow(/hook "h": point "nope" is not a point/);
  });

  it("registers one hook on several points at once", async () => {
    const seen: string[] = [];
    const stack = newStack().use(["tool", "watch"], { name: "both", before: (_i, ctx) => void seen.push(ctx.point) });
    await stack.run("tool", call(), () => ({ content: "" }));
    await stack.run("watch", "x", (s) => s);
    expect(seen).toEqual(["tool", "watch"]);
  });
});

describe("the operation's context", () => {
  it("names no hook, so its addContext is not credited to the last hook that ran", async () => {
    const credited: [string, string][] = [];
    const stack = newStack().use("tool", { name: "shadowed", shadow: true, before: () => undefined });
    await stack.run(
      "tool",
      call(),
      (_c, ctx) => {
        ctx.addContext("from the tool");
        return { content: String(ctx.hook.name) };
      },
      { onContext: (text, by) => credited.push([text, by]) },
    );
    expect(credited).toEqual([["from the tool", "?"]]);
  });
});

describe("a name registered on two points", () => {
  it("keeps one enabled state: registering it disabled where it is enabled elsewhere is refused, naming both", () => {
    const stack = newStack().use("tool", { name: "guard", before: () => Reject("no") });
    expect(() => stack.use("watch", { name: "guard", disabled: true, before: () => undefined })).toThrow(
      /hook "guard": disabled is true, but the hook of that name on point "tool" is enabled/,
    );
    expect(() => stack.disable("guard").use("watch", { name: "guard", disabled: false, before: () => undefined })).toThrow(
      /disabled is false, but the hook of that name on point "tool" is disabled/,
    );
    // Without a flag of its own, a hook takes on its name's state.
    expect(
      stack
        .disable("guard")
        .use("watch", { name: "guard", before: () => undefined })
        .has("watch"),
    ).toBe(false);
    expect(() => stack.use("watch", { name: "guard", before: () => undefined })).not.toThrow();
    expect(() => newStack().use(["tool", "watch"], { name: "both", disabled: true, before: () => undefined })).not.toThrow();
  });
});

describe("immutable stacks", () => {
  it("returns a new stack from use, leaving the old one unchanged", async () => {
    const empty = newStack();
    const guarded = empty.use("tool", { name: "deny", before: () => Reject("no") });
    expect((await empty.run("tool", call(), () => ({ content: "" })))._tag).toBe("Completed");
    expect((await guarded.run("tool", call(), () => ({ content: "" })))._tag).toBe("Rejected");
  });

  it("runs each point's own hooks when runs of several points interleave", async () => {
    const stack = createStack({ a: gate<string, string>({ name: "a" }), b: gate<string, string>({ name: "b" }) })
      .use("a", { name: "onA", after: (o) => Replace(`${o}@a`) })
      .use("b", { name: "onB", after: (o) => Replace(`${o}@b`) });
    const said: unknown[] = [];
    for (const point of ["a", "a", "b", "a", "b", "b", "a"] as const) {
      const outcome = await stack.run(point, "x", (x) => x);
      said.push(outcome._tag === "Completed" ? outcome.value : outcome._tag);
    }
    expect(said).toEqual(["x@a", "x@a", "x@b", "x@a", "x@b", "x@b", "x@a"]);
    await expect(stack.run("c" as never, "x" as never, (x: never) => x)).rejects.toThrow(/"c" is not a point of this stack/);
    expect(await stack.run("a", "y", (x) => x)).toMatchObject({ value: "y@a" });
  });

  it("removes a hook by name with without()", async () => {
    const stack = newStack()
      .use("tool", { name: "deny", before: () => Reject("no") })
      .without("deny");
    expect((await stack.run("tool", call(), () => ({ content: "" })))._tag).toBe("Completed");
  });
});

describe("R8 matchers in the chain", () => {
  it("runs a hook only for matching subjects", async () => {
    const stack = newStack().use("tool", { name: "bash-only", match: "Bash", before: () => Reject("no bash") });
    expect((await stack.run("tool", call("Read"), () => ({ content: "" })))._tag).toBe("Completed");
    expect((await stack.run("tool", call("Bash"), () => ({ content: "" })))._tag).toBe("Rejected");
  });

  it("checks Name(pattern) conditions against the point's detail per run", async () => {
    const stack = newStack().use("tool", { name: "no-rm", match: "Bash(rm *)", before: () => Reject("Destructive command blocked") });
    const bash = (command: string) => call("Bash", { command });
    expect((await stack.run("tool", bash("ls -la"), () => ({ content: "" })))._tag).toBe("Completed");
    expect((await stack.run("tool", bash("ls && rm -rf /"), () => ({ content: "" })))._tag).toBe("Rejected");
  });

  it("does not run after hooks of a hook whose condition did not match", async () => {
    let after = 0;
    const stack = newStack().use("tool", { name: "c", match: "Bash(git *)", after: () => void after++ });
    await stack.run("tool", call("Bash", { command: "ls" }), () => ({ content: "" }));
    expect(after).toBe(0);
  });

  it("explains which hooks would run, in order", () => {
    const stack = newStack()
      .use("tool", { name: "audit", priority: Priority.telemetry, after: () => Continue })
      .use("tool", { name: "no-rm", priority: Priority.guard, match: "Bash(rm *)", before: () => Reject("x") })
      .use("tool", { name: "web", match: "WebFetch", before: () => Continue })
      .disable("web");
    const lines = stack.explain("tool", call("Bash", { command: "rm -rf /" }));
    expect(lines.map((l) => [l.hook, l.matches, l.disabled])).toEqual([
      ["no-rm", true, false],
      ["audit", true, false],
      ["web", false, true],
    ]);
  });
});

describe("R9 immutability", () => {
  it("freezes inputs and outputs in strict mode so a hook cannot change what another saw", async () => {
    let mutationError: unknown;
    const stack = newStack({ strict: true }).use("tool", {
      name: "mutator",
      before: (c) => {
        try {
          (c.input as Record<string, unknown>).command = "rm -rf /";
        } catch (e) {
          mutationError = e;
        }
      },
    });
    let opSaw: unknown;
    await stack.run("tool", call("Bash", { command: "ls" }), (c) => {
      opSaw = c.input.command;
      return { content: "" };
    });
    expect(mutationError).toBeInstanceOf(TypeError);
    expect(opSaw).toBe("ls");
  });

  it("freezes Transform values too", async () => {
    let frozen = false;
    const stack = newStack({ strict: true })
      .use("tool", { name: "t", priority: 1, before: (c) => Transform({ ...c, input: { a: [1] } }) })
      .use("tool", {
        name: "look",
        priority: 2,
        before: (c) => {
          frozen = Object.isFrozen(c.input.a);
        },
      });
    await stack.run("tool", call(), () => ({ content: "" }));
    expect(frozen).toBe(true);
  });
});

describe("R10 observers", () => {
  it("see a run refused for nesting too deep, as they see one refused for an aborted signal", async () => {
    const seen: string[] = [];
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) }, { maxDepth: 2 }).use("tool", {
      name: "audit",
      observe: (e) => void seen.push((e.outcome as { error: Error }).error.name),
    });
    const aborted = new AbortController();
    aborted.abort("x");
    await stack.run("tool", "x", (x) => x, { signal: aborted.signal });
    await stack.run("tool", "x", (x) => x, { path: ["a", "b", "c"] });
    await stack.flush();
    expect(seen).toEqual(["RunAbortedError", "RecursionLimitError"]);
  });

  it("cannot change the caller's outcome, the trace, or what the next observer sees", async () => {
    const seen: string[] = [];
    const trace = new Trace();
    const stack = newStack()
      .use("tool", { name: "deny", before: () => Reject("no") })
      .use("tool", {
        name: "vandal",
        observe: (e) => {
          try {
            (e.outcome as { _tag: string })._tag = "Completed";
          } catch {
            /* frozen */
          }
          try {
            (e.decisions as unknown[]).push({ hook: "fake" });
          } catch {
            /* frozen */
          }
          try {
            (e.decisions[0] as { action: string }).action = "Continue";
          } catch {
            /* frozen */
          }
        },
      })
      .use("tool", {
        name: "reader",
        observe: (e) => void seen.push(`${e.outcome._tag} ${e.decisions.map((d) => `${d.hook}:${d.action}`).join(",")}`),
      });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }), { trace });
    await stack.flush();
    expect(outcome._tag).toBe("Rejected");
    expect(seen).toEqual(["Rejected deny:Reject"]);
    expect(trace.entries.map((d) => `${d.hook}:${d.action}`)).toEqual(["deny:Reject"]);
    expect(Object.isFrozen(trace.entries[0])).toBe(false); // the caller's own trace entries are left as they are
  });

  it("sees a frozen input and output in strict mode when a point has observers only", async () => {
    const frozen: boolean[] = [];
    const stack = newStack({ strict: true }).use("tool", {
      name: "watcher",
      observe: (e) => void frozen.push(Object.isFrozen(e.input), Object.isFrozen((e.outcome as { value: object }).value)),
    });
    await stack.run("tool", call(), () => ({ content: "ok" }));
    await stack.flush();
    expect(frozen).toEqual([true, true]);
  });

  it("receives each settled run with its outcome and decisions, after the caller got the outcome", async () => {
    const events: unknown[] = [];
    let resolvedFirst = false;
    const stack = newStack()
      .use("tool", { name: "deny", before: () => Reject("no") })
      .use("tool", {
        name: "watcher",
        observe: (e) =>
          void events.push({ outcome: e.outcome._tag, decisions: e.decisions.map((d) => `${d.hook}:${d.action}`), resolvedFirst }),
      });
    await stack
      .run("tool", call(), () => ({ content: "" }))
      .then(() => {
        resolvedFirst = true;
      });
    await stack.flush();
    expect(events).toEqual([{ outcome: "Rejected", decisions: ["deny:Reject"], resolvedFirst: true }]);
  });

  it("isolates and counts observer errors and never delays the chain", async () => {
    const stack = newStack()
      .use("tool", {
        name: "bad",
        observe: () => {
          throw new Error("observer broke");
        },
      })
      .use("tool", { name: "slow", observe: () => sleep(30) });
    const running = stack.run("tool", call(), () => ({ content: "ok" }));
    expect(await settlesWithin(25, running)).toBe(true); // before the 30 ms observer, however busy the machine
    const outcome = await running;
    expect(outcome._tag).toBe("Completed");
    await stack.flush();
    expect(stack.stats.observerErrors).toBe(1);
  });

  it("flush() waits for background work started with ctx.waitUntil", async () => {
    let done = false;
    const stack = newStack().use("tool", {
      name: "bg",
      after: (_o, _i, ctx) => {
        ctx.waitUntil(
          sleep(20).then(() => {
            done = true;
          }),
        );
      },
    });
    await stack.run("tool", call(), () => ({ content: "" }));
    expect(done).toBe(false);
    await stack.flush();
    expect(done).toBe(true);
  });
});

describe("flush() under load", () => {
  it("resolves once the work of the runs settled before it is done, while new runs keep coming", async () => {
    const done: number[] = [];
    const stack = newStack()
      .use("tool", { name: "slow-observer", observe: () => sleep(5) })
      .use("tool", {
        name: "later",
        before: () => undefined,
        // Work that starts more work after a while: flush waits for it too, for runs settled before it.
        onSettled: (_o, input, ctx) =>
          ctx.waitUntil(sleep(5).then(() => ctx.waitUntil(sleep(5).then(() => void done.push(Number(input.name)))))),
      });
    let stop = false;
    let started = 0;
    const load = Array.from({ length: 8 }, async () => {
      while (!stop) {
        await stack.run("tool", call(String(started++)), () => ({ content: "" }));
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    await sleep(30);
    const before = started;
    const flushed = await Promise.race([stack.flush().then(() => "flushed"), sleep(2000).then(() => "still waiting")]);
    const settledBefore = done.length;
    stop = true;
    await Promise.all(load);
    await stack.flush();
    expect(flushed).toBe("flushed");
    // Every run started well before the flush had its work done by then.
    for (let i = 0; i < before - 8; i++) expect(done.slice(0, settledBefore)).toContain(i);
  });
});

describe("R11 decision trace", () => {
  it("reports which hooks ran, in order, what each returned and why", async () => {
    const trace = new Trace();
    const stack = newStack()
      .use("tool", { name: "rewrite", priority: 1, before: (c) => Transform({ ...c, name: "Edit" }) })
      .use("tool", { name: "guard", priority: 2, before: () => Reject("not allowed") });
    await stack.run("tool", call(), () => ({ content: "" }), { trace });
    expect(trace.entries.map((e) => [e.hook, e.phase, e.action, e.reason])).toEqual([
      ["rewrite", "before", "Transform", undefined],
      ["guard", "before", "Reject", "not allowed"],
    ]);
    expect(trace.entries.every((e) => e.ms >= 0)).toBe(true);
    expect(trace.format()).toContain("not allowed");
  });
});

describe("R12 shadow and disable", () => {
  it("records a shadow hook's decision without enforcing it", async () => {
    const trace = new Trace();
    const stack = newStack().use("tool", { name: "trial", shadow: true, before: () => Reject("would block") });
    const outcome = await stack.run("tool", call(), () => ({ content: "ran" }), { trace });
    expect(outcome._tag).toBe("Completed");
    expect(trace.entries[0]).toMatchObject({ hook: "trial", action: "Reject", shadow: true, reason: "would block" });
  });

  it("skips a disabled hook and runs it again once enabled", async () => {
    const base = newStack().use("tool", { name: "deny", before: () => Reject("no"), disabled: true });
    expect((await base.run("tool", call(), () => ({ content: "" })))._tag).toBe("Completed");
    expect((await base.enable("deny").run("tool", call(), () => ({ content: "" })))._tag).toBe("Rejected");
    expect(
      (
        await base
          .enable("deny")
          .disable("deny")
          .run("tool", call(), () => ({ content: "" }))
      )._tag,
    ).toBe("Completed");
  });

  it("refuses to disable a hook that does not exist", () => {
    expect(() => newStack().disable("ghost")).toThrow(/hook "ghost": name cannot disable/);
  });
});

describe("context", () => {
  it("collects ctx.addContext text in hook order", async () => {
    const added: string[] = [];
    const stack = newStack()
      .use("tool", { name: "b", priority: 2, before: (_c, ctx) => ctx.addContext("second") })
      .use("tool", { name: "a", priority: 1, before: (_c, ctx) => ctx.addContext("first") });
    await stack.run("tool", call(), () => ({ content: "" }), { onContext: (t, hook) => added.push(`${hook}:${t}`) });
    expect(added).toEqual(["a:first", "b:second"]);
  });

  it("asks the run's own approval handler, when it has one, instead of the stack's", async () => {
    const asked: string[] = [];
    const stack = newStack({ approval: () => (asked.push("stack"), { decision: "deny", reason: "stack says no" }) }).use("tool", {
      name: "ask",
      before: async (_c, ctx) => {
        const d = await ctx.approve({ hook: "ask" });
        return d.decision === "approve" ? Continue : Reject(d.reason ?? "denied");
      },
    });
    const own = await stack.run("tool", call(), () => ({ content: "ran" }), {
      approval: (r) => (asked.push(`run: ${r.hook} on ${r.point}`), { decision: "approve" }),
    });
    const stacks = await stack.run("tool", call(), () => ({ content: "ran" }));
    expect([own._tag, stacks._tag]).toEqual(["Completed", "Rejected"]);
    expect(asked).toEqual(["run: ask on tool", "stack"]);
    await expect(stack.run("tool", call(), () => ({ content: "ran" }), { approval: "yes" as never })).rejects.toThrow(
      'stack.run("tool"): approval must be a function or durableApprovals(), got "yes"',
    );
  });

  it("answers approval requests with a denial that says so when no handler is configured", async () => {
    const stack = newStack().use("tool", {
      name: "ask",
      before: async (_c, ctx) => {
        const d = await ctx.approve({ hook: "ask", reason: "dangerous" });
        return d.decision === "approve" ? Continue : Reject(d.decision === "deny" ? d.reason : "?");
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag === "Rejected" && outcome.reason).toMatch(/no approval handler is configured/);
  });

  it("gives hooks a session-scoped and a global state store", async () => {
    const counts: string[] = [];
    const stack = newStack().use("tool", {
      name: "count",
      before: async (_c, ctx) => {
        const session = await ctx.state("session").incr("calls");
        const global = await ctx.state("global").incr("calls");
        counts.push(`${ctx.sessionId}:${session}/${global}`);
      },
    });
    for (const sessionId of ["s1", "s1", "s2"]) await stack.run("tool", call(), () => ({ content: "" }), { sessionId });
    expect(counts).toEqual(["s1:1/1", "s1:2/2", "s2:1/3"]);
  });

  it("keeps each session's state apart, even when a session's id holds the store's separator", async () => {
    const stack = newStack().use("tool", {
      name: "count",
      before: async (c, ctx) => void (await ctx.state("session").set(String(c.input.key), ctx.sessionId)),
    });
    await stack.run("tool", call("Read", { key: "prompts:today" }), () => ({ content: "" }), { sessionId: "alice" });
    let seen: unknown = "unread";
    await stack.run("tool", call(), async (_c, ctx) => ((seen = await ctx.state("session").get("today")), { content: "" }), {
      sessionId: "alice:prompts",
    });
    expect(seen).toBeUndefined();
  });

  it("keeps session state for an id cut through an emoji (a lone surrogate), apart from every other id", async () => {
    const stack = newStack().use("tool", { name: "count", before: async (_c, ctx) => void (await ctx.state("session").incr("calls")) });
    const seen: unknown[] = [];
    const read = async (sessionId: string) =>
      stack.run("tool", call(), async (_c, ctx) => (seen.push(await ctx.state("session").get("calls")), { content: "" }), { sessionId });
    // "chat about 😀" cut after its first half, its second half alone, and the escape spelled out.
    for (const id of ["chat \uD83D", "chat \uD83D", "chat \uDE00", "chat %uD83D"]) expect((await read(id))._tag).toBe("Completed");
    expect(seen).toEqual([1, 2, 1, 1]);
  });

  it("keeps the state runs without a session share apart from every session's, one named none included", async () => {
    const store = new MemoryStore();
    const counts: number[] = [];
    const stack = newStack({ store }).use("tool", {
      name: "count",
      before: async (_c, ctx) => void counts.push(await ctx.state().incr("calls")),
    });
    await stack.run("tool", call(), () => ({ content: "" }));
    await stack.run("tool", call(), () => ({ content: "" }));
    await stack.run("tool", call(), () => ({ content: "" }), { sessionId: "none" });
    expect(counts).toEqual([1, 2, 1]);
    expect(store.size).toBe(2); // one part for sessionless runs, not one per run
  });

  it("makes run and call ids that another process with the same pid does not repeat", () => {
    // Containers often start every process as the same pid: ids must not depend on the pid alone.
    const script = `Object.defineProperty(process, "pid", { value: 12 });
      const { createStack, gate } = await import(${JSON.stringify(new URL("../../src/core/index.ts", import.meta.url).href)});
      const stack = createStack({ p: gate({ name: "p" }) }).use("p", { name: "h", before: () => undefined });
      let ids = ""; await stack.run("p", 1, (_x, ctx) => { ids = ctx.runId + " " + ctx.callId; });
      process.stdout.write(ids);`;
    const idsOf = () => execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    const [first, second] = [idsOf(), idsOf()];
    expect(first).toMatch(/^run-12-\S+ call-12-\S+$/);
    expect(first.split(" ")[0]).not.toBe(second.split(" ")[0]);
    expect(first.split(" ")[1]).not.toBe(second.split(" ")[1]);
  });

  it("replaces through the fast path with no hooks, calling the operation directly", async () => {
    const stack = createStack({ p: gate<number, number>({ name: "p" }) });
    expect(await stack.run("p", 2, (n) => n * 2)).toEqual({ _tag: "Completed", value: 4 });
    expect(
      await stack.run("p", 2, async () => {
        throw new Error("x");
      }),
    ).toMatchObject({ _tag: "Failed" });
  });

  it("keeps a replaced value final even if an outer around retries", async () => {
    let calls = 0;
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (_c, next) => {
          await next();
          await sleep(1);
          return next();
        },
      })
      .use("tool", {
        name: "inner",
        priority: 2,
        before: () => {
          calls++;
          return Replace({ content: `r${calls}` });
        },
      });
    const outcome = await stack.run("tool", call(), () => ({ content: "op" }));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "r2" } });
  });
});

describe("the trace of around hooks", () => {
  it("says why an around hook passed on a failed or rejected outcome", async () => {
    const trace = new Trace();
    const stack = newStack().use("tool", { name: "pass", around: (_c, next) => next() });
    await stack.run(
      "tool",
      call(),
      () => {
        throw new Error("disk full");
      },
      { trace },
    );
    expect(trace.entries.map((e) => [e.hook, e.action, e.reason])).toEqual([["pass", "Outcome", "Failed: disk full"]]);
  });
});
