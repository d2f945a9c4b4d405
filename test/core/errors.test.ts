import { describe, expect, it } from "vitest";
import * as api from "../../src/index.ts";
import * as claude from "../../src/claude.ts";
import * as effect from "../../src/effect.ts";
import * as redis from "../../src/redis.ts";
import { describeGiven, isAgentOnionError } from "../../src/core/errors.ts";

/** The exported error classes (of the root and of the subpaths with names of their own), found by what they are rather than listed, so a new one is checked too. */
const errorClasses = (Object.entries({ ...api, ...claude, ...effect, ...redis }) as [string, unknown][]).filter(
  (entry): entry is [string, abstract new (...args: never[]) => Error] =>
    typeof entry[1] === "function" && entry[1].prototype instanceof Error,
);

describe("agent-onion's errors", () => {
  it("are found among the package's exports", () => {
    expect(errorClasses.map(([name]) => name)).toEqual(
      expect.arrayContaining(["HookError", "RejectOnObserveError", "OutcomeRejectedError", "SettingsError"]),
    );
  });

  it("are each recognised by isAgentOnionError, as its summary promises (whatever they extend)", () => {
    // An instance as its class makes it, without running a constructor that wants real arguments.
    const unbranded = errorClasses.filter(([, Class]) => !isAgentOnionError(Object.create(Class.prototype))).map(([name]) => name);
    expect(unbranded).toEqual([]);
  });
});

describe("Outcome.getOrThrow", () => {
  it("throws an OutcomeRejectedError whose cause is the hook failure behind a rejection, so a guard that broke stays told apart from one that said no", async () => {
    const broken = await api
      .createStack({ tool: api.gate<string, string>({ name: "tool" }) })
      .use("tool", {
        name: "guard",
        before: () => {
          throw new Error("db down");
        },
      })
      .run("tool", "x", (x) => x);
    const thrown = (() => {
      try {
        api.Outcome.getOrThrow(broken);
      } catch (error) {
        return error;
      }
    })() as api.OutcomeRejectedError;
    expect(thrown).toBeInstanceOf(api.OutcomeRejectedError);
    expect(thrown.by).toBe("guard");
    expect(thrown.cause).toBeInstanceOf(api.HookError);
    expect(String((thrown.cause as api.HookError).cause)).toContain("db down");
    const refused = await api
      .createStack({ tool: api.gate<string, string>({ name: "tool" }) })
      .use("tool", { name: "guard", before: () => api.Reject("no") })
      .run("tool", "x", (x) => x);
    expect(
      (() => {
        try {
          api.Outcome.getOrThrow(refused);
        } catch (error) {
          return (error as Error).cause;
        }
      })(),
    ).toBeUndefined();
  });
});

describe("describeGiven", () => {
  it("shows a string in quotes, so a refused name reads as the string it was", () => {
    expect(describeGiven("uppercase")).toBe('"uppercase"');
  });

  it("cuts a long string at 200 characters and says how long it was, so an error never repeats a huge value", () => {
    const shown = describeGiven("x".repeat(100_000));
    expect(shown).toBe(`"${"x".repeat(200)}"… (100000 characters)`);
  });

  it("shows a bigint with its n and anything else as describe does", () => {
    expect(describeGiven(10n)).toBe("10n");
    expect(describeGiven(undefined)).toBe("undefined");
    expect(describeGiven({ a: 1 })).toBe('{"a":1}');
  });
});
