import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Continue,
  OperationAbandonedError,
  Outcome,
  Reject,
  Replace,
  RunAbortedError,
  Transform,
  type Hook,
} from "../../src/core/index.ts";
import { call, newStack, sleep, type Call, type Result } from "./helpers.ts";

/*
 * Random chains of hooks of every kind, with random caller aborts and deadlines. On every run:
 * the run settles once with a typed outcome, every layer entered gets exactly one onSettled
 * (before the caller resumes, and never another), a hook's after/recover is called at most once
 * per entry, nothing is called after the run settled, and every observer event arrives.
 */

const answer = fc.constantFrom(
  "continue",
  "transform",
  "reject",
  "replace",
  "throw",
  "invalid",
  "undefined",
  "revoked",
  "then-throws",
  "then-twice",
  "shifty",
);
const timing = fc.constantFrom("sync", "sync", "async", "slow", "never");
const aroundKind = fc.constantFrom(
  "pass",
  "return-next",
  "retry",
  "short",
  "no-wait",
  "throw-after",
  "replace-after",
  "twice",
  "never",
  "failed-revoked",
  "edit-in-place",
  "edit-late",
);

const hookSpec = fc.record({
  tamper: fc.constantFrom(undefined, "freeze", "null-proto", "define"),
  before: fc.option(fc.record({ answer, timing, abort: fc.boolean() }), { nil: undefined }),
  after: fc.option(fc.record({ answer, timing }), { nil: undefined }),
  recover: fc.option(fc.record({ answer: fc.constantFrom("replace", "continue", "throw", "transform"), timing }), { nil: undefined }),
  around: fc.option(fc.record({ kind: aroundKind, timing: fc.constantFrom("sync", "async", "slow") }), { nil: undefined }),
  onSettled: fc.boolean(),
  shadow: fc.boolean(),
  failMode: fc.constantFrom("open", "closed", undefined),
  timeoutMs: fc.constantFrom(undefined, undefined, 2, 15),
});

type Spec = typeof hookSpec extends fc.Arbitrary<infer T> ? T : never;

const scenario = fc.record({
  hooks: fc.array(hookSpec, { minLength: 1, maxLength: 5 }),
  op: fc.constantFrom("ok", "async", "throw", "reject", "slow", "throw-revoked"),
  abortAt: fc.constantFrom(undefined, 0, 1, 4),
  timeoutMs: fc.constantFrom(undefined, 6, 40),
  observer: fc.boolean(),
});

const wait = (timing: string): Promise<void> | undefined =>
  timing === "async" ? Promise.resolve() : timing === "slow" ? sleep(8) : timing === "never" ? new Promise(() => {}) : undefined;

