import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Continue, Outcome, Reject, Replace, Trace, Transform, createStack, gate, observe, type Hook, type HookError } from "../../src/core/index.ts";
import { call, newStack } from "./helpers.ts";

/*
 * A chain of plain around hooks runs on its own lean path (src/core/around-only.ts) unless the run
 * is recorded, when it takes the general one (around.ts). The two must agree on everything a
 * user can see: these tests run the same onion both ways and compare.
 */

/** Which path ran a hook, told by its `next` (a bound `Layer.next` on the lean path, a bound `AroundCall.callNext` on the general one). */
const pathOf = (next: Function): string => (next.name === "bound next" ? "lean" : next.name === "bound callNext" ? "general" : next.name);

const pathTaken = async (options: { trace?: Trace }): Promise<string> => {
  let path = "";
  const stack = newStack().use("tool", { name: "spy", around: (_ctx, next) => ((path = pathOf(next)), next()) });
  await stack.run("tool", call(), () => ({ content: "ok" }), options);
  return path;
};

describe("around-only chains", () => {
  it("run on the lean path unless the run is recorded", async () => {
    expect(await pathTaken({})).toBe("lean");
    expect(await pathTaken({ trace: new Trace() })).toBe("general");
  });

  it("give the hook a context that reads like any other", async () => {
    let seen: Record<string, unknown> = {};
    const added: string[] = [];
    const stack = newStack().use("tool", {
      name: "ctx",
      around: (ctx, next) => {
        ctx.addContext("note");
        seen = { hook: ctx.hook.name, point: ctx.point, kind: ctx.kind, subject: ctx.subject, input: ctx.input, session: ctx.sessionId, aborted: ctx.signal.aborted, path: ctx.path, metadata: ctx.metadata };
        return next();
      },
    });
    await stack.run("tool", call("Bash"), () => ({ content: "ok" }), { sessionId: "s1", metadata: { user: "u" }, onContext: (text, hook) => added.push(`${hook}: ${text}`) });
    expect(seen).toEqual({ hook: "ctx", point: "tool", kind: "gate", subject: "Bash", input: call("Bash"), session: "s1", aborted: false, path: [], metadata: { user: "u" } });
    expect(added).toEqual(["ctx: note"]);
  });

  it("are not taken for chains with anything but plain around hooks", async () => {
    const paths: string[] = [];
    const spy: Hook = { name: "spy", around: (_ctx, next) => (paths.push(pathOf(next)), next()) };
    const others: Hook[] = [
      { name: "b", before: () => Continue },
      { name: "t", around: (_c, next) => next(), timeoutMs: 1000 },
      { name: "s", around: (_c, next) => next(), shadow: true },
      { name: "m", around: (_c, next) => next(), match: () => true },
    ];
    for (const other of others) await newStack().use("tool", spy).use("tool", other).run("tool", call(), () => ({ content: "ok" }));
    const collecting = createStack({ tool: gate<unknown, unknown>({ name: "tool", collect: true }) }).use("tool", spy);
    await collecting.run("tool", {}, () => "ok");
    expect(paths).toEqual(["general", "general", "general", "general", "general"]);
  });
});

// ---------------------------------------------------------------------------------------------
// The same onion, both ways
// ---------------------------------------------------------------------------------------------

/** What an around hook does, by name; each one logs what it does so the two runs can be compared. */
const behaviours = [
  "pass", "await", "transformAfter", "replaceAfter", "rejectAfter", "continueAfter", "undefinedAfter", "madeOutcome",
  "rejectBefore", "replaceBefore", "continueBefore", "nothing", "throw", "throwAfter", "retry", "retryAwait",
  "nextInput", "concurrent", "late", "garbage", "rejectedOutcome", "noAwaitReplace", "abort", "abortContinue",
  "failedOutcome", "concurrentFirst", "abortThenReplace", "slowAfter",
  "writesCtx", "freezesCtx", "showsCtx", "savesNext", "callsSaved", "passThenLate", "misuseTwice",
] as const;
type Behaviour = (typeof behaviours)[number];

