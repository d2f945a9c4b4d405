import { describe, expect, it } from "vitest";
import { HookError, OutcomeRejectedError, Reject } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel, SessionRejectedError } from "../../src/agent/index.ts";

const model = () => createScriptedModel({ turns: ["x"] });

describe("a rejection that comes from a hook that failed closed", () => {
  for (const point of ["userPrompt", "run"] as const) {
    it(`reports the hook's error as the cause of a turn a ${point} hook refused by crashing, and none for a plain Reject`, async () => {
      const broken = createAgentStack().use(point, {
        name: "guard",
        before: () => {
          throw new Error("db down");
        },
      });
      const refusing = createAgentStack().use(point, { name: "guard", before: () => Reject("not allowed") });

      const crashed = await createAgent({ model: model(), stack: broken }).run("go");
      const refused = await createAgent({ model: model(), stack: refusing }).run("go");

      expect(crashed).toMatchObject({ status: "rejected", by: "guard" });
      expect(crashed.cause).toBeInstanceOf(HookError);
      expect(crashed.cause).toMatchObject({ hook: "guard", point, phase: "before" });
      expect(refused).toMatchObject({ status: "rejected", reason: "not allowed", by: "guard" });
      expect("cause" in refused).toBe(false);
    });
  }

  it("gives SessionRejectedError the error of a sessionStart hook that crashed as its cause", async () => {
    const stack = createAgentStack().use("sessionStart", {
      name: "guard",
      before: () => {
        throw new Error("db down");
      },
    });

    const error = await createAgent({ model: model(), stack })
      .session()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SessionRejectedError);
    expect((error as SessionRejectedError).cause).toBeInstanceOf(HookError);
    expect((error as SessionRejectedError).by).toBe("guard");
  });

  it("sends a step hook that failed closed to the error point as an OutcomeRejectedError with the hook's error as its cause", async () => {
    const seen: unknown[] = [];
    const stack = createAgentStack()
      .use("step", {
        name: "step-guard",
        failMode: "closed",
        before: () => {
          throw new Error("guard backend down");
        },
      })
      .use("error", { name: "see", before: (event) => void seen.push(event.error) });

    const turn = await createAgent({ model: model(), stack }).run("go");

    expect(turn.status).toBe("failed");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(OutcomeRejectedError);
    expect(seen[0]).toMatchObject({ by: "step-guard", cause: expect.any(HookError) });
    expect(turn.error).toBe(seen[0]);
  });
});