const answerOf = (kind: string, value: unknown): unknown => {
  switch (kind) {
    case "transform":
      return Transform(value);
    case "reject":
      return Reject("no");
    case "replace":
      return Replace({ content: "replaced" });
    case "throw":
      throw new Error("hook threw");
    case "invalid":
      return { action: "alow" };
    case "undefined":
      return undefined;
    case "revoked": {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case "then-throws":
      return {
        then() {
          throw new Error("then threw");
        },
      };
    case "then-twice":
      return {
        then(resolve: (v: unknown) => void) {
          resolve(Continue);
          resolve(Reject("second"));
        },
      };
    case "shifty": {
      // An answer that reads differently each time it is read.
      let reads = 0;
      return new Proxy(Transform(value), { get: (t, k) => (reads++ > 1 && k === "_tag" ? "Reject" : Reflect.get(t, k)) });
    }
    default:
      return Continue;
  }
};

/** Answer `kind` now or, per `timing`, later. */
const respond = (timing: string, kind: string, value: unknown): unknown => {
  const later = wait(timing);
  if (later === undefined) return answerOf(kind, value);
  return later.then(() => answerOf(kind, value));
};

interface Counts {
  entered: number;
  settled: number;
  exits: number;
  late: string[];
}

/** A layer whose entry a test can count (its before or around is called on entry) and that says when it ends. */
const observable = (spec: Spec): boolean => spec.onSettled && (spec.before !== undefined || spec.around !== undefined);

const isTyped = (o: Outcome): boolean =>
  (o._tag === "Completed" && "value" in o) ||
  (o._tag === "Rejected" && typeof o.reason === "string" && typeof o.by === "string") ||
  (o._tag === "Failed" && "error" in o);

describe("symmetry under random chains, answers, timeouts and aborts", () => {
  it("settles each run once with a typed outcome and ends each entered layer exactly once", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ hooks, op, abortAt, timeoutMs, observer }) => {
        const counts: Counts[] = hooks.map(() => ({ entered: 0, settled: 0, exits: 0, late: [] }));
        let done = false;
        const controller = new AbortController();
        let stack = newStack({ onFailure: () => {} });
        let events = 0;
        hooks.forEach((spec: Spec, i) => {
          const c = counts[i] as Counts;
          const mark = (phase: string): void => {
            if (done) c.late.push(phase);
          };
          const hook: Record<string, unknown> = { name: `h${i}`, priority: i, shadow: spec.shadow };
          if (spec.failMode !== undefined) hook.failMode = spec.failMode;
          if (spec.timeoutMs !== undefined) hook.timeoutMs = spec.timeoutMs;
          const b = spec.before;
          if (b !== undefined)
            hook.before = (input: Call, ctx: object) => {
              mark("before");
              c.entered++;
              if (spec.tamper === "freeze") Object.freeze(ctx);
              if (spec.tamper === "null-proto") Object.setPrototypeOf(ctx, null);
              if (spec.tamper === "define") Object.defineProperty(ctx, "signal", { value: "not a signal" });
              if (b.abort) controller.abort(new Error("caller gave up"));
              return respond(b.timing, b.answer, { ...input, name: `${input.name}+` });
            };
          const a = spec.after;
          if (a !== undefined)
            hook.after = (output: Result) => {
              mark("after");
              c.exits++;
              return respond(a.timing, a.answer, { content: `${output.content}+` });
            };
          const r = spec.recover;
          if (r !== undefined)
            hook.recover = () => {
              mark("recover");
              c.exits++;
              return respond(r.timing, r.answer === "continue" ? "continue" : r.answer, { content: "recovered" });
            };
          const ar = spec.around;
          if (ar !== undefined)
            hook.around = async (_ctx: unknown, next: (input?: unknown) => Promise<Outcome>) => {
              mark("around");
              if (b === undefined) c.entered++;
              await wait(ar.timing);
              switch (ar.kind) {
                case "return-next":
                  return next();
                case "retry": {
                  const first = await next();
                  return first._tag === "Completed" ? first : next();
                }
                case "short":
                  return Replace({ content: "short" });
                case "no-wait":
                  void next().catch(() => {});
                  return Continue;
                case "throw-after":
                  await next();
                  throw new Error("around threw");
                case "replace-after":
                  await next();
                  return Replace({ content: "after" });
                case "twice":
                  void next().catch(() => {});
                  return next().catch(() => Continue);
                case "never":
                  await new Promise(() => {});
                  return Continue;
                case "edit-in-place": {
                  const o = (await next()) as { _tag: string; value?: unknown };
                  o._tag = "Rejected";
                  return o as Outcome;
                }
                case "edit-late":
                  void next().then(
                    (o) => void ((o as { _tag: string })._tag = "Rejected"),
                    () => {},
                  );
                  return Continue;
                case "failed-revoked":
                  // An outcome of its own, without waiting for the inside, whose error is a revoked Proxy.
                  void next().catch(() => {});
                  return Outcome.failed(answerOf("revoked", undefined));
                default:
                  return await next();
              }
            };
          if (spec.onSettled) hook.onSettled = () => void c.settled++;
          if (b === undefined && ar === undefined && a === undefined && r === undefined && !spec.onSettled) hook.before = () => Continue;
          stack = stack.use("tool", hook as unknown as Hook<Call, Result, "gate">);
        });
        if (observer) stack = stack.use("tool", { name: "watcher", observe: () => void events++ });
        const operation = (): Result | Promise<Result> => {
          if (op === "throw") throw new Error("op threw");
          if (op === "throw-revoked") throw answerOf("revoked", undefined);
          if (op === "reject") return Promise.reject(new Error("op rejected"));
          if (op === "async") return Promise.resolve({ content: "op" });
          if (op === "slow") return sleep(8).then(() => ({ content: "op" }));
          return { content: "op" };
        };
        if (abortAt !== undefined) setTimeout(() => controller.abort(new Error("caller aborted")), abortAt);
        // No hook answers forever unless it has a timeout, or the run has a deadline or an abort to end it.
        const endless = hooks.some(
          (h) =>
            h.timeoutMs === undefined &&
            (h.before?.timing === "never" || h.after?.timing === "never" || h.recover?.timing === "never" || h.around?.kind === "never"),
        );
        const settledOnce: Outcome[] = [];
        const run = stack.run("tool", call(), operation, {
          signal: controller.signal,
          timeoutMs: timeoutMs ?? (endless && abortAt === undefined ? 30 : undefined),
        });
        const outcome = await run.then(
          (o) => (settledOnce.push(o), o),
          (e) => {
            throw new Error(`stack.run rejected: ${String(e)}`);
          },
        );
        done = true;
        expect(isTyped(outcome)).toBe(true);
        // Hooks fail into Rejected (closed) or nothing (open), never into Failed: that is for the
        // operation, the caller's abort, the deadline and an inside abandoned by a hook outside.
        if (outcome._tag === "Failed" && op !== "throw-revoked" && !hooks.some((h) => h.around?.kind === "failed-revoked"))
          expect(
            outcome.error instanceof RunAbortedError ||
              outcome.error instanceof OperationAbandonedError ||
              /^op (threw|rejected)$/.test((outcome.error as Error).message),
            String(outcome.error),
          ).toBe(true);
        // Every onSettled due was called before the caller resumed.
        counts.forEach((c, i) => {
          if (observable(hooks[i] as Spec)) expect({ hook: i, settled: c.settled }).toEqual({ hook: i, settled: c.entered });
        });
        await sleep(20);
        await stack.flush();
        counts.forEach((c, i) => {
          expect({ hook: i, late: c.late }).toEqual({ hook: i, late: [] });
          if (observable(hooks[i] as Spec)) expect({ hook: i, settled: c.settled }).toEqual({ hook: i, settled: c.entered });
          // A retry enters a layer again, so exits are bounded by entries, not equal to them.
          if (hooks[i]?.before !== undefined) expect(c.exits).toBeLessThanOrEqual(c.entered);
        });
        expect(settledOnce).toHaveLength(1);
        if (observer) expect(events).toBe(1);
      }),
      { numRuns: 250, ...(process.env.SYMMETRY_SEED === undefined ? {} : { seed: Number(process.env.SYMMETRY_SEED) }) },
    );
  }, 120_000);
});
