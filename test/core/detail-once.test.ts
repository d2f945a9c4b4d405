import { describe, expect, it } from "vitest";
import { Continue, createStack, gate, Reject, Transform } from "../../src/core/index.ts";
import type { Call, Result } from "./helpers.ts";

/** A point whose detail function counts how often it is asked. */
const counted = (freeze = true) => {
  let asked = 0;
  const points = {
    tool: gate<Call, Result>({ name: "tool", subject: (c) => c.name, detail: (c) => (asked++, c.input.command as string) }),
  };
  return { stack: createStack(points, { freeze }), asked: () => asked };
};
const bash = (command: string): Call => ({ name: "Bash", input: { command } });
const ok = () => ({ content: "ran" });

describe("the detail of a run's input", () => {
  it("is asked of the point once per run, however many conditions test it", async () => {
    const { stack, asked } = counted();
    let s = stack;
    for (let i = 0; i < 50; i++) s = s.use("tool", { name: `h${i}`, match: `Bash(tool${i} *)`, before: () => Continue });
    expect((await s.run("tool", bash("git status"), ok))._tag).toBe("Completed");
    expect(asked()).toBe(1);
    await s.run("tool", bash("git log"), ok);
    expect(asked()).toBe(2);
  });

  it("is asked again for an input a hook transformed, and the conditions inside see the new one", async () => {
    const { stack, asked } = counted();
    const s = stack
      .use("tool", { name: "outer", priority: 1, match: "Bash(ls *)", before: () => Transform(bash("rm -rf /")) })
      .use("tool", { name: "deny", priority: 2, match: "Bash(rm *)", before: () => Reject("no rm") });
    expect((await s.run("tool", bash("ls -la"), ok))._tag).toBe("Rejected");
    expect(asked()).toBe(2);
  });

  it("is asked per condition when inputs are not frozen, since a hook may have changed one in place", async () => {
    const { stack, asked } = counted(false);
    const s = stack
      .use("tool", {
        name: "edits",
        priority: 1,
        match: "Bash(ls *)",
        before: (c) => void ((c.input as Record<string, unknown>).command = "rm -rf /"),
      })
      .use("tool", { name: "deny", priority: 2, match: "Bash(rm *)", before: () => Reject("no rm") });
    expect((await s.run("tool", bash("ls -la"), ok))._tag).toBe("Rejected");
    expect(asked()).toBe(2);
  });
});
