import { describe, expect, it } from "vitest";
import { Reject } from "../../../src/core/action.ts";
import { createStack, gate } from "../../../src/core/index.ts";
import type { MatchContext } from "../../../src/core/match/types.ts";
import { call, echo, newStack } from "../helpers.ts";

/** Metadata that counts every way the engine could look into it. */
const watched = (values: Record<string, unknown>) => {
  const seen = { reads: 0 };
  const proxy = new Proxy(values, {
    get: (t, k, r) => (seen.reads++, Reflect.get(t, k, r)),
    has: (t, k) => (seen.reads++, Reflect.has(t, k)),
    getOwnPropertyDescriptor: (t, k) => (seen.reads++, Reflect.getOwnPropertyDescriptor(t, k)),
    ownKeys: (t) => (seen.reads++, Reflect.ownKeys(t)),
  });
  return { metadata: proxy, seen };
};

describe("metadata and function matchers are decided per run, with the subject's chain cached", () => {
  const stack = newStack()
    .use("tool", { name: "prod-only", match: { all: ["Bash", { metadata: { env: "prod" } }] }, before: () => Reject("prod is read-only") })
    .use("tool", { name: "audit", match: "Bash", after: () => undefined });

  it("runs a metadata-matched hook only on the runs whose metadata matches, for the same subject", async () => {
    const outcomes: string[] = [];
    for (const env of ["prod", "dev", "prod", "dev", "dev", "prod"])
      outcomes.push((await stack.run("tool", call("Bash"), echo, { metadata: { env } }))._tag);
    expect(outcomes).toEqual(["Rejected", "Completed", "Rejected", "Completed", "Completed", "Rejected"]);
  });

  it("stays right after the subject cache forgot the subject (more subjects than it keeps)", async () => {
    for (let i = 0; i < 2100; i++) await stack.run("tool", call(`tool${i}`), echo, { metadata: { env: "prod" } });
    expect((await stack.run("tool", call("Bash"), echo, { metadata: { env: "dev" } }))._tag).toBe("Completed");
    expect((await stack.run("tool", call("Bash"), echo, { metadata: { env: "prod" } }))._tag).toBe("Rejected");
  });

  it("reads the metadata on every run of a chain with a metadata matcher", async () => {
    const { metadata, seen } = watched({ env: "dev" });
    // The first run also freezes the metadata (R9), which reads it once more; count from there.
    await stack.run("tool", call("Bash"), echo, { metadata });
    const frozen = seen.reads;
    await stack.run("tool", call("Bash"), echo, { metadata });
    const once = seen.reads - frozen;
    await stack.run("tool", call("Bash"), echo, { metadata });
    expect(once).toBeGreaterThan(0);
    expect(seen.reads - frozen).toBe(2 * once);
  });

  it("never reads the metadata for a subject whose chain has no per-run matcher", async () => {
    const { metadata, seen } = watched({ env: "prod" });
    // Read's chain holds no hook at all; a subject-only stack has no per-run test anywhere.
    await stack.run("tool", call("Read"), echo, { metadata });
    const named = newStack()
      .use("tool", { name: "bash", match: "Bash|Write", before: () => undefined })
      .use("tool", { name: "all", before: () => undefined });
    await named.run("tool", call("Bash"), echo, { metadata });
    await named.run("tool", call("Write"), echo, { metadata });
    expect(seen.reads).toBe(0);
  });

  it("asks a subject-only matcher once per subject and a per-run matcher on every run", async () => {
    const counted = (needsInput: boolean) => {
      const calls = { matchSubject: 0, test: 0 };
      const matcher = {
        source: needsInput ? "per-run" : "by-subject",
        all: false,
        needsInput,
        needsSubject: true,
        matchSubject: (s: string | undefined) => (calls.matchSubject++, s === "Bash"),
        test: (s: string | undefined) => (calls.test++, s === "Bash"),
      };
      return { matcher, calls };
    };
    const bySubject = counted(false);
    const perRun = counted(true);
    const s = newStack()
      .use("tool", { name: "a", match: bySubject.matcher, before: () => undefined })
      .use("tool", { name: "b", match: { all: [perRun.matcher, { metadata: { env: "prod" } }] }, before: () => undefined });
    await s.run("tool", call("Bash"), echo, { metadata: { env: "prod" } });
    const compiled = { bySubject: bySubject.calls.matchSubject, perRun: perRun.calls.matchSubject };
    for (let i = 0; i < 4; i++) await s.run("tool", call("Bash"), echo, { metadata: { env: "prod" } });
    // The subject checks were made when the chain was compiled, on the first run, and never again.
    expect(bySubject.calls).toEqual({ matchSubject: compiled.bySubject, test: 0 });
    expect(perRun.calls).toEqual({ matchSubject: compiled.perRun, test: 5 });
  });

  it("gives function matchers the run's metadata and the point's detail as a third argument", async () => {
    const seen: { metadata: unknown; detail: string | undefined }[] = [];
    const fn = (_s: string | undefined, _input: unknown, ctx: MatchContext) => (
      seen.push({ metadata: ctx.metadata, detail: ctx.detail }), ctx.metadata.tenant === "acme"
    );
    const s = newStack().use("tool", { name: "acme", match: fn, before: () => Reject("acme is paused") });
    expect((await s.run("tool", call("Bash", { command: "ls" }), echo, { metadata: { tenant: "acme" } }))._tag).toBe("Rejected");
    expect((await s.run("tool", call("Bash", { command: "pwd" }), echo, { metadata: { tenant: "other" } }))._tag).toBe("Completed");
    expect((await s.run("tool", call("Bash"), echo))._tag).toBe("Completed");
    expect(seen).toEqual([
      { metadata: { tenant: "acme" }, detail: "ls" },
      { metadata: { tenant: "other" }, detail: "pwd" },
      { metadata: {}, detail: undefined },
    ]);
  });

  it("computes the detail for a function matcher only when it reads it", async () => {
    let details = 0;
    const point = { tool: gate<{ name: string }, string>({ name: "tool", subject: (c) => c.name, detail: () => (details++, "x") }) };
    const s = createStack(point).use("tool", {
      name: "meta",
      match: (_s, _i, { metadata }) => metadata.on === true,
      before: () => undefined,
    });
    await s.run("tool", { name: "a" }, () => "ok", { metadata: { on: true } });
    expect(details).toBe(0);
  });

  it("is explained for the metadata explain is given", () => {
    const explained = (metadata?: Record<string, unknown>) =>
      stack.explain("tool", call("Bash"), metadata === undefined ? undefined : { metadata }).map((e) => [e.hook, e.matches]);
    expect(explained({ env: "prod" })).toEqual([
      ["prod-only", true],
      ["audit", true],
    ]);
    expect(explained({ env: "dev" })).toEqual([
      ["prod-only", false],
      ["audit", true],
    ]);
    expect(explained()).toEqual([
      ["prod-only", false],
      ["audit", true],
    ]);
  });

  it("applies observers by metadata per run", async () => {
    const seen: unknown[] = [];
    const s = newStack().use("tool", {
      name: "prod-log",
      match: { metadata: { env: "prod" } },
      observe: (e) => void seen.push(e.metadata.env),
    });
    for (const env of ["prod", "dev", "prod"]) await s.run("tool", call("Bash"), echo, { metadata: { env } });
    await s.flush();
    expect(seen).toEqual(["prod", "prod"]);
  });

  it("still tests a metadata matcher when the point's subject function throws", async () => {
    const point = {
      tool: gate<{ name: string }, string>({
        name: "tool",
        subject: () => {
          throw new Error("no subject");
        },
      }),
    };
    const s = createStack(point).use("tool", { name: "prod", match: { metadata: { env: "prod" } }, before: () => Reject("no") });
    expect((await s.run("tool", { name: "a" }, () => "ok", { metadata: { env: "dev" } }))._tag).toBe("Completed");
    expect((await s.run("tool", { name: "a" }, () => "ok", { metadata: { env: "prod" } }))._tag).toBe("Rejected");
  });

  it("treats metadata that throws when read as the hook's match failing (closed on a gate: the hook applies)", async () => {
    const s = newStack().use("tool", { name: "prod", match: { metadata: { env: "dev" } }, before: () => Reject("guarded") });
    const metadata = {
      get env(): never {
        throw new Error("unreadable");
      },
    };
    expect(await s.run("tool", call("Bash"), echo, { metadata })).toMatchObject({ _tag: "Rejected" });
    expect(s.stats.hookFailures).toBe(1);
  });

  it("treats a function matcher that throws as its hook's failure (closed on a gate: the hook applies)", async () => {
    const s = newStack().use("tool", {
      name: "broken",
      match: () => {
        throw new Error("boom");
      },
      before: () => Reject("guarded"),
    });
    const outcome = await s.run("tool", call("Bash"), echo);
    expect(outcome).toMatchObject({ _tag: "Rejected" });
    expect(s.stats.hookFailures).toBe(1);
  });
});
