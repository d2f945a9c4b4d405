import { describe, expect, it } from "vitest";
import { Transform } from "../../../src/core/action.ts";
import { RegistrationError } from "../../../src/core/errors.ts";
import { compileMatcher, createStack, observe, type Outcome } from "../../../src/core/index.ts";

interface Job {
  readonly kind: "fetch" | "parse";
  readonly fail?: boolean;
}
interface Done {
  readonly calls: number;
}

/** A point whose runs have a step type, read from the outcome (and, for a failure, the input). */
const points = {
  job: observe<Job, Done>({
    name: "job",
    subject: (j) => j.kind,
    stepType: (o: Outcome<Done>) =>
      o._tag === "Failed" ? "error" : o._tag === "Completed" ? (o.value.calls > 0 ? "tool" : "final") : undefined,
  }),
  plain: observe<Job, Done>({ name: "plain" }),
};

const run = (stack: ReturnType<typeof createStack<typeof points>>, calls: number | "fail", metadata?: Record<string, unknown>) =>
  stack.run(
    "job",
    { kind: "fetch" },
    () => {
      if (calls === "fail") throw new Error("broken");
      return { calls };
    },
    metadata === undefined ? undefined : { metadata },
  );

describe("a step-type matcher is decided once the run has ended", () => {
  it("runs after, recover and observe only for runs of the matching step types", async () => {
    const seen: string[] = [];
    const stack = createStack(points)
      .use("job", {
        name: "tools",
        match: { stepType: "tool" },
        after: () => void seen.push("after tool"),
        observe: () => void seen.push("observe tool"),
      })
      .use("job", { name: "answers", match: { stepType: ["final"] }, after: () => void seen.push("after final") })
      .use("job", {
        name: "failures",
        match: { stepType: "error" },
        recover: () => void seen.push("recover error"),
        observe: () => void seen.push("observe error"),
      });
    for (const calls of [2, 0, "fail"] as const) await run(stack, calls);
    await stack.flush();
    expect(seen).toEqual(["after tool", "after final", "recover error", "observe tool", "observe error"]);
  });

  it("sees the outcome the hook itself would see: after an inner hook transformed it", async () => {
    const seen: string[] = [];
    const stack = createStack(points)
      .use("job", { name: "outer", priority: 10, match: { stepType: "final" }, after: () => void seen.push("outer saw final") })
      .use("job", { name: "inner", priority: 20, after: () => Transform({ calls: 0 }) });
    await run(stack, 3);
    expect(seen).toEqual(["outer saw final"]);
  });

  it("combines with metadata and names in composites", async () => {
    const seen: unknown[] = [];
    const stack = createStack(points).use("job", {
      name: "prod-tools",
      match: { all: ["fetch", { stepType: "tool" }, { metadata: { env: "prod" } }] },
      after: (_o, _i, ctx) => void seen.push(ctx.metadata.env),
    });
    await run(stack, 1, { env: "prod" });
    await run(stack, 1, { env: "dev" });
    await run(stack, 0, { env: "prod" });
    expect(seen).toEqual(["prod"]);
  });

  it("matches no step type when the point reads none for the outcome, except under not", async () => {
    const seen: string[] = [];
    const stack = createStack({ job: observe<Job, Done>({ name: "job", stepType: () => undefined }) })
      .use("job", { name: "tools", match: { stepType: "tool" }, after: () => void seen.push("tool") })
      .use("job", { name: "not-tools", match: { not: { stepType: "tool" } }, after: () => void seen.push("not tool") });
    await stack.run("job", { kind: "fetch" }, () => ({ calls: 1 }));
    expect(seen).toEqual(["not tool"]);
  });

  it("treats a stepType reader that throws as the hook's match failing (open on an observe point: skipped, counted)", async () => {
    const seen: string[] = [];
    const stack = createStack({
      job: observe<Job, Done>({
        name: "job",
        stepType: () => {
          throw new Error("unreadable");
        },
      }),
    }).use("job", { name: "tools", match: { stepType: "tool" }, after: () => void seen.push("tool") });
    const outcome = await stack.run("job", { kind: "fetch" }, () => ({ calls: 1 }));
    expect(outcome._tag).toBe("Completed");
    expect(seen).toEqual([]);
    expect(stack.stats.hookFailures).toBe(1);
  });

  it("is shown by explain as applying when the rest of the match does (the step type is not known yet)", () => {
    const stack = createStack(points)
      .use("job", { name: "tools", match: { all: ["fetch", { stepType: "tool" }] }, after: () => undefined })
      .use("job", { name: "parse-tools", match: { all: ["parse", { stepType: "tool" }] }, after: () => undefined });
    expect(stack.explain("job", { kind: "fetch" }).map((e) => [e.hook, e.matches])).toEqual([
      ["tools", true],
      ["parse-tools", false],
    ]);
  });
});

describe("a step-type matcher is refused where it cannot be decided", () => {
  const refused = (register: () => unknown): RegistrationError => {
    try {
      register();
    } catch (error) {
      if (error instanceof RegistrationError) return error;
      throw error;
    }
    throw new Error("registration did not throw");
  };

  it("on a point without a step type, naming the path of the stepType", () => {
    const error = refused(() =>
      createStack(points).use("plain", { name: "t", match: { any: ["x", { stepType: "tool" }] }, after: () => undefined }),
    );
    expect(error).toMatchObject({ hook: "t", field: "match.any[1].stepType" });
    expect(error.message).toMatch(/point "plain" has none/);
  });

  it("on a point without a step type, when compiled beforehand with compileMatcher", () => {
    const compiled = compileMatcher({ stepType: "tool" }, "t");
    const error = refused(() => createStack(points).use("plain", { name: "t", match: compiled, after: () => undefined }));
    expect(error).toMatchObject({ hook: "t", field: "match" });
    expect(error.message).toMatch(/point "plain" has none/);
  });

  it.each(["before", "around", "onSettled"] as const)("on a hook with %s, which runs before the step type is known", (phase) => {
    const error = refused(() =>
      createStack(points).use("job", { name: "t", match: { stepType: "tool" }, after: () => undefined, [phase]: () => undefined }),
    );
    expect(error).toMatchObject({ hook: "t", field: "match" });
    expect(error.message).toMatch(new RegExp(`after, recover and observe only \\(it has ${phase}\\)`));
  });

  it("but accepts before and after given as lists of hook names", () => {
    const stack = createStack(points)
      .use("job", { name: "first", after: () => undefined })
      .use("job", { name: "t", match: { stepType: "tool" }, after: ["first"], recover: () => undefined });
    expect(stack.explain("job", { kind: "fetch" }).map((e) => e.hook)).toContain("t");
  });
});