interface Spec {
  readonly kind: "gate" | "observe";
  readonly op: "sync" | "async" | "throw" | "reject";
  readonly strict: boolean;
  readonly guarded: boolean;
  readonly hooks: readonly { readonly does: Behaviour; readonly failMode: "open" | "closed" | undefined; readonly priority: number }[];
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What hooks of one run share: a `next` one of them kept for another to call. */
interface Shared {
  saved: (() => Promise<Outcome>) | undefined;
}

const around = (does: Behaviour, i: number, log: string[], seen: Outcome[], abort: () => void, shared: Shared): Hook["around"] => {
  const name = `h${i}`;
  const after = async (next: () => Promise<Outcome>, answer: (o: Outcome) => unknown): Promise<any> => {
    const o = await next();
    seen.push(o);
    log.push(`${name} got ${o._tag}`);
    return answer(o);
  };
  switch (does) {
    case "pass": return (_c, next) => (log.push(name), next());
    case "await": return async (_c, next) => (log.push(name), await next());
    case "transformAfter": return (_c, next) => after(next, (o) => Transform({ content: `${name}(${o._tag === "Completed" ? (o.value as { content: string }).content : o._tag})` }));
    case "replaceAfter": return (_c, next) => after(next, () => Replace({ content: `replaced by ${name}` }));
    case "rejectAfter": return (_c, next) => after(next, () => Reject(`${name} said no`));
    case "continueAfter": return (_c, next) => after(next, () => Continue);
    case "undefinedAfter": return (_c, next) => after(next, () => undefined);
    case "madeOutcome": return (_c, next) => after(next, () => Outcome.completed({ content: `made by ${name}` }));
    case "failedOutcome": return (_c, next) => after(next, () => Outcome.failed(new Error(`${name} failed it`)));
    case "rejectBefore": return () => (log.push(name), Reject(`${name} refused`));
    case "replaceBefore": return () => (log.push(name), Replace({ content: `${name} answered` }));
    case "continueBefore": return () => (log.push(name), Continue);
    case "nothing": return () => void log.push(name);
    case "throw": return () => { log.push(name); throw new Error(`${name} threw`); };
    case "throwAfter": return (_c, next) => after(next, () => { throw new Error(`${name} threw late`); });
    case "retry": return (_c, next) => after(next, () => next());
    case "retryAwait": return (_c, next) => after(next, async () => { const o = await next(); log.push(`${name} retry got ${o._tag}`); return o; });
    case "nextInput": return (ctx, next) => (log.push(name), next({ ...(ctx.input as object), name: `${name}-input` }));
    case "concurrent": return (_c, next) => {
      log.push(name);
      void next();
      return next().then(undefined, (e: Error) => (log.push(`${name} second: ${e.message}`), Continue));
    };
    case "concurrentFirst": return (_c, next) => {
      log.push(name);
      const first = next();
      next().then(undefined, (e: Error) => log.push(`${name} second: ${e.message}`));
      return first;
    };
    case "slowAfter": return (_c, next) => after(next, async (o) => {
      await tick(); // a macrotask or two: what a settled layer inside does meanwhile still counts
      await tick();
      return o;
    });
    // What a hook does to its context must not reach the engine: it is the hook's own object.
    case "writesCtx": return (ctx, next) => {
      log.push(name);
      Object.assign(ctx, { status: 200, last: 1, index: 5, handed: undefined, outer: null, misuse: "x", pending: true, input: { name: "written" } });
      return next();
    };
    case "freezesCtx": return (ctx, next) => (log.push(name), Object.freeze(ctx), next());
    case "showsCtx": return (ctx, next) => (log.push(`${name} ${Object.keys(ctx).join(",")} ${Object.keys({ ...ctx }).join(",")}`), next());
    // A next() kept by one hook and called by another inside it, while the first call still runs (R4).
    case "savesNext": return (_c, next) => (log.push(name), (shared.saved = next), next());
    case "callsSaved": return (_c, next) => {
      log.push(name);
      const saved = shared.saved;
      shared.saved = undefined;
      saved?.().then((o) => log.push(`${name} saved next: ${o._tag}`), (e: Error) => log.push(`${name} saved next: ${e.message}`));
      return next();
    };
    case "late": return (_c, next) => {
      log.push(name);
      setImmediate(() => next().then(undefined, (e: Error) => log.push(`${name} late: ${e.message}`)));
      return Continue;
    };
    // Answers with next()'s own promise and calls next() again once it settled: the misuse names this hook.
    case "passThenLate": return (_c, next) => {
      log.push(name);
      setImmediate(() => next().then(undefined, (e: Error) => log.push(`${name} late: ${e.message}`)));
      return next();
    };
    // Two misuses, the second after the run was aborted: the hook fails with the first.
    case "misuseTwice": return (_c, next) => {
      log.push(name);
      void next().then(undefined, () => log.push(`${name} first next rejected`));
      next().then(undefined, (e: Error) => log.push(`${name} second: ${e.message}`));
      abort();
      next().then(undefined, (e: Error) => log.push(`${name} third: ${e.message}`));
      return Continue;
    };
    case "garbage": return () => (log.push(name), 42 as never);
    case "rejectedOutcome": return () => (log.push(name), Outcome.rejected(`${name} outcome no`, "someone"));
    case "noAwaitReplace": return (_c, next) => {
      log.push(name);
      void next().then((o) => log.push(`${name} inner ${o._tag}`), () => log.push(`${name} inner rejected`));
      return Replace({ content: `${name} did not wait` });
    };
    case "abort": return (_c, next) => (log.push(name), abort(), next());
    case "abortThenReplace": return (_c, next) => {
      log.push(name);
      abort();
      next().then(undefined, (e: Error) => log.push(`${name} next: ${e.message}`));
      return Replace({ content: `${name} after abort` });
    };
    case "abortContinue": return () => (log.push(name), abort(), Continue);
  }
};

/** What a run shows: its outcome, the failures reported, and the order of everything hooks and the operation did. */
const runOnce = async (spec: Spec, recorded: boolean) => {
  const log: string[] = [];
  const seen: Outcome[] = [];
  const shared: Shared = { saved: undefined };
  const failures: string[] = [];
  const controller = new AbortController();
  const point = spec.kind === "gate" ? gate<{ name: string }, { content: string }>({ name: "p" }) : observe<{ name: string }, { content: string }>({ name: "p" });
  let stack = createStack({ p: point }, { strict: spec.strict, onFailure: (e: HookError) => failures.push(`${e.hook} ${e.phase} ${e.kind}: ${e.message}`) });
  spec.hooks.forEach((h, i) => {
    stack = stack.use("p", { name: `h${i}`, priority: h.priority, around: around(h.does, i, log, seen, () => controller.abort(new Error("stop")), shared), ...(h.failMode ? { failMode: h.failMode } : {}) } as Hook);
  });
  const op = (input: { name: string }) => {
    log.push(`op ${input.name}`);
    if (spec.op === "throw") throw new Error("op threw");
    if (spec.op === "reject") return Promise.reject(new Error("op rejected"));
    return spec.op === "async" ? Promise.resolve({ content: `ran ${input.name}` }) : { content: `ran ${input.name}` };
  };
  const outcome = await stack.run("p", { name: "call" }, op, { ...(recorded ? { trace: new Trace() } : {}), ...(spec.guarded ? { signal: controller.signal } : {}) });
  for (let i = 0; i < 4 + 2 * spec.hooks.length; i++) await tick(); // let late next() calls, un-awaited insides and slow hooks (two ticks each) finish
  // Which outcome a hook got from next() the caller got, by identity: a pass-on is not a copy.
  return { outcome: shown(outcome), passedOn: seen.indexOf(outcome), log, failures };
};

const shown = (o: Outcome): unknown => {
  if (o._tag === "Completed") return o;
  if (o._tag === "Rejected") return { _tag: o._tag, reason: o.reason, by: o.by, cause: o.cause === undefined ? undefined : String((o.cause as Error).message) };
  const e = o.error as HookError & { kind?: string };
  return { _tag: o._tag, name: e?.name, message: e?.message, kind: e?.kind };
};

const spec: fc.Arbitrary<Spec> = fc.record({
  kind: fc.constantFrom("gate" as const, "observe" as const),
  op: fc.constantFrom("sync" as const, "async" as const, "throw" as const, "reject" as const),
  strict: fc.boolean(),
  guarded: fc.boolean(),
  hooks: fc.array(fc.record({ does: fc.constantFrom(...behaviours), failMode: fc.constantFrom("open" as const, "closed" as const, undefined), priority: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 5 }),
});

describe("a next() called again from inside its own call", () => {
  for (const recorded of [false, true])
    it(`is refused as concurrent while the first call still runs: the operation runs once, and the hook that kept it fails (${recorded ? "general" : "lean"} path)`, async () => {
      let saved: (() => Promise<Outcome>) | undefined;
      let ops = 0;
      let second = "";
      const stack = newStack()
        .use("tool", { name: "keeper", around: (_c, next) => ((saved = next), next()) })
        .use("tool", { name: "caller", around: (_c, next) => {
          saved?.().then(() => (second = "ran"), (e: Error) => (second = e.message));
          saved = undefined;
          return next();
        } });
      const outcome = await stack.run("tool", call(), () => ({ content: `op ${++ops}` }), recorded ? { trace: new Trace() } : {});
      expect(outcome).toMatchObject({ _tag: "Rejected", by: "keeper", cause: { kind: "next-misuse" } });
      expect(ops).toBe(1);
      expect(second).toBe('next() called while a previous next() of hook "keeper" is still pending');
    });
});

describe("the operation's context", () => {
  for (const recorded of [false, true])
    it(`names no hook even when used after an around hook ran again (${recorded ? "general" : "lean"} path)`, async () => {
      const named: string[] = [];
      let attempts = 0;
      const stack = newStack()
        .use("tool", { name: "retry", around: async (_c, next) => (await next(), next()) })
        .use("tool", { name: "inner", around: async (_c, next) => (await new Promise((resolve) => setTimeout(resolve, 10)), next()) });
      await stack.run("tool", call(), async (_input, ctx) => {
        const first = ++attempts === 1;
        if (first) setTimeout(() => ctx.addContext("late note"), 5);
        return { content: "ok" };
      }, { onContext: (_text, hook) => named.push(hook), ...(recorded ? { trace: new Trace() } : {}) });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The note came while "inner" was deciding again, in the retry; it is still the operation's.
      expect(named).toEqual(["?"]);
    });
});

describe("an around-only onion on the lean path", () => {
  it("does exactly what the general path does, for any mix of hook answers", async () => {
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const lean = await runOnce(s, false);
        const general = await runOnce(s, true);
        expect(lean).toEqual(general);
      }),
      {
        numRuns: 400,
        // Always tried: a hook that aborts the run from inside while the hooks outside still wait
        // (the general path's way out once stopped there, eb9e460, and told the outermost Failed).
        examples: [[{ kind: "gate", op: "sync", strict: false, guarded: true, hooks: [
          { does: "transformAfter", failMode: "open", priority: 0 }, { does: "misuseTwice", failMode: "open", priority: 1 },
          { does: "pass", failMode: "open", priority: 0 }, { does: "throw", failMode: "open", priority: 0 },
        ] }]],
      },
    );
  });
});
