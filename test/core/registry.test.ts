import { describe, expect, it } from "vitest";
import { Continue, Reject, createStack, gate } from "../../src/core/index.ts";
import { call, newStack } from "./helpers.ts";

const points = { tool: gate<{ name: string }, string>({ name: "tool", subject: (c) => c.name }) };

describe("chains per subject", () => {
  it("stay right for thousands of distinct subjects, before and after the least recent are forgotten", async () => {
    const stack = createStack(points)
      .use("tool", { name: "no-bash", match: "Bash", before: () => Reject("no bash") })
      .use("tool", { name: "no-tmp", match: "^tmp", before: () => Reject("no tmp") });
    const verdict = async (name: string) => (await stack.run("tool", { name }, () => "ran"))._tag;
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 3_000; i++) {
        expect(await verdict(`tool-${i}`)).toBe("Completed");
        if (i % 500 === 0) {
          expect(await verdict("Bash")).toBe("Rejected");
          expect(await verdict(`tmp-${i}`)).toBe("Rejected");
        }
      }
  });

  it("run a subject's hooks in R1 order after its chain was forgotten and made again", async () => {
    const seen: string[] = [];
    let stack = createStack(points);
    for (const [name, priority, match] of [
      ["c", 30, "Read"],
      ["a", 10, "*"],
      ["b", 20, "Read|Write"],
    ] as const)
      stack = stack.use("tool", { name, priority, match, before: () => void seen.push(name) });
    for (let i = 0; i < 2_500; i++) await stack.run("tool", { name: `other-${i}` }, () => "");
    seen.length = 0;
    await stack.run("tool", { name: "Read" }, () => "");
    expect(seen).toEqual(["a", "b", "c"]);
  });
});

describe("registration", () => {
  it("leaves a stack it was derived from as it was, when two stacks grow from it", async () => {
    const base = newStack().use("tool", { name: "a", before: () => Continue });
    const left = base.use("tool", { name: "l", before: () => Reject("left") });
    const right = base.use("tool", { name: "r", before: () => Reject("right") });
    const again = left.use("tool", { name: "r", before: () => Reject("left's r") });
    expect(base.explain("tool", call()).map((e) => e.hook)).toEqual(["a"]);
    expect(left.explain("tool", call()).map((e) => e.hook)).toEqual(["a", "l"]);
    expect(right.explain("tool", call()).map((e) => e.hook)).toEqual(["a", "r"]);
    expect(again.explain("tool", call()).map((e) => e.hook)).toEqual(["a", "l", "r"]);
    expect(await right.run("tool", call(), () => ({ content: "" }))).toMatchObject({ reason: "right" });
    expect(() => base.use("tool", { name: "l", before: () => Continue })).not.toThrow();
    expect(() => left.use("tool", { name: "l", before: () => Continue })).toThrow(/hook "l": name is already registered/);
  });
});
